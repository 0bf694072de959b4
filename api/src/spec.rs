//! The OpenAPI document as clients get it: poem-openapi's document of the routes, made
//! to tell the whole truth about what the server parses.
//!
//! poem-openapi describes an optional request field (an `Option`, or a field with a
//! default) as a plain optional property, but it parses `null` there as absent; and it
//! describes an object that rejects unknown fields (`deny_unknown_fields`, as every
//! request object here does) like one that accepts them. [`harden`] states both in the
//! document, for every schema reachable from a request body: optional properties are
//! `nullable`, and objects have `additionalProperties: false`. The result is what `/openapi.json` serves, what
//! `parley openapi` writes and what is committed under `openapi/`.
//!
//! The document also carries the stream events: each SSE `data:` is one `StreamEvent`,
//! which no operation names (a feed is documented as `SseEvent`s, what an SSE client
//! sees), so [`document`] adds the union's schemas and points `SseEvent.data` at it with
//! an `x-content-schema` extension (OpenAPI 3.0 has no `contentSchema`). The module hook
//! contract (`HookContext`, `HookResult`) is added the same way, for webhook authors.
//!
//! [`Routes`] is the document's table of paths and methods, for the `Allow` header of
//! a 405.

use std::collections::{BTreeSet, HashSet};

use poem_openapi::{registry::Registry, types::Type};
use serde_json::{Map, Value, json};

use parley_protocol::hooks::{HookContext, HookResult};

use crate::routes::events_doc::StreamEventDoc;

/// The document, hardened and with the stream events, as pretty JSON.
pub fn document(raw: &str) -> String {
    let mut doc: Value = serde_json::from_str(raw).expect("poem-openapi emits JSON");
    harden(&mut doc);
    add_stream_events(&mut doc);
    serde_json::to_string_pretty(&doc).expect("a JSON value serializes")
}

/// Adds the `StreamEvent` union (and what it uses) to the components and links it from
/// `SseEvent.data`; adds the module hook contract (`HookContext`, `HookResult`), which
/// webhook modules receive and answer (no route of this API takes them).
fn add_stream_events(doc: &mut Value) {
    let mut registry = Registry::new();
    StreamEventDoc::register(&mut registry);
    HookContext::register(&mut registry);
    HookResult::register(&mut registry);
    let schemas = &mut doc["components"]["schemas"];
    for (name, schema) in registry.schemas {
        let schema = serde_json::to_value(schema).expect("a schema serializes");
        match schemas.get(&name) {
            None => schemas[&name] = schema,
            Some(existing) => assert_eq!(
                existing, &schema,
                "two different schemas are named `{name}`: rename one"
            ),
        }
    }
    let reference = match StreamEventDoc::schema_ref() {
        poem_openapi::registry::MetaSchemaRef::Reference(name) => name,
        poem_openapi::registry::MetaSchemaRef::Inline(_) => return,
    };
    if let Some(data) = schemas.pointer_mut("/SseEvent/properties/data") {
        data["x-content-media-type"] = json!("application/json");
        data["x-content-schema"] = json!({ "$ref": format!("{SCHEMA_PREFIX}{reference}") });
    }
}

const SCHEMA_PREFIX: &str = "#/components/schemas/";

/// Marks what request objects really accept (see the module docs).
pub fn harden(doc: &mut Value) {
    let mut roots = Vec::new();
    for item in doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|p| p.values_mut())
    {
        for op in item
            .as_object_mut()
            .into_iter()
            .flat_map(|o| o.values_mut())
        {
            collect_refs(&op["requestBody"], &mut roots);
            // An inline body schema (a multipart form) is a request object too.
            if let Some(content) = op
                .pointer_mut("/requestBody/content")
                .and_then(Value::as_object_mut)
            {
                for media in content.values_mut() {
                    if let Some(schema) = media.get_mut("schema") {
                        harden_object(schema);
                    }
                }
            }
        }
    }
    let mut seen = HashSet::new();
    while let Some(name) = roots.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Some(schema) = doc["components"]["schemas"].get_mut(&name) else {
            continue;
        };
        collect_refs(schema, &mut roots);
        harden_object(schema);
    }
}

fn collect_refs(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix(SCHEMA_PREFIX))
            {
                into.push(name.to_owned());
            }
            map.values().for_each(|v| collect_refs(v, into));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, into)),
        _ => {}
    }
}

fn harden_object(schema: &mut Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if !object.contains_key("properties") {
        return;
    }
    object
        .entry("additionalProperties")
        .or_insert(Value::Bool(false));
    let required: HashSet<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.contains(name) {
                make_nullable(property);
            }
        }
    }
}

/// `nullable: true` on a property; a bare `$ref` cannot carry siblings in OpenAPI 3.0,
/// so it is wrapped in `allOf`.
fn make_nullable(property: &mut Value) {
    if let Some(reference) = property.get("$ref").cloned() {
        let mut wrapped = Map::new();
        wrapped.insert("allOf".into(), json!([{ "$ref": reference }]));
        for (key, value) in property.as_object().into_iter().flatten() {
            if key != "$ref" {
                wrapped.insert(key.clone(), value.clone());
            }
        }
        *property = Value::Object(wrapped);
    }
    property["nullable"] = Value::Bool(true);
}

/// The document's paths and the methods each accepts.
#[derive(Debug, Clone, Default)]
pub struct Routes {
    /// Each path of the document: as written, its segments, and its methods.
    routes: Vec<(String, Vec<String>, BTreeSet<String>)>,
}

impl Routes {
    pub fn from_document(doc: &str) -> Self {
        let doc: Value = serde_json::from_str(doc).unwrap_or_default();
        let routes = doc["paths"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(path, item)| {
                let mut methods: BTreeSet<String> = item
                    .as_object()
                    .into_iter()
                    .flat_map(Map::keys)
                    .map(|m| m.to_ascii_uppercase())
                    .collect();
                if methods.contains("GET") {
                    // poem answers HEAD with the GET endpoint.
                    methods.insert("HEAD".into());
                }
                let parts = segments(path).map(str::to_owned).collect();
                (path.clone(), parts, methods)
            })
            .collect();
        Self { routes }
    }

    /// The `Allow` header value for `path`, if the document has it.
    pub fn allow(&self, path: &str) -> Option<String> {
        self.matching(path)
            .map(|(_, _, methods)| methods.iter().cloned().collect::<Vec<_>>().join(", "))
    }

    /// The document's path template that `path` matches (`/v1/sessions/{id}`): a label
    /// for metrics that does not grow with the ids in requests.
    pub fn template(&self, path: &str) -> Option<&str> {
        self.matching(path)
            .map(|(template, _, _)| template.as_str())
    }

    fn matching(&self, path: &str) -> Option<&(String, Vec<String>, BTreeSet<String>)> {
        let wanted: Vec<&str> = segments(path).collect();
        self.routes.iter().find(|(_, pattern, _)| {
            pattern.len() == wanted.len()
                && pattern
                    .iter()
                    .zip(&wanted)
                    .all(|(p, w)| p == w || (p.starts_with('{') && !w.is_empty()))
        })
    }
}

fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.trim_matches('/').split('/')
}

#[cfg(test)]
mod tests;
