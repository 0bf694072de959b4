//! Structured outputs: a request that asks for JSON — OpenAI's `response_format`
//! (`json_object`, or `json_schema` with its `schema`), Anthropic's
//! `output_config.format` (`json_schema`) — is answered with a JSON value, unless a
//! directive says what to answer (`reply=`, `tokens=`: a test of a model that answers
//! badly) or the model answers in words whatever it is asked (`MockConfig::text_only`).
//! The value is built from the schema: each property (required or not) with a value of
//! its type, the first of an `enum`, a `const`, the first alternative of `anyOf` /
//! `oneOf`, an array of one item. The format is checked as each provider checks it:
//! OpenAI wants `json_schema.name` and an object `schema`; Anthropic an object schema
//! whose objects all say `additionalProperties: false`.

use serde_json::{Map, Value, json};

/// What a request asks its answer to be.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Format {
    /// Any JSON object.
    Object,
    /// A value of this schema.
    Schema(Value),
}

/// The format of a chat completion request (`response_format`), or OpenAI's refusal.
pub(crate) fn openai(body: &Value) -> Result<Option<Format>, String> {
    let format = &body["response_format"];
    match format["type"].as_str() {
        None if format.is_null() => Ok(None),
        Some("text") => Ok(None),
        Some("json_object") => Ok(Some(Format::Object)),
        Some("json_schema") => {
            let spec = &format["json_schema"];
            if spec["name"].as_str().is_none_or(str::is_empty) {
                return Err(
                    "Missing required parameter: 'response_format.json_schema.name'.".into(),
                );
            }
            match &spec["schema"] {
                schema @ Value::Object(_) => Ok(Some(Format::Schema(schema.clone()))),
                Value::Null => Ok(Some(Format::Object)),
                _ => Err(
                    "Invalid type for 'response_format.json_schema.schema': expected an object."
                        .into(),
                ),
            }
        }
        _ => Err(format!(
            "Invalid value: '{}'. Supported values are: 'text', 'json_object', and 'json_schema'.",
            format["type"]
        )),
    }
}

/// The format of a Messages request (`output_config.format`), or Anthropic's refusal.
pub(crate) fn anthropic(body: &Value) -> Result<Option<Format>, String> {
    let format = &body["output_config"]["format"];
    if format.is_null() {
        return Ok(None);
    }
    if format["type"] != "json_schema" {
        return Err("output_config.format.type: Input should be 'json_schema'".into());
    }
    let schema = &format["schema"];
    if schema["type"] != "object" {
        return Err("output_config.format.schema: the schema's root must be an object".into());
    }
    closed(schema, "output_config.format.schema")?;
    Ok(Some(Format::Schema(schema.clone())))
}

