//! The server roles: `parley serve` (all-in-one: API, workers and reaper in one process;
//! migrates its own database), `parley api` (API only) and `parley worker` (workers
//! only). `api` and `worker` are the distributed deployment: they share PostgreSQL and
//! Redis, and need the schema migrated (`parley migrate up`).

//!
//! `run` is the lifecycle: bind the listeners, open and migrate the database, build the
//! runtime (`runtime`: the seams, catalog and functions the settings choose), then serve
//! the API (`api`) and run the workers (`workers`) until a signal, and drain.

mod api;
mod runtime;
mod workers;

use std::{sync::Arc, time::Duration};

use anyhow::Context;

use crate::{admin, config::Settings, db};
use api::{HttpListeners, serve_http, serve_metrics};
#[cfg(test)]
pub(crate) use runtime::catalog;
use runtime::runtime;
use workers::start_workers;

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
                    threads = runtime_threads(),
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

/// The threads of the process's runtime (`runtime.threads`), as its start-up line says.
pub(crate) fn runtime_threads() -> usize {
    tokio::runtime::Handle::current().metrics().num_workers()
}
