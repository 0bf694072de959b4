//! Where a request body that poem-openapi refused goes wrong, named as a path
//! (`input[1].role`), with what is wrong in words that never repeat the client's values.
//!
//! poem-openapi says which type failed (`Expected input type "ResponseInput", found
//! [ …the whole input… ]`) but not which field, and it echoes the value — a client's
//! conversation, a secret pasted into the wrong field. When it refuses a body, the
//! body is checked again against the operation's schema in the document (its
//! OpenAPI 3.0 `nullable` read as JSON Schema's `null` type) with the `jsonschema`
//! crate, whose masked messages leave values out; the deepest failure found names the
//! field. The validators are compiled on an operation's first refusal, not at start-up.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value, json};

/// Where a body does not fit its schema: the field's path, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misfit {
    /// `input[1].role`; empty for the body as a whole.
    pub param: String,
    /// What is wrong, without the client's values.
    pub why: String,
}

/// The request bodies' schemas of the document's operations.
#[derive(Debug, Clone, Default)]
pub struct Bodies {
    /// The document's components, `nullable` rewritten as JSON Schema.
    components: Arc<Value>,
    /// `(METHOD, path template)` → the body's schema and its validator once compiled.
    operations: BTreeMap<(String, String), Arc<Operation>>,
}

#[derive(Debug)]
struct Operation {
    schema: Value,
    validator: OnceLock<Option<jsonschema::Validator>>,
}

impl Bodies {
    pub fn from_document(doc: &Value) -> Self {
        let mut components = doc["components"].clone();
        nullable_as_null(&mut components);
        let mut operations = BTreeMap::new();
        for (path, item) in doc["paths"].as_object().into_iter().flatten() {
            for (method, op) in item.as_object().into_iter().flatten() {
                // The JSON body's schema, whatever parameters its media type has.
                let json_body = op["requestBody"]["content"]
                    .as_object()
                    .into_iter()
                    .flatten()
                    .find(|(media, _)| media.starts_with("application/json"));
                if let Some((_, body)) = json_body
                    && let Some(schema) = body.get("schema").filter(|s| s.is_object())
                {
                    let mut schema = schema.clone();
                    nullable_as_null(&mut schema);
                    operations.insert(
                        (method.to_ascii_uppercase(), path.clone()),
                        Arc::new(Operation {
                            schema,
                            validator: OnceLock::new(),
                        }),
                    );
                }
            }
        }
        Self {
            components: Arc::new(components),
            operations,
        }
    }

    /// Where `body` (JSON) does not fit the schema of `method` on `template`; `None` when
    /// it fits, is not JSON, or the operation has no JSON body.
    pub fn misfit(&self, method: &str, template: &str, body: &[u8]) -> Option<Misfit> {
        let op = self
            .operations
            .get(&(method.to_owned(), template.to_owned()))?;
        let validator = op
            .validator
            .get_or_init(|| {
                let mut root = op.schema.clone();
                if let Some(object) = root.as_object_mut() {
                    object.insert("components".into(), (*self.components).clone());
                }
                jsonschema::validator_for(&root)
                    .inspect_err(
                        |err| tracing::warn!(%err, template, "a body schema did not compile"),
                    )
                    .ok()
            })
            .as_ref()?;
        let value: Value = serde_json::from_slice(body).ok()?;
        validator
            .iter_errors(&value)
            .map(|err| deepest(&err))
            .max_by_key(|(depth, _)| *depth)
            .map(|(_, misfit)| misfit)
    }
}

/// How deep in the body `err` is (and how telling: a wrong type says least), and what
/// it says — looking into the alternatives of an `anyOf` / `oneOf` that none matched:
/// the one that got furthest names the field.
fn deepest(err: &jsonschema::ValidationError<'_>) -> ((usize, u8), Misfit) {
    use jsonschema::error::ValidationErrorKind as Kind;
    let telling = match err.kind() {
        Kind::AnyOf { .. } | Kind::OneOfNotValid { .. } => 0,
        Kind::Type { .. } => 1,
        _ => 2,
    };
    let own = ((depth(err), telling), misfit_of(err));
    match err.kind() {
        Kind::AnyOf { context } | Kind::OneOfNotValid { context } => context
            .iter()
            .flatten()
            .map(deepest)
            .max_by_key(|(rank, _)| *rank)
            .filter(|(rank, _)| rank.0 >= own.0.0)
            .unwrap_or(own),
        _ => own,
    }
}

fn depth(err: &jsonschema::ValidationError<'_>) -> usize {
    err.instance_path().to_string().matches('/').count()
}

