//! Typed settings: `parley.toml`, then `PARLEY_*` environment variables, then flags.
//!
//! Loaded once at start-up and validated; a bad value fails with a message that names
//! its key. Secrets (database and Redis URLs may hold passwords, the bootstrap token) are
//! `SecretString`s, which never print.
//!
//! Environment names: a top-level key is `PARLEY_<KEY>` (`PARLEY_LISTEN`,
//! `PARLEY_DATA_DIR`, `PARLEY_BOOTSTRAP_ADMIN_TOKEN`); a nested key is
//! `PARLEY_<SECTION>__<KEY>` (`PARLEY_LIMITS__MAX_BODY_BYTES`). Short aliases:
//! `PARLEY_DATABASE_URL`, `PARLEY_REDIS_URL`, `PARLEY_LOG`, `PARLEY_LOG_FORMAT`.

use std::{
    net::SocketAddr,
    path::{Path, PathBuf},
};

use figment::{
    Figment,
    providers::{Env, Format, Serialized, Toml},
};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;

/// Every setting of Parley.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Where the HTTP API listens.
    #[serde(default = "default_listen")]
    pub listen: SocketAddr,
    /// Where embedded mode keeps its SQLite database.
    #[serde(default = "default_data_dir")]
    pub data_dir: PathBuf,
    #[serde(default)]
    pub database: DatabaseSettings,
    #[serde(default)]
    pub redis: RedisSettings,
    #[serde(default)]
    pub limits: LimitSettings,
    #[serde(default)]
    pub log: LogSettings,
    /// Used as the first admin's token on an empty database instead of a random one.
    pub bootstrap_admin_token: Option<SecretString>,
    /// OpenAI-compatible endpoints. None: the offline demo model answers.
    #[serde(default)]
    pub providers: Vec<ProviderSettings>,
    /// The models clients may ask for, each served by one provider.
    #[serde(default)]
    pub models: Vec<ModelSettings>,
    /// The model used when a message names none (default: the first model).
    pub default_model: Option<String>,
    #[serde(default)]
    pub worker: WorkerSettings,
}

/// An OpenAI-compatible provider (`[[providers]]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderSettings {
    /// Also the `vendor` recorded with usage.
    pub name: String,
    /// E.g. `https://api.openai.com/v1` or `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub api_key: Option<SecretString>,
}

/// A model (`[[models]]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    /// The id clients use.
    pub id: String,
    /// The provider that serves it.
    pub provider: String,
    /// The provider's name for it (default: `id`).
    pub upstream: Option<String>,
    /// The context window in tokens.
    #[serde(default = "default_max_context")]
    pub max_context: usize,
}

/// How workers run turns (`[worker]`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerSettings {
    /// Turns one process runs at the same time (`parley serve` and `parley worker`).
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// No token for this long is a stall (`upstream_stall`).
    #[serde(default = "default_stall_timeout_ms")]
    pub stall_timeout_ms: u64,
    /// Provider calls per turn that may fail before any output before the turn fails.
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// How long a worker owns a prompt without renewing its lease.
    #[serde(default = "default_lease_s")]
    pub lease_s: u64,
    /// The most often partial blocks are written to the database.
    #[serde(default = "default_checkpoint_ms")]
    pub checkpoint_ms: u64,
    /// How long a finished prompt's event log stays readable (then rebuilt from the
    /// database).
    #[serde(default = "default_retention_s")]
    pub event_retention_s: u64,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            concurrency: default_concurrency(),
            stall_timeout_ms: default_stall_timeout_ms(),
            max_attempts: default_max_attempts(),
            lease_s: default_lease_s(),
            checkpoint_ms: default_checkpoint_ms(),
            event_retention_s: default_retention_s(),
        }
    }
}

fn default_max_context() -> usize {
    8192
}
fn default_concurrency() -> usize {
    8
}
fn default_stall_timeout_ms() -> u64 {
    15_000
}
fn default_max_attempts() -> u32 {
    3
}
fn default_lease_s() -> u64 {
    30
}
fn default_checkpoint_ms() -> u64 {
    100
}
fn default_retention_s() -> u64 {
    24 * 3600
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSettings {
    /// `postgres://…` for distributed mode; absent: SQLite in `data_dir`.
    pub url: Option<SecretString>,
    #[serde(default = "default_max_connections")]
    pub max_connections: u32,
    #[serde(default = "default_connect_timeout_s")]
    pub connect_timeout_s: u64,
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: None,
            max_connections: default_max_connections(),
            connect_timeout_s: default_connect_timeout_s(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedisSettings {
    /// `redis://…`; absent in embedded mode.
    pub url: Option<SecretString>,
    /// The job queue's name: deployments sharing one Redis use different names.
    #[serde(default = "default_queue")]
    pub queue: String,
}

impl Default for RedisSettings {
    fn default() -> Self {
        Self {
            url: None,
            queue: default_queue(),
        }
    }
}

fn default_queue() -> String {
    parley_runtime::queue::DEFAULT_QUEUE.to_owned()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitSettings {
    /// The largest request body accepted, in bytes.
    #[serde(default = "default_max_body_bytes")]
    pub max_body_bytes: usize,
    /// The longest message a user may send, in bytes.
    #[serde(default = "default_max_message_bytes")]
    pub max_message_bytes: usize,
}

impl Default for LimitSettings {
    fn default() -> Self {
        Self {
            max_body_bytes: default_max_body_bytes(),
            max_message_bytes: default_max_message_bytes(),
        }
    }
}

fn default_max_message_bytes() -> usize {
    32 * 1024
}

#[derive(Debug, Deserialize)]
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

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    #[default]
    Pretty,
    Json,
}

fn default_listen() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 8080))
}
fn default_data_dir() -> PathBuf {
    PathBuf::from("parley-data")
}
fn default_max_connections() -> u32 {
    10
}
fn default_connect_timeout_s() -> u64 {
    10
}
fn default_max_body_bytes() -> usize {
    1024 * 1024
}
fn default_log_filter() -> String {
    "info".into()
}

