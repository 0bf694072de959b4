//! Errors in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`.
//!
//! Every error under `/openai/` leaves in this shape, whatever raised it: a handler's
//! [`OpenAiError`], or a problem of the layers before it (the gate's 401 and 429, a body
//! too large, poem-openapi's parse errors), which [`reshape`] rewrites. The official
//! SDKs pick the exception class by status and read `type` and `code` from the inner
//! object; a problem+json body would leave those undefined. Parley's 422 for a body that
//! does not fit is OpenAI's 400. A 429 or 409 that a retry cannot help
//! (`Retry-After` over a minute, or a conversation still answering) says
//! `x-should-retry: false`, which both SDKs honour (they retry 409 and 429 otherwise,
//! and one of them sleeps for any `Retry-After`).

use parley_protocol::error::ErrorCode;
use poem::{
    Response,
    http::{StatusCode, header},
};
use poem_openapi::{
    registry::{MetaSchemaRef, Registry},
    types::{ToJSON, Type},
};

use super::types::{OpenAiErrorBody, OpenAiErrorDetail};
use crate::error::{ApiError, ErrorShape, Problem};

/// The longest `Retry-After` an SDK is told to wait out itself.
const RETRY_WORTH_IT_S: u64 = 60;

/// OpenAI's error shape, for [`ApiError`].
pub struct OpenAiShape;

/// An error answer of an OpenAI-compatible operation whose statuses are `S`.
pub type OpenAiError<S> = ApiError<S, OpenAiShape>;

impl ErrorShape for OpenAiShape {
    const CONTENT_TYPE: &'static str = "application/json";

    fn schema_ref() -> MetaSchemaRef {
        OpenAiErrorBody::schema_ref()
    }

    fn register(registry: &mut Registry) {
        OpenAiErrorBody::register(registry);
    }

    fn status(status: u16) -> u16 {
        openai_status(status)
    }

    fn describe(status: u16) -> &'static str {
        describe(status)
    }

    fn render(problem: Problem) -> Response {
        response_of(&problem)
    }
}

fn describe(status: u16) -> &'static str {
    match status {
        400 => {
            "The request is malformed or its values are not acceptable (`invalid_request_error`)."
        }
        401 => "Missing, invalid, expired or revoked API key (a Parley token).",
        403 => "The caller may not chat (the `chat:write` permission).",
        404 => "No such model (`model_not_found`) or response, or it belongs to someone else.",
        409 => "The conversation is still answering an earlier message.",
        413 => "The request body is larger than the configured limit.",
        415 => "The request body is not `application/json`.",
        429 => "Over a quota, or too many failed authentications from this address.",
        500 => "Something failed on Parley's side.",
        502 => "The model provider failed.",
        503 => "A dependency cannot serve the request now.",
        504 => "The turn is still running after the wait, or the model provider stalled.",
        _ => "An error.",
    }
}

/// OpenAI's status for a problem's: a body that does not fit is a 400 there.
fn openai_status(status: u16) -> u16 {
    match status {
        422 => 400,
        other => other,
    }
}

/// OpenAI's error `type` for a status (and, for a 429, the limit its detail names).
fn error_type(status: u16, detail: &str) -> &'static str {
    match status {
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        429 if detail.contains("tokens") => "tokens",
        429 => "requests",
        s if s >= 500 => "server_error",
        _ => "invalid_request_error",
    }
}

/// OpenAI's error code for Parley's: OpenAI's own words where its SDKs look for them,
/// else Parley's code.
fn error_code(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::Unauthenticated => "invalid_api_key",
        ErrorCode::QuotaExceeded | ErrorCode::RateLimited | ErrorCode::AuthThrottled => {
            "rate_limit_exceeded"
        }
        // OpenAI's word for a spend limit that is used up.
        ErrorCode::BudgetExceeded => "insufficient_quota",
        other => other.as_str(),
    }
}

