//! The demo pages (issue #11): the chat page (`/chat`), the admin dashboard (`/admin`)
//! and the teacher's view of their classes (`/teacher`, issue #15): static HTML with their
//! script bundles and styles under `/assets/`.
//!
//! The pages are built from `openapi/client/pages/` (TypeScript on the generated client)
//! by esbuild into `api/assets/` and committed, so building Parley needs no Node.js; the
//! test command rebuilds them and fails when the committed bundles are stale. They call
//! the API like any client (bearer token, the same origin), and are no operations of the
//! OpenAPI document.

use poem::{
    Endpoint, Response, Route,
    endpoint::make_sync,
    http::{HeaderValue, header},
};

/// Scripts and styles come from this origin only; the API is the only thing called.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

fn asset(body: &'static str, content_type: &'static str) -> impl Endpoint<Output = Response> {
    make_sync(move |_| {
        let mut response = Response::builder()
            .content_type(content_type)
            .header(header::CACHE_CONTROL, "no-cache")
            .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
            .body(body);
        if content_type.starts_with("text/html") {
            response.headers_mut().insert(
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CSP),
            );
        }
        response
    })
}

/// Adds the pages' routes to the application's.
pub fn routes(route: Route) -> Route {
    const HTML: &str = "text/html; charset=utf-8";
    const JS: &str = "text/javascript; charset=utf-8";
    route
        .at("/chat", asset(include_str!("../assets/chat.html"), HTML))
        .at("/admin", asset(include_str!("../assets/admin.html"), HTML))
        .at(
            "/teacher",
            asset(include_str!("../assets/teacher.html"), HTML),
        )
        .at(
            "/assets/chat.js",
            asset(include_str!("../assets/chat.js"), JS),
        )
        .at(
            "/assets/admin.js",
            asset(include_str!("../assets/admin.js"), JS),
        )
        .at(
            "/assets/teacher.js",
            asset(include_str!("../assets/teacher.js"), JS),
        )
        .at(
            "/assets/pages.css",
            asset(
                include_str!("../assets/pages.css"),
                "text/css; charset=utf-8",
            ),
        )
}
