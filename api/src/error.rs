//! The one place where errors become HTTP: status, stable `code`, problem+json body.
//!
//! Every operation declares exactly the error statuses it can answer with: its handler
//! returns `Result<T, ApiError<S>>`, where the marker `S` (one of the [`statuses`] sets)
//! lists them, and [`ApiError`] documents those — and only those — with the problem
//! schema. Statuses poem answers before a handler runs (a bad parameter, a body that is
//! not JSON, a missing token) are listed too; the document test in
//! [`crate::spec`](mod@crate::spec) checks each operation declares what its shape
//! implies. A problem becomes a response in [`problem_response`], and errors raised by
//! poem itself become the same body in [`problem_for`] (both in `response`). Nothing here imports the rest of the crate: the
//! outer layer, the security schemes and the OpenAI surface's error shape build on it.

use std::marker::PhantomData;

use parley_protocol::error::{Error, ErrorCode};
use poem::{IntoResponse, Response, http::StatusCode};
use poem_openapi::{
    ApiResponse, Object,
    registry::{MetaMediaType, MetaResponse, MetaResponses, MetaSchema, MetaSchemaRef, Registry},
    types::{ParseError, ParseFromJSON, ParseResult, ToJSON, Type},
};

mod response;

pub use response::{method_not_allowed, problem_for, problem_response};

/// The content type of a problem (RFC 9457).
pub const PROBLEM_JSON: &str = "application/problem+json";

tokio::task_local! {
    /// The id of the request being served, set by the request-id middleware.
    pub static REQUEST_ID: String;
}

/// The current request id, or an empty string outside a request.
pub fn current_request_id() -> String {
    REQUEST_ID.try_with(Clone::clone).unwrap_or_default()
}

/// RFC 9457 problem details, with Parley's stable `code` and the request id.
#[derive(Debug, Clone, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct Problem {
    /// A URI reference naming the problem type (`about:blank` or a Parley problem URI).
    #[oai(rename = "type")]
    pub kind: String,
    /// A short, human-readable summary of the problem type.
    pub title: String,
    /// The HTTP status code.
    pub status: u16,
    /// What went wrong with this request, for a person to read.
    pub detail: String,
    /// A stable, machine-readable error code (snake_case): one of the `ErrorCode`
    /// schema's values, which lists each with its status. Typed as a string so that a
    /// client reads codes added after it was built.
    pub code: ProblemCode,
    /// The request id, also sent as the `X-Request-Id` response header.
    pub request_id: String,
    /// The resource this occurrence concerns, when there is one (e.g. the prompt of a
    /// failed turn, which can be resumed).
    pub instance: Option<String>,
    /// The request body's field the problem concerns, as a path (`input[1].role`),
    /// when there is one.
    pub param: Option<String>,
    /// Seconds until the request may succeed: the `Retry-After` header of a 429, not a
    /// body field.
    #[oai(skip)]
    pub retry_after_s: Option<u64>,
}

impl Problem {
    /// A problem with `code`, answered with the code's status.
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        Self::with_status(status_of(code), code, detail)
    }

    /// A problem whose status poem chose (an error poem raised, a plain response, a
    /// problem read back from its body): the catalogue's code for that status.
    pub fn for_status(status: StatusCode, detail: impl Into<String>) -> Self {
        Self::with_status(status, ErrorCode::for_status(status.as_u16()), detail)
    }

    /// A problem with `code` and the status someone else chose, kept as it is.
    fn with_status(status: StatusCode, code: ErrorCode, detail: impl Into<String>) -> Self {
        Self {
            kind: format!(
                "https://parley.dev/problems/{}",
                code.as_str().replace('_', "-")
            ),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail: detail.into(),
            code: ProblemCode(code),
            request_id: current_request_id(),
            instance: None,
            param: None,
            retry_after_s: None,
        }
    }

    /// A problem read back from its body (its status and code as written): the code
    /// when the catalogue has it, else the catalogue's code for the status.
    pub fn read_back(status: u16, code: &str, detail: impl Into<String>) -> Self {
        let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let code = ErrorCode::parse(code).unwrap_or(ErrorCode::for_status(status.as_u16()));
        Self::with_status(status, code, detail)
    }

    /// The problem's code.
    pub fn code(&self) -> ErrorCode {
        self.code.0
    }

    /// Names the request body's field the problem concerns.
    pub fn param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }

    /// Names the resource this occurrence concerns.
    pub fn at(mut self, instance: impl Into<String>) -> Self {
        self.instance = Some(instance.into());
        self
    }
}

