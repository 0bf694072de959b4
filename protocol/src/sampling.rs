//! What a request asks of the model's sampling ([`Sampling`]: OpenAI's `temperature`,
//! `top_p`, the max-token fields, `stop`, `seed`, the penalties) and the bounds a chat
//! tool sets on it ([`SamplingBounds`]: a tutor may fix its temperature or cap its
//! answers' length).
//!
//! The api reads a request's values, checks them against the session's bounds (a value
//! outside them is refused 400 or clamped, as the tool says) and records the effective
//! values with the turn ([`crate::turn::TurnInput::sampling`]); the worker applies the
//! bounds again (clamping: the same values, and the tool's fixed ones for turns that
//! asked nothing) and sends them with every model call of the turn.

use serde::{Deserialize, Serialize};

use crate::events::shared_enum;

/// The most stop sequences a request may give (OpenAI's limit).
pub const MAX_STOP_SEQUENCES: usize = 4;

/// The sampling parameters of one turn; absent ones are the provider's defaults.
///
/// Values come from JSON, which has no NaN, and are checked against OpenAI's ranges
/// ([`Sampling::check`]), so equality is total (`Eq`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sampling {
    /// The most tokens the answer may have (each model call's `max_tokens`, below the
    /// model's own limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    /// Sequences where the model stops (not shown).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<f64>,
}

impl Eq for Sampling {}

/// One of a request's sampling values that cannot be used: its parameter's name and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{param}: {reason}")]
pub struct Refused {
    /// The parameter, as the request named it (`temperature`, `max_output_tokens`…).
    pub param: &'static str,
    pub reason: String,
}

/// The ranges OpenAI documents for its sampling parameters.
pub const TEMPERATURE: (f64, f64) = (0.0, 2.0);
pub const TOP_P: (f64, f64) = (0.0, 1.0);
pub const PENALTY: (f64, f64) = (-2.0, 2.0);

/// The decimal parameters, by OpenAI's name, with their ranges — in the order of
/// [`Sampling::decimals`] and [`SamplingBounds::decimals`].
pub const DECIMALS: [(&str, (f64, f64)); 4] = [
    ("temperature", TEMPERATURE),
    ("top_p", TOP_P),
    ("presence_penalty", PENALTY),
    ("frequency_penalty", PENALTY),
];

impl Sampling {
    /// Whether nothing is asked.
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }

    /// The decimal parameters' values, in [`DECIMALS`]' order.
    pub fn decimals(&self) -> [Option<f64>; 4] {
        [
            self.temperature,
            self.top_p,
            self.presence_penalty,
            self.frequency_penalty,
        ]
    }

    fn decimals_mut(&mut self) -> [&mut Option<f64>; 4] {
        [
            &mut self.temperature,
            &mut self.top_p,
            &mut self.presence_penalty,
            &mut self.frequency_penalty,
        ]
    }

    /// The first value outside OpenAI's documented ranges: `temperature` 0–2, `top_p`
    /// 0–1, the penalties −2–2, at least one output token, at most four stop sequences,
    /// none of them empty.
    pub fn check(&self) -> Result<(), Refused> {
        for ((param, (min, max)), value) in DECIMALS.into_iter().zip(self.decimals()) {
            if let Some(value) = value
                && !(min..=max).contains(&value)
            {
                return Err(Refused {
                    param,
                    reason: format!("must be between {min} and {max}, not {value}"),
                });
            }
        }
        if self.max_output_tokens == Some(0) {
            return Err(Refused {
                param: "max_output_tokens",
                reason: "must be at least 1".into(),
            });
        }
        if self.stop.len() > MAX_STOP_SEQUENCES {
            return Err(Refused {
                param: "stop",
                reason: format!("at most {MAX_STOP_SEQUENCES} sequences"),
            });
        }
        if self.stop.iter().any(String::is_empty) {
            return Err(Refused {
                param: "stop",
                reason: "a stop sequence may not be empty".into(),
            });
        }
        Ok(())
    }
}

shared_enum! {
    /// What happens to a request's value outside a tool's bounds.
    pub enum OutOfBounds {
        /// It is brought to the nearest bound (a fixed value replaces it).
        Clamp = "clamp",
        /// The request is refused, 400 naming the parameter.
        Refuse = "refuse",
    }
}

/// A tool's bounds on one sampling value: fixed, or within a range.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(
    feature = "openapi",
    oai(deny_unknown_fields, skip_serializing_if_is_none)
)]
pub struct Bound {
    /// The value every call uses, whatever the request asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed: Option<f64>,
    /// The least a request may ask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// The most a request may ask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
}