/// The OpenAI-shaped answer to a problem.
pub fn response_of(problem: &Problem) -> Response {
    let status = openai_status(problem.status);
    let body = OpenAiErrorBody {
        error: OpenAiErrorDetail {
            message: problem.detail.clone(),
            kind: error_type(status, &problem.detail).to_owned(),
            param: problem.param.clone(),
            code: Some(error_code(problem.code()).to_owned()),
        },
    };
    let mut response = Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .content_type("application/json; charset=utf-8");
    if let Some(seconds) = problem.retry_after_s {
        response = response.header(header::RETRY_AFTER, seconds.max(1));
    }
    let hopeless = problem.retry_after_s.is_some_and(|s| s > RETRY_WORTH_IT_S) || status == 409;
    if hopeless {
        response = response.header("x-should-retry", "false");
    }
    if status == 401 {
        response = response.header(header::WWW_AUTHENTICATE, "Bearer");
    }
    response.body(body.to_json_string())
}

/// Rewrites a problem+json answer under `/openai/` in OpenAI's shape (the gate's, the
/// body limit's, poem-openapi's); anything else passes unchanged.
pub async fn reshape(response: Response) -> Response {
    let is_problem = response
        .content_type()
        .is_some_and(|ct| ct.starts_with("application/problem+json"));
    if !is_problem {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = body.into_bytes().await else {
        return Response::from_parts(parts, poem::Body::empty());
    };
    #[derive(serde::Deserialize)]
    struct Read {
        status: u16,
        code: String,
        detail: String,
        param: Option<String>,
    }
    let Ok(read) = serde_json::from_slice::<Read>(&bytes) else {
        return Response::from_parts(parts, poem::Body::from(bytes));
    };
    let mut problem = Problem::read_back(read.status, &read.code, read.detail);
    problem.param = read.param;
    problem.retry_after_s = parts
        .headers
        .get(header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok()?.parse().ok());
    let mut reshaped = response_of(&problem);
    // Headers the problem carried besides its own (the request id is added after).
    if let Some(allow) = parts.headers.get(header::ALLOW) {
        reshaped.headers_mut().insert(header::ALLOW, allow.clone());
    }
    reshaped
}

#[cfg(test)]
mod tests {
    use super::*;
    use parley_protocol::error::Error;

    async fn body_of(response: Response) -> serde_json::Value {
        serde_json::from_slice(&response.into_body().into_bytes().await.unwrap()).unwrap()
    }

    #[tokio::test]
    async fn problems_become_openai_errors() {
        let unauthenticated = crate::error::problem_response(Problem::from(Error::Unauthenticated));
        let reshaped = reshape(unauthenticated).await;
        assert_eq!(reshaped.status(), StatusCode::UNAUTHORIZED);
        let body = body_of(reshaped).await;
        assert_eq!(body["error"]["type"], "authentication_error");
        assert_eq!(body["error"]["code"], "invalid_api_key");
        let mut quota = Problem::new(ErrorCode::QuotaExceeded, "over the user's tokens_per_day");
        quota.retry_after_s = Some(3600);
        let reshaped = reshape(crate::error::problem_response(quota)).await;
        assert_eq!(reshaped.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(reshaped.headers()[header::RETRY_AFTER], "3600");
        assert_eq!(
            reshaped.headers()["x-should-retry"],
            "false",
            "an hour is not worth a retry"
        );
        let body = body_of(reshaped).await;
        assert_eq!(body["error"]["code"], "rate_limit_exceeded");
        assert_eq!(body["error"]["type"], "tokens");
        let unfit = Problem::new(ErrorCode::ValidationFailed, "messages: required");
        let reshaped = reshape(crate::error::problem_response(unfit)).await;
        assert_eq!(reshaped.status(), StatusCode::BAD_REQUEST);
        assert_eq!(
            body_of(reshaped).await["error"]["type"],
            "invalid_request_error"
        );
    }
}