/// The HTTP status of a problem with `code` (the catalogue's, `parley_protocol::error`).
pub fn status_of(code: ErrorCode) -> StatusCode {
    StatusCode::from_u16(code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The one mapping from the domain error to a problem: its [`Error::code`], that code's
/// status, its client-facing message; the context of an internal error is logged here.
impl From<Error> for Problem {
    fn from(err: Error) -> Self {
        if let Error::Internal(context) = &err {
            tracing::error!(error = %context, request_id = %current_request_id(), "internal error");
        }
        let mut problem = Problem::new(err.code(), err.to_string());
        if let Error::RateLimited { retry_after_s, .. } | Error::OverBudget { retry_after_s, .. } =
            err
        {
            problem.retry_after_s = Some(retry_after_s);
        }
        problem
    }
}

impl From<Error> for Box<Problem> {
    fn from(err: Error) -> Self {
        Box::new(Problem::from(err))
    }
}

/// A problem's `code`: an [`ErrorCode`], documented as a string that names the
/// `ErrorCode` schema (registered with it) rather than as that enum, so that a client
/// generated from this document still reads a problem whose code a later version added
/// (docs/decisions.md, "Errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProblemCode(pub ErrorCode);

impl PartialEq<&str> for ProblemCode {
    fn eq(&self, other: &&str) -> bool {
        self.0.as_str() == *other
    }
}

impl std::fmt::Display for ProblemCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl Type for ProblemCode {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> std::borrow::Cow<'static, str> {
        "string".into()
    }

    fn schema_ref() -> MetaSchemaRef {
        MetaSchemaRef::Inline(Box::new(MetaSchema::new("string")))
    }

    fn register(registry: &mut Registry) {
        ErrorCode::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Self> {
        Some(self)
    }

    fn raw_element_iter<'a>(&'a self) -> Box<dyn Iterator<Item = &'a Self> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl ParseFromJSON for ProblemCode {
    fn parse_from_json(value: Option<serde_json::Value>) -> ParseResult<Self> {
        ErrorCode::parse_from_json(value)
            .map(Self)
            .map_err(ParseError::propagate)
    }
}

impl ToJSON for ProblemCode {
    fn to_json(&self) -> Option<serde_json::Value> {
        self.0.to_json()
    }
}

/// A set of error statuses one operation declares.
pub trait Statuses: Send + Sync + 'static {
    const LIST: &'static [u16];
}

/// How an error answer is written: problem+json ([`Problems`], Parley's own API) or
/// another surface's shape (`crate::openai::error::OpenAiShape`). The status an
/// operation declares is the shape's.
pub trait ErrorShape: Send + Sync + 'static {
    const CONTENT_TYPE: &'static str;
    /// The document's schema of an error body.
    fn schema_ref() -> poem_openapi::registry::MetaSchemaRef;
    fn register(registry: &mut Registry);
    /// The status this shape answers a problem of `status` with.
    fn status(status: u16) -> u16 {
        status
    }
    /// What the document says a status means.
    fn describe(status: u16) -> &'static str;
    fn render(problem: Problem) -> Response;
}

/// RFC 9457 problem details: every error of Parley's own API.
pub struct Problems;

impl ErrorShape for Problems {
    const CONTENT_TYPE: &'static str = PROBLEM_JSON;

    fn schema_ref() -> poem_openapi::registry::MetaSchemaRef {
        Problem::schema_ref()
    }

    fn register(registry: &mut Registry) {
        Problem::register(registry);
    }

    fn describe(status: u16) -> &'static str {
        describe(status)
    }

    fn render(problem: Problem) -> Response {
        problem_response(problem)
    }
}

/// An error answer of an operation whose declared error statuses are `S`, written in
/// shape `F`.
pub struct ApiError<S: Statuses, F: ErrorShape = Problems> {
    problem: Box<Problem>,
    _declared: PhantomData<fn() -> (S, F)>,
}

impl<S: Statuses, F: ErrorShape> std::fmt::Debug for ApiError<S, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.problem.fmt(f)
    }
}

