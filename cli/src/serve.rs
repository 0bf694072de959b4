//! The server roles: `parley serve` (all-in-one, migrates its own database) and
//! `parley api` (API only; the schema must already be migrated).

use std::time::Duration;

use anyhow::Context;
use parley_api::{AppState, Limits};
use poem::{
    Server,
    listener::{Acceptor, Listener, TcpListener},
};
use secrecy::ExposeSecret;

use crate::{admin, config::Settings, db};

/// How long in-flight requests get to finish on shutdown.
const GRACE: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// API plus everything embedded; migrates and bootstraps.
    AllInOne,
    /// API only, for distributed deployments.
    Api,
}

pub async fn run(settings: Settings, role: Role) -> anyhow::Result<()> {
    let db = db::connect(&settings).await?;
    match role {
        Role::AllInOne => db::migrate_up(&db).await?,
        Role::Api => db::ensure_migrated(&db).await?,
    }
    admin::bootstrap(&db, settings.bootstrap_admin_token.as_ref()).await?;
    let redis = match &settings.redis.url {
        Some(url) => {
            Some(redis::Client::open(url.expose_secret()).context("invalid setting `redis.url`")?)
        }
        None => None,
    };
    let state = AppState {
        db,
        redis,
        limits: Limits {
            max_body_bytes: settings.limits.max_body_bytes,
        },
    };

    let acceptor = TcpListener::bind(settings.listen)
        .into_acceptor()
        .await
        .with_context(|| format!("listening on {}", settings.listen))?;
    let addr = acceptor
        .local_addr()
        .first()
        .and_then(|a| a.as_socket_addr().copied())
        .context("reading the bound address")?;
    tracing::info!(%addr, database = %db::describe(&settings), ?role, "parley started");
    println!("parley listening on http://{addr}");

    Server::new_with_acceptor(acceptor)
        .run_with_graceful_shutdown(parley_api::app(state), shutdown_signal(), Some(GRACE))
        .await
        .context("serving HTTP")
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
