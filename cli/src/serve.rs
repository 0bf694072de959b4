//! The server roles: `parley serve` (all-in-one: API, workers and reaper in one process;
//! migrates its own database), `parley api` (API only) and `parley worker` (workers
//! only). `api` and `worker` are the distributed deployment: they share PostgreSQL and
//! Redis, and need the schema migrated (`parley migrate up`).

use std::{path::Path, sync::Arc, time::Duration};

use anyhow::Context;
use parley_api::{AppState, FeedTokens, HttpLimits, Streaming};
use parley_runtime::{
    event_log::{EventLog, MemoryEventLog, RedisEventLog},
    queue::{ConsumerConfig, JobQueue, QueueBackend, RedisQueue, SqliteQueue, run_consumers},
};
use parley_service::{Limits, Models, TurnService};
use parley_worker::{
    agent_loop::LoopSettings,
    consumer::GenerateHandler,
    jobs::{Deps, TurnSettings},
    providers::{Catalog, ModelConfig, Price, ProviderConfig},
    schedule::ScheduleSettings,
    tools::{
        Registry,
        live::LiveRegistry,
        mcp::{self, McpServerConfig, McpTransport},
    },
};
use sea_orm::DatabaseConnection;
use secrecy::ExposeSecret;

use crate::{admin, config::Settings, db};

/// How long in-flight requests get to finish on shutdown.
const GRACE: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// API, workers and reaper; migrates and bootstraps.
    AllInOne,
    /// API only, for distributed deployments.
    Api,
    /// Workers (and the reaper) only, for distributed deployments.
    Worker,
}

/// The two seams, the model catalog and the functions, chosen by configuration.
struct Runtime {
    events: Arc<dyn EventLog>,
    queue: QueueBackend,
    catalog: Arc<Catalog>,
    /// What models may call; the API lists its catalog, the workers run it. MCP servers
    /// that were down at start-up join it when they come back.
    functions: LiveRegistry,
    /// The modules: the API checks tool definitions against them and fires session
    /// hooks; the workers run the chat hooks.
    modules: parley_service::modules::ModuleCatalog,
    /// The quotas: the API admits turns, the workers count their tokens (one store).
    quotas: parley_service::quota::Quotas,
}

async fn runtime(settings: &Settings, role: Role) -> anyhow::Result<Runtime> {
    let catalog = catalog(settings)?;
    let (events, queue): (Arc<dyn EventLog>, QueueBackend) = match &settings.redis.url {
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
                .with_queue(&settings.redis.queue);
            (Arc::new(events), QueueBackend::Redis(queue))
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
            (Arc::new(events), QueueBackend::Sqlite(queue))
        }
        None => anyhow::bail!(
            "`parley {}` shares work through Redis: set `redis.url` (PARLEY_REDIS_URL), or run `parley serve`",
            if role == Role::Api { "api" } else { "worker" }
        ),
    };
    Ok(Runtime {
        events,
        queue,
        catalog,
        functions: functions(settings).await?,
        modules: settings.module_catalog()?,
        quotas: quotas(settings)?,
    })
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
            vision: m.vision,
            price: Price {
                input_usd_per_mtok: m.input_usd_per_mtok.unwrap_or(0.0),
                output_usd_per_mtok: m.output_usd_per_mtok.unwrap_or(0.0),
            },
            fallback: m.fallback.clone(),
        })
        .collect();
    let catalog = Catalog::new(&providers, &models, settings.default_model.as_deref())
        .map_err(|err| anyhow::anyhow!("invalid setting `models`: {err}"))?;
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

fn file_limits(settings: &Settings) -> parley_service::files::FileLimits {
    parley_service::files::FileLimits {
        max_file_bytes: settings.files.max_file_bytes,
        max_attachments: settings.files.max_attachments,
        max_text_chars: settings.files.max_text_chars,
    }
}

/// Uploaded PDFs are parsed by this very binary, one child process each (`parley
/// extract-text`, see `parley_extract` and docs/decisions.md).
fn pdf_sandbox(settings: &Settings) -> anyhow::Result<parley_service::files::Sandbox> {
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

fn turn_settings(settings: &Settings) -> TurnSettings {
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
        ..TurnSettings::default()
    }
}

