//! A request's `tool_choice` and `parallel_tool_calls` (chat completions), refused as
//! OpenAI refuses them and honoured in the reply: `required` makes the model call (the
//! directive's calls, or the first function offered with `{}`), a named function makes
//! it call that one, `none` makes it call nothing, and `parallel_tool_calls: false`
//! keeps only the first call.

use serde_json::Value;

use crate::directive::ToolCallSpec;
use crate::reply::Reply;
use crate::sampling::Refusal;

/// What the request asks of the reply's calls.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Choice {
    pub forced: Forced,
    pub parallel: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) enum Forced {
    #[default]
    Auto,
    None,
    Required,
    Function(String),
}

fn names(body: &Value) -> Vec<&str> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().or(t["name"].as_str()))
                .collect()
        })
        .unwrap_or_default()
}

/// Reads (and checks) the request's choice.
pub(crate) fn openai(body: &Value) -> Result<Choice, Refusal> {
    let offered = names(body);
    let present = |param: &str| !body[param].is_null();
    for param in ["tool_choice", "parallel_tool_calls"] {
        if present(param) && offered.is_empty() {
            return Err(Refusal {
                param,
                message: format!(
                    "Invalid value for '{param}': '{param}' is only allowed when 'tools' are specified."
                ),
            });
        }
    }
    let forced = match &body["tool_choice"] {
        Value::Null => Forced::Auto,
        Value::String(s) if s == "auto" => Forced::Auto,
        Value::String(s) if s == "none" => Forced::None,
        Value::String(s) if s == "required" => Forced::Required,
        Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("function") => {
            let name = o
                .get("function")
                .and_then(|f| f.get("name"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            if !offered.contains(&name) {
                return Err(Refusal {
                    param: "tool_choice",
                    message: format!(
                        "Invalid value for 'tool_choice': function '{name}' is not one of the 'tools'."
                    ),
                });
            }
            Forced::Function(name.to_owned())
        }
        other => {
            return Err(Refusal {
                param: "tool_choice",
                message: format!(
                    "Invalid value for 'tool_choice': {other} is not 'none', 'auto', 'required' or a function."
                ),
            });
        }
    };
    let parallel = match &body["parallel_tool_calls"] {
        Value::Null => true,
        Value::Bool(b) => *b,
        other => {
            return Err(Refusal {
                param: "parallel_tool_calls",
                message: format!(
                    "Invalid type for 'parallel_tool_calls': expected a boolean, but got {other}."
                ),
            });
        }
    };
    Ok(Choice { forced, parallel })
}

/// Reads (and checks) an Anthropic request's `tool_choice` (`auto`, `any`, `tool` with
/// `name`, `none`; `disable_parallel_tool_use`), refused as Anthropic refuses it: without
/// `tools` or naming no tool (a forced call beside extended thinking is refused with the
/// thinking settings, `anthropic::request`).
pub(crate) fn anthropic(body: &Value) -> Result<Choice, String> {
    let choice = &body["tool_choice"];
    if choice.is_null() {
        return Ok(Choice {
            forced: Forced::Auto,
            parallel: true,
        });
    }
    let offered = names(body);
    if offered.is_empty() {
        return Err("tool_choice: tool_choice may only be specified while providing tools".into());
    }
    let forced = match choice["type"].as_str() {
        Some("auto") => Forced::Auto,
        Some("none") => Forced::None,
        Some("any") => Forced::Required,
        Some("tool") => {
            let name = choice["name"].as_str().unwrap_or_default();
            if !offered.contains(&name) {
                return Err(format!(
                    "tool_choice.name: tool '{name}' not found in tools"
                ));
            }
            Forced::Function(name.to_owned())
        }
        _ => {
            return Err(
                "tool_choice: Input tag does not match any of the expected tags: 'auto', 'any', 'tool', 'none'".into(),
            );
        }
    };
    let parallel = match &choice["disable_parallel_tool_use"] {
        Value::Null => true,
        Value::Bool(disabled) => !disabled,
        _ => {
            return Err(
                "tool_choice.disable_parallel_tool_use: Input should be a valid boolean".into(),
            );
        }
    };
    Ok(Choice { forced, parallel })
}

/// Makes `reply`'s calls what `choice` asks (the first function of `body`'s `tools` when
/// a call is required and the directive names none).
pub(crate) fn apply(choice: &Choice, body: &Value, reply: &mut Reply) {
    let call = |name: &str| ToolCallSpec {
        name: name.to_owned(),
        arguments: "{}".into(),
    };
    match &choice.forced {
        Forced::Auto => {}
        Forced::None => {
            if !reply.tool_calls.is_empty() {
                reply.tool_calls.clear();
                if reply.content.is_empty() {
                    reply.content = vec!["No".into(), " call.".into()];
                }
            }
        }
        Forced::Required => {
            if reply.tool_calls.is_empty()
                && let Some(first) = names(body).first()
            {
                reply.tool_calls.push(call(first));
            }
        }
        Forced::Function(name) => {
            reply.tool_calls.retain(|c| &c.name == name);
            if reply.tool_calls.is_empty() {
                reply.tool_calls.push(call(name));
            }
        }
    }
    if !choice.parallel {
        reply.tool_calls.truncate(1);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tools() -> Value {
        json!([{"type": "function", "function": {"name": "lookup"}}, {"type": "function", "function": {"name": "add"}}])
    }

    #[test]
    fn a_choice_without_tools_or_of_no_offered_function_is_refused() {
        let refused = openai(&json!({"tool_choice": "required"})).unwrap_err();
        assert_eq!(refused.param, "tool_choice");
        let refused = openai(&json!({"parallel_tool_calls": false})).unwrap_err();
        assert_eq!(refused.param, "parallel_tool_calls");
        let named = json!({"type": "function", "function": {"name": "nope"}});
        assert!(openai(&json!({"tools": tools(), "tool_choice": named})).is_err());
        assert!(openai(&json!({"tools": tools(), "tool_choice": "always"})).is_err());
    }

    #[test]
    fn anthropic_reads_any_tool_and_serial_calls_and_refuses_a_tool_it_was_not_given() {
        let tools = json!([{"name": "lookup", "input_schema": {"type": "object"}}]);
        let any = json!({"tools": tools, "tool_choice": {"type": "any"}});
        assert_eq!(anthropic(&any).unwrap().forced, Forced::Required);
        let auto = json!({"tools": tools, "tool_choice": {"type": "auto", "disable_parallel_tool_use": true}});
        assert!(!anthropic(&auto).unwrap().parallel);
        let named = json!({"tools": tools, "tool_choice": {"type": "tool", "name": "add"}});
        assert!(anthropic(&named).is_err());
        assert!(anthropic(&json!({"tool_choice": {"type": "auto"}})).is_err());
    }

    #[test]
    fn a_forced_choice_makes_the_call_and_serial_calls_keep_the_first() {
        let body =
            json!({"tools": tools(), "tool_choice": "required", "parallel_tool_calls": false});
        let choice = openai(&body).unwrap();
        let mut reply = Reply::default();
        apply(&choice, &body, &mut reply);
        assert_eq!(reply.tool_calls.len(), 1);
        assert_eq!(reply.tool_calls[0].name, "lookup");

        let body = json!({"tools": tools(), "tool_choice": {"type": "function", "function": {"name": "add"}}});
        let choice = openai(&body).unwrap();
        let mut reply = Reply {
            tool_calls: vec![
                ToolCallSpec {
                    name: "lookup".into(),
                    arguments: "{}".into(),
                },
                ToolCallSpec {
                    name: "add".into(),
                    arguments: "{\"a\":1}".into(),
                },
            ],
            ..Reply::default()
        };
        apply(&choice, &body, &mut reply);
        assert_eq!(reply.tool_calls.len(), 1);
        assert_eq!(reply.tool_calls[0].arguments, "{\"a\":1}");

        let body = json!({"tools": tools(), "parallel_tool_calls": false});
        let choice = openai(&body).unwrap();
        let mut reply = Reply {
            tool_calls: vec![
                ToolCallSpec {
                    name: "lookup".into(),
                    arguments: "{}".into(),
                },
                ToolCallSpec {
                    name: "add".into(),
                    arguments: "{}".into(),
                },
            ],
            ..Reply::default()
        };
        apply(&choice, &body, &mut reply);
        assert_eq!(reply.tool_calls.len(), 1);
    }
}
