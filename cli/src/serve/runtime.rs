//! The runtime a server role runs on, built from the settings: the event log and job
//! queue (Redis, or embedded), the model catalog with its breakers, the functions (with
//! the MCP servers'), the modules and the quotas; and the smaller pieces the API and the
//! workers take from the settings.

use std::{path::Path, sync::Arc, time::Duration};

use anyhow::Context;
use parley_api::FeedTokens;
use parley_runtime::{
    event_log::{EventLog, MemoryEventLog, RedisEventLog},
    queue::{QueueBackend, RedisQueue, SqliteQueue},
    user_feed::{MemoryUserFeed, Publisher, RedisUserFeed, Retention},
};
use parley_worker::{
    agent_loop::LoopSettings,
    deps::TurnSettings,
    functions::{
        Registry,
        live::LiveRegistry,
        mcp::{self, McpServerConfig, McpTransport},
    },
    providers::{Catalog, ModelConfig, Price, ProviderConfig},
};
use sea_orm::DatabaseConnection;
use secrecy::ExposeSecret;

use super::Role;
use crate::config::Settings;

/// The two seams, the model catalog and the functions, chosen by configuration.
pub(super) struct Runtime {
    pub(super) events: Arc<dyn EventLog>,
    pub(super) queue: QueueBackend,
    /// The per-user feed: the api follows it, the api and the workers publish on it.
    pub(super) feed: Publisher,
    pub(super) catalog: Arc<Catalog>,
    /// What models may call; the API lists its catalog, the workers run it. MCP servers
    /// that were down at start-up join it when they come back.
    pub(super) functions: LiveRegistry,
    /// The modules: the API checks tool definitions against them and fires session
    /// hooks; the workers run the chat hooks.
    pub(super) modules: parley_service::modules::ModuleCatalog,
    /// The quotas: the API admits turns, the workers count their tokens (one store).
    pub(super) quotas: parley_service::quota::Quotas,
    /// The budgets: the API checks turns, the workers hold and settle calls (one store).
    pub(super) budgets: parley_service::budget::Budgets,
}

pub(super) async fn runtime(settings: &Settings, role: Role) -> anyhow::Result<Runtime> {
    let catalog = catalog(settings)?;
    let retention = Retention {
        max_events: settings.worker.feed_max_events.max(1),
        max_age: Duration::from_secs(settings.worker.feed_max_age_s.max(1)),
    };
    let (events, queue, feed): (Arc<dyn EventLog>, QueueBackend, Publisher) = match &settings
        .redis
        .url
    {
        Some(url) => {
            let url = url.expose_secret();
            parley_runtime::check_redis_topology(url)
                .await
                .map_err(|problem| anyhow::anyhow!("invalid setting `redis.url`: {problem}"))?;
            let events = RedisEventLog::connect(url)
                .await
                .context("invalid setting `redis.url`")?;
            let queue = RedisQueue::connect(url)
                .context("invalid setting `redis.url`")?
                .with_queue(&settings.redis.queue)
                .with_partitions(settings.redis.queue_partitions);
            let feed = RedisUserFeed::connect(url, retention)
                .map_err(|err| anyhow::anyhow!("invalid setting `redis.url`: {err}"))?;
            (
                Arc::new(events),
                QueueBackend::Redis(queue),
                Publisher::new(Arc::new(feed)),
            )
        }
        None if role == Role::AllInOne => {
            let path = settings.data_dir.join("queue.db");
            std::fs::create_dir_all(&settings.data_dir)
                .with_context(|| format!("creating {}", settings.data_dir.display()))?;
            let queue = SqliteQueue::open(&path)
                .await
                .with_context(|| format!("opening the job queue at {}", path.display()))?;
            let events =
                MemoryEventLog::with_finished_limit(settings.worker.memory_event_max_finished);
            let feed = Publisher::new(Arc::new(MemoryUserFeed::new(retention)));
            (Arc::new(events), QueueBackend::Sqlite(queue), feed)
        }
        None => anyhow::bail!(
            "`parley {}` shares work through Redis: set `redis.url` (PARLEY_REDIS_URL), or run `parley serve`",
            if role == Role::Api { "api" } else { "worker" }
        ),
    };
    Ok(Runtime {
        events,
        queue,
        feed,
        catalog,
        functions: functions(settings).await?,
        modules: settings.module_catalog()?,
        quotas: quotas(settings)?,
        budgets: budgets(settings)?,
    })
}

