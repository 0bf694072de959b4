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
//! an `x-content-schema` extension (OpenAPI 3.0 has no `contentSchema`); the
//! OpenAI-compatible streams' events (`ChatCompletionSseEvent`, `ResponseSseEvent`)
//! point at OpenAI's chunk and event the same way. The module hook
//! contract (`HookContext`, `HookResult`) is added the same way, for webhook authors.
//!
//! Last, [`for_generators`] says two things the way every mainstream client generator
//! reads them (openapi-python-client, openapi-generator's `python` and
//! `typescript-fetch`, progenitor; `scripts/check-generators.sh` runs them all): a
//! property that is a `$ref` with a description (or a default) is `allOf: [$ref]` with
//! the description beside it — poem-openapi writes the description as a second `allOf`
//! element, which openapi-python-client reads as an object to merge and drops the schema
//! over — and a free-form object names its values (`additionalProperties: {}`).
//!
//! [`Routes`] is the document's table of paths and methods, for the `Allow` header of
//! a 405, with the credentials each operation needs (`crate::gate`).

use std::collections::{BTreeMap, HashSet};

use poem_openapi::{registry::Registry, types::Type};
use serde_json::{Map, Value, json};

use parley_protocol::hooks::{HookContext, HookResult};

use crate::events_doc::StreamEventDoc;
use crate::routes::feed_doc::UserEventDoc;

/// The document, hardened and with the stream events, as pretty JSON.
pub fn document(raw: &str) -> String {
    let mut doc: Value = serde_json::from_str(raw).expect("poem-openapi emits JSON");
    harden(&mut doc);
    add_stream_events(&mut doc);
    nullable_in(&mut doc, crate::openai::PREFIX);
    for_generators(&mut doc);
    serde_json::to_string_pretty(&doc).expect("a JSON value serializes")
}

/// The keys an `allOf` element may hold that only annotate the reference beside it.
const ANNOTATIONS: &[&str] = &[
    "description",
    "default",
    "example",
    "title",
    "deprecated",
    "readOnly",
    "writeOnly",
    "nullable",
];

/// Rewrites, everywhere in the document, (1) `allOf: [{$ref}, {annotations…}]` as
/// `allOf: [{$ref}]` with the annotations on the enclosing schema (where it does not
/// already say them), (2) `type: object` without properties or composition as a map
/// of anything (`additionalProperties: {}`), and (3) drops the `type: object`
/// poem-openapi puts beside an `anyOf` / `oneOf` whose members are not objects (a
/// string or an array: OpenAI's `content`), which contradicts them, and (4) gives an
/// unsigned integer (`format: uint32`…) its `minimum: 0`, which a format alone does not
/// say to a validator or a fuzzer (a negative `starting_after` is a 400).
pub fn for_generators(value: &mut Value) {
    match value {
        Value::Object(map) => {
            collapse_annotated_ref(map);
            let untyped_union = ["anyOf", "oneOf"].iter().any(|key| {
                map.get(*key)
                    .and_then(Value::as_array)
                    .is_some_and(|members| {
                        members
                            .iter()
                            .any(|m| m.get("type").is_some_and(|t| t != "object"))
                    })
            });
            if untyped_union && map.get("type").and_then(Value::as_str) == Some("object") {
                map.remove("type");
            }
            let free_form = map.get("type").and_then(Value::as_str) == Some("object")
                && [
                    "properties",
                    "additionalProperties",
                    "allOf",
                    "oneOf",
                    "anyOf",
                ]
                .iter()
                .all(|key| !map.contains_key(*key));
            if free_form {
                map.insert("additionalProperties".into(), json!({}));
            }
            let unsigned = map.get("type").and_then(Value::as_str) == Some("integer")
                && map
                    .get("format")
                    .and_then(Value::as_str)
                    .is_some_and(|format| format.starts_with("uint"));
            if unsigned && !map.contains_key("minimum") {
                map.insert("minimum".into(), json!(0));
            }
            map.values_mut().for_each(for_generators);
        }
        Value::Array(items) => items.iter_mut().for_each(for_generators),
        _ => {}
    }
}

