use parley_protocol::output::ResponseFormat;
use serde_json::json;

use super::*;

fn checker(schema: Value) -> Checker {
    Checker::new(&ResponseFormat::JsonSchema {
        name: "answer".into(),
        description: None,
        schema,
        strict: true,
    })
    .unwrap()
}

#[test]
fn a_fitting_answer_is_its_value_fenced_or_not() {
    let check = checker(
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}),
    );
    assert_eq!(check.check(r#" {"n": 3} "#), Ok(json!({"n": 3})));
    assert_eq!(check.check("```json\n{\"n\": 4}\n```"), Ok(json!({"n": 4})));
    assert_eq!(check.check("```\n{\"n\": 5}\n```"), Ok(json!({"n": 5})));
}

#[test]
fn a_misfit_names_the_place_and_what_is_wrong() {
    let check = checker(json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}},
    }));
    let misfit = check.check(r#"{"items": [{"name": 7}]}"#).unwrap_err();
    assert_eq!(misfit.path, "/items/0/name");
    assert!(misfit.message.contains("string"), "{misfit}");
    assert!(
        misfit.to_string().starts_with("at `/items/0/name`"),
        "{misfit}"
    );
    let words = check.check("Here you go: {}").unwrap_err();
    assert_eq!(words.path, "");
    assert!(words.message.contains("not one JSON value"), "{words}");
}

#[test]
fn a_json_object_is_any_object_and_a_bad_schema_is_refused() {
    let object = Checker::new(&ResponseFormat::JsonObject).unwrap();
    assert!(object.check(r#"{"any": [1]}"#).is_ok());
    assert_eq!(object.check("[1]").unwrap_err().path, "");
    let bad = ResponseFormat::JsonSchema {
        name: "x".into(),
        description: None,
        schema: json!({"type": "no-such-type"}),
        strict: false,
    };
    let refused = Checker::new(&bad).err().expect("refused");
    assert!(refused.contains("not a JSON schema"), "{refused}");
}
