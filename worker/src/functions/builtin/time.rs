//! `getCurrentTime`: the current time in an IANA time zone.

use async_trait::async_trait;
use chrono::Utc;
use chrono_tz::Tz;
use parley_service::FunctionSpec;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::functions::{CallContext, Function, FunctionError, Progress};

/// `getCurrentTime`'s arguments (its schema below).
#[derive(Deserialize)]
struct Args {
    time_zone: Option<String>,
}

pub struct CurrentTime {
    spec: FunctionSpec,
}

impl CurrentTime {
    pub fn new() -> Self {
        Self {
            spec: super::spec(
                "getCurrentTime",
                "The current date and time in a time zone.",
                json!({
                    "type": "object",
                    "properties": {
                        "time_zone": {
                            "type": "string",
                            "description": "An IANA time zone such as Europe/Paris (default UTC).",
                            "maxLength": 64
                        }
                    },
                    "additionalProperties": false
                }),
                &[],
            ),
        }
    }
}

#[async_trait]
impl Function for CurrentTime {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }

    async fn call(
        &self,
        _ctx: &CallContext,
        args: Value,
        _progress: &Progress,
    ) -> Result<Value, FunctionError> {
        let Args { time_zone } = super::arguments(args)?;
        let name = time_zone.as_deref().unwrap_or("UTC");
        let zone: Tz = name.parse().map_err(|_| {
            FunctionError::Invalid(format!(
                "`{name}` is not an IANA time zone (e.g. Europe/Paris)"
            ))
        })?;
        let now = Utc::now().with_timezone(&zone);
        Ok(json!({
            "time_zone": zone.name(),
            "local_time": now.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
            "weekday": now.format("%A").to_string(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_iana_names() {
        assert!("Europe/Paris".parse::<Tz>().is_ok());
        assert!("Mars/Olympus".parse::<Tz>().is_err());
    }
}