fn collapse_annotated_ref(map: &mut Map<String, Value>) {
    let Some(Value::Array(parts)) = map.get("allOf") else {
        return;
    };
    let is_ref = |part: &Value| {
        part.as_object()
            .is_some_and(|o| o.len() == 1 && o.contains_key("$ref"))
    };
    let is_annotation = |part: &Value| {
        part.as_object()
            .is_some_and(|o| !o.is_empty() && o.keys().all(|k| ANNOTATIONS.contains(&k.as_str())))
    };
    let refs = parts.iter().filter(|p| is_ref(p)).count();
    if parts.len() < 2 || refs != 1 || !parts.iter().all(|p| is_ref(p) || is_annotation(p)) {
        return;
    }
    let parts = match map.remove("allOf") {
        Some(Value::Array(parts)) => parts,
        _ => return,
    };
    let mut reference = Value::Null;
    for part in parts {
        if is_ref(&part) {
            reference = part;
        } else if let Value::Object(annotations) = part {
            for (key, value) in annotations {
                map.entry(key).or_insert(value);
            }
        }
    }
    map.insert("allOf".into(), json!([reference]));
}

/// Adds the `StreamEvent` union (and what it uses) to the components and links it from
/// `SseEvent.data`, and the `UserEvent` union from `UserSseEvent.data`; adds the module hook contract (`HookContext`, `HookResult`), which
/// webhook modules receive and answer (no route of this API takes them).
fn add_stream_events(doc: &mut Value) {
    let mut registry = Registry::new();
    StreamEventDoc::register(&mut registry);
    UserEventDoc::register(&mut registry);
    HookContext::register(&mut registry);
    HookResult::register(&mut registry);
    crate::openai::types::ChatCompletionChunk::register(&mut registry);
    crate::openai::types::ResponseStreamEvent::register(&mut registry);
    let schemas = &mut doc["components"]["schemas"];
    for (name, schema) in registry.schemas {
        let schema = serde_json::to_value(schema).expect("a schema serializes");
        match schemas.get(&name) {
            None => schemas[&name] = schema,
            // A type a request takes too (the tool configuration's parts) is there
            // already, hardened.
            Some(existing) => {
                let mut hardened = schema.clone();
                harden_object(&mut hardened);
                assert!(
                    existing == &schema || existing == &hardened,
                    "two different schemas are named `{name}`: rename one"
                );
            }
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
    // The user feed's (`GET /v1/feed`) likewise.
    if let poem_openapi::registry::MetaSchemaRef::Reference(user) = UserEventDoc::schema_ref()
        && let Some(data) = schemas.pointer_mut("/UserSseEvent/properties/data")
    {
        data["x-content-media-type"] = json!("application/json");
        data["x-content-schema"] = json!({ "$ref": format!("{SCHEMA_PREFIX}{user}") });
    }
    // The OpenAI-compatible streams', whose events are OpenAI's chunks and events.
    for (event, content) in [
        ("ChatCompletionSseEvent", "ChatCompletionChunk"),
        ("ResponseSseEvent", "ResponseStreamEvent"),
    ] {
        if let Some(data) = schemas.pointer_mut(&format!("/{event}/properties/data")) {
            data["x-content-media-type"] = json!("application/json");
            data["x-content-schema"] = json!({ "$ref": format!("{SCHEMA_PREFIX}{content}") });
        }
    }
}

const SCHEMA_PREFIX: &str = "#/components/schemas/";

/// Marks what request objects really accept (see the module docs).
pub fn harden(doc: &mut Value) {
    let mut roots = Vec::new();
    // The OpenAI-compatible surface takes OpenAI's requests as they are: unknown
    // fields are accepted (and ignored), as OpenAI's clients send many.
    for item in doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|p| p.iter_mut())
        .filter(|(path, _)| !path.starts_with(crate::openai::PREFIX))
        .map(|(_, item)| item)
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

/// Marks every optional property of the schemas the operations under `prefix` use as
/// `nullable`: the OpenAI-compatible surface writes an absent value as `null`, as
/// OpenAI's own answers do (its SDKs read those fields as nullable).
fn nullable_in(doc: &mut Value, prefix: &str) {
    let mut roots = Vec::new();
    for (_, item) in doc["paths"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(path, _)| path.starts_with(prefix))
    {
        collect_refs(item, &mut roots);
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
        let required: HashSet<String> = schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect();
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                if !required.contains(name) {
                    make_nullable(property);
                }
            }
        }
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

/// What credentials an operation of the document needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// A bearer token.
    Bearer,
    /// A bearer token or a feed token (`?access_token=`): a prompt's event feed.
    BearerOrFeedToken,
}

/// One path of the document: as written, its segments, and its methods with the
/// credentials each needs (None: open).
type RouteEntry = (String, Vec<String>, BTreeMap<String, Option<Security>>);

/// The document's paths, the methods each accepts and the credentials they need.
#[derive(Debug, Clone, Default)]
pub struct Routes {
    routes: Vec<RouteEntry>,
    bodies: Bodies,
}

impl Routes {
    pub fn from_document(doc: &str) -> Self {
        let doc: Value = serde_json::from_str(doc).unwrap_or_default();
        let routes = doc["paths"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(path, item)| {
                let mut methods: BTreeMap<String, Option<Security>> = item
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(method, op)| (method.to_ascii_uppercase(), security_of(op)))
                    .collect();
                if let Some(get) = methods.get("GET").copied() {
                    // poem answers HEAD with the GET endpoint.
                    methods.insert("HEAD".into(), get);
                }
                let parts = segments(path).map(str::to_owned).collect();
                (path.clone(), parts, methods)
            })
            .collect();
        Self {
            routes,
            bodies: Bodies::from_document(&doc),
        }
    }

    /// Where a body poem-openapi refused does not fit the schema of `method` on `path`.
    pub fn misfit(&self, method: &str, path: &str, body: &[u8]) -> Option<Misfit> {
        let template = self.template(path)?;
        self.bodies.misfit(method, template, body)
    }

    /// The `Allow` header value for `path`, if the document has it.
    pub fn allow(&self, path: &str) -> Option<String> {
        self.matching(path)
            .map(|(_, _, methods)| methods.keys().cloned().collect::<Vec<_>>().join(", "))
    }

    /// The document's path template that `path` matches (`/v1/sessions/{id}`): a label
    /// for metrics that does not grow with the ids in requests.
    pub fn template(&self, path: &str) -> Option<&str> {
        self.matching(path)
            .map(|(template, _, _)| template.as_str())
    }

    /// The credentials `method` on `path` needs; None for an open operation or one the
    /// document lacks.
    pub fn security(&self, method: &str, path: &str) -> Option<Security> {
        self.matching(path)
            .and_then(|(_, _, methods)| methods.get(method).copied().flatten())
    }

    fn matching(&self, path: &str) -> Option<&RouteEntry> {
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

/// An operation's `security`: none, a bearer token, or a bearer or a feed token.
fn security_of(op: &Value) -> Option<Security> {
    let schemes: Vec<&str> = op["security"]
        .as_array()?
        .iter()
        .filter_map(Value::as_object)
        .flat_map(|requirement| requirement.keys().map(String::as_str))
        .collect();
    if schemes.contains(&"feed_token") {
        Some(Security::BearerOrFeedToken)
    } else if schemes.is_empty() {
        None
    } else {
        Some(Security::Bearer)
    }
}

fn segments(path: &str) -> impl Iterator<Item = &str> {
    path.trim_matches('/').split('/')
}

mod bodies;
pub use bodies::{Bodies, Misfit, without_values};

#[cfg(test)]
mod tests;
