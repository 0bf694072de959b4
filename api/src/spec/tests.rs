//! The committed document matches the code, and every operation documents what its
//! shape implies (STYLE §10, DESIGN §7: the document tells the truth).

use serde_json::{Value, json};

use super::*;

const COMMITTED: &str = include_str!("../../../openapi/openapi.json");

fn generated() -> Value {
    serde_json::from_str(&crate::spec()).expect("the document is JSON")
}

#[test]
fn committed_openapi_document_matches_the_code() {
    let generated = crate::spec() + "\n";
    assert!(
        generated == COMMITTED,
        "openapi/openapi.json is out of date: run `cargo run -p parley -- openapi --out openapi/openapi.json`"
    );
}

/// The document's descriptions are for the people who use the API: no Rust intra-doc
/// link (`` [`Type::item`] ``) of a doc comment reaches them.
#[test]
fn no_rust_reference_leaks_into_a_description() {
    let doc = crate::spec();
    let leaks: Vec<&str> = doc
        .split("\"description\":")
        .skip(1)
        .filter(|d| d.split("\",").next().is_some_and(|d| d.contains("[`")))
        .map(|d| d.split("\",").next().unwrap_or_default())
        .collect();
    assert!(
        leaks.is_empty(),
        "Rust references in descriptions: {leaks:#?}"
    );
}

/// Each operation: one tag, a summary, a snake_case id; error responses are problems;
/// and the statuses its shape implies are declared — 401 when it needs credentials,
/// 404 for a path id, 400 for query or header parameters, 400/413/415/422 for a JSON
/// body, 403 for admin routes, 500/503 wherever it reaches the database.
#[test]
fn every_operation_declares_what_its_shape_implies() {
    let doc = generated();
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
    let paths = doc["paths"].as_object().expect("paths");
    for (path, item) in paths {
        for (method, op) in item.as_object().expect("path item") {
            let at = format!("{method} {path}");
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{at}: no operationId"));
            assert!(
                id.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{at}: {id} is not snake_case"
            );
            assert_eq!(
                op["tags"].as_array().map(Vec::len),
                Some(1),
                "{at}: one tag"
            );
            assert!(
                op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{at}: summary"
            );
            let responses = op["responses"].as_object().expect("responses");
            // The OpenAI-compatible surface answers errors in OpenAI's shape, and a body
            // that does not fit is its 400 (no 422).
            let openai = path.starts_with(crate::openai::PREFIX);
            let (media, error) = if openai {
                ("application/json", "#/components/schemas/OpenAiError")
            } else {
                ("application/problem+json", "#/components/schemas/Problem")
            };
            for (status, response) in responses.iter().filter(|(s, _)| !s.starts_with('2')) {
                let schema = &response["content"][media]["schema"]["$ref"];
                assert_eq!(schema, error, "{at} {status}: not an error of its surface");
            }
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let has = |place: &str| params.iter().any(|p| p["in"] == place);
            let mut implied = vec![];
            if op.get("security").is_some() {
                implied.extend(["401", "500", "503"]);
            }
            if has("path") {
                implied.push("404");
            }
            if has("query") || has("header") {
                implied.push("400");
            }
            if op.get("requestBody").is_some() {
                implied.extend(["400", "413", "415"]);
                if !openai {
                    implied.push("422");
                }
            }
            if op.get("security").is_some() {
                implied.push("429");
            }
            if path.starts_with("/v1/admin/") {
                implied.push("403");
            }
            for status in implied {
                assert!(
                    responses.contains_key(status),
                    "{at}: must declare {status}"
                );
            }
            if path.starts_with("/v1/") || openai {
                assert!(
                    op.get("security").is_some(),
                    "{at}: /v1 routes need credentials"
                );
            }
        }
    }
}

#[test]
fn streams_are_documented_as_event_streams_of_the_event_union() {
    let doc = generated();
    for (path, method, status) in [
        ("/v1/prompts/{id}/events", "get", "200"),
        ("/v1/sessions/{id}/messages", "post", "200"),
    ] {
        let content = &doc["paths"][path][method]["responses"][status]["content"];
        let schema = &content["text/event-stream"]["schema"];
        assert_eq!(
            schema["$ref"], "#/components/schemas/SseEvent",
            "{path}: {content}"
        );
    }
    let events = &doc["paths"]["/v1/prompts/{id}/events"]["get"]["responses"];
    assert!(
        events.get("204").is_some(),
        "a reader that has everything gets 204"
    );
    // Every `event:` name is a `type` of the union, and the other way round.
    let schemas = &doc["components"]["schemas"];
    let event = &schemas["SseEvent"]["properties"]["event"]["$ref"];
    let event = event.as_str().and_then(|r| r.strip_prefix(SCHEMA_PREFIX));
    let mut names: Vec<&str> = schemas[event.expect("a named enum")]["enum"]
        .as_array()
        .expect("event names")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut types: Vec<&str> = schemas["StreamEvent"]["discriminator"]["mapping"]
        .as_object()
        .expect("the union's mapping")
        .keys()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    types.sort_unstable();
    assert_eq!(names, types);
    assert_eq!(
        schemas["SseEvent"]["properties"]["data"]["x-content-schema"]["$ref"],
        "#/components/schemas/StreamEvent"
    );
    for variant in schemas["StreamEvent"]["oneOf"]
        .as_array()
        .expect("variants")
    {
        let name = variant["$ref"].as_str().expect("a reference");
        let name = name.strip_prefix(SCHEMA_PREFIX).expect("a component");
        assert!(schemas.get(name).is_some(), "{name} is in the document");
    }
}

