//! The typed client (see [`crate::client`]) for a [`TestApp`], and assertions on what
//! its requests return.
//!
//! ```ignore
//! use parley_tests::ApiResult;
//!
//! let admin = app.admin_client();
//! let group = admin.admin_get_group().id(id).send().await.assert_status(200);
//! assert_eq!(group.name, "School");
//! let code = admin.admin_delete_group().id(id).send().await.assert_problem(409);
//! assert_eq!(code, "group_not_empty");
//! // or, for a closer look:
//! let (status, problem) = parley_tests::problem(admin.admin_get_group().id(id).send().await);
//! ```

use std::fmt::Debug;
use std::future::Future;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};

use crate::TestApp;
use crate::client::types::Problem;
use crate::client::{Client, Error, ResponseValue};

/// What every generated request returns.
pub type ApiResponse<T> = Result<ResponseValue<T>, Error<Problem>>;

impl TestApp {
    /// A typed client for this app that sends `Authorization: Bearer <token>`.
    ///
    /// It talks to the current server: after [`TestApp::restart`] (which changes
    /// `base_url`) get a new one.
    pub fn client_as(&self, token: &str) -> Client {
        let mut headers = HeaderMap::new();
        let mut bearer = HeaderValue::from_str(&format!("Bearer {token}"))
            .unwrap_or_else(|err| panic!("{token:?} cannot be a header value: {err}"));
        bearer.set_sensitive(true);
        headers.insert(AUTHORIZATION, bearer);
        Client::new_with_client(&self.base_url, Self::http_client(headers))
    }

    /// A typed client acting as the bootstrap admin.
    pub fn admin_client(&self) -> Client {
        self.client_as(&self.admin_token)
    }

    /// A typed client that sends no credentials.
    pub fn anonymous_client(&self) -> Client {
        Client::new_with_client(&self.base_url, Self::http_client(HeaderMap::new()))
    }

    fn http_client(headers: HeaderMap) -> reqwest::Client {
        crate::http_client()
            .timeout(Duration::from_secs(30))
            .default_headers(headers)
            .build()
            .expect("building the HTTP client")
    }
}

/// The status and problem of a request that must fail with an
/// `application/problem+json` error, after checking the contract every error shares
/// (DESIGN §7): the content type, `status` equal to the HTTP status, `request_id` equal
/// to the `x-request-id` header. Panics, showing what came back, on anything else.
#[track_caller]
pub fn problem<T: Debug>(result: ApiResponse<T>) -> (u16, Problem) {
    let response = match result {
        Err(Error::ErrorResponse(response)) => response,
        Ok(value) => panic!(
            "expected a problem, got {} {:?}",
            value.status(),
            value.into_inner()
        ),
        Err(other) => panic!("expected a problem, got {other:?}"),
    };
    let status = response.status().as_u16();
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let content_type = header(CONTENT_TYPE.as_str()).unwrap_or_default();
    let request_id = header("x-request-id");
    let problem = response.into_inner();
    assert!(
        content_type.starts_with("application/problem+json"),
        "a problem must be application/problem+json, got {content_type:?}: {status} {problem:?}"
    );
    assert_eq!(
        problem.status, status,
        "the problem's `status` must match the HTTP status: {problem:?}"
    );
    assert!(
        !problem.request_id.is_empty(),
        "empty request_id: {problem:?}"
    );
    assert_eq!(
        request_id.as_deref(),
        Some(problem.request_id.as_str()),
        "the problem's request_id must equal the x-request-id header: {problem:?}"
    );
    (status, problem)
}

/// Assertions on the result of a generated request, like [`crate::TestResponse`]'s.
pub trait ApiResult<T> {
    /// Asserts a success with `status` and returns the response (value, status, headers;
    /// it derefs to the value, [`ResponseValue::into_inner`] takes it).
    fn assert_status(self, status: u16) -> ResponseValue<T>;

    /// Asserts a problem with `status` (see [`problem`]) and returns its `code`.
    fn assert_problem(self, status: u16) -> String;
}

impl<T: Debug> ApiResult<T> for ApiResponse<T> {
    #[track_caller]
    fn assert_status(self, status: u16) -> ResponseValue<T> {
        match self {
            Ok(value) if value.status().as_u16() == status => value,
            Ok(value) => panic!(
                "expected {status}, got {} {:?}",
                value.status(),
                value.into_inner()
            ),
            Err(err) => panic!("expected {status}, got {err:?}"),
        }
    }

    #[track_caller]
    fn assert_problem(self, status: u16) -> String {
        let (actual, problem) = problem(self);
        assert_eq!(actual, status, "unexpected status: {problem:?}");
        problem.code
    }
}

/// Every item of a cursor-paginated list, read `limit` at a time: `page(cursor)` fetches
/// one page (the first with `None`) and returns its items and `next_cursor`. Each page
/// must hold at most `limit` items.
///
/// ```ignore
/// let groups = all_pages(2, |cursor| async move {
///     let mut request = admin.admin_list_groups().limit(2);
///     if let Some(cursor) = cursor {
///         request = request.cursor(cursor);
///     }
///     let page = request.send().await.assert_status(200).into_inner();
///     (page.items, page.next_cursor)
/// })
/// .await;
/// ```
pub async fn all_pages<T, F, Fut>(limit: usize, mut page: F) -> Vec<T>
where
    T: Debug,
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = (Vec<T>, Option<String>)>,
{
    let mut seen = Vec::new();
    let mut cursor = None;
    for _ in 0..100 {
        let (items, next) = page(cursor).await;
        assert!(
            items.len() <= limit,
            "page over the limit {limit}: {items:?}"
        );
        seen.extend(items);
        match next {
            Some(next) => cursor = Some(next),
            None => return seen,
        }
    }
    panic!("pagination does not end");
}