/// Environment variables whose name is not simply the key in upper case.
const ENV_ALIASES: &[(&str, &str)] = &[
    ("database_url", "database.url"),
    ("redis_url", "redis.url"),
    ("log", "log.filter"),
    ("log_format", "log.format"),
];
/// Top-level keys that may come from the environment as `PARLEY_<KEY>`.
const ENV_TOP_LEVEL: &[&str] = &[
    "listen",
    "data_dir",
    "bootstrap_admin_token",
    "default_model",
];

/// Values given on the command line; they win over file and environment.
#[derive(Debug, Default, serde::Serialize)]
pub struct Overrides {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub listen: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data_dir: Option<PathBuf>,
}

impl Settings {
    /// Loads the config file, the environment and the overrides. The file must exist when
    /// it was named explicitly (`required`); the default `parley.toml` may be absent.
    pub fn load(config_file: &Path, required: bool, overrides: Overrides) -> anyhow::Result<Self> {
        if required && !config_file.exists() {
            anyhow::bail!("config file {} does not exist", config_file.display());
        }
        let mut figment = Figment::new();
        if config_file.exists() {
            figment = figment.merge(Toml::file_exact(config_file));
        }
        Self::from_figment(
            figment
                .merge(env_provider())
                .merge(Serialized::defaults(overrides)),
        )
    }

    fn from_figment(figment: Figment) -> anyhow::Result<Self> {
        let mut settings: Settings = figment.extract().map_err(describe_figment_error)?;
        // An empty variable means "not set", as is usual for environment variables.
        if settings
            .bootstrap_admin_token
            .as_ref()
            .is_some_and(|t| t.expose_secret().is_empty())
        {
            settings.bootstrap_admin_token = None;
        }
        settings.validate()?;
        Ok(settings)
    }

    fn validate(&self) -> anyhow::Result<()> {
        if let Some(url) = &self.database.url {
            let url = url.expose_secret();
            if !(url.starts_with("postgres://")
                || url.starts_with("postgresql://")
                || url.starts_with("sqlite:"))
            {
                anyhow::bail!(
                    "invalid setting `database.url`: expected a postgres:// or sqlite: URL"
                );
            }
        }
        if let Some(url) = &self.redis.url {
            let url = url.expose_secret();
            if !(url.starts_with("redis://") || url.starts_with("rediss://"))
                || redis::Client::open(url).is_err()
            {
                anyhow::bail!(
                    "invalid setting `redis.url`: expected a valid redis:// or rediss:// URL"
                );
            }
        }
        if self
            .bootstrap_admin_token
            .as_ref()
            .is_some_and(|t| t.expose_secret().len() < 16)
        {
            anyhow::bail!(
                "invalid setting `bootstrap_admin_token`: must be at least 16 characters"
            );
        }
        if self.limits.max_body_bytes < 1024 {
            anyhow::bail!("invalid setting `limits.max_body_bytes`: must be at least 1024");
        }
        if self.worker.concurrency == 0 {
            anyhow::bail!("invalid setting `worker.concurrency`: must be at least 1");
        }
        if self.worker.lease_s < 3 {
            anyhow::bail!("invalid setting `worker.lease_s`: must be at least 3");
        }
        if self.database.max_connections == 0 {
            anyhow::bail!("invalid setting `database.max_connections`: must be at least 1");
        }
        if self
            .log
            .filter
            .parse::<tracing_subscriber::EnvFilter>()
            .is_err()
        {
            anyhow::bail!("invalid setting `log.filter`: not a tracing filter");
        }
        Ok(())
    }
}

