//! Parley's HTTP API: a thin poem-openapi layer over the query methods of
//! `parley-entity`.
//!
//! Handlers parse input, check access, call one domain function and map the result to a
//! response type (`routes/<resource>.rs`). Every error leaves through [`error`] as
//! problem+json. The OpenAPI document is generated from these types ([`spec`]) without a
//! database, and committed under `openapi/`.

pub mod auth;
pub mod error;
pub mod middleware;
pub mod pagination;
pub mod routes;
pub mod sse;
pub mod state;

use poem::{Endpoint, EndpointExt, Route};
use poem_openapi::OpenApiService;

pub use state::{AppState, Limits, Models, Streaming};

/// The title and version the OpenAPI document carries.
pub const API_TITLE: &str = "Parley";

fn service() -> OpenApiService<routes::Api, ()> {
    OpenApiService::new(routes::api(), API_TITLE, env!("CARGO_PKG_VERSION"))
        .description("The chat runtime's HTTP API: sessions, turns, catalog, administration and operations. Errors are application/problem+json.")
}

/// The OpenAPI document as JSON (what `parley openapi` writes and `/openapi.json` serves).
pub fn spec() -> String {
    service().spec()
}

/// The whole HTTP application: the API, its document and the interactive docs.
pub fn app(state: AppState) -> impl Endpoint {
    let service = service();
    let max_body = state.limits.max_body_bytes;
    Route::new()
        .at("/openapi.json", service.spec_endpoint())
        .nest("/docs", service.swagger_ui())
        .nest("/", service)
        .data(state)
        .around(move |ep, req| middleware::guard(ep, req, max_body))
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    const COMMITTED: &str = include_str!("../../openapi/openapi.json");

    #[test]
    fn committed_openapi_document_matches_the_code() {
        let generated = super::spec() + "\n";
        assert!(
            generated == COMMITTED,
            "openapi/openapi.json is out of date: run `cargo run -p parley -- openapi --out openapi/openapi.json`"
        );
    }

    /// STYLE §10: one tag, a summary, a snake_case operation id and problem-typed error
    /// responses on every operation.
    #[test]
    fn every_operation_is_documented() {
        let doc: Value = serde_json::from_str(&super::spec()).expect("the document is JSON");
        assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")));
        let paths = doc["paths"].as_object().expect("paths");
        assert!(!paths.is_empty());
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
                    "{at}: needs exactly one tag"
                );
                assert!(
                    op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                    "{at}: no summary"
                );
                let responses = op["responses"].as_object().expect("responses");
                for (status, response) in responses
                    .iter()
                    .filter(|(s, _)| s.starts_with('4') || s.starts_with('5'))
                {
                    let schema = &response["content"]["application/problem+json"]["schema"]["$ref"];
                    assert_eq!(
                        schema, "#/components/schemas/Problem",
                        "{at} {status}: not a problem body"
                    );
                }
                if path.starts_with("/v1/") {
                    assert!(
                        responses.contains_key("401"),
                        "{at}: authenticated routes declare 401"
                    );
                }
            }
        }
    }
}