/// The listeners of a server role, bound before anything is created or changed, so a
/// taken port fails the start at once and leaves nothing behind.
struct Listeners {
    /// The API (`serve`, `api`).
    http: Option<tokio::net::TcpListener>,
    /// `/metrics` (and a worker's `/healthz`) on a port of its own: the worker's
    /// `worker.metrics_listen`, the API's `http.metrics_listen`.
    metrics: Option<tokio::net::TcpListener>,
}

impl Listeners {
    async fn bind(settings: &Settings, role: Role) -> anyhow::Result<Self> {
        let http = match role {
            Role::AllInOne | Role::Api => Some(bind(settings.listen, "listen").await?),
            Role::Worker => None,
        };
        let metrics = match role {
            Role::Worker => settings
                .worker
                .metrics_listen
                .map(|a| (a, "worker.metrics_listen")),
            Role::AllInOne | Role::Api => settings
                .http
                .metrics_listen
                .map(|a| (a, "http.metrics_listen")),
        };
        let metrics = match metrics {
            Some((addr, key)) => Some(bind(addr, key).await?),
            None => None,
        };
        Ok(Self { http, metrics })
    }
}

async fn bind(addr: std::net::SocketAddr, key: &str) -> anyhow::Result<tokio::net::TcpListener> {
    tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr} (`{key}`)"))
}

pub async fn run(settings: Settings, role: Role) -> anyhow::Result<()> {
    let listeners = Listeners::bind(&settings, role).await?;
    let db = db::connect(&settings).await?;
    match role {
        Role::AllInOne => db::migrate_up(&db).await?,
        Role::Api | Role::Worker => db::ensure_migrated(&db).await?,
    }
    let runtime = runtime(&settings, role).await?;
    if role != Role::Worker {
        let data_dir = settings
            .database
            .url
            .is_none()
            .then_some(settings.data_dir.as_path());
        admin::bootstrap(&db, settings.bootstrap_admin_token.as_ref(), data_dir).await?;
    }
    let workers = match role {
        Role::AllInOne | Role::Worker => Some(start_workers(&settings, &db, &runtime)),
        Role::Api => None,
    };
    // SIGTERM or SIGINT: stop accepting connections and claiming jobs at once; let the
    // turns in flight finish until the drain deadline (then hand them back to the
    // queue); then end every open feed with `reconnect` and exit. A listener that fails
    // stops the process the same way.
    let (signalled_tx, signalled) = tokio::sync::watch::channel(false);
    let signalled_tx = Arc::new(signalled_tx);
    let on_signal_tx = signalled_tx.clone();
    tokio::spawn(async move {
        shutdown_signal().await;
        let _ = on_signal_tx.send(true);
    });
    let on_signal = || {
        let mut signalled = signalled.clone();
        async move {
            let _ = signalled.wait_for(|s| *s).await;
        }
    };
    let (closing_tx, closing) = tokio::sync::watch::channel(false);
    let drain = async {
        on_signal().await;
        if let Some((stop, handle)) = workers {
            let started = std::time::Instant::now();
            let _ = stop.send(true);
            let _ = handle.await;
            tracing::info!(
                took_ms = started.elapsed().as_millis() as u64,
                "workers drained"
            );
        }
        let _ = closing_tx.send(true);
    };
    let serve = async {
        let result = match listeners.http {
            None => {
                tracing::info!(
                    concurrency = settings.worker.concurrency,
                    "parley worker started"
                );
                println!("parley worker running");
                match listeners.metrics {
                    Some(listener) => serve_metrics(listener, &runtime, on_signal()).await,
                    None => {
                        on_signal().await;
                        Ok(())
                    }
                }
            }
            Some(api) => {
                let http = HttpListeners {
                    api,
                    metrics: listeners.metrics,
                };
                serve_http(&settings, db, &runtime, role, http, (on_signal(), closing)).await
            }
        };
        if result.is_err() {
            let _ = signalled_tx.send(true);
        }
        result
    };
    let (result, ()) = tokio::join!(serve, drain);
    tracing::info!("parley stopped");
    result
}

