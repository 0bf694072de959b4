//! The HTTP side of a server role: the API (with `/metrics` on a port of its own when
//! configured) for `serve` and `api`, and a worker's `/metrics` and `/healthz`.

use std::{sync::Arc, time::Duration};

use anyhow::Context;
use parley_api::{AppState, HttpLimits, Streaming};
use parley_runtime::queue::QueueBackend;
use parley_service::{Limits, Models, TurnService};
use sea_orm::DatabaseConnection;
use secrecy::ExposeSecret;

use super::{
    GRACE, Role,
    runtime::{Runtime, feed_tokens, file_limits, pdf_sandbox, providers},
};
use crate::{config::Settings, db};

/// The API's listeners: its port, and `/metrics` on a port of its own when
/// `http.metrics_listen` is set.
pub(super) struct HttpListeners {
    pub(super) api: tokio::net::TcpListener,
    pub(super) metrics: Option<tokio::net::TcpListener>,
}

/// Serves the API until `shutdown`; then stops accepting, and waits for open
/// connections: feeds end when `closing` turns true (with the workers drained, in
/// `serve`), and the rest get [`GRACE`] after that.
pub(super) async fn serve_http(
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
        Some(url) => Some(
            parley_runtime::topology::Topology::from_url(url.expose_secret())
                .context("invalid setting `redis.url`")?,
        ),
        None => None,
    };
    let read_db = db::connect_reads(settings, &db).await?;
    let turns = TurnService {
        db: db.clone(),
        read_db: read_db.clone(),
        queue: Arc::new(runtime.queue.clone()),
        events: runtime.events.clone(),
        models: Arc::new(Models {
            ids: runtime.catalog.model_ids().into(),
            text_only: runtime.catalog.text_only_ids().into(),
            seeing: runtime.catalog.vision_ids().into(),
        }),
        limits: Limits {
            max_message_chars: settings.limits.max_message_chars,
        },
        functions: runtime.functions.catalog(),
        payloads: runtime.functions.snapshot().payloads().clone(),
        files: file_limits(settings),
        modules: runtime.modules.clone(),
        quotas: runtime.quotas.clone(),
        budgets: runtime.budgets.clone(),
        feed: runtime.feed.clone(),
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
        token_cache: Arc::new(parley_api::token_cache::TokenCache::new(
            Duration::from_secs(settings.auth.token_cache_s),
        )),
        db,
        read_db,
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
        outbound: parley_service::outbound::Outbound::new(settings.outbound_policy())
            .context("building the outbound HTTP client")?,
    };
    let addr = listeners
        .api
        .local_addr()
        .context("reading the bound address")?;
    tracing::info!(
        %addr,
        database = %db::describe(settings),
        ?role,
        threads = super::runtime_threads(),
        "parley started"
    );
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
pub(super) async fn serve_metrics(
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