impl<S: Statuses, F: ErrorShape> ApiError<S, F> {
    /// Wraps a problem. A status the operation does not declare is a bug: it is logged
    /// (and the schema fuzzer in the test suite fails on it), and still answered as is.
    pub fn from_problem(problem: Problem) -> Self {
        let status = F::status(problem.status);
        if !S::LIST.contains(&status) {
            tracing::error!(
                status,
                code = %problem.code,
                declared = ?S::LIST,
                "an operation answered with an error status it does not declare"
            );
        }
        Self {
            problem: Box::new(problem),
            _declared: PhantomData,
        }
    }

    pub fn problem(&self) -> &Problem {
        &self.problem
    }
}

impl<S: Statuses, F: ErrorShape> From<Error> for ApiError<S, F> {
    fn from(err: Error) -> Self {
        Self::from_problem(err.into())
    }
}

impl<S: Statuses, F: ErrorShape> From<Problem> for ApiError<S, F> {
    fn from(problem: Problem) -> Self {
        Self::from_problem(problem)
    }
}

impl<S: Statuses, F: ErrorShape> From<Box<Problem>> for ApiError<S, F> {
    fn from(problem: Box<Problem>) -> Self {
        Self::from_problem(*problem)
    }
}

impl<S: Statuses, F: ErrorShape> IntoResponse for ApiError<S, F> {
    fn into_response(self) -> Response {
        F::render(*self.problem)
    }
}

impl<S: Statuses, F: ErrorShape> From<ApiError<S, F>> for poem::Error {
    fn from(err: ApiError<S, F>) -> Self {
        poem::Error::from_response(err.into_response())
    }
}

impl<S: Statuses, F: ErrorShape> ApiResponse for ApiError<S, F> {
    fn meta() -> MetaResponses {
        // Every operation that takes credentials can be throttled (`crate::gate`).
        let mut list = S::LIST.to_vec();
        if list.contains(&401) && !list.contains(&429) {
            list.push(429);
            list.sort_unstable();
        }
        let responses = list
            .into_iter()
            .map(|status| MetaResponse {
                description: F::describe(status),
                status: Some(status),
                status_range: None,
                content: vec![MetaMediaType {
                    content_type: F::CONTENT_TYPE,
                    schema: F::schema_ref(),
                }],
                headers: if status == 429 {
                    vec![retry_after_header()]
                } else {
                    vec![]
                },
            })
            .collect();
        MetaResponses { responses }
    }

    fn register(registry: &mut Registry) {
        F::register(registry);
    }
}

/// The `Retry-After` header of a 429 (delay-seconds, RFC 9110 §10.2.3).
pub fn retry_after_header() -> poem_openapi::registry::MetaHeader {
    poem_openapi::registry::MetaHeader {
        name: "Retry-After".into(),
        description: Some(
            "Seconds until the request may be accepted (a quota's or the authentication throttle's window ends); absent when the model provider's limit is unknown."
                .into(),
        ),
        required: false,
        deprecated: false,
        schema: u64::schema_ref(),
    }
}

/// What an error status means, as the document says it.
fn describe(status: u16) -> &'static str {
    match status {
        400 => "The request is malformed: the body is not JSON, or a parameter is invalid.",
        401 => "Missing, invalid, expired or revoked credentials.",
        403 => "The caller's role does not allow this.",
        404 => "No such resource, or it belongs to someone else.",
        409 => "The request clashes with the resource's current state.",
        413 => "The request body is larger than the configured limit.",
        415 => "The request body is not `application/json`.",
        422 => "The body is JSON but does not fit the schema, or its values are not acceptable.",
        429 => {
            "Too many failed authentications from the client's address (`auth_throttled`), over a quota (`quota_exceeded`: the user's or the group's turns per minute or tokens per day), or the model provider is rate limiting. `Retry-After` says when to try again, when it is known."
        }
        500 => "Something failed on our side; the request id helps find it in the logs.",
        502 => "The model provider failed.",
        503 => "A dependency (database, job queue, event log) cannot serve the request now.",
        504 => "The turn is still running after the wait, or the model provider stalled.",
        _ => "An error.",
    }
}

/// Handler results: `ApiResult<T, S>` answers `T` or one of the statuses `S` declares.
pub type ApiResult<T, S> = Result<T, ApiError<S>>;

