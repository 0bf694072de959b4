//! The one place where errors become HTTP: status, stable `code`, problem+json body.
//!
//! Handlers return `Result<T, ErrorResponse>`; [`ErrorResponse`] is an `ApiResponse`, so
//! every operation declares the problem schema for its error statuses in the OpenAPI
//! document. Errors raised by poem itself (unknown route, bad parameter, failed auth,
//! unparsable body) are turned into the same body by [`crate::middleware::problem_for`].

use parley_entity::error::Error;
use poem::http::StatusCode;
use poem_openapi::{ApiResponse, Object, payload::Json};

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
    /// A stable, machine-readable error code (snake_case).
    pub code: String,
    /// The request id, also sent as the `X-Request-Id` response header.
    pub request_id: String,
    /// The resource this occurrence concerns, when there is one (e.g. the prompt of a
    /// failed turn, which can be resumed).
    pub instance: Option<String>,
}

impl Problem {
    pub fn new(status: StatusCode, code: &str, detail: impl Into<String>) -> Self {
        Self {
            kind: format!("https://parley.dev/problems/{}", code.replace('_', "-")),
            title: status.canonical_reason().unwrap_or("Error").to_owned(),
            status: status.as_u16(),
            detail: detail.into(),
            code: code.to_owned(),
            request_id: current_request_id(),
            instance: None,
        }
    }

    /// Names the resource this occurrence concerns.
    pub fn at(mut self, instance: impl Into<String>) -> Self {
        self.instance = Some(instance.into());
        self
    }
}

/// Every error an operation can answer with; each carries a problem body.
#[derive(Debug, ApiResponse)]
pub enum ErrorResponse {
    /// The request is malformed (unparsable JSON, bad parameter).
    #[oai(status = 400, content_type = "application/problem+json")]
    BadRequest(Json<Problem>),
    /// Missing, invalid or revoked bearer token.
    #[oai(status = 401, content_type = "application/problem+json")]
    Unauthorized(Json<Problem>),
    /// The caller may not do this.
    #[oai(status = 403, content_type = "application/problem+json")]
    Forbidden(Json<Problem>),
    /// No such resource, or it belongs to someone else.
    #[oai(status = 404, content_type = "application/problem+json")]
    NotFound(Json<Problem>),
    /// The request clashes with the resource's current state.
    #[oai(status = 409, content_type = "application/problem+json")]
    Conflict(Json<Problem>),
    /// The request body is larger than the configured limit.
    #[oai(status = 413, content_type = "application/problem+json")]
    PayloadTooLarge(Json<Problem>),
    /// The body is JSON but does not fit the schema or its values are not acceptable.
    #[oai(status = 422, content_type = "application/problem+json")]
    Unprocessable(Json<Problem>),
    /// The model provider is rate limiting; try again later.
    #[oai(status = 429, content_type = "application/problem+json")]
    TooManyRequests(Json<Problem>),
    /// Something failed on our side; the request id helps find it in the logs.
    #[oai(status = 500, content_type = "application/problem+json")]
    Internal(Json<Problem>),
    /// The model provider failed.
    #[oai(status = 502, content_type = "application/problem+json")]
    BadGateway(Json<Problem>),
    /// A dependency (database, Redis) cannot serve the request right now.
    #[oai(status = 503, content_type = "application/problem+json")]
    Unavailable(Json<Problem>),
    /// The model provider stalled, or the turn took too long to wait for.
    #[oai(status = 504, content_type = "application/problem+json")]
    GatewayTimeout(Json<Problem>),
}

impl ErrorResponse {
    /// Wraps a problem in the variant that matches its status.
    pub fn from_problem(problem: Problem) -> Self {
        let body = Json(problem);
        match body.0.status {
            400 => Self::BadRequest(body),
            401 => Self::Unauthorized(body),
            403 => Self::Forbidden(body),
            404 => Self::NotFound(body),
            409 => Self::Conflict(body),
            413 => Self::PayloadTooLarge(body),
            422 => Self::Unprocessable(body),
            429 => Self::TooManyRequests(body),
            502 => Self::BadGateway(body),
            503 => Self::Unavailable(body),
            504 => Self::GatewayTimeout(body),
            _ => Self::Internal(body),
        }
    }

    pub fn problem(&self) -> &Problem {
        match self {
            Self::BadRequest(p)
            | Self::Unauthorized(p)
            | Self::Forbidden(p)
            | Self::NotFound(p)
            | Self::Conflict(p)
            | Self::PayloadTooLarge(p)
            | Self::Unprocessable(p)
            | Self::TooManyRequests(p)
            | Self::Internal(p)
            | Self::BadGateway(p)
            | Self::Unavailable(p)
            | Self::GatewayTimeout(p) => &p.0,
        }
    }
}

impl From<Error> for ErrorResponse {
    fn from(err: Error) -> Self {
        let (status, code) = match &err {
            Error::NotFound { .. } => (StatusCode::NOT_FOUND, "not_found"),
            Error::Conflict { code, .. } => (StatusCode::CONFLICT, *code),
            Error::Invalid { code, .. } => (StatusCode::UNPROCESSABLE_ENTITY, *code),
            Error::Unauthenticated => (StatusCode::UNAUTHORIZED, "unauthenticated"),
            Error::Forbidden { .. } => (StatusCode::FORBIDDEN, "forbidden"),
            Error::Unavailable { .. } => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
            Error::Internal(context) => {
                tracing::error!(error = %context, request_id = %current_request_id(), "internal error");
                (StatusCode::INTERNAL_SERVER_ERROR, "internal_error")
            }
        };
        Self::from_problem(Problem::new(status, code, err.to_string()))
    }
}

/// Handler results.
pub type ApiResult<T> = Result<T, ErrorResponse>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_errors_hide_their_context() {
        let err = Error::internal("reading a session", "password=hunter2 connection refused");
        let response = ErrorResponse::from(err);
        let problem = response.problem();
        assert_eq!(problem.status, 500);
        assert_eq!(problem.code, "internal_error");
        assert!(
            !problem.detail.contains("hunter2"),
            "internal context leaked: {}",
            problem.detail
        );
        assert!(matches!(response, ErrorResponse::Internal(_)));
    }

    #[test]
    fn domain_errors_map_to_their_status_and_code() {
        let cases = [
            (Error::not_found("session"), 404, "not_found"),
            (
                Error::conflict("session_completed", "done"),
                409,
                "session_completed",
            ),
            (Error::invalid("tool_mismatch", "no"), 422, "tool_mismatch"),
            (Error::Unauthenticated, 401, "unauthenticated"),
            (Error::forbidden("no"), 403, "forbidden"),
            (
                Error::Unavailable {
                    what: "database".into(),
                },
                503,
                "unavailable",
            ),
        ];
        for (err, status, code) in cases {
            let response = ErrorResponse::from(err);
            assert_eq!(
                (response.problem().status, response.problem().code.as_str()),
                (status, code)
            );
            assert_eq!(
                response.problem().kind,
                format!("https://parley.dev/problems/{}", code.replace('_', "-"))
            );
        }
    }
}
