//! HTTP helpers: requests against a [`TestApp`] and the [`TestResponse`] they return.
//!
//! A response is read fully (status, headers, text, JSON body or `Null`), so assertions
//! can print everything the server said. [`TestResponse::assert_problem`] checks the
//! problem+json contract every error shares (DESIGN §7).

use reqwest::header::{CONTENT_TYPE, HeaderMap};
use reqwest::{Method, RequestBuilder};
use serde_json::Value;

use crate::TestApp;

/// A reqwest client builder for the tests, after the process's rustls provider is
/// installed (the build has one provider and reqwest none of its own: DESIGN's one TLS
/// stack, `parley_service::tls`).
pub fn client() -> reqwest::ClientBuilder {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
}

/// The whole of one HTTP response.
#[derive(Debug, Clone)]
pub struct TestResponse {
    pub status: u16,
    pub headers: HeaderMap,
    /// The body parsed as JSON; `Null` when it is empty or not JSON.
    pub body: Value,
    pub text: String,
}

impl TestResponse {
    /// Reads a response to the end.
    pub async fn read(response: reqwest::Response) -> Self {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("reading the response body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Self {
            status,
            headers,
            body,
            text,
        }
    }

    /// A header's value, if present and valid UTF-8.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The `content-type` header, or `""`.
    pub fn content_type(&self) -> &str {
        self.header(CONTENT_TYPE.as_str()).unwrap_or_default()
    }

    /// Asserts the status and returns `self` for more checks.
    #[track_caller]
    pub fn assert_status(&self, status: u16) -> &Self {
        assert_eq!(self.status, status, "unexpected status; response: {self}");
        self
    }

    /// Asserts a problem+json error with `status`: content type, the fields `type`,
    /// `title`, `status`, `detail`, `code`, `request_id`, and `request_id` equal to the
    /// `x-request-id` header. Returns the problem's `code`.
    #[track_caller]
    pub fn assert_problem(&self, status: u16) -> &str {
        self.assert_status(status);
        assert!(
            self.content_type().starts_with("application/problem+json"),
            "a problem must be application/problem+json; response: {self}"
        );
        for field in ["type", "title", "detail", "code", "request_id"] {
            assert!(
                self.body[field].is_string(),
                "the problem has no string `{field}`; response: {self}"
            );
        }
        assert_eq!(
            self.body["status"].as_u64(),
            Some(u64::from(status)),
            "the problem's `status` must match the HTTP status; response: {self}"
        );
        let request_id = self.body["request_id"].as_str().unwrap_or_default();
        assert!(!request_id.is_empty(), "empty request_id; response: {self}");
        assert_eq!(
            self.header("x-request-id"),
            Some(request_id),
            "the problem's request_id must equal the x-request-id header; response: {self}"
        );
        self.body["code"].as_str().unwrap_or_default()
    }
}

impl std::fmt::Display for TestResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?} {}", self.status, self.headers, self.text)
    }
}

impl TestApp {
    /// `base_url` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// A request to `path` with an optional bearer token, for anything the helpers
    /// below do not cover (raw bodies, custom headers); finish it with [`TestApp::send`].
    pub fn request(&self, method: Method, path: &str, token: Option<&str>) -> RequestBuilder {
        let request = self.client.request(method, self.url(path));
        match token {
            Some(token) => request.bearer_auth(token),
            None => request,
        }
    }

    /// Sends a request and reads the whole response.
    pub async fn send(&self, request: RequestBuilder) -> TestResponse {
        let request = request.build().expect("building the request");
        let what = format!("{} {}", request.method(), request.url());
        let response = self
            .client
            .execute(request)
            .await
            .unwrap_or_else(|err| panic!("{what}: {err}"));
        TestResponse::read(response).await
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> TestResponse {
        self.send(self.request(Method::GET, path, token)).await
    }

    pub async fn delete(&self, path: &str, token: Option<&str>) -> TestResponse {
        self.send(self.request(Method::DELETE, path, token)).await
    }

    pub async fn post_json(&self, path: &str, token: Option<&str>, body: &Value) -> TestResponse {
        self.send(self.request(Method::POST, path, token).json(body))
            .await
    }

    pub async fn patch_json(&self, path: &str, token: Option<&str>, body: &Value) -> TestResponse {
        self.send(self.request(Method::PATCH, path, token).json(body))
            .await
    }

    pub async fn put_json(&self, path: &str, token: Option<&str>, body: &Value) -> TestResponse {
        self.send(self.request(Method::PUT, path, token).json(body))
            .await
    }
}
