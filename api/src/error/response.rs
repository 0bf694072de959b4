//! Problems as HTTP responses: the status, the `application/problem+json` body and its
//! headers (`Retry-After`, `WWW-Authenticate`), and the errors poem and poem-openapi
//! raise before or around a handler, each mapped to its problem. The outer layer
//! (`crate::middleware`), the security schemes (`crate::auth`) and every other surface
//! answer through these.

use parley_protocol::error::ErrorCode;
use poem::{
    Response,
    error::{MethodNotAllowedError, NotFoundError},
    http::{HeaderValue, StatusCode, header},
};
use poem_openapi::{
    error::{
        AuthorizationError, ContentTypeError, ParseParamError, ParsePathError,
        ParseRequestPayloadError,
    },
    types::ToJSON,
};

use super::{PROBLEM_JSON, Problem};

/// Turns an error raised by poem or poem-openapi into a problem+json response. Responses
/// our handlers built already carry a problem body and pass through unchanged.
pub async fn problem_for(err: poem::Error) -> Response {
    if err.is_from_response() {
        let resp = err.into_response();
        // A problem, or an error the OpenAI-compatible surface shaped its own way.
        if resp
            .content_type()
            .is_some_and(|ct| ct.starts_with(PROBLEM_JSON) || ct.starts_with("application/json"))
        {
            return resp;
        }
        let status = resp.status();
        let detail = resp.into_body().into_string().await.unwrap_or_default();
        return problem_response(Problem::for_status(status, detail));
    }
    let problem = if let Some(e) = err.downcast_ref::<ParseRequestPayloadError>() {
        Problem::new(ErrorCode::ValidationFailed, e.reason.clone())
    } else if let Some(e) = err.downcast_ref::<ParseParamError>() {
        Problem::new(
            ErrorCode::InvalidParameter,
            format!("parameter `{}`: {}", e.name, e.reason),
        )
    } else if err.is::<ParsePathError>() {
        Problem::new(ErrorCode::NotFound, "no such resource")
    } else if err.is::<AuthorizationError>() {
        Problem::new(
            ErrorCode::Unauthenticated,
            "missing, invalid, expired or revoked bearer token",
        )
    } else if let Some(e) = err.downcast_ref::<ContentTypeError>() {
        Problem::new(ErrorCode::UnsupportedMediaType, e.to_string())
    } else if err.is::<NotFoundError>() {
        Problem::new(ErrorCode::NotFound, "no such route")
    } else if err.is::<MethodNotAllowedError>() {
        return method_not_allowed(None);
    } else {
        let status = err.status();
        let detail = if status.is_server_error() {
            tracing::error!(error = %err, "unhandled error");
            "internal error".to_owned()
        } else {
            err.to_string()
        };
        Problem::for_status(status, detail)
    };
    problem_response(problem)
}

/// 405 with `Allow` listing what the path accepts.
pub fn method_not_allowed(allow: Option<String>) -> Response {
    let detail = match &allow {
        Some(allow) => format!("this route accepts {allow}"),
        None => "this route does not accept that method".to_owned(),
    };
    let mut resp = problem_response(Problem::new(ErrorCode::MethodNotAllowed, detail));
    if let Some(value) = allow.and_then(|a| HeaderValue::from_str(&a).ok()) {
        resp.headers_mut().insert(header::ALLOW, value);
    }
    resp
}

/// A problem as a response, with the right status and content type.
pub fn problem_response(problem: Problem) -> Response {
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = Response::builder()
        .status(status)
        .content_type(PROBLEM_JSON);
    if let Some(seconds) = problem.retry_after_s {
        response = response.header(header::RETRY_AFTER, seconds.max(1));
    }
    if status == StatusCode::UNAUTHORIZED {
        response = response.header(header::WWW_AUTHENTICATE, "Bearer");
    }
    response.body(problem.to_json_string())
}
