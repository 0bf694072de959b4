//! `/v1/feed`: the caller's own feed of what happens across their sessions (DESIGN §13),
//! as Server-Sent Events, and the feed token a browser's `EventSource` opens it with.

use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Object, OpenApi,
    param::{Header, Query},
    payload::Json,
};

use super::ApiTags;
use crate::{
    auth::{BearerAuth, FeedAuth},
    error::{ApiResult, statuses},
    feed_token::{FeedGrant, FeedScope},
    state::AppState,
    types::EventId,
};

pub mod stream;

use stream::UserFeedStream;

/// A credential that opens the caller's user feed and nothing else.
#[derive(Debug, Object)]
pub struct UserFeedToken {
    /// Pass it as `?access_token=` to `/v1/feed`. Secret; it expires.
    pub token: String,
    pub expires_at: DateTime<Utc>,
    /// The feed's URL with the token in it.
    pub feed_url: String,
}

#[derive(ApiResponse)]
pub enum FeedResponse {
    /// The caller's feed as Server-Sent Events; it does not end on its own.
    #[oai(status = 200)]
    Stream(UserFeedStream),
}

pub struct FeedApi;

#[OpenApi(prefix_path = "/v1/feed", tag = "ApiTags::Sessions")]
impl FeedApi {
    /// Follow the caller's feed
    ///
    /// Server-Sent Events of what happens across the caller's sessions, from any tab or
    /// device: `session_created`, `session_updated`, `session_deleted`, `turn_started`,
    /// `turn_finished`, `approval_requested`, `approval_resolved`, `timer_fired` (see the
    /// `UserEvent` schema). Each event's `id:` is its `seq`; resume with `Last-Event-ID`
    /// (or `?after=SEQ`; the header wins). Without either the feed starts with the
    /// oldest events it holds. The feed keeps a short history (the session list is the
    /// durable truth): a reader resuming from before it gets a `reset` event, and should
    /// refetch its session list. Authenticates with a bearer token or with
    /// `?access_token=` (a token from `POST /v1/feed/token`; a prompt's feed token does
    /// not open it).
    #[oai(path = "/", method = "get", operation_id = "get_user_feed")]
    async fn feed(
        &self,
        auth: FeedAuth,
        state: Data<&AppState>,
        /// Resume after this event (the last `id:` received).
        #[oai(name = "Last-Event-ID")]
        last_event_id: Header<Option<EventId>>,
        /// Start after this `seq` (when no `Last-Event-ID` is sent).
        #[oai(validator(minimum(value = "0"), maximum(value = "9007199254740991")))]
        after: Query<Option<u64>>,
    ) -> ApiResult<FeedResponse, statuses::FollowFeed> {
        let reader = auth.reader_of_user_feed()?;
        let held = last_event_id.0.map(|id| id.0);
        let after = held.or(after.0).unwrap_or(0);
        Ok(FeedResponse::Stream(stream::follow(&state, after, reader)))
    }

    /// Get a user feed token
    ///
    /// A short-lived token that opens the caller's feed (`GET /v1/feed`) and nothing
    /// else, for a browser's `EventSource` (which cannot send an `Authorization` header).
    #[oai(
        path = "/token",
        method = "post",
        operation_id = "create_user_feed_token"
    )]
    async fn token(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
    ) -> ApiResult<Json<UserFeedToken>, statuses::Read> {
        let grant = FeedGrant {
            scope: FeedScope::User,
            user_id: auth.0.user_id,
            token_id: auth.0.token_id,
        };
        let (token, expires_at) = state.feed_tokens.mint(grant, Utc::now());
        Ok(Json(UserFeedToken {
            feed_url: format!("/v1/feed?access_token={token}"),
            token,
            expires_at,
        }))
    }
}