/// The field an error names and why, in words without the body's values: a missing or
/// unknown field is named itself.
fn misfit_of(err: &jsonschema::ValidationError<'_>) -> Misfit {
    use jsonschema::error::ValidationErrorKind as Kind;
    let at = param_of(&err.instance_path().to_string());
    let under = |field: &str| {
        if at.is_empty() {
            field.to_owned()
        } else {
            format!("{at}.{field}")
        }
    };
    match err.kind() {
        Kind::Required { property } => Misfit {
            param: under(property.as_str().unwrap_or_default()),
            why: "a required field is missing".into(),
        },
        Kind::AdditionalProperties { unexpected } | Kind::UnevaluatedProperties { unexpected } => {
            let names: Vec<String> = unexpected.iter().map(|u| format!("`{u}`")).collect();
            Misfit {
                param: under(unexpected.first().map_or("", String::as_str)),
                why: format!("no such field ({})", names.join(", ")),
            }
        }
        // A name that is not one of a list is most likely a misspelt name: a short one is
        // shown (a long string could be anything, a secret pasted into the wrong field).
        Kind::Enum { options } => {
            let name = err.instance().as_str().filter(|v| is_a_name(v));
            let listed = options
                .as_array()
                .map(|o| {
                    o.iter()
                        .map(Value::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            Misfit {
                param: at,
                why: match name {
                    Some(name) => format!("`{name}` is not one of {listed}"),
                    None => format!("not one of {listed}"),
                },
            }
        }
        _ => Misfit {
            param: at,
            why: err.masked().to_string(),
        },
    }
}

/// Whether a refused value reads as a name: at most 32 letters, digits, `_`, `-`, `.`.
fn is_a_name(value: &str) -> bool {
    (1..=32).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// A JSON pointer (`/input/1/role`) as a parameter path (`input[1].role`).
fn param_of(pointer: &str) -> String {
    let mut param = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            param.push_str(&format!("[{segment}]"));
        } else {
            if !param.is_empty() {
                param.push('.');
            }
            param.push_str(&segment);
        }
    }
    param
}

/// Rewrites OpenAPI 3.0's `nullable: true` as JSON Schema: the schema, or null.
fn nullable_as_null(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            for value in object.values_mut() {
                nullable_as_null(value);
            }
            if object.remove("nullable") == Some(Value::Bool(true)) {
                let inner = Value::Object(std::mem::take(object));
                let mut any = Map::new();
                any.insert("anyOf".into(), json!([inner, {"type": "null"}]));
                *object = any;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(nullable_as_null),
        _ => {}
    }
}

/// poem-openapi's reason for refusing a body without the value it quotes
/// (`Expected input type "boolean", found "yes".` → `Expected input type "boolean".`).
pub fn without_values(reason: &str) -> String {
    let mut out = String::with_capacity(reason.len());
    let mut rest = reason;
    while let Some(at) = rest.find(", found ") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        match after.find(". (occurred while parsing") {
            Some(end) => rest = &after[end..],
            None => {
                out.push('.');
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies() -> Bodies {
        Bodies::from_document(&json!({
            "paths": {"/things": {"post": {"requestBody": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Thing"}}}}}}},
            "components": {"schemas": {
                "Thing": {"type": "object", "required": ["name", "parts"], "properties": {
                    "name": {"type": "string", "maxLength": 5},
                    "note": {"type": "string", "nullable": true},
                    "mode": {"type": "string", "enum": ["fast", "slow"]},
                    "parts": {"type": "array", "items": {"$ref": "#/components/schemas/Part"}},
                }},
                "Part": {"type": "object", "required": ["kind"], "additionalProperties": false, "properties": {"kind": {"type": "string"}}},
            }},
        }))
    }

    #[test]
    fn a_misfit_is_named_by_its_path_and_never_quotes_the_value() {
        let bodies = bodies();
        let misfit = |body: &str| bodies.misfit("POST", "/things", body.as_bytes());
        let deep = misfit(r#"{"name": "a", "parts": [{"kind": "x"}, {"kind": 12345}]}"#).unwrap();
        assert_eq!(deep.param, "parts[1].kind");
        assert!(!deep.why.contains("12345"), "{deep:?}");
        let long = misfit(r#"{"name": "secret-token-value", "parts": []}"#).unwrap();
        assert_eq!(long.param, "name");
        assert!(!long.why.contains("secret"), "{long:?}");
        assert_eq!(misfit(r#"{"parts": []}"#).unwrap().param, "name");
        let unknown = misfit(r#"{"name": "a", "parts": [{"kind": "x", "colour": "red"}]}"#);
        assert_eq!(
            unknown.unwrap(),
            Misfit {
                param: "parts[0].colour".into(),
                why: "no such field (`colour`)".into()
            }
        );
        // null where the document says nullable fits; where it does not, it is named.
        assert_eq!(misfit(r#"{"name": "a", "note": null, "parts": []}"#), None);
        assert_eq!(
            misfit(r#"{"name": null, "parts": []}"#).unwrap().param,
            "name"
        );
        assert_eq!(bodies.misfit("POST", "/other", b"{}"), None);
        // A misspelt name is shown; anything longer, or not name-like, is not.
        let kind = |value: &str| {
            misfit(&format!(r#"{{"name": "a", "parts": [], "mode": {value}}}"#)).unwrap()
        };
        assert_eq!(
            kind(r#""fats""#).why,
            r#"`fats` is not one of "fast", "slow""#
        );
        let long = kind(r#""prl_0123456789abcdefghijklmnopqrstuvwxyz""#);
        assert_eq!(
            (long.param.as_str(), long.why.as_str()),
            ("mode", r#"not one of "fast", "slow""#)
        );
        assert!(!kind(r#""two words""#).why.contains("two"));
    }

    #[test]
    fn poems_reasons_lose_the_values_they_quote() {
        assert_eq!(
            without_values(
                r#"Expected input type "boolean", found "yes". (occurred while parsing "optional_boolean") (occurred while parsing "R")"#
            ),
            r#"Expected input type "boolean". (occurred while parsing "optional_boolean") (occurred while parsing "R")"#
        );
        assert_eq!(
            without_values(r#"Expected input type "X", found [{"a": 1}]"#),
            r#"Expected input type "X"."#
        );
        assert_eq!(without_values("missing field"), "missing field");
    }
}
