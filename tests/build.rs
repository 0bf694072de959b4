//! Generates the typed client of the Parley API (`parley_tests::client`) from the committed
//! OpenAPI document, with progenitor (builder interface, merged tags), into
//! `$OUT_DIR/client.rs`.
//!
//! progenitor cannot take `openapi/openapi.json` as it is, so [`adapt`] first rewrites the
//! document, generically: it names no operation and no schema (errors become
//! `types::Problem` because the document says so, not because this file does).
//!
//! 1. **Errors are `application/problem+json`**, and progenitor types only
//!    `application/json` (anything else becomes a raw byte stream). Every `…+json` media
//!    type of a response is renamed `application/json`, so errors decode as
//!    `types::Problem`. This only changes what the generated code expects: the client
//!    sends `Accept: application/json` either way, and progenitor-client decodes a typed
//!    response with `serde_json::from_slice` on the body whatever its `Content-Type`
//!    (`ResponseValue::from_response`).
//! 2. **Server-Sent Events are not the client's business**: tests read SSE over plain HTTP
//!    with a real SSE parser (`parley_tests::SseReader`). `text/event-stream` content is
//!    removed, and a response left without content that had some is removed as well (it
//!    would otherwise read as "no body", a different type than the operation's JSON).
//! 3. **One type per outcome**: progenitor asserts that all success responses of an
//!    operation share one type, and all error responses another
//!    (`assert!(response_types.len() <= 1)` in `extract_responses`). Where they do not,
//!    the responses with the type of the lowest status are kept and the others removed;
//!    the client then reports a removed status as `Error::UnexpectedResponse` (the raw
//!    `reqwest::Response`, still readable). Every removal is listed in a comment at the
//!    top of the generated file. With the document of this writing:
//!      - `send_message`: 200 (SSE; the client asks for JSON) and 202 (`AcceptedTurn`, the
//!        answer to `?background=true`) are removed; 201 (`FinishedTurn`) stays.
//!      - `ask`: 200 (SSE) is removed; 201 (`AskAnswer`) stays.
//!      - `get_prompt_events`: 200 (SSE) is removed; the operation is left with no
//!        documented success, which progenitor answers as a raw byte stream for any 2xx.
//! 4. **`Accept`, `Content-Type` and `Authorization` header parameters** are dropped: OpenAPI
//!    says they are ignored, and progenitor would send them as a second header next to
//!    its own `Accept` (authorization is the client's default header, see `client_ext`).
//! 5. **Validation keywords are dropped** (`minLength`, `maxLength`, `pattern`, `minimum`,
//!    `maximum`, …). progenitor turns them into checked newtypes (`CreateGroupName`,
//!    `NonZeroU32`) that refuse to build an out-of-range request, while these tests must be
//!    able to send one to see the server reject it; plain `String`s and integers are also
//!    far easier to write (`.name("x")` instead of `.name(Some("x".parse()?))`). Types,
//!    formats (`uuid`, `date-time`), enums and `required` stay, so only what a schema cannot
//!    express (a value outside an enum, an unknown or mistyped field, broken JSON) needs raw
//!    `reqwest`.
//! 6. **Uploads are raw HTTP**: progenitor cannot build `multipart/form-data` request
//!    bodies, so an operation whose request body has no JSON form (`upload_file`) is left
//!    out of the client; tests upload with `reqwest`'s multipart form.
//!
//! The rest of the document (any-value `{}` schemas, `allOf` wrappers of a `$ref`, `oneOf`
//! with a discriminator, `nullable`, `additionalProperties: false`) is left as it is:
//! typify handles it (`{}` is `serde_json::Value`, `nullable` an `Option`, a discriminated
//! `oneOf` a tagged enum). Every generated type also derives `PartialEq`, for `assert_eq!`.

// A build script runs before any runtime exists, and `OUT_DIR` is cargo's to give, not a
// setting: the house rules on blocking I/O and environment reads are not about it.
#![allow(
    clippy::disallowed_methods,
    reason = "a build script reads cargo's OUT_DIR and files before any runtime exists"
)]

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

