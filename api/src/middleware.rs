//! The outer layer every request passes through: request id, CORS (`crate::cors`),
//! credentials before the body (`crate::gate`), body limit and JSON syntax check, and
//! poem's own errors answered as problem+json (`crate::error::problem_for`; a 405 with
//! the `Allow` header RFC 9110 asks for).
//!
//! An operation that needs credentials is authenticated before its body is read: a
//! request without valid ones is answered 401 with the body unread. The body is then
//! read here (at most `max_body_bytes`) so that an oversized body is a 413 whether or
//! not it announced its length, and so that unparsable JSON is a 400 while a JSON value
//! that does not fit an operation's schema is a 422 (poem-openapi reports both as one
//! error kind). Either is answered only when the operation parses its body, after the
//! credentials and the role were checked.

use std::sync::Arc;

use parley_protocol::error::ErrorCode;
use poem::{
    Endpoint, IntoResponse, Request, Response,
    error::{MethodNotAllowedError, NotFoundError, ReadBodyError},
    http::{HeaderValue, header},
};
use poem_openapi::error::ParseRequestPayloadError;

use tracing::Instrument;

use crate::{
    cors::CorsPolicy,
    error::{Problem, REQUEST_ID, method_not_allowed, problem_for, problem_response},
    spec::Routes,
    state::{AppState, HttpLimits},
    trace::carried_headers,
};

/// What the outer layer needs: the document's routes, the body limits and the state
/// (credentials, CORS, throttle).
pub struct Guard {
    pub routes: Arc<Routes>,
    pub limits: HttpLimits,
    pub state: AppState,
}

pub const REQUEST_ID_HEADER: &str = "x-request-id";

/// Serves one request inside the request-id scope, with the body guarded.
pub async fn guard<E: Endpoint>(
    ep: Arc<E>,
    req: Request,
    guard: Arc<Guard>,
) -> poem::Result<Response> {
    let request_id = req
        .header(REQUEST_ID_HEADER)
        .filter(|id| !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_owned)
        .unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
    let started = std::time::Instant::now();
    let span = tracing::info_span!("request", request_id = %request_id, method = %req.method(), path = %req.uri().path());
    // A caller's trace context makes this request a span of its trace.
    parley_runtime::trace::adopt(&span, &carried_headers(&req));
    REQUEST_ID
        .scope(request_id.clone(), async move {
            let path = req.uri().path().to_owned();
            let method = req.method().clone();
            let origin = req.header(header::ORIGIN).map(str::to_owned);
            let routes = &guard.routes;
            let cors = &guard.state.edge.cors;
            let mut resp = if CorsPolicy::is_preflight(&req) {
                cors.preflight(&req, routes.allow(&path)).unwrap_or_else(|| {
                    problem_response(Problem::new(ErrorCode::CorsOriginRefused, "cross-origin requests from this origin are not allowed (`http.cors_origins`)",
                    ))
                })
            } else {
                let mut resp = serve(&*ep, req, &guard, &path, &method).await;
                if path.starts_with(crate::openai::PREFIX) {
                    resp = crate::openai::error::reshape(resp).await;
                }
                cors.decorate(origin.as_deref(), &mut resp);
                resp
            };
            if let Ok(value) = HeaderValue::from_str(&request_id) {
                resp.headers_mut().insert(REQUEST_ID_HEADER, value);
            }
            let elapsed = started.elapsed();
            tracing::info!(
                status = resp.status().as_u16(),
                latency_ms = elapsed.as_millis() as u64,
                "served"
            );
            parley_runtime::metrics::metrics().http_request(
                method.as_str(),
                routes.template(&path).unwrap_or("unmatched"),
                resp.status().as_u16(),
                elapsed.as_secs_f64(),
            );
            Ok(resp)
        })
        .instrument(span)
        .await
}