/// Starts the consumers and the schedule; returns a stop switch and the task to await.
fn start_workers(
    settings: &Settings,
    db: &DatabaseConnection,
    runtime: &Runtime,
) -> (
    tokio::sync::watch::Sender<bool>,
    tokio::task::JoinHandle<()>,
) {
    let worker_id = format!("{}-{}", hostname(), uuid::Uuid::now_v7().simple());
    let queue: Arc<dyn JobQueue> = Arc::new(runtime.queue.clone());
    let deps = Deps {
        db: db.clone(),
        events: runtime.events.clone(),
        catalog: runtime.catalog.clone(),
        registry: runtime.functions.clone(),
        modules: runtime.modules.clone(),
        scopes: Default::default(),
        history: parley_worker::history::HistoryCache::new(
            settings.worker.history_cache_mb << 20,
            parley_worker::context::MOST_READ,
        ),
        queue: queue.clone(),
        settings: turn_settings(settings),
        worker_id,
        quotas: runtime.quotas.clone(),
    };
    let handler = Arc::new(GenerateHandler {
        deps: deps.clone(),
        queue: queue.clone(),
    });
    let config = ConsumerConfig {
        concurrency: settings.worker.concurrency,
        shutdown_timeout: Duration::from_secs(settings.worker.drain_s),
        heartbeat: Duration::from_secs(settings.worker.heartbeat_s),
        missed_heartbeats: settings.worker.missed_heartbeats,
        ..ConsumerConfig::default()
    };
    let backend = runtime.queue.clone();
    // A lapsed lease is noticed within one lease period.
    let lease = Duration::from_secs(settings.worker.lease_s);
    let worker = &settings.worker;
    let schedule = ScheduleSettings {
        reap_every: lease,
        grace: ScheduleSettings::default().grace.max(2 * lease),
        session_idle: Duration::from_secs(worker.session_idle_s),
        // Every minute, or as often as the idle timeout when it is shorter.
        close_idle_every: Duration::from_secs(worker.session_idle_s.clamp(1, 60)),
        archive_every: Duration::from_secs(worker.archive_every_s.max(1)),
        payload_retention: (worker.tool_payload_retention_s > 0)
            .then(|| Duration::from_secs(worker.tool_payload_retention_s)),
        ..ScheduleSettings::default()
    };
    let (stop_tx, mut stop_rx) = tokio::sync::watch::channel(false);
    let handle = tokio::spawn(async move {
        let reaper = tokio::spawn(parley_worker::schedule::run(deps, queue, schedule));
        let shutdown = async move {
            let _ = stop_rx.wait_for(|stop| *stop).await;
        };
        run_consumers(&backend, config, handler, shutdown).await;
        reaper.abort();
    });
    (stop_tx, handle)
}

