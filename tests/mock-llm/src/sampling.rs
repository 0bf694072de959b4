//! The sampling parameters of a request, refused as each provider refuses them and
//! honoured where a client can see it: the answer stops at a stop sequence (not shown)
//! and at the token limit (OpenAI: `finish_reason: "length"`, Anthropic: `stop_reason:
//! "max_tokens"`).
//!
//! OpenAI (chat completions): `temperature` 0–2, `top_p` 0–1, `presence_penalty` and
//! `frequency_penalty` −2–2, `stop` a string or up to 4 strings, `seed` an integer,
//! `max_tokens` / `max_completion_tokens` at least 1. Anthropic (Messages): `temperature`
//! and `top_p` 0–1 and not both (recent models refuse both), with extended thinking
//! `temperature` only 1 and `top_p` at least 0.95, `stop_sequences` a list of strings,
//! and none of OpenAI's other options (`presence_penalty`, `frequency_penalty`, `seed`,
//! `stop`: "Extra inputs are not permitted").

use serde_json::Value;

/// The parameter at fault and OpenAI's message for it.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub param: &'static str,
    pub message: String,
}

fn number(body: &Value, param: &'static str, min: f64, max: f64) -> Result<(), Refusal> {
    let value = &body[param];
    if value.is_null() {
        return Ok(());
    }
    let Some(n) = value.as_f64() else {
        return Err(Refusal {
            param,
            message: format!("Invalid type for '{param}': expected a decimal, but got {value}."),
        });
    };
    let message = if n > max {
        format!(
            "Invalid '{param}': decimal above maximum value. Expected a value <= {max}, but got {n} instead."
        )
    } else if n < min {
        format!(
            "Invalid '{param}': decimal below minimum value. Expected a value >= {min}, but got {n} instead."
        )
    } else {
        return Ok(());
    };
    Err(Refusal { param, message })
}

/// The stop sequences of a chat completion request, or why they are refused.
pub(crate) fn openai(body: &Value) -> Result<Vec<String>, Refusal> {
    number(body, "temperature", 0.0, 2.0)?;
    number(body, "top_p", 0.0, 1.0)?;
    number(body, "presence_penalty", -2.0, 2.0)?;
    number(body, "frequency_penalty", -2.0, 2.0)?;
    for param in ["max_tokens", "max_completion_tokens"] {
        let value = &body[param];
        if !value.is_null() && value.as_u64().is_none_or(|n| n < 1) {
            return Err(Refusal {
                param,
                message: format!(
                    "Invalid '{param}': integer below minimum value. Expected a value >= 1, but got {value} instead."
                ),
            });
        }
    }
    if !body["seed"].is_null() && body["seed"].as_i64().is_none() {
        return Err(Refusal {
            param: "seed",
            message: "Invalid type for 'seed': expected an integer.".into(),
        });
    }
    let stop = match &body["stop"] {
        Value::Null => Vec::new(),
        Value::String(one) => vec![one.clone()],
        Value::Array(many) if many.len() <= 4 && many.iter().all(Value::is_string) => many
            .iter()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect(),
        Value::Array(many) if many.len() > 4 => {
            return Err(Refusal {
                param: "stop",
                message: format!(
                    "Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length {} instead.",
                    many.len()
                ),
            });
        }
        _ => {
            return Err(Refusal {
                param: "stop",
                message: "Invalid type for 'stop': expected a string or an array of strings."
                    .into(),
            });
        }
    };
    Ok(stop)
}

/// The stop sequences of a Messages request, or Anthropic's message refusing it.
pub(crate) fn anthropic(body: &Value) -> Result<Vec<String>, String> {
    for extra in ["presence_penalty", "frequency_penalty", "seed", "stop"] {
        if body.get(extra).is_some() {
            return Err(format!("{extra}: Extra inputs are not permitted"));
        }
    }
    for param in ["temperature", "top_p"] {
        number(body, param, 0.0, 1.0).map_err(|_| {
            format!("{param}: Input should be less than or equal to 1 and at least 0")
        })?;
    }
    let (temperature, top_p) = (body["temperature"].as_f64(), body["top_p"].as_f64());
    if temperature.is_some() && top_p.is_some() {
        return Err(
            "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
                .into(),
        );
    }
    match &body["stop_sequences"] {
        Value::Null => Ok(Vec::new()),
        Value::Array(list) if list.iter().all(Value::is_string) => Ok(list
            .iter()
            .filter_map(|s| s.as_str().map(str::to_owned))
            .collect()),
        _ => Err("stop_sequences: Input should be a valid list of strings".into()),
    }
}

/// Cuts `content` (tokens) before the first of `stops` its text holds; the sequence
/// found, if any (it is not sent, like a real model's).
pub(crate) fn cut_at_stop(content: &mut Vec<String>, stops: &[String]) -> Option<String> {
    let text = content.concat();
    let (at, stop) = stops
        .iter()
        .filter_map(|stop| text.find(stop.as_str()).map(|at| (at, stop)))
        .min_by_key(|(at, _)| *at)?;
    let mut kept = Vec::new();
    let mut start = 0;
    for token in content.drain(..) {
        let end = start + token.len();
        if end <= at {
            kept.push(token);
        } else {
            if start < at {
                kept.push(token[..at - start].to_owned());
            }
            break;
        }
        start = end;
    }
    *content = kept;
    Some(stop.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_answer_stops_before_the_first_stop_sequence() {
        let mut content = tokens(&["one", " two", " three", " four"]);
        let stops = vec!["four".to_owned(), "hre".to_owned()];
        assert_eq!(cut_at_stop(&mut content, &stops).as_deref(), Some("hre"));
        assert_eq!(content, tokens(&["one", " two", " t"]));
        let mut untouched = tokens(&["a", " b"]);
        assert_eq!(cut_at_stop(&mut untouched, &stops), None);
        assert_eq!(untouched, tokens(&["a", " b"]));
    }

    #[test]
    fn out_of_range_values_are_refused_naming_them() {
        let refused = openai(&serde_json::json!({"temperature": 2.5}))
            .err()
            .unwrap();
        assert_eq!(refused.param, "temperature");
        assert!(refused.message.contains("<= 2"), "{}", refused.message);
        let stops = openai(&serde_json::json!({"stop": ["a", "b", "c", "d", "e"]}));
        assert_eq!(stops.err().unwrap().param, "stop");
        assert_eq!(
            openai(&serde_json::json!({"stop": "END", "seed": 3})).ok(),
            Some(vec!["END".to_owned()])
        );
        assert!(anthropic(&serde_json::json!({"temperature": 0.5, "top_p": 0.9})).is_err());
        assert!(anthropic(&serde_json::json!({"seed": 1})).is_err());
        assert!(anthropic(&serde_json::json!({"temperature": 1.5})).is_err());
        assert!(anthropic(&serde_json::json!({"temperature": 0.5})).is_ok());
        assert_eq!(
            anthropic(&serde_json::json!({"stop_sequences": ["x"]})).ok(),
            Some(vec!["x".to_owned()])
        );
    }
}