/// The sets of error statuses operations declare, by the shape of the operation. Every
/// authenticated operation can answer 401; every one that reads the database 500 and
/// 503; a path id 404; query or header parameters 400; a JSON body 400, 413, 415, 422.
pub mod statuses {
    use super::Statuses;

    macro_rules! statuses {
        ($($(#[$doc:meta])* $name:ident = [$($status:literal),+];)+) => {
            $(
                $(#[$doc])*
                pub enum $name {}
                impl Statuses for $name {
                    const LIST: &'static [u16] = &[$($status),+];
                }
            )+
        };
    }

    statuses! {
        /// `/readyz`: a dependency is down.
        NotReady = [503];
        /// An authenticated read without parameters.
        Read = [401, 500, 503];
        /// An authenticated read of one resource by id.
        ReadOne = [401, 404, 500, 503];
        /// An authenticated list (paged by query parameters).
        List = [400, 401, 500, 503];
        /// A list below one resource (a path id and query parameters).
        ListOf = [400, 401, 404, 500, 503];
        /// An action on one resource without a body (cancel, complete, resume).
        Act = [401, 404, 409, 500, 503];
        /// Removing something of the caller's that cannot clash with anything (204 or 404).
        Remove = [401, 404, 500, 503];
        /// Changing one resource of the caller's with a JSON body (`PATCH`).
        Change = [400, 401, 404, 413, 415, 422, 500, 503];
        /// A search of the caller's own data (`q`, paged by `limit`): a query without a word
        /// is 422.
        Search = [400, 401, 422, 500, 503];
        /// Opening a session.
        CreateSession = [400, 401, 404, 409, 413, 415, 422, 500, 503];
        /// Sending a message: the turn's own failures in JSON mode too.
        SendMessage = [400, 401, 404, 409, 413, 415, 422, 429, 500, 502, 503, 504];
        /// A change of a resource of the caller's with a body that may clash with its
        /// state (409).
        ChangeMayConflict = [400, 401, 404, 409, 413, 415, 422, 500, 503];
        /// `POST /v1/ask`: sending a message, and the `chat:write` permission.
        Ask = [400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 502, 503, 504];
        /// `GET /v1/ask/replay/{rid}`: a path parameter with a pattern, the permission.
        AskReplay = [400, 401, 403, 404, 500, 503];
        /// Running a suggested action: a body, the session's state, a turn it may start.
        RunAction = [400, 401, 404, 409, 413, 415, 422, 429, 500, 503];
        /// Uploading a file: too large, a type Parley cannot use, unreadable.
        Upload = [400, 401, 413, 415, 422, 500, 503];
        /// Following a prompt's events (`Last-Event-ID`, `?after=`).
        Follow = [400, 401, 404, 500, 503];
        /// Following the caller's own feed (`Last-Event-ID`, `?after=`; no path id).
        FollowFeed = [400, 401, 500, 503];
        /// An admin read without a path id.
        AdminList = [400, 401, 403, 500, 503];
        /// An admin read of one resource.
        AdminRead = [401, 403, 404, 500, 503];
        /// An admin read of the deployment's configuration (no parameters, no path id).
        AdminConfig = [401, 403, 500, 503];
        /// An admin list below one resource.
        AdminListOf = [400, 401, 403, 404, 500, 503];
        /// An admin create without a path id.
        AdminCreate = [400, 401, 403, 404, 409, 413, 415, 422, 500, 503];
        /// An admin write to one resource (create below it, update, put).
        AdminWrite = [400, 401, 403, 404, 409, 413, 415, 422, 500, 503];
        /// An admin action on one resource without a body (cancel).
        AdminAct = [401, 403, 404, 409, 500, 503];
        /// An admin delete.
        AdminDelete = [401, 403, 404, 409, 500, 503];
        /// `GET /openai/v1/models`.
        OpenAiModels = [401, 500, 503];
        /// One model.
        OpenAiModel = [401, 404, 500, 503];
        /// A chat completion or a response: OpenAI's 400 for a body that does not fit.
        OpenAiCreate = [400, 401, 403, 404, 409, 413, 415, 429, 500, 502, 503, 504];
        /// Reading or cancelling a response.
        OpenAiRead = [400, 401, 404, 500, 503];
    }
}

#[cfg(test)]
mod tests;
