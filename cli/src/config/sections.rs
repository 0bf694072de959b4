//! The sections of [`Settings`](super::Settings), with their defaults.

use std::{net::SocketAddr, path::PathBuf};

use secrecy::SecretString;
use serde::{Deserialize, Serialize};

use super::mask;

/// How sessions get their titles (`[titles]`).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TitleSettings {
    /// The model (one of `models`, or `parley-demo` without providers) that writes a
    /// session's title after its first exchange, in the background. None: the first
    /// words of the first message are the title.
    pub model: Option<String>,
}

pub(super) fn default_max_context() -> usize {
    8192
}
pub(super) fn default_max_output_tokens() -> u32 {
    4096
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSettings {
    /// `postgres://…` for distributed mode; absent: SQLite in `data_dir`.
    #[serde(serialize_with = "mask::url_opt")]
    pub url: Option<SecretString>,
    /// Pool size. Absent: 10 on PostgreSQL, 2 on SQLite — SQLite has one writer at a
    /// time, and a connection waiting for the lock sleeps in steps of up to 100 ms
    /// (its busy handler), so more connections only add waiting (BENCHMARKS.md, #9).
    pub max_connections: Option<u32>,
    #[serde(default = "default_connect_timeout_s")]
    pub connect_timeout_s: u64,
    /// `postgres://…` of a streaming replica of `url`: the reads that may lag go there
    /// (admin metrics, message lists, feeds rebuilt after retention); absent: the
    /// primary serves them too.
    #[serde(serialize_with = "mask::url_opt", default)]
    pub read_url: Option<SecretString>,
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: None,
            max_connections: None,
            connect_timeout_s: default_connect_timeout_s(),
            read_url: None,
        }
    }
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RedisSettings {
    /// `redis://…`; absent in embedded mode.
    #[serde(serialize_with = "mask::url_opt")]
    pub url: Option<SecretString>,
    /// The job queue's name: deployments sharing one Redis use different names.
    #[serde(default = "default_queue")]
    pub queue: String,
    /// How many partitions the job queue is split into, each on a hash slot of its own
    /// (on a Redis Cluster, spread over the primaries). Every api and worker process
    /// of a deployment must use the same number.
    #[serde(default = "default_queue_partitions")]
    pub queue_partitions: u16,
}

impl Default for RedisSettings {
    fn default() -> Self {
        Self {
            url: None,
            queue: default_queue(),
            queue_partitions: default_queue_partitions(),
        }
    }
}

fn default_queue_partitions() -> u16 {
    1
}

pub(super) fn default_queue() -> String {
    parley_runtime::queue::DEFAULT_QUEUE.to_owned()
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LimitSettings {
    /// The largest request body accepted, in bytes.
    #[serde(default = "default_max_body_bytes")]
    pub max_body_bytes: usize,
    /// The longest message a user may send, in characters (at most the API document's
    /// 32768).
    #[serde(default = "default_max_message_chars")]
    pub max_message_chars: usize,
}

impl Default for LimitSettings {
    fn default() -> Self {
        Self {
            max_body_bytes: default_max_body_bytes(),
            max_message_chars: default_max_message_chars(),
        }
    }
}

pub(super) fn default_max_message_chars() -> usize {
    parley_service::catalog::MAX_MESSAGE_CHARS
}

/// Uploads and attachments (`[files]`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct FileSettings {
    /// The largest upload, in bytes.
    pub max_file_bytes: usize,
    /// The most attachments one message may carry.
    pub max_attachments: usize,
    /// The most characters of one file's text that go into the model's context.
    pub max_text_chars: usize,
    /// How long the child process that reads an uploaded PDF may take before it is
    /// killed (and the upload refused as unreadable).
    pub extract_timeout_ms: u64,
    /// The address space of that child process, in MiB (the binary included).
    pub extract_max_memory_mb: u64,
}

impl Default for FileSettings {
    fn default() -> Self {
        let d = parley_service::files::FileLimits::default();
        Self {
            max_file_bytes: d.max_file_bytes,
            max_attachments: d.max_attachments,
            max_text_chars: d.max_text_chars,
            extract_timeout_ms: 10_000,
            extract_max_memory_mb: 512,
        }
    }
}

/// Credentials (`[auth]`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AuthSettings {
    /// How long a feed token (`POST /v1/prompts/{id}/feed-token`) opens its feed.
    #[serde(default = "default_feed_token_ttl_s")]
    pub feed_token_ttl_s: u64,
    /// How long an api process keeps what an API token authenticated as (0: it reads the
    /// database on every request). Revocations and disabled users still take effect
    /// within seconds everywhere; role changes within this time.
    #[serde(default = "default_token_cache_s")]
    pub token_cache_s: u64,
}

impl Default for AuthSettings {
    fn default() -> Self {
        Self {
            feed_token_ttl_s: default_feed_token_ttl_s(),
            token_cache_s: default_token_cache_s(),
        }
    }
}

pub(super) fn default_token_cache_s() -> u64 {
    5
}

/// The longest `auth.token_cache_s`: an hour (a role change must reach every api
/// process in bounded time; the clock's arithmetic needs a bound too).
pub const MAX_TOKEN_CACHE_S: u64 = 3600;