/// How long a model call's budget hold lasts when the call never settles (its worker
/// died): well past the longest call (the stall window bounds the silences, the
/// model's output limit the length), short enough that a crash frees the budget soon.
const BUDGET_HOLD_TTL: Duration = Duration::from_secs(600);

/// The budget counters: in Redis (shared by the api and every worker) when there is
/// one, else in this process.
fn budgets(settings: &Settings) -> anyhow::Result<parley_service::budget::Budgets> {
    use parley_runtime::budget::{BudgetStore, memory::MemoryBudgets, redis::RedisBudgets};
    let store: Arc<dyn BudgetStore> = match &settings.redis.url {
        Some(url) => Arc::new(
            RedisBudgets::connect(url.expose_secret(), &settings.redis.queue)
                .map_err(|err| anyhow::anyhow!("invalid setting `redis.url`: {err}"))?,
        ),
        None => Arc::new(MemoryBudgets::new()),
    };
    Ok(parley_service::budget::Budgets::new(store, BUDGET_HOLD_TTL))
}

/// The quota policy over its counters: in Redis (shared by every process) when there
/// is one, else in this process.
fn quotas(settings: &Settings) -> anyhow::Result<parley_service::quota::Quotas> {
    use parley_runtime::quota::{QuotaStore, memory::MemoryQuotas, redis::RedisQuotas};
    let store: Arc<dyn QuotaStore> = match &settings.redis.url {
        Some(url) => Arc::new(
            RedisQuotas::connect(url.expose_secret(), &settings.redis.queue)
                .map_err(|err| anyhow::anyhow!("invalid setting `redis.url`: {err}"))?,
        ),
        None => Arc::new(MemoryQuotas::new()),
    };
    Ok(parley_service::quota::Quotas::new(
        settings.quota_policy(),
        store,
    ))
}

/// The built-in functions and those of the configured MCP servers. A server that cannot
/// be reached at start-up is logged and retried in the background: its functions join
/// when it answers (until then they answer "no function named …" to the model); two
/// functions with one name among the servers that answered stop the start.
async fn functions(settings: &Settings) -> anyhow::Result<LiveRegistry> {
    let registry = Registry::builtin()
        .with_payloads(settings.payload_registry()?)
        .map_err(|err| anyhow::anyhow!("invalid setting `payload_types`: {err}"))?;
    let registry = LiveRegistry::new(registry);
    // One client for every server over HTTP: the outbound policy, no idle connections.
    let outbound =
        parley_service::outbound::Outbound::without_idle_pool(settings.outbound_policy())
            .map_err(|err| anyhow::anyhow!("building the MCP servers' HTTP client: {err}"))?;
    let servers = settings.mcp_servers.iter().map(|server| {
        let transport = match (&server.command, &server.url) {
            (Some(command), _) => McpTransport::Stdio {
                command: command.clone(),
                args: server.args.clone(),
                env: server.env.clone(),
            },
            (None, url) => McpTransport::Http {
                url: url.clone().unwrap_or_default(),
                bearer_token: server.bearer_token.clone(),
                outbound: outbound.clone(),
            },
        };
        McpServerConfig {
            name: server.name.clone(),
            transport,
            permissions: server.permissions.clone(),
            timeout: Duration::from_millis(server.timeout_ms),
            connect_timeout: Duration::from_millis(server.connect_timeout_ms),
            payload_types: server.payload_types.clone(),
            async_tools: server.async_tools.clone(),
            approval_tools: server.approval_tools.clone(),
        }
    });
    mcp::join::connect_all(servers.collect(), &registry)
        .await
        .map_err(|err| anyhow::anyhow!("invalid setting `mcp_servers`: {err}"))?;
    Ok(registry)
}

