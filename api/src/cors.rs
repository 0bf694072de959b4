//! Cross-origin requests (CORS): which browser origins may call the API.
//!
//! Configured by `http.cors_origins` (none by default, `*` for any origin) and
//! `http.cors_credentials`. Every preflight (`OPTIONS` with an `Origin` and an
//! `Access-Control-Request-Method`) is answered here, on every path: 204 with the
//! methods the path accepts and the headers the client asked to send (`Authorization`,
//! `Content-Type`, `Last-Event-ID`, `Idempotency-Key`, …) for an allowed origin, 403
//! (`cors_origin_refused`) for any other. A request from an allowed origin gets
//! `Access-Control-Allow-Origin` on its answer, errors included, with the headers a
//! client reads exposed (`Location`, `Retry-After`, `Parley-Rid`, …). A request from
//! another origin is served without them, as a same-origin request is (a browser
//! sends `Origin` on its own pages' POSTs too): the browser then withholds the answer
//! from the foreign page.

use std::collections::HashSet;

use poem::{
    Request, Response,
    http::{HeaderValue, Method, StatusCode, header},
};

/// Response headers a cross-origin client may read.
const EXPOSED: &str =
    "Location, Retry-After, Parley-Rid, X-Request-Id, Idempotency-Key, Content-Type";

/// Which origins may call the API from a browser.
#[derive(Debug, Clone, Default)]
pub struct CorsPolicy {
    origins: Origins,
    credentials: bool,
    max_age_s: u32,
}

#[derive(Debug, Clone, Default)]
enum Origins {
    /// No cross-origin caller (the default).
    #[default]
    None,
    /// Any origin, never with credentials.
    Any,
    /// These exact origins (`https://app.example.com`).
    Listed(HashSet<String>),
}

impl CorsPolicy {
    /// From `http.cors_origins` (`["*"]`: any), validated with the settings.
    pub fn new(origins: &[String], credentials: bool, max_age_s: u32) -> Self {
        let origins = if origins.is_empty() {
            Origins::None
        } else if origins.iter().any(|o| o == "*") {
            Origins::Any
        } else {
            Origins::Listed(
                origins
                    .iter()
                    .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
                    .collect(),
            )
        };
        Self {
            credentials: credentials && !matches!(origins, Origins::Any),
            origins,
            max_age_s,
        }
    }

    fn allows(&self, origin: &str) -> bool {
        match &self.origins {
            Origins::None => false,
            Origins::Any => true,
            Origins::Listed(list) => list.contains(&origin.to_ascii_lowercase()),
        }
    }

    /// The `Access-Control-Allow-Origin` value for an allowed `origin`.
    fn allow_origin(&self, origin: &str) -> Option<HeaderValue> {
        match &self.origins {
            Origins::Any => Some(HeaderValue::from_static("*")),
            _ => HeaderValue::from_str(origin).ok(),
        }
    }

    /// Whether `req` is a preflight: `OPTIONS` with `Origin` and the method to come.
    pub fn is_preflight(req: &Request) -> bool {
        req.method() == Method::OPTIONS
            && req.headers().contains_key(header::ORIGIN)
            && req
                .headers()
                .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
    }

    /// The answer to a preflight for a path that accepts `allow` (the `Allow` list of
    /// the document; none for a path it lacks): `None` for an origin that is not
    /// allowed (answered 403).
    pub fn preflight(&self, req: &Request, allow: Option<String>) -> Option<Response> {
        let origin = req.header(header::ORIGIN.as_str()).unwrap_or_default();
        if !self.allows(origin) {
            return None;
        }
        let methods = allow.unwrap_or_else(|| "GET, POST, PATCH, PUT, DELETE".to_owned());
        let mut response = Response::builder()
            .status(StatusCode::NO_CONTENT)
            .header(header::ACCESS_CONTROL_ALLOW_METHODS, methods)
            .header(header::ACCESS_CONTROL_MAX_AGE, self.max_age_s)
            .header(
                header::VARY,
                "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
            );
        if let Some(value) = self.allow_origin(origin) {
            response = response.header(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        }
        if let Some(asked) = req.headers().get(header::ACCESS_CONTROL_REQUEST_HEADERS) {
            response = response.header(header::ACCESS_CONTROL_ALLOW_HEADERS, asked.clone());
        }
        if self.credentials {
            response = response.header(header::ACCESS_CONTROL_ALLOW_CREDENTIALS, "true");
        }
        Some(response.finish())
    }

    /// Adds the CORS headers to the answer of a request from an allowed origin.
    pub fn decorate(&self, origin: Option<&str>, response: &mut Response) {
        let Some(origin) = origin.filter(|origin| self.allows(origin)) else {
            return;
        };
        let headers = response.headers_mut();
        if let Some(value) = self.allow_origin(origin) {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        }
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSED),
        );
        if !matches!(self.origins, Origins::Any) {
            headers.append(header::VARY, HeaderValue::from_static("Origin"));
        }
        if self.credentials {
            headers.insert(
                header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
                HeaderValue::from_static("true"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preflight(origin: &str) -> Request {
        Request::builder()
            .method(Method::OPTIONS)
            .header(header::ORIGIN, origin)
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .header(
                header::ACCESS_CONTROL_REQUEST_HEADERS,
                "authorization, content-type, idempotency-key",
            )
            .finish()
    }

    #[test]
    fn listed_origins_get_the_preflight_and_the_headers() {
        let policy = CorsPolicy::new(&["https://app.example.com".into()], false, 600);
        let req = preflight("https://app.example.com");
        assert!(CorsPolicy::is_preflight(&req));
        let ok = policy.preflight(&req, Some("GET, POST".into())).unwrap();
        assert_eq!(ok.status(), StatusCode::NO_CONTENT);
        let h = ok.headers();
        assert_eq!(
            h[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "https://app.example.com"
        );
        assert_eq!(h[header::ACCESS_CONTROL_ALLOW_METHODS], "GET, POST");
        assert_eq!(
            h[header::ACCESS_CONTROL_ALLOW_HEADERS],
            "authorization, content-type, idempotency-key"
        );
        assert!(!h.contains_key(header::ACCESS_CONTROL_ALLOW_CREDENTIALS));
        assert!(
            policy
                .preflight(&preflight("https://evil.example"), None)
                .is_none()
        );
        let mut answer = Response::builder().finish();
        policy.decorate(Some("https://evil.example"), &mut answer);
        assert!(answer.headers().is_empty(), "another origin gets nothing");
        policy.decorate(Some("https://APP.example.com"), &mut answer);
        assert!(
            answer.headers()[header::ACCESS_CONTROL_EXPOSE_HEADERS]
                .to_str()
                .unwrap()
                .contains("Retry-After")
        );
    }

    #[test]
    fn no_origin_by_default_and_any_without_credentials() {
        let none = CorsPolicy::default();
        assert!(
            none.preflight(&preflight("http://localhost:3000"), None)
                .is_none()
        );
        let any = CorsPolicy::new(&["*".into()], true, 60);
        let ok = any
            .preflight(&preflight("http://localhost:3000"), None)
            .unwrap();
        assert_eq!(ok.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
        assert!(
            !ok.headers()
                .contains_key(header::ACCESS_CONTROL_ALLOW_CREDENTIALS)
        );
    }
}
