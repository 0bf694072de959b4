//! Checking a turn's answer against the format it asked for ([`ResponseFormat`]): the
//! text must be one JSON value (white space and one Markdown code fence around it
//! allowed, as models write it) that fits the format's schema. What is wrong comes back
//! as the first problem's place in the value (a JSON pointer, `/items/0/name`) and a
//! description a person and the model both read — the model's repair round is told it.

use parley_protocol::output::ResponseFormat;
use serde_json::Value;

use crate::payloads::schema_problems;

/// A format, its schema compiled once for the turn.
pub struct Checker {
    validator: jsonschema::Validator,
}

/// Why an answer does not fit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", describe(.path, .message))]
pub struct Misfit {
    /// Where in the value (a JSON pointer; empty: the value itself or its text).
    pub path: String,
    pub message: String,
}

fn describe(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_owned()
    } else {
        format!("at `{path}`: {message}")
    }
}

impl Checker {
    /// The checker of `format`; `Err` says why its schema is no schema.
    pub fn new(format: &ResponseFormat) -> Result<Self, String> {
        if let Some(problem) = format.problem() {
            return Err(problem);
        }
        jsonschema::validator_for(&format.schema())
            .map(|validator| Self { validator })
            .map_err(|err| format!("`schema` is not a JSON schema: {err}"))
    }

    /// The answer's value when it fits.
    pub fn check(&self, answer: &str) -> Result<Value, Misfit> {
        let text = unfenced(answer);
        let value: Value = serde_json::from_str(text).map_err(|err| Misfit {
            path: String::new(),
            message: format!("the answer is not one JSON value ({err})"),
        })?;
        if self.validator.is_valid(&value) {
            return Ok(value);
        }
        let first = self.validator.iter_errors(&value).next();
        let path = first
            .as_ref()
            .map(|err| err.instance_path().to_string())
            .unwrap_or_default();
        let message = schema_problems(&self.validator, &value).unwrap_or_default();
        Err(Misfit { path, message })
    }
}

/// The text inside one code fence around the whole answer (```json … ```), else the
/// answer, trimmed.
fn unfenced(answer: &str) -> &str {
    let trimmed = answer.trim();
    let Some(rest) = trimmed.strip_prefix("```") else {
        return trimmed;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return trimmed;
    };
    // The fence's info string (`json`) ends its first line.
    body.split_once('\n')
        .map_or(body, |(_, inner)| inner)
        .trim()
}

#[cfg(test)]
mod tests;