pub(crate) fn catalog(settings: &Settings) -> anyhow::Result<Arc<Catalog>> {
    let providers: Vec<ProviderConfig> = settings
        .providers
        .iter()
        .map(|p| ProviderConfig {
            name: p.name.clone(),
            kind: p.kind,
            base_url: p.base_url.clone(),
            api_key: p.api_key.clone(),
            connect_timeout: Duration::from_millis(p.connect_timeout_ms),
            first_token_timeout: Duration::from_millis(p.first_token_timeout_ms),
            continue_partial: p.continue_partial,
        })
        .collect();
    let models: Vec<ModelConfig> = settings
        .models
        .iter()
        .map(|m| ModelConfig {
            id: m.id.clone(),
            upstream: m.upstream.clone(),
            provider: m.provider.clone(),
            max_context: m.max_context,
            max_output_tokens: m.max_output_tokens,
            vision: m.vision,
            structured_outputs: m.structured_outputs,
            price: Price {
                input_usd_per_mtok: m.input_usd_per_mtok.unwrap_or(0.0),
                output_usd_per_mtok: m.output_usd_per_mtok.unwrap_or(0.0),
                cached_input_usd_per_mtok: m.cached_input_usd_per_mtok,
                cache_write_usd_per_mtok: m.cache_write_usd_per_mtok,
                reasoning_usd_per_mtok: m.reasoning_usd_per_mtok,
            },
            fallback: m.fallback.clone(),
            thinking_budget: m.thinking_budget_tokens,
            prompt_cache: m.prompt_cache,
        })
        .collect();
    let catalog = Catalog::new(&providers, &models, settings.default_model.as_deref())
        .map_err(|err| anyhow::anyhow!("invalid setting `models`: {err}"))?;
    if let Some(model) = &settings.titles.model
        && catalog.resolve(Some(model)).is_none()
    {
        anyhow::bail!("invalid setting `titles.model`: `{model}` is not a model served here");
    }
    let (providers, users) = breakers(settings)?;
    Ok(Arc::new(catalog.with_breakers(providers, users)))
}

type SharedBreakers = Arc<dyn parley_runtime::breaker::Breakers>;

/// The breakers every worker of the deployment shares — the providers' and the users',
/// each with its policy: in Redis (one connection for both) when there is one, else in
/// this process.
fn breakers(settings: &Settings) -> anyhow::Result<(SharedBreakers, SharedBreakers)> {
    use parley_runtime::breaker::{
        BreakerPolicy, cached::CachedBreakers, memory::MemoryBreakers, redis::RedisBreakers,
    };
    let policy = |failures_to_open, open_s| {
        let open_for = Duration::from_secs(open_s);
        BreakerPolicy {
            failures_to_open,
            open_for,
            // A probe is one provider call (or one turn): it reports long before this.
            probe_timeout: open_for,
        }
    };
    let w = &settings.worker;
    let providers = policy(w.breaker_failures, w.breaker_open_s);
    let users = policy(w.user_breaker_failures, w.user_breaker_open_s);
    Ok(match &settings.redis.url {
        // Shared by the workers; a breaker seen closed and clean costs no round trip for
        // a second (`runtime::breaker::cached`).
        Some(url) => {
            let store = RedisBreakers::connect(url.expose_secret(), providers)
                .map_err(|err| anyhow::anyhow!("invalid setting `redis.url`: {err}"))?;
            let cached = |store: RedisBreakers| -> SharedBreakers {
                Arc::new(CachedBreakers::new(Arc::new(store), Duration::from_secs(1)))
            };
            let users = store.with_policy(users);
            (cached(store), cached(users))
        }
        None => (
            Arc::new(MemoryBreakers::new(providers)),
            Arc::new(MemoryBreakers::new(users)),
        ),
    })
}