/// The configured providers with the models each serves, and the breakers the workers
/// share, for `GET /v1/admin/providers`.
fn providers(settings: &Settings, catalog: &Catalog) -> parley_service::Providers {
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

/// The API's listeners: its port, and `/metrics` on a port of its own when
/// `http.metrics_listen` is set.
struct HttpListeners {
    api: tokio::net::TcpListener,
    metrics: Option<tokio::net::TcpListener>,
}

/// Serves the API until `shutdown`; then stops accepting, and waits for open
/// connections: feeds end when `closing` turns true (with the workers drained, in
/// `serve`), and the rest get [`GRACE`] after that.
async fn serve_http(
    settings: &Settings,
    db: DatabaseConnection,
    runtime: &Runtime,
    role: Role,
    listeners: HttpListeners,
    (shutdown, closing): (
        impl std::future::Future<Output = ()>,
        tokio::sync::watch::Receiver<bool>,
    ),
) -> anyhow::Result<()> {
    let redis = match &settings.redis.url {
        Some(url) => {
            Some(redis::Client::open(url.expose_secret()).context("invalid setting `redis.url`")?)
        }
        None => None,
    };
    let turns = TurnService {
        db: db.clone(),
        queue: Arc::new(runtime.queue.clone()),
        events: runtime.events.clone(),
        models: Arc::new(Models {
            ids: runtime.catalog.model_ids().into(),
        }),
        limits: Limits {
            max_message_chars: settings.limits.max_message_chars,
        },
        functions: runtime.functions.catalog(),
        payloads: runtime.functions.snapshot().payloads().clone(),
        files: file_limits(settings),
        modules: runtime.modules.clone(),
        quotas: runtime.quotas.clone(),
    };
    let revocations = parley_api::revocations::Revocations::new(Duration::from_secs(
        settings.auth.feed_token_ttl_s,
    ));
    revocations.spawn_poller(db.clone());
    let state = AppState {
        feed_tokens: Arc::new(feed_tokens(&db, settings).await?),
        edge: edge(settings),
        throttle: Arc::new(parley_api::gate::Throttle::new(
            settings.http.auth_failures_per_minute,
        )),
        revocations,
        db,
        redis,
        turns,
        sandbox: pdf_sandbox(settings)?,
        limits: HttpLimits {
            max_body_bytes: settings.limits.max_body_bytes,
            max_upload_bytes: settings.files.max_file_bytes + 64 * 1024,
        },
        streaming: Streaming {
            closing: Some(closing),
            ..Streaming::default()
        },
        providers: providers(settings, &runtime.catalog),
    };
    let addr = listeners
        .api
        .local_addr()
        .context("reading the bound address")?;
    tracing::info!(%addr, database = %db::describe(settings), ?role, "parley started");
    println!("parley listening on http://{addr}");
    // In `serve` the feeds of the turns draining here stay open until the drain ends.
    let grace = match role {
        Role::AllInOne => Duration::from_secs(settings.worker.drain_s) + GRACE,
        _ => GRACE,
    };
    let shutdown = futures::future::FutureExt::shared(Box::pin(shutdown));
    let metrics = async {
        let Some(listener) = listeners.metrics else {
            return Ok(());
        };
        let bound = listener.local_addr().context("reading the bound address")?;
        tracing::info!(addr = %bound, "metrics listening");
        println!("parley metrics on http://{bound}/metrics");
        crate::http::serve(
            listener,
            parley_api::metrics_app(state.clone()),
            shutdown.clone(),
            GRACE,
        )
        .await
        .context("serving metrics")
    };
    let api = async {
        crate::http::serve(
            listeners.api,
            parley_api::app(state.clone()),
            shutdown.clone(),
            grace,
        )
        .await
        .context("serving HTTP")
    };
    let (api, metrics) = tokio::join!(api, metrics);
    api.and(metrics)
}

/// A worker's own HTTP listener: `GET /metrics` (what this process recorded, with the
/// queue's depth read at each scrape) and `GET /healthz`, until `shutdown`.
async fn serve_metrics(
    listener: tokio::net::TcpListener,
    runtime: &Runtime,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    use parley_runtime::metrics::{CONTENT_TYPE, metrics};
    use poem::{EndpointExt, Response, Route, get, handler, web::Data};

    #[handler]
    async fn scrape(queue: Data<&QueueBackend>) -> Response {
        metrics().read_queue_depth(*queue).await;
        Response::builder()
            .content_type(CONTENT_TYPE)
            .body(metrics().render())
    }

    #[handler]
    fn healthz() -> &'static str {
        "ok"
    }

    let bound = listener.local_addr().context("reading the bound address")?;
    tracing::info!(addr = %bound, "metrics listening");
    println!("parley metrics on http://{bound}/metrics");
    let app = Route::new()
        .at("/metrics", get(scrape))
        .at("/healthz", get(healthz))
        .data(runtime.queue.clone());
    crate::http::serve(listener, app, shutdown, GRACE)
        .await
        .context("serving worker metrics")
}

/// The HTTP edge from `[http]`: CORS, who reads `/metrics` here, the throttle's knobs.
fn edge(settings: &Settings) -> parley_api::Edge {
    use parley_api::MetricsAccess;
    let http = &settings.http;
    let metrics = match (&http.metrics_listen, &http.metrics_token) {
        (Some(_), _) => MetricsAccess::Elsewhere,
        (None, Some(token)) => {
            MetricsAccess::Token(parley_api::auth::hash_token(token.expose_secret()))
        }
        (None, None) => MetricsAccess::Open,
    };
    parley_api::Edge {
        cors: parley_api::cors::CorsPolicy::new(
            &http.cors_origins,
            http.cors_credentials,
            http.cors_max_age_s,
        ),
        metrics,
        trusted_proxy_hops: http.trusted_proxy_hops,
    }
}

/// Feed tokens signed with the deployment's shared key (created by the first process
/// that needs it), so a token minted by one api process opens the feed on any other.
async fn feed_tokens(db: &DatabaseConnection, settings: &Settings) -> anyhow::Result<FeedTokens> {
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

fn hostname() -> String {
    std::fs::read_to_string(Path::new("/etc/hostname"))
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "parley".into())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(err) => {
                    tracing::warn!(error = %err, "cannot listen for SIGTERM");
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
    tracing::info!("shutting down");
}