const DOCUMENT: &str = "../openapi/openapi.json";
/// Header parameters OpenAPI 3.0 says are ignored (the client sets them itself).
const IGNORED_HEADERS: [&str; 3] = ["accept", "content-type", "authorization"];
/// Validation keywords of a schema (step 5).
const CONSTRAINTS: [&str; 11] = [
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
];
const HTTP_METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

fn main() {
    println!("cargo:rerun-if-changed={DOCUMENT}");
    println!("cargo:rerun-if-changed=build.rs");
    let text =
        std::fs::read_to_string(DOCUMENT).unwrap_or_else(|err| panic!("reading {DOCUMENT}: {err}"));
    let mut document: Value =
        serde_json::from_str(&text).unwrap_or_else(|err| panic!("parsing {DOCUMENT}: {err}"));
    let removed = adapt(&mut document);
    let spec: openapiv3::OpenAPI = serde_json::from_value(document)
        .unwrap_or_else(|err| panic!("{DOCUMENT} is no OpenAPI 3.0 document: {err}"));

    let mut settings = progenitor::GenerationSettings::default();
    settings
        .with_interface(progenitor::InterfaceStyle::Builder)
        .with_tag(progenitor::TagStyle::Merged)
        .with_derive("PartialEq");
    let mut generator = progenitor::Generator::new(&settings);
    let tokens = generator
        .generate_tokens(&spec)
        .unwrap_or_else(|err| panic!("generating the client from {DOCUMENT}: {err}"));
    let file: syn::File = syn::parse2(tokens).expect("progenitor's output is a Rust file");

    let mut code = format!("// Generated by tests/build.rs from {DOCUMENT}. Do not edit.\n");
    code.push_str("// Responses removed from the document before generating (see build.rs):\n");
    for line in &removed {
        code.push_str(&format!("//   {line}\n"));
    }
    if removed.is_empty() {
        code.push_str("//   none\n");
    }
    code.push_str(&prettyplease::unparse(&file));
    let out: PathBuf = Path::new(&std::env::var_os("OUT_DIR").expect("OUT_DIR")).join("client.rs");
    std::fs::write(&out, code).unwrap_or_else(|err| panic!("writing {}: {err}", out.display()));
}

/// Rewrites the document into what progenitor can generate (see the file's doc comment)
/// and returns one line per removed response: `operation status: what it was`.
fn adapt(document: &mut Value) -> Vec<String> {
    drop_constraints(document);
    let mut removed = Vec::new();
    let Some(paths) = document.get_mut("paths").and_then(Value::as_object_mut) else {
        return removed;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        item.retain(|method, operation| {
            let multipart_only = HTTP_METHODS.contains(&method.as_str())
                && operation["requestBody"]["content"]
                    .as_object()
                    .is_some_and(|content| {
                        !content.is_empty()
                            && content
                                .keys()
                                .all(|media| base_media_type(media) == "multipart/form-data")
                    });
            if multipart_only {
                let id = operation["operationId"].as_str().unwrap_or(method);
                removed.push(format!(
                    "{id} (the whole operation): a multipart/form-data request"
                ));
            }
            !multipart_only
        });
        drop_ignored_headers(item);
        for (method, operation) in item.iter_mut() {
            if let Some(operation) = operation.as_object_mut()
                && HTTP_METHODS.contains(&method.as_str())
            {
                drop_ignored_headers(operation);
                let id = operation
                    .get("operationId")
                    .and_then(Value::as_str)
                    .unwrap_or(method)
                    .to_owned();
                if let Some(responses) = operation
                    .get_mut("responses")
                    .and_then(Value::as_object_mut)
                {
                    let lines = adapt_responses(responses);
                    removed.extend(lines.into_iter().map(|line| format!("{id} {line}")));
                }
            }
        }
    }
    removed
}