pub(super) fn file_limits(settings: &Settings) -> parley_service::files::FileLimits {
    parley_service::files::FileLimits {
        max_file_bytes: settings.files.max_file_bytes,
        max_attachments: settings.files.max_attachments,
        max_text_chars: settings.files.max_text_chars,
    }
}

/// Uploaded PDFs are parsed by this very binary, one child process each (`parley
/// extract-text`, see `parley_extract` and docs/decisions.md).
pub(super) fn pdf_sandbox(settings: &Settings) -> anyhow::Result<parley_service::files::Sandbox> {
    // The file this process runs from, even after an upgrade replaced it on disk (so the
    // child always speaks the parent's protocol); current_exe() where there is no /proc.
    let this = std::path::Path::new("/proc/self/exe");
    let program = if this.exists() {
        this.to_path_buf()
    } else {
        std::env::current_exe().context("finding this binary (the PDF extractor)")?
    };
    Ok(parley_service::files::Sandbox::Process {
        program,
        args: vec!["extract-text".into()],
        timeout: Duration::from_millis(settings.files.extract_timeout_ms),
        max_memory_bytes: settings.files.extract_max_memory_mb * 1024 * 1024,
    })
}

pub(super) fn turn_settings(settings: &Settings) -> TurnSettings {
    let w = &settings.worker;
    TurnSettings {
        agent_loop: LoopSettings {
            stall_timeout: Duration::from_millis(w.stall_timeout_ms),
            max_attempts: w.max_attempts,
            retry_backoff: Duration::from_millis(250),
        },
        lease: Duration::from_secs(w.lease_s),
        checkpoint_interval: Duration::from_millis(w.checkpoint_ms),
        retention: settings.event_retention(),
        delta_window: Duration::from_millis(w.delta_window_ms),
        delta_max_bytes: w.delta_max_bytes,
        title_model: settings.titles.model.clone(),
        approval_timeout: Duration::from_secs(w.approval_timeout_s.max(1)),
        ..TurnSettings::default()
    }
}

/// The configured providers with the models each serves, and the breakers the workers
/// share, for `GET /v1/admin/providers`.
pub(super) fn providers(settings: &Settings, catalog: &Catalog) -> parley_service::Providers {
    parley_service::Providers {
        entries: settings
            .providers
            .iter()
            .map(|p| parley_service::ProviderEntry {
                name: p.name.clone(),
                models: settings
                    .models
                    .iter()
                    .filter(|m| m.provider == p.name)
                    .map(|m| m.id.clone())
                    .collect(),
            })
            .collect(),
        breakers: catalog.provider_breakers().cloned(),
    }
}

/// Feed tokens signed with the deployment's shared key (created by the first process
/// that needs it), so a token minted by one api process opens the feed on any other.
pub(super) async fn feed_tokens(
    db: &DatabaseConnection,
    settings: &Settings,
) -> anyhow::Result<FeedTokens> {
    let key = parley_entity::query::secrets::get_or_create(db, "feed_token_key", || {
        use rand::RngCore;
        let mut key = [0u8; 32];
        rand::rng().fill_bytes(&mut key);
        hex::encode(key)
    })
    .await
    .map_err(|err| anyhow::anyhow!("reading the feed-token key: {err}"))?;
    let ttl = Duration::from_secs(settings.auth.feed_token_ttl_s);
    Ok(FeedTokens::new(key.into_bytes(), ttl))
}

#[allow(
    clippy::disallowed_methods,
    reason = "read once at start-up, before any turn runs"
)]
pub(super) fn hostname() -> String {
    std::fs::read_to_string(Path::new("/etc/hostname"))
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "parley".into())
}
