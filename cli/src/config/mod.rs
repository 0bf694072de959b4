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

mod endpoints;
mod http;
pub(crate) mod mask;
mod sections;
mod validate;
mod worker;

pub use endpoints::*;
pub use http::*;
pub use sections::*;
pub use worker::*;

use figment::{
    Figment,
    providers::{Env, Format, Serialized, Toml},
};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

/// Every setting of Parley.
#[derive(Debug, Deserialize, Serialize)]
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
    #[serde(default)]
    pub telemetry: TelemetrySettings,
    #[serde(default)]
    pub quotas: QuotaSettings,
    /// Used as the first admin's token on an empty database instead of a random one.
    #[serde(serialize_with = "mask::secret_opt")]
    pub bootstrap_admin_token: Option<SecretString>,
    /// OpenAI-compatible endpoints. None: the offline demo model answers.
    #[serde(default)]
    pub providers: Vec<ProviderSettings>,
    /// The models clients may ask for, each served by one provider.
    #[serde(default)]
    pub models: Vec<ModelSettings>,
    /// The model used when a message names none (default: the first model).
    pub default_model: Option<String>,
    /// MCP servers whose tools are functions.
    #[serde(default)]
    pub mcp_servers: Vec<McpServerSettings>,
    /// Payload types beside the built-in ones.
    #[serde(default)]
    pub payload_types: Vec<PayloadTypeSettings>,
    /// Modules (hooks) beside, or replacing, the built-in ones.
    #[serde(default)]
    pub modules: Vec<ModuleSettingsEntry>,
    #[serde(default)]
    pub worker: WorkerSettings,
    #[serde(default)]
    pub auth: AuthSettings,
    #[serde(default)]
    pub files: FileSettings,
    #[serde(default)]
    pub http: HttpSettings,
    #[serde(default)]
    pub outbound: OutboundSettings,
    #[serde(default)]
    pub titles: TitleSettings,
    #[serde(default)]
    pub runtime: RuntimeSettings,
}

/// The least address space `files.extract_max_memory_mb` may give the PDF extractor:
/// the binary has about 90 MiB mapped before it reads a byte (the limit counts them), so
/// much less leaves the parser nothing for a real PDF.
const MIN_EXTRACT_MEMORY_MB: u64 = 128;

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

    /// The defaults with `overrides`, whatever the environment says: for tests that run
    /// beside tests setting `PARLEY_*` variables (figment's `Jail`) and must not see them.
    #[cfg(test)]
    pub(crate) fn defaults_with(overrides: Overrides) -> anyhow::Result<Self> {
        Self::from_figment(Figment::new().merge(Serialized::defaults(overrides)))
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

    /// The effective settings as TOML, with every default filled in and every secret
    /// masked (`parley config check`).
    pub fn effective_toml(&self) -> anyhow::Result<String> {
        let mut value = serde_json::to_value(self)?;
        mask::drop_nulls(&mut value);
        Ok(toml::to_string_pretty(&value)?)
    }

    /// The quota policy: overrides filled in from the defaults.
    pub fn quota_policy(&self) -> parley_service::quota::QuotaPolicy {
        use parley_service::quota::{GroupLimits, Limits, QuotaPolicy};
        let q = &self.quotas;
        let limits = |set: &QuotaLimits, default: &QuotaLimits| Limits {
            turns_per_minute: set.turns_per_minute.or(default.turns_per_minute),
            tokens_per_day: set.tokens_per_day.or(default.tokens_per_day),
        };
        let none = QuotaLimits::default();
        QuotaPolicy {
            defaults: GroupLimits {
                user: limits(&q.user, &none),
                group: limits(&q.group, &none),
            },
            overrides: q
                .overrides
                .iter()
                .map(|o| {
                    let group_limits = GroupLimits {
                        user: limits(&o.user, &q.user),
                        group: limits(&o.group, &q.group),
                    };
                    (o.group_id, group_limits)
                })
                .collect(),
        }
    }
}

impl Settings {
    /// How long a finished prompt's event log stays readable: `worker.event_retention_s`,
    /// capped by `worker.memory_event_retention_s` when the log is in-process (no Redis).
    pub fn event_retention(&self) -> std::time::Duration {
        let mut seconds = self.worker.event_retention_s;
        if self.redis.url.is_none() {
            seconds = seconds.min(self.worker.memory_event_retention_s);
        }
        std::time::Duration::from_secs(seconds)
    }

    /// What webhook modules and MCP servers over HTTP may reach (`[outbound]`).
    pub fn outbound_policy(&self) -> parley_service::outbound::OutboundPolicy {
        parley_service::outbound::OutboundPolicy {
            deny_private_addresses: self.outbound.deny_private_addresses,
        }
    }

    /// The built-in modules and the configured ones; a bad one names its key.
    pub fn module_catalog(&self) -> anyhow::Result<parley_service::modules::ModuleCatalog> {
        use parley_service::modules::{ModuleCatalog, ModuleSettings};
        let configured = self
            .modules
            .iter()
            .map(|m| ModuleSettings {
                name: m.name.clone(),
                kind: m.kind,
                priority: m.priority,
                fail_closed: m.fail_closed,
                timeout: std::time::Duration::from_millis(m.timeout_ms),
                hooks: m.hooks.clone(),
                url: m.url.clone(),
                secret: m.secret.clone(),
                config: m.config.clone(),
            })
            .collect();
        let http = parley_service::outbound::Outbound::new(self.outbound_policy())
            .map_err(|err| anyhow::anyhow!("building the modules' HTTP client: {err}"))?;
        ModuleCatalog::new(configured, http)
            .map_err(|err| anyhow::anyhow!("invalid setting `modules`: {err}"))
    }

    /// The built-in payload types and the configured ones; a bad one names its key.
    pub fn payload_registry(&self) -> anyhow::Result<parley_service::payloads::PayloadRegistry> {
        use parley_service::payloads::{PayloadRegistry, PayloadSource, PayloadType};
        let configured = self.payload_types.iter().map(|t| {
            let schema = match &t.schema {
                serde_json::Value::String(json) => {
                    serde_json::from_str(json).unwrap_or(serde_json::Value::String(json.clone()))
                }
                other => other.clone(),
            };
            PayloadType {
                name: t.name.clone(),
                description: t.description.clone(),
                source: match t.source {
                    PayloadSourceSetting::Tool => PayloadSource::Tool,
                    PayloadSourceSetting::Llm => PayloadSource::Llm,
                },
                schema,
                llm_instructions: t.llm_instructions.clone(),
                frontend_config: t.frontend_config.clone(),
            }
        });
        PayloadRegistry::builtin_and(configured)
            .map_err(|err| anyhow::anyhow!("invalid setting `payload_types`: {err}"))
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
#[allow(
    clippy::result_large_err,
    reason = "figment::Jail closures return figment::Error, which is large; that is its API"
)]
mod tests;
