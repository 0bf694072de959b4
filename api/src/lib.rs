//! Parley's HTTP API: a thin poem-openapi layer over the application layer
//! (`parley-service`).
//!
//! Handlers parse input, check access, call one function of the application layer and
//! map the result to a response type (`routes/<resource>.rs`); none reads the database
//! itself. Every error leaves through [`error`] as problem+json, with the statuses each
//! operation declares. The OpenAPI document is generated from these types
//! ([`spec`](mod@spec)) without a database, and committed under `openapi/`.
//!
//! The edge is built upward, without a circle (`layering.rs` checks it): [`error`] (the
//! problem and its response) imports nothing of the crate, [`identity`] (who a request
//! acts for) only the feed token's grant; the throttle, the token cache, the
//! revocations and the keep-alives build on those; [`state`] holds them; [`auth`] and [`gate`] authenticate over the state;
//! [`middleware`], the outer layer, comes last. The routes and the OpenAI surface (which
//! builds on the routes' pieces) sit over the edge, and this root puts them together.

pub mod auth;
pub mod cors;
pub mod error;
pub mod events_doc;
pub mod feed_token;
pub mod gate;
pub mod identity;
pub mod keepalive;
pub mod metrics;
pub mod middleware;
pub mod openai;
pub mod pages;
pub mod pagination;
pub mod revocations;
pub mod routes;
pub mod spec;
pub mod sse;
pub mod state;
pub mod throttle;
pub mod token_cache;
pub mod trace;
pub mod types;
pub mod window;

#[cfg(test)]
mod layering;

use std::sync::Arc;

use poem::{Endpoint, EndpointExt, Response, Route, endpoint::make_sync, http::header, web::Html};
use poem_openapi::OpenApiService;

pub use feed_token::FeedTokens;
pub use state::{AppState, Edge, HttpLimits, MetricsAccess, Streaming};

/// The title and version the OpenAPI document carries.
pub const API_TITLE: &str = "Parley";

/// Every API of the document: Parley's own routes, then the OpenAI-compatible surface
/// (which builds on the routes' pieces, so the routes do not name it).
pub type Api = (routes::Api, openai::OpenAiApi);

fn service() -> OpenApiService<Api, ()> {
    OpenApiService::new((routes::api(), openai::OpenAiApi), API_TITLE, env!("CARGO_PKG_VERSION"))
        .description("The chat runtime's HTTP API: sessions, turns, catalog, administration and operations. Errors are application/problem+json.")
}

/// The OpenAPI document as JSON (what `parley openapi` writes and `/openapi.json` serves).
pub fn spec() -> String {
    spec::document(&service().spec())
}

/// The whole HTTP application: the API, its document and the interactive docs.
pub fn app(state: AppState) -> impl Endpoint {
    let service = service();
    let raw = service.spec();
    let document = spec::document(&raw);
    // Swagger UI embeds the document it shows: show the one clients get.
    let docs_page = service.swagger_ui_html().replace(&raw, &document);
    let guard = Arc::new(middleware::Guard {
        routes: Arc::new(spec::Routes::from_document(&document)),
        limits: state.limits.clone(),
        state: state.clone(),
    });
    pages::routes(Route::new())
        .at(
            "/openapi.json",
            make_sync(move |_| {
                Response::builder()
                    .content_type("application/json; charset=utf-8")
                    .header(header::CACHE_CONTROL, "no-cache")
                    .body(document.clone())
            }),
        )
        .at("/docs", make_sync(move |_| Html(docs_page.clone())))
        .at("/metrics", poem::get(metrics::scrape_guarded))
        .nest("/", service)
        .data(state)
        .around(move |ep, req| middleware::guard(ep, req, guard.clone()))
}

/// `/metrics` alone, for a listener of its own (`http.metrics_listen`).
pub fn metrics_app(state: AppState) -> impl Endpoint {
    Route::new()
        .at("/metrics", poem::get(metrics::scrape))
        .data(state)
}