/// Steps 1–3 for one operation's responses; returns `status: what it was` per removal.
fn adapt_responses(responses: &mut Map<String, Value>) -> Vec<String> {
    let mut removed = Vec::new();
    responses.retain(|status, response| {
        let Some(content) = response.get_mut("content").and_then(Value::as_object_mut) else {
            return true;
        };
        rename_json_suffix(content);
        let had_content = !content.is_empty();
        content.retain(|media, _| base_media_type(media) != "text/event-stream");
        let keep = !had_content || !content.is_empty();
        if !keep {
            removed.push(format!("{status}: text/event-stream"));
        }
        keep
    });
    for class in [is_success as fn(&str) -> bool, is_error] {
        removed.extend(keep_one_type(responses, class));
    }
    removed
}

/// Step 5, over the whole document. A keyword is only dropped with a scalar value, so a
/// property that happens to be called `pattern` (an object in `properties`) stays.
fn drop_constraints(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|key, v| {
                v.is_object() || v.is_array() || !CONSTRAINTS.contains(&key.as_str())
            });
            map.values_mut().for_each(drop_constraints);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_constraints),
        _ => {}
    }
}

/// Step 4: removes the header parameters named in [`IGNORED_HEADERS`] from an operation
/// or a path item.
fn drop_ignored_headers(object: &mut Map<String, Value>) {
    if let Some(parameters) = object.get_mut("parameters").and_then(Value::as_array_mut) {
        parameters.retain(|p| {
            let name = p["name"].as_str().unwrap_or_default().to_ascii_lowercase();
            !(p["in"] == "header" && IGNORED_HEADERS.contains(&name.as_str()))
        });
    }
}

/// `application/json; charset=utf-8` → `application/json`.
fn base_media_type(media: &str) -> &str {
    media.split(';').next().unwrap_or_default().trim()
}

/// `application/problem+json` (any `…+json`, RFC 6839) → `application/json`, unless the
/// response already has JSON content.
fn rename_json_suffix(content: &mut Map<String, Value>) {
    if content
        .keys()
        .any(|m| base_media_type(m) == "application/json")
    {
        return;
    }
    if let Some(media) = content
        .keys()
        .find(|m| base_media_type(m).ends_with("+json"))
        .cloned()
    {
        let value = content.remove(&media).expect("the key was just found");
        content.insert("application/json".to_owned(), value);
    }
}

/// What progenitor makes of a response, as a comparable string: the JSON schema of its
/// `application/json` content, `no content`, or `raw` (any other content).
fn response_type(response: &Value) -> String {
    let content = response.get("content").and_then(Value::as_object);
    let json = content.and_then(|c| {
        c.iter()
            .find(|(media, _)| base_media_type(media) == "application/json")
            .map(|(_, media)| &media["schema"])
    });
    match (json, content.is_some_and(|c| !c.is_empty())) {
        // A `$ref` by its schema's name, for the list of removals.
        (Some(schema), _) => match schema["$ref"].as_str() {
            Some(reference) => reference.rsplit('/').next().unwrap_or(reference).to_owned(),
            None => schema.to_string(),
        },
        (None, true) => "raw".to_owned(),
        (None, false) => "no content".to_owned(),
    }
}

/// progenitor's split of statuses (`is_success_or_default`, `is_error_or_default`).
fn is_success(status: &str) -> bool {
    status == "default" || status == "101" || status.starts_with('2')
}

fn is_error(status: &str) -> bool {
    status == "default" || status.starts_with('4') || status.starts_with('5')
}

/// Keeps, of the responses whose status is in `class`, only those with the type of the
/// lowest status; returns `status: type` per removed response.
fn keep_one_type(responses: &mut Map<String, Value>, class: fn(&str) -> bool) -> Vec<String> {
    let mut typed: Vec<(String, String)> = responses
        .iter()
        .filter(|(status, _)| class(status))
        .map(|(status, response)| (status.clone(), response_type(response)))
        .collect();
    // Numbers first, `2XX` after `299`, `default` last, as progenitor orders them.
    typed.sort_by_key(|(status, _)| (status == "default", status.to_ascii_uppercase()));
    let Some((_, kept)) = typed.first().cloned() else {
        return Vec::new();
    };
    typed
        .into_iter()
        .filter(|(_, typ)| *typ != kept)
        .map(|(status, typ)| {
            responses.remove(&status);
            format!("{status}: {typ} (the lowest status has {kept})")
        })
        .collect()
}