pub(super) fn default_feed_token_ttl_s() -> u64 {
    600
}

/// Limits of one subject (`quotas.user`, `quotas.group`); absent: unlimited.
#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QuotaLimits {
    pub turns_per_minute: Option<u64>,
    pub tokens_per_day: Option<u64>,
}

/// Turns per minute and tokens per day (issue #11).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QuotaSettings {
    /// Each user's limits.
    #[serde(default)]
    pub user: QuotaLimits,
    /// Each group's users' limits together (the group of the session's tool).
    #[serde(default)]
    pub group: QuotaLimits,
    /// Other limits for the turns on tools of one group and its subgroups (the deepest
    /// overriding group on a tool group's path wins, and is the group counted).
    #[serde(default)]
    pub overrides: Vec<QuotaOverride>,
}

/// One group's limits; a field left out keeps the default of `quotas.user` or
/// `quotas.group`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QuotaOverride {
    /// The group's id (`GET /v1/admin/groups`).
    pub group_id: uuid::Uuid,
    #[serde(default)]
    pub user: QuotaLimits,
    #[serde(default)]
    pub group: QuotaLimits,
}

/// OpenTelemetry trace export (DESIGN §11).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetrySettings {
    /// The OTLP/HTTP endpoint of a collector (`http://otel-collector:4318`); traces go to
    /// its `/v1/traces`. None: OpenTelemetry's own `OTEL_EXPORTER_OTLP_ENDPOINT` (or
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) when set, else no export.
    pub otlp_endpoint: Option<String>,
    /// The `service.name` of the traces. None: `OTEL_SERVICE_NAME` when set, else
    /// `parley-api`, `parley-worker` or `parley` (all-in-one) by role.
    pub service_name: Option<String>,
    /// Which spans are exported, as a `tracing` filter (apart from `log.filter`).
    #[serde(default = "default_log_filter")]
    pub filter: String,
}

impl Default for TelemetrySettings {
    fn default() -> Self {
        Self {
            otlp_endpoint: None,
            service_name: None,
            filter: default_log_filter(),
        }
    }
}

/// The process's async runtime (`[runtime]`).
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RuntimeSettings {
    /// Threads that run the process's tasks. None: one per CPU the process may use
    /// (cgroup quotas count; a CPU *request* without a limit does not). A worker's and an
    /// api's work is waiting on sockets: on a machine they share with other busy
    /// processes, fewer threads spend less CPU per token waking one another.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub threads: Option<usize>,
}

/// The most threads `runtime.threads` may ask for.
pub const MAX_RUNTIME_THREADS: usize = 1024;

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LogSettings {
    /// A `tracing` filter, e.g. `info` or `parley=debug,sqlx=warn`.
    #[serde(default = "default_log_filter")]
    pub filter: String,
    #[serde(default)]
    pub format: LogFormat,
}

impl Default for LogSettings {
    fn default() -> Self {
        Self {
            filter: default_log_filter(),
            format: LogFormat::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    #[default]
    Pretty,
    Json,
}

pub(super) fn default_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 8080))
}
pub(super) fn default_data_dir() -> PathBuf {
    PathBuf::from("parley-data")
}
pub(super) fn default_connect_timeout_s() -> u64 {
    10
}
pub(super) fn default_max_body_bytes() -> usize {
    1024 * 1024
}
/// Parley's own lines at info; the migrator's step-by-step lines only when asked for
/// (`sea_orm_migration=info`): `parley` reports migrations itself.
pub(super) fn default_log_filter() -> String {
    "info,sea_orm_migration=warn".into()
}

/// A module (`[[modules]]`): code that runs at a session's hooks. Tools name the modules
/// they use and may override their `config`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ModuleSettingsEntry {
    /// How tools name it (`snake_case`); a built-in module of that name is replaced.
    pub name: String,
    pub kind: parley_service::modules::ModuleKind,
    /// 1–99, lower runs first (default by kind: safety 5, PII 20, webhook 50, analytics 95).
    pub priority: Option<u8>,
    /// An error or timeout blocks the message (default: true for safety filters).
    pub fail_closed: Option<bool>,
    /// How long one run may take.
    #[serde(default = "default_module_timeout_ms")]
    pub timeout_ms: u64,
    /// The hooks it runs at (`chat:before_ai`, `chat:after_ai`, `chat:on_message`,
    /// `session:start`, `session:end`); default by kind.
    pub hooks: Option<Vec<parley_protocol::hooks::Hook>>,
    /// Kind `webhook`: where the hook context is POSTed.
    pub url: Option<String>,
    /// Kind `webhook`: the HMAC-SHA256 signing key (a secret: never printed or logged).
    #[serde(serialize_with = "mask::secret_opt")]
    pub secret: Option<secrecy::SecretString>,
    /// Kind-specific settings (a table), which a tool may override key by key.
    #[serde(default = "empty_table")]
    pub config: serde_json::Value,
}

fn default_module_timeout_ms() -> u64 {
    2_000
}

fn empty_table() -> serde_json::Value {
    serde_json::Value::Object(Default::default())
}