/// Anthropic's rule: every object schema says `additionalProperties: false`.
fn closed(schema: &Value, path: &str) -> Result<(), String> {
    let Value::Object(map) = schema else {
        return Ok(());
    };
    if map.get("type").and_then(Value::as_str) == Some("object")
        && map.get("additionalProperties") != Some(&Value::Bool(false))
    {
        return Err(format!(
            "{path}: For 'object' type, 'additionalProperties' must be explicitly set to false"
        ));
    }
    for (key, value) in map {
        match (key.as_str(), value) {
            ("properties" | "$defs" | "definitions", Value::Object(children)) => {
                for (name, child) in children {
                    closed(child, &format!("{path}.{key}.{name}"))?;
                }
            }
            ("items", child) => closed(child, &format!("{path}.items"))?,
            ("anyOf" | "oneOf" | "allOf", Value::Array(children)) => {
                for (i, child) in children.iter().enumerate() {
                    closed(child, &format!("{path}.{key}.{i}"))?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Whether the reply is the format's value: the directive says nothing of the words
/// (`reply=`, `tokens=`) and the reply makes no calls.
pub(crate) fn answers(
    directive: &crate::directive::Directive,
    reply: &crate::reply::Reply,
) -> bool {
    directive.reply.is_none() && directive.tokens.is_none() && reply.tool_calls.is_empty()
}

/// A value that fits `format`.
pub(crate) fn answer(format: &Format) -> Value {
    match format {
        Format::Object => json!({"answer": "mock"}),
        Format::Schema(schema) => instance(schema, schema, 0),
    }
}

/// A value of `schema` (`root` resolves `#/$defs/…` references).
fn instance(schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > 16 {
        return Value::Null;
    }
    if let Some(reference) = schema["$ref"].as_str() {
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
            .unwrap_or(&Value::Null);
        return instance(target, root, depth + 1);
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    for alternatives in ["anyOf", "oneOf"] {
        if let Some(first) = schema[alternatives].as_array().and_then(|a| a.first()) {
            return instance(first, root, depth + 1);
        }
    }
    let kind = match &schema["type"] {
        Value::String(kind) => kind.as_str(),
        Value::Array(kinds) => kinds.iter().find_map(Value::as_str).unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "object" => {
            let mut out = Map::new();
            if let Some(properties) = schema["properties"].as_object() {
                for (name, property) in properties {
                    out.insert(name.clone(), instance(property, root, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let least = schema["minItems"].as_u64().unwrap_or(1).max(1);
            let item = instance(&schema["items"], root, depth + 1);
            Value::Array(vec![item; usize::try_from(least).unwrap_or(1)])
        }
        "integer" => json!(schema["minimum"].as_i64().unwrap_or(1)),
        "number" => json!(schema["minimum"].as_f64().unwrap_or(1.5)),
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => {
            let least = schema["minLength"].as_u64().unwrap_or(0);
            let text = "mock".repeat(usize::try_from(least.div_ceil(4)).unwrap_or(1).max(1));
            json!(text)
        }
    }
}

/// The tokens a JSON answer streams in: pieces of at most 8 characters.
pub(crate) fn tokens(value: &Value) -> Vec<String> {
    let text = value.to_string();
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(8)
        .map(|piece| piece.iter().collect())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_fits_its_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 6},
                "age": {"type": "integer", "minimum": 3},
                "kind": {"enum": ["cat", "dog"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "owner": {"$ref": "#/$defs/owner"},
                "note": {"anyOf": [{"type": "null"}, {"type": "string"}]},
            },
            "required": ["name", "age", "kind", "tags", "owner", "note"],
            "additionalProperties": false,
            "$defs": {"owner": {"type": "object", "properties": {"id": {"type": "number"}}, "additionalProperties": false}},
        });
        let value = answer(&Format::Schema(schema.clone()));
        assert_eq!(
            value,
            json!({"name": "mockmock", "age": 3, "kind": "cat", "tags": ["mock"], "owner": {"id": 1.5}, "note": null})
        );
        assert_eq!(tokens(&value).concat(), value.to_string());
        assert!(tokens(&value).iter().all(|t| t.chars().count() <= 8));
    }

    #[test]
    fn formats_are_read_and_refused_as_each_provider_does() {
        assert_eq!(openai(&json!({})), Ok(None));
        assert_eq!(
            openai(&json!({"response_format": {"type": "text"}})),
            Ok(None)
        );
        assert_eq!(
            openai(&json!({"response_format": {"type": "json_object"}})),
            Ok(Some(Format::Object))
        );
        let schema = json!({"type": "object", "properties": {}});
        assert_eq!(
            openai(
                &json!({"response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}})
            ),
            Ok(Some(Format::Schema(schema.clone())))
        );
        assert!(openai(&json!({"response_format": {"type": "json_schema", "json_schema": {"schema": schema}}})).is_err());
        assert!(openai(&json!({"response_format": {"type": "xml"}})).is_err());
        let open = json!({"output_config": {"format": {"type": "json_schema", "schema": schema}}});
        assert!(
            anthropic(&open)
                .unwrap_err()
                .contains("additionalProperties")
        );
        let closed = json!({"type": "object", "properties": {"a": {"type": "object", "additionalProperties": false}}, "additionalProperties": false});
        let body = json!({"output_config": {"format": {"type": "json_schema", "schema": closed}}});
        assert_eq!(anthropic(&body), Ok(Some(Format::Schema(closed.clone()))));
        let nested_open = json!({"type": "object", "properties": {"a": {"type": "object"}}, "additionalProperties": false});
        let body =
            json!({"output_config": {"format": {"type": "json_schema", "schema": nested_open}}});
        assert!(anthropic(&body).unwrap_err().contains("properties.a"));
    }
}