/// Credentials first (an operation that needs them), then the body, then the endpoint.
async fn serve<E: Endpoint>(
    ep: &E,
    mut req: Request,
    guard: &Guard,
    path: &str,
    method: &poem::http::Method,
) -> Response {
    if let Some(security) = guard.routes.security(method.as_str(), path)
        && let Err(problem) = crate::gate::admit(&mut req, &guard.state, security).await
    {
        // Drop what the client has already sent, within a small bound of bytes and time,
        // so a short body's sender reads the answer rather than a reset; a large one is
        // cut off, and a client that sends nothing is not waited for.
        discard(req.take_body(), UNREAD_BODY_DRAIN, UNREAD_BODY_WAIT).await;
        return problem_response(problem);
    }
    let max_body = guard.limits.body_limit(method, path);
    match read_body(&mut req, max_body).await {
        Err(problem) => problem_response(problem),
        Ok((malformed, body)) => match ep.call(req).await {
            Ok(output) => output.into_response(),
            Err(err) if err.is::<MethodNotAllowedError>() => {
                method_not_allowed(guard.routes.allow(path))
            }
            Err(err) if err.is::<NotFoundError>() && doubled_prefix(path) => {
                problem_response(Problem::new(
                    ErrorCode::NotFound,
                    "no such route: the path starts with `/v1` twice — a client whose base URL ends with `/v1` (or `/openai/v1`) puts it before every operation's path; use the server's address as the base URL",
                ))
            }
            // The body is parsed after credentials and the role are checked, so
            // a malformed body is reported only to a caller who may send it.
            Err(err) => match (malformed, err.downcast_ref::<ParseRequestPayloadError>()) {
                (Some(problem), Some(_)) => problem_response(problem),
                (None, Some(refused)) => {
                    problem_response(unfit(guard, method, path, &body, &refused.reason))
                }
                _ => problem_for(err).await,
            },
        },
    }
}

/// Whether `path` repeats the API's prefix (`/v1/v1/…`, `/openai/v1/v1/…`): the mark of
/// a client configured with a base URL that already ends with it.
fn doubled_prefix(path: &str) -> bool {
    let rest = path.strip_prefix("/openai").unwrap_or(path);
    rest.starts_with("/v1/v1/") || rest.starts_with("/v1/openai/v1/") || rest == "/v1/v1"
}

/// The 422 for a JSON body that does not fit its operation's schema: the field it
/// fails at (`param`) and why, never the values it holds.
fn unfit(
    guard: &Guard,
    method: &poem::http::Method,
    path: &str,
    body: &[u8],
    reason: &str,
) -> Problem {
    match guard.routes.misfit(method.as_str(), path, body) {
        Some(misfit) if misfit.param.is_empty() => {
            Problem::new(ErrorCode::ValidationFailed, misfit.why)
        }
        Some(misfit) => Problem::new(
            ErrorCode::ValidationFailed,
            format!("`{}`: {}", misfit.param, misfit.why),
        )
        .param(misfit.param),
        None => Problem::new(
            ErrorCode::ValidationFailed,
            crate::spec::without_values(reason),
        ),
    }
}

/// How much of a refused request's body is read and dropped (64 KiB at a time), and for
/// how long at most.
const UNREAD_BODY_DRAIN: usize = 256 * 1024;
const UNREAD_BODY_WAIT: std::time::Duration = std::time::Duration::from_millis(200);

/// Reads the body (413 above `max_body`). Returns the 400 `malformed_json` problem to
/// answer if the operation parses the body and it is not JSON, and the body's bytes
/// (shared, not copied) to say where a body that is JSON does not fit.
async fn read_body(
    req: &mut Request,
    max_body: usize,
) -> Result<(Option<Problem>, bytes::Bytes), Problem> {
    let too_large = || {
        Problem::new(
            ErrorCode::PayloadTooLarge,
            format!("the request body exceeds the limit of {max_body} bytes"),
        )
    };
    let announced = req
        .header(header::CONTENT_LENGTH)
        .and_then(|len| len.parse::<usize>().ok());
    if announced.is_some_and(|len| len > max_body) {
        // Read (and drop) what the client is already sending, within bounds, so it sees
        // the 413 rather than a connection reset while it is still writing.
        discard(
            req.take_body(),
            max_body.saturating_mul(16),
            std::time::Duration::from_secs(5),
        )
        .await;
        return Err(too_large());
    }
    let bytes = req
        .take_body()
        .into_bytes_limit(max_body)
        .await
        .map_err(|err| match err {
            ReadBodyError::PayloadTooLarge => too_large(),
            other => Problem::new(ErrorCode::UnreadableBody, other.to_string()),
        })?;
    let is_json = req
        .content_type()
        .is_some_and(|ct| ct.starts_with("application/json") || ct.contains("+json"));
    let malformed = (is_json && !bytes.is_empty())
        .then(|| serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).err())
        .flatten()
        .map(|err| {
            Problem::new(
                ErrorCode::MalformedJson,
                format!("the request body is not valid JSON: {err}"),
            )
        });
    req.set_body(bytes.clone());
    Ok((malformed, bytes))
}

/// Reads and drops up to `limit` bytes of a body, for at most `within`.
async fn discard(body: poem::Body, limit: usize, within: std::time::Duration) {
    use tokio::io::AsyncReadExt;
    let mut reader = body.into_async_read();
    let mut buf = vec![0u8; 64 * 1024];
    let mut seen = 0usize;
    let drain = async {
        while seen < limit {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => seen += n,
            }
        }
    };
    let _ = tokio::time::timeout(within, drain).await;
}