/// An SSE response's schema describes an event as an SSE client (and a fuzzer) parses
/// it, `{event, data, id}` with `data` a string, never the JSON inside `data`; the JSON's
/// schema is named by `x-content-schema`.
#[test]
fn every_event_stream_documents_sse_events_whose_data_names_its_json() {
    let doc = generated();
    let schemas = &doc["components"]["schemas"];
    let mut streams = 0;
    for (path, methods) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in methods.as_object().expect("methods") {
            for (status, response) in operation["responses"].as_object().expect("responses") {
                let Some(schema) = response["content"].get("text/event-stream") else {
                    continue;
                };
                streams += 1;
                let name = schema["schema"]["$ref"]
                    .as_str()
                    .and_then(|r| r.strip_prefix(SCHEMA_PREFIX));
                let name =
                    name.unwrap_or_else(|| panic!("{method} {path} {status}: a named schema"));
                let event = &schemas[name];
                assert_eq!(
                    event["properties"]["data"]["type"], "string",
                    "{name}: {event}"
                );
                assert!(
                    event["required"]
                        .as_array()
                        .is_some_and(|r| r.contains(&json!("data"))),
                    "{name}: `data` is required"
                );
                let allowed = ["event", "data", "id"];
                for property in event["properties"].as_object().expect("properties").keys() {
                    assert!(
                        allowed.contains(&property.as_str()),
                        "{name}: `{property}` is no SSE field"
                    );
                }
                let content = event["properties"]["data"]["x-content-schema"]["$ref"].as_str();
                let content = content.and_then(|r| r.strip_prefix(SCHEMA_PREFIX));
                let content = content.unwrap_or_else(|| panic!("{name}: `data` names its schema"));
                assert!(
                    schemas.get(content).is_some(),
                    "{content} is in the document"
                );
            }
        }
    }
    assert!(streams >= 7, "{streams} event streams");
}