fn env_provider() -> Env {
    Env::prefixed("PARLEY_").filter_map(|key| {
        // Keys arrive with the prefix stripped but not yet lowercased.
        let key = key.as_str().to_ascii_lowercase();
        let key = key.as_str();
        if let Some((_, target)) = ENV_ALIASES.iter().find(|(alias, _)| *alias == key) {
            return Some((*target).into());
        }
        if ENV_TOP_LEVEL.contains(&key) {
            return Some(key.to_owned().into());
        }
        // `SECTION__KEY` → `section.key`; anything else (e.g. PARLEY_TEST_*) is not ours.
        key.contains("__").then(|| key.replace("__", ".").into())
    })
}

/// Figment names the key already; make the message read as one sentence.
fn describe_figment_error(err: figment::Error) -> anyhow::Error {
    let messages: Vec<String> = err
        .into_iter()
        .map(|e| {
            let key = if e.path.is_empty() {
                "(top level)".to_owned()
            } else {
                e.path.join(".")
            };
            format!("invalid setting `{key}`: {}", e.kind)
        })
        .collect();
    anyhow::anyhow!(messages.join("; "))
}

#[cfg(test)]
// figment::Jail closures return figment::Error, which is large; that is its API.
#[allow(clippy::result_large_err)]
mod tests {
    use figment::Jail;

    use super::*;

    fn load_in(jail: &Jail) -> anyhow::Result<Settings> {
        Settings::load(
            &jail.directory().join("parley.toml"),
            false,
            Overrides::default(),
        )
    }

    #[test]
    fn defaults_need_no_file_and_no_env() {
        Jail::expect_with(|jail| {
            let s = load_in(jail).expect("defaults load");
            assert_eq!(s.listen, default_listen());
            assert!(s.database.url.is_none());
            assert_eq!(s.limits.max_body_bytes, 1024 * 1024);
            Ok(())
        });
    }

    #[test]
    fn env_overrides_file_and_flags_override_env() {
        Jail::expect_with(|jail| {
            jail.create_file(
                "parley.toml",
                "listen = \"127.0.0.1:9000\"\n[limits]\nmax_body_bytes = 4096\n",
            )?;
            jail.set_env("PARLEY_LISTEN", "127.0.0.1:9001");
            jail.set_env("PARLEY_DATABASE_URL", "postgres://u:secret@h/db");
            jail.set_env("PARLEY_TEST_PG_URL", "ignored");
            jail.set_env("PARLEY_DEFAULT_MODEL", "gpt-x");
            jail.set_env("PARLEY_WORKER__CONCURRENCY", "3");
            jail.set_env("PARLEY_REDIS__QUEUE", "tenant-a");
            let s = load_in(jail).expect("loads");
            assert_eq!(s.listen.port(), 9001);
            assert_eq!(s.limits.max_body_bytes, 4096);
            assert_eq!(s.default_model.as_deref(), Some("gpt-x"));
            assert_eq!(s.worker.concurrency, 3);
            assert_eq!(s.redis.queue, "tenant-a");
            assert!(
                !format!("{s:?}").contains("secret"),
                "secrets must not print"
            );
            let flagged = Settings::load(
                &jail.directory().join("parley.toml"),
                false,
                Overrides {
                    listen: Some("127.0.0.1:9002".into()),
                    data_dir: None,
                },
            )
            .expect("loads");
            assert_eq!(flagged.listen.port(), 9002);
            Ok(())
        });
    }

    #[test]
    fn bad_values_name_their_key() {
        Jail::expect_with(|jail| {
            jail.set_env("PARLEY_LIMITS__MAX_BODY_BYTES", "lots");
            let err = load_in(jail).expect_err("must fail").to_string();
            assert!(err.contains("limits.max_body_bytes"), "{err}");
            Ok(())
        });
        Jail::expect_with(|jail| {
            jail.create_file("parley.toml", "[database]\nurl = \"mysql://x\"\n")?;
            let err = load_in(jail).expect_err("must fail").to_string();
            assert!(err.contains("database.url"), "{err}");
            Ok(())
        });
        Jail::expect_with(|jail| {
            jail.create_file("parley.toml", "[limits]\nmax_bdy_bytes = 1\n")?;
            let err = load_in(jail).expect_err("must fail").to_string();
            assert!(err.contains("max_bdy_bytes"), "{err}");
            Ok(())
        });
        Jail::expect_with(|jail| {
            jail.set_env("PARLEY_LISTEN", "not-an-address");
            let err = load_in(jail).expect_err("must fail").to_string();
            assert!(err.contains("listen"), "{err}");
            Ok(())
        });
    }

    #[test]
    fn every_shipped_config_file_parses() {
        // Inside a Jail: other tests set PARLEY_* variables, and Jail serializes them.
        Jail::expect_with(|_| {
            let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy");
            let mut seen = 0;
            for entry in std::fs::read_dir(&deploy).expect("deploy/ exists") {
                let path = entry.expect("readable entry").path();
                if path.extension().is_some_and(|ext| ext == "toml") {
                    Settings::load(&path, true, Overrides::default())
                        .unwrap_or_else(|err| panic!("{} does not load: {err}", path.display()));
                    seen += 1;
                }
            }
            assert!(seen > 0, "no config files found under deploy/");
            Ok(())
        });
    }
}
