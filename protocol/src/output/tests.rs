use serde_json::json;

use super::*;

#[test]
fn formats_round_trip_in_openais_shape() {
    let object: ResponseFormat = serde_json::from_value(json!({"type": "json_object"})).unwrap();
    assert_eq!(object, ResponseFormat::JsonObject);
    assert_eq!(object.schema(), json!({"type": "object"}));
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let named = json!({"type": "json_schema", "name": "count", "schema": schema, "strict": true});
    let format: ResponseFormat = serde_json::from_value(named.clone()).unwrap();
    assert_eq!(serde_json::to_value(&format).unwrap(), named);
    assert_eq!(format.schema(), schema);
    assert_eq!(format.problem(), None);
    assert!(serde_json::from_value::<ResponseFormat>(json!({"type": "xml"})).is_err());
}

#[test]
fn a_bad_name_or_a_schema_that_is_no_object_is_a_problem() {
    let format = |name: &str, schema| ResponseFormat::JsonSchema {
        name: name.into(),
        description: None,
        schema,
        strict: false,
    };
    assert!(format("", json!({})).problem().is_some());
    assert!(format("has space", json!({})).problem().is_some());
    assert!(format(&"x".repeat(65), json!({})).problem().is_some());
    assert!(format("ok-name_1", json!(true)).problem().is_some());
    assert_eq!(format("ok-name_1", json!({})).problem(), None);
}