#[test]
fn request_objects_reject_unknown_fields_and_accept_null_for_optional_ones() {
    let mut doc = json!({
        "paths": {"/x": {"post": {"requestBody": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Req"}}}}}}},
        "components": {"schemas": {
            "Req": {"type": "object", "required": ["a"], "properties": {
                "a": {"type": "string"},
                "b": {"type": "string"},
                "c": {"type": "array", "default": []},
                "d": {"$ref": "#/components/schemas/Inner", "description": "inner"}
            }},
            "Inner": {"type": "object", "properties": {"e": {"type": "integer"}}},
            "Resp": {"type": "object", "properties": {"f": {"type": "string"}}}
        }}
    });
    harden(&mut doc);
    let schemas = &doc["components"]["schemas"];
    assert_eq!(schemas["Req"]["additionalProperties"], false);
    assert_eq!(
        schemas["Inner"]["additionalProperties"], false,
        "reachable from a body"
    );
    assert!(
        schemas["Resp"].get("additionalProperties").is_none(),
        "responses untouched"
    );
    let props = &schemas["Req"]["properties"];
    assert!(props["a"].get("nullable").is_none(), "required");
    assert_eq!(props["b"]["nullable"], true);
    assert_eq!(props["c"]["nullable"], true, "a default is what null gives");
    assert_eq!(
        props["d"],
        json!({"allOf": [{"$ref": "#/components/schemas/Inner"}], "description": "inner", "nullable": true})
    );
    assert_eq!(schemas["Inner"]["properties"]["e"]["nullable"], true);
}

#[test]
fn the_allow_header_lists_a_paths_methods() {
    let routes = Routes::from_document(&crate::spec());
    assert_eq!(
        routes.allow("/v1/sessions/0197/messages").as_deref(),
        Some("GET, HEAD, POST")
    );
    assert_eq!(
        routes.allow("/v1/prompts/x/cancel").as_deref(),
        Some("POST")
    );
    assert_eq!(routes.allow("/v1/nothing/here"), None);
    assert_eq!(routes.allow("/healthz").as_deref(), Some("GET, HEAD"));
}

#[test]
fn a_path_maps_to_its_template_for_metrics() {
    let routes = Routes::from_document(&crate::spec());
    assert_eq!(
        routes.template("/v1/sessions/0197/messages"),
        Some("/v1/sessions/{id}/messages")
    );
    assert_eq!(routes.template("/v1/sessions"), Some("/v1/sessions"));
    assert_eq!(routes.template("/v1/nothing/here"), None);
}

#[test]
fn annotated_references_and_free_form_objects_read_the_same_in_every_generator() {
    let mut doc = json!({
        "a": {"allOf": [{"$ref": "#/components/schemas/E"}, {"description": "D"}], "description": "D"},
        "b": {"allOf": [{"$ref": "#/components/schemas/E"}, {"default": "x"}]},
        "c": {"allOf": [{"$ref": "#/components/schemas/E"}, {"description": "D"}], "nullable": true},
        "keep": {"allOf": [{"$ref": "#/components/schemas/E"}, {"type": "object", "properties": {}}]},
        "free": {"type": "object", "description": "F"},
        "map": {"type": "object", "additionalProperties": {"type": "string"}},
        "count": {"type": "integer", "format": "uint64"},
        "floor": {"type": "integer", "format": "uint32", "minimum": 1},
        "signed": {"type": "integer", "format": "int64"},
    });
    for_generators(&mut doc);
    assert_eq!(
        doc["count"],
        json!({"type": "integer", "format": "uint64", "minimum": 0})
    );
    assert_eq!(
        doc["floor"]["minimum"],
        json!(1),
        "a stated minimum is kept"
    );
    assert_eq!(doc["signed"].get("minimum"), None);
    assert_eq!(
        doc["a"],
        json!({"allOf": [{"$ref": "#/components/schemas/E"}], "description": "D"})
    );
    assert_eq!(
        doc["b"],
        json!({"allOf": [{"$ref": "#/components/schemas/E"}], "default": "x"})
    );
    assert_eq!(
        doc["c"],
        json!({"allOf": [{"$ref": "#/components/schemas/E"}], "description": "D", "nullable": true})
    );
    assert_eq!(
        doc["keep"]["allOf"].as_array().map(Vec::len),
        Some(2),
        "a composition is left alone"
    );
    assert_eq!(
        doc["free"],
        json!({"type": "object", "description": "F", "additionalProperties": {}})
    );
    assert_eq!(
        doc["map"]["additionalProperties"],
        json!({"type": "string"})
    );
    // The whole document has no annotation-only `allOf` element left.
    let text = crate::spec();
    let generated: Value = serde_json::from_str(&text).expect("JSON");
    fn annotated(value: &Value) -> bool {
        match value {
            Value::Object(map) => {
                map.get("allOf")
                    .and_then(Value::as_array)
                    .is_some_and(|parts| {
                        parts.iter().any(|p| {
                            p.as_object().is_some_and(|o| {
                                o.keys().all(|k| ANNOTATIONS.contains(&k.as_str()))
                            })
                        })
                    })
                    || map.values().any(annotated)
            }
            Value::Array(items) => items.iter().any(annotated),
            _ => false,
        }
    }
    assert!(
        !annotated(&generated),
        "an annotation-only allOf element is left"
    );
}

/// The document lists the whole error catalogue: the `ErrorCode` schema's values are
/// `ErrorCode::ALL` (each in its description with its status), an `error` event and a
/// prompt's `error_code` are that schema, and a problem's `code` names it.
#[test]
fn the_document_lists_every_error_code() {
    use parley_protocol::error::ErrorCode;
    let doc = generated();
    let schemas = &doc["components"]["schemas"];
    let listed: Vec<&str> = schemas["ErrorCode"]["enum"]
        .as_array()
        .expect("ErrorCode is an enum")
        .iter()
        .map(|v| v.as_str().expect("a string"))
        .collect();
    let catalogue: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(listed, catalogue);
    let description = schemas["ErrorCode"]["description"].as_str().unwrap();
    for code in ErrorCode::ALL {
        assert!(
            description.contains(&format!("* `{code}` ({}", code.status())),
            "`{code}` is not described with its status"
        );
    }
    let reference = json!({"$ref": "#/components/schemas/ErrorCode"});
    assert_eq!(schemas["ErrorEvent"]["properties"]["code"], reference);
    let problem_code = &schemas["Problem"]["properties"]["code"];
    assert_eq!(
        problem_code["type"], "string",
        "tolerant of codes added later"
    );
    assert!(
        problem_code["description"]
            .as_str()
            .is_some_and(|d| d.contains("`ErrorCode`")),
        "{problem_code}"
    );
}

#[test]
fn a_refused_body_is_located_in_the_documents_own_schema() {
    let routes = Routes::from_document(&crate::spec());
    let misfit = routes
        .misfit(
            "POST",
            "/openai/v1/responses",
            br#"{"model": "m", "input": "x", "background": "yes-please"}"#,
        )
        .expect("a misfit");
    assert_eq!(misfit.param, "background");
    assert!(!misfit.why.contains("yes-please"), "{misfit:?}");
    let misfit = routes
        .misfit("POST", "/v1/sessions/0197/messages", br#"{"content": 12}"#)
        .expect("a misfit");
    assert_eq!(misfit.param, "content");
    assert_eq!(
        routes.misfit(
            "POST",
            "/v1/sessions/0197/messages",
            br#"{"content": "hi"}"#
        ),
        None
    );
}