impl Eq for Bound {}

impl Bound {
    /// `value` within this bound: `Err` with the reason when it is outside and the
    /// bound refuses, the nearest value inside when it clamps; a fixed value whatever
    /// was asked (nothing asked: the fixed value, else nothing).
    fn apply(&self, value: Option<f64>, mode: OutOfBounds) -> Result<Option<f64>, String> {
        if let Some(fixed) = self.fixed {
            return match value {
                Some(asked) if asked != fixed && mode == OutOfBounds::Refuse => {
                    Err(format!("this tool fixes it at {fixed}, not {asked}"))
                }
                _ => Ok(Some(fixed)),
            };
        }
        let Some(value) = value else { return Ok(None) };
        let low = self.min.filter(|min| value < *min);
        let high = self.max.filter(|max| value > *max);
        match (low.or(high), mode) {
            (None, _) => Ok(Some(value)),
            (Some(_), OutOfBounds::Refuse) => {
                Err(format!("this tool allows {}, not {value}", self.describe()))
            }
            (Some(nearest), OutOfBounds::Clamp) => Ok(Some(nearest)),
        }
    }

    fn describe(&self) -> String {
        match (self.min, self.max) {
            (Some(min), Some(max)) => format!("{min} to {max}"),
            (Some(min), None) => format!("at least {min}"),
            (None, Some(max)) => format!("at most {max}"),
            (None, None) => "any value".into(),
        }
    }

    /// A bound that cannot hold: a fixed value beside a range, a minimum above the
    /// maximum, or a value outside the parameter's own range.
    fn problem(&self, (low, high): (f64, f64)) -> Option<String> {
        let values = [self.fixed, self.min, self.max];
        if values.iter().flatten().any(|v| !(low..=high).contains(v)) {
            return Some(format!("values must be between {low} and {high}"));
        }
        if self.fixed.is_some() && (self.min.is_some() || self.max.is_some()) {
            return Some("give `fixed` or a range, not both".into());
        }
        if let (Some(min), Some(max)) = (self.min, self.max)
            && min > max
        {
            return Some("`min` is above `max`".into());
        }
        None
    }
}

/// The bounds a chat tool sets on its turns' sampling (`ToolDefinition::sampling`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(
    feature = "openapi",
    oai(deny_unknown_fields, skip_serializing_if_is_none)
)]
pub struct SamplingBounds {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<Bound>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<Bound>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence_penalty: Option<Bound>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frequency_penalty: Option<Bound>,
    /// The most tokens an answer may have (below the model's own limit); a request
    /// asking more is clamped or refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", oai(validator(minimum(value = "1"))))]
    pub max_output_tokens: Option<u32>,
    /// What happens to a request's value outside these bounds (default `clamp`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_of_bounds: Option<OutOfBounds>,
}

impl SamplingBounds {
    /// What happens to a value outside the bounds.
    pub fn mode(&self) -> OutOfBounds {
        self.out_of_bounds.unwrap_or(OutOfBounds::Clamp)
    }

    /// The bounds of the decimal parameters, in [`DECIMALS`]' order.
    fn decimals(&self) -> [Option<Bound>; 4] {
        [
            self.temperature,
            self.top_p,
            self.presence_penalty,
            self.frequency_penalty,
        ]
    }

    /// The bounds that cannot hold, named by parameter (checked when a tool is saved).
    pub fn problem(&self) -> Option<Refused> {
        DECIMALS
            .into_iter()
            .zip(self.decimals())
            .find_map(|((param, range), bound)| {
                bound
                    .and_then(|bound| bound.problem(range))
                    .map(|reason| Refused { param, reason })
            })
    }

    /// `asked` within these bounds, in `mode`: the values a turn's model calls use.
    pub fn apply(&self, asked: &Sampling, mode: OutOfBounds) -> Result<Sampling, Refused> {
        let mut out = asked.clone();
        let fields = DECIMALS
            .into_iter()
            .zip(self.decimals())
            .zip(out.decimals_mut());
        for (((param, _), bound), value) in fields {
            if let Some(bound) = bound {
                *value = bound
                    .apply(*value, mode)
                    .map_err(|reason| Refused { param, reason })?;
            }
        }
        if let Some(cap) = self.max_output_tokens {
            out.max_output_tokens = match asked.max_output_tokens {
                Some(asked) if asked > cap && mode == OutOfBounds::Refuse => {
                    return Err(Refused {
                        param: "max_output_tokens",
                        reason: format!("this tool allows at most {cap}, not {asked}"),
                    });
                }
                Some(asked) => Some(asked.min(cap)),
                None => Some(cap),
            };
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
