//! What every handler can reach: the application layer (turns with the two seams, and
//! the services built over the state's handles: sessions, teaching, feedback, files,
//! saved data, administration, budgets, reports, health), Redis when configured, feed
//! tokens, and limits. The database handles are here for those services and the edge
//! (authentication, the feeds' rebuild); a handler calls a service.

use std::{sync::Arc, time::Duration};

use parley_service::{
    AdminService, BudgetService, FeedbackService, FileService, HealthService, ReportService,
    SavedService, SessionService, TeachingService, TurnService,
};
use sea_orm::DatabaseConnection;

use crate::{
    cors::CorsPolicy,
    feed_token::FeedTokens,
    keepalive::{FeedSignals, Pulse},
    revocations::Revocations,
    throttle::Throttle,
    token_cache::TokenCache,
};

/// How the HTTP edge behaves (`[http]` settings).
#[derive(Debug, Clone, Default)]
pub struct Edge {
    /// Which browser origins may call the API.
    pub cors: CorsPolicy,
    /// Who may read `/metrics` on the API's port.
    pub metrics: MetricsAccess,
    /// Proxies in front whose `X-Forwarded-For` entries are trusted.
    pub trusted_proxy_hops: u8,
}

/// Who may read `/metrics` on the API's port.
#[derive(Debug, Clone, Default)]
pub enum MetricsAccess {
    /// Anyone who reaches the port (a network where only Prometheus does).
    #[default]
    Open,
    /// Callers with this bearer token (its SHA-256, compared in constant time).
    Token(String),
    /// Not here: a listener of its own serves it (`http.metrics_listen`).
    Elsewhere,
}

/// Limits the HTTP layer enforces before a handler runs.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// The largest request body accepted, in bytes (413 above it).
    pub max_body_bytes: usize,
    /// The largest body of a file upload (`POST /v1/files`): the largest file and room
    /// for the multipart framing.
    pub max_upload_bytes: usize,
}

/// The requests that may carry images and files inline (OpenAI's `data:` URLs).
const INLINE_MEDIA: [&str; 2] = ["/openai/v1/chat/completions", "/openai/v1/responses"];

impl HttpLimits {
    /// The body limit of a request to `path` with `method`.
    pub fn body_limit(&self, method: &poem::http::Method, path: &str) -> usize {
        let path = path.trim_end_matches('/');
        if method != poem::http::Method::POST {
            return self.max_body_bytes;
        }
        if path == "/v1/files" {
            self.max_upload_bytes.max(self.max_body_bytes)
        } else if INLINE_MEDIA.contains(&path) {
            // Room for one upload's worth of base64 (`data:` URLs) beside the rest.
            self.max_body_bytes + self.max_upload_bytes / 3 * 4
        } else {
            self.max_body_bytes
        }
    }
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            max_body_bytes: 1024 * 1024,
            max_upload_bytes: 10 * 1024 * 1024 + 64 * 1024,
        }
    }
}

/// How the streaming endpoints behave.
#[derive(Debug, Clone)]
pub struct Streaming {
    /// The keep-alive interval of SSE connections.
    pub ping_every: Duration,
    /// How long `Accept: application/json` waits for a turn before answering 504.
    pub wait_timeout: Duration,
    /// Turns true when the server shuts down: every open feed then ends with a
    /// `reconnect` event. None: feeds end only with their prompt.
    pub closing: Option<tokio::sync::watch::Receiver<bool>>,
    /// The one ping tick, close and revocation signal all the feeds share.
    pub pulse: Pulse,
}

impl Default for Streaming {
    fn default() -> Self {
        Self {
            ping_every: Duration::from_secs(8),
            wait_timeout: Duration::from_secs(300),
            closing: None,
            pulse: Pulse::default(),
        }
    }
}

/// Shared by all requests; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub db: DatabaseConnection,
    /// Reads that may lag the primary by a moment: admin metrics and lists, feeds
    /// rebuilt after the event log's retention. A streaming replica when
    /// `database.read_url` is set, else the same pool as `db`.
    pub read_db: DatabaseConnection,
    /// Present in distributed mode; `/readyz` checks it. A client only: connections are
    /// made on use, so Parley starts (and reports not-ready) while Redis is down.
    pub redis: Option<parley_runtime::topology::Topology>,
    /// Turns: submit, cancel, resume, wait; and the job queue and event log they use.
    pub turns: TurnService,
    /// Where an upload's PDF is parsed (a child process per PDF in a server).
    pub sandbox: parley_service::files::Sandbox,
    pub feed_tokens: Arc<FeedTokens>,
    pub limits: HttpLimits,
    pub streaming: Streaming,
    /// The model providers and their breakers (`GET /v1/admin/providers`).
    pub providers: parley_service::Providers,
    /// The outbound HTTP client (its address rules): what the OpenAI surface fetches an
    /// image or file URL with.
    pub outbound: parley_service::outbound::Outbound,
    /// CORS, `/metrics` access and the authentication throttle.
    pub edge: Edge,
    /// Failed authentications per client address (see `crate::throttle`).
    pub throttle: Arc<Throttle>,
    /// Tokens revoked and users disabled lately (feed tokens, open feeds, cached tokens).
    pub revocations: Arc<Revocations>,
    /// API tokens authenticated lately (`crate::token_cache`).
    pub token_cache: Arc<TokenCache>,
}

impl AppState {
    /// Sessions: start and complete (with their `session:start` / `session:end`), over
    /// the turn service's database and modules.
    pub fn sessions(&self) -> SessionService {
        self.turns.sessions()
    }

    /// The resources administrators manage (`/v1/admin/…`).
    pub fn admin(&self) -> AdminService {
        AdminService::new(self.db.clone())
    }

    /// Feedback on answers (`…/messages/{message_id}/feedback`), the admin's list and
    /// figures of it, and the export of conversations.
    pub fn feedback(&self) -> FeedbackService {
        FeedbackService::new(self.db.clone(), self.turns.functions.clone())
    }

    /// A teacher's view of the classes they teach (`/v1/teaching/…`).
    pub fn teaching(&self) -> TeachingService {
        TeachingService::new(self.db.clone())
    }

    /// Uploads (`/v1/files`), with the deployment's file limits and PDF sandbox.
    pub fn files(&self) -> FileService {
        FileService::new(self.db.clone(), self.turns.files, self.sandbox.clone())
    }

    /// The caller's todos and notes.
    pub fn saved(&self) -> SavedService {
        SavedService::new(self.db.clone())
    }

    /// Budgets administrators set (`/v1/admin/budgets`), over the turns' counters.
    pub fn budgets(&self) -> BudgetService {
        BudgetService::new(self.db.clone(), self.turns.budgets.clone())
    }

    /// What administrators read: figures and rows (from the read pool), a session's
    /// audit, the providers' health.
    pub fn reports(&self) -> ReportService {
        ReportService::new(
            self.db.clone(),
            self.read_db.clone(),
            self.providers.clone(),
        )
    }

    /// Whether the database can serve (`/readyz`).
    pub fn health(&self) -> HealthService {
        HealthService::new(self.db.clone())
    }

    /// What every open feed's keep-alives follow (`crate::keepalive`).
    pub fn feed_signals(&self) -> FeedSignals<'_> {
        FeedSignals {
            pulse: &self.streaming.pulse,
            ping_every: self.streaming.ping_every,
            closing: self.streaming.closing.as_ref(),
            revocations: &self.revocations,
        }
    }
}
