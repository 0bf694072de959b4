//! The HTTP server loop: poem's endpoint served over hyper's HTTP/1.1 connections.
//!
//! poem's `Server` serves every connection with hyper-util's auto (HTTP/1 or HTTP/2)
//! builder. That builder reads the first bytes of a connection on its own to tell the
//! protocols apart and hands them back to HTTP/1, whose read buffer then grows to 16 KiB
//! for a 300-byte request; with the auto connection's state the task of one idle SSE
//! reader held ~30 KiB. Parley speaks HTTP/1.1 to its clients (HTTP/2 ends at the proxy
//! in front, as with any SSE service behind a load balancer), so this loop serves
//! HTTP/1.1 only: one accept loop, `TCP_NODELAY` on every connection (an SSE feed is many
//! small writes, and Nagle's algorithm would hold each for the client's delayed ACK), a
//! header read timeout, and a graceful shutdown that stops accepting, lets connections
//! finish their in-flight response for up to `grace`, then returns. See
//! docs/decisions.md, "HTTP/1.1 server loop".

use std::{convert::Infallible, future::Future, net::SocketAddr, sync::Arc, time::Duration};

use hyper::{server::conn::http1, service::service_fn};
use hyper_util::rt::{TokioIo, TokioTimer};
use poem::{
    Addr, Endpoint, EndpointExt, Request,
    endpoint::BoxEndpoint,
    http::uri::Scheme,
    web::{LocalAddr, RemoteAddr},
};
use tokio::{net::TcpListener, sync::watch};

/// How long a client may take to send a request's headers.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `ep` on `listener` until `shutdown` resolves, then drains (see the module doc).
pub async fn serve(
    listener: TcpListener,
    ep: impl Endpoint + 'static,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let ep: Arc<BoxEndpoint<'static>> = Arc::new(ep.map_to_response().boxed());
    let local = listener.local_addr()?;
    // Every connection holds a receiver; `closed` resolves when the last one is gone.
    let (stop, stopped) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, remote)) => {
                    if let Err(err) = stream.set_nodelay(true) {
                        tracing::debug!(error = %err, "cannot set TCP_NODELAY");
                    }
                    tokio::spawn(connection(stream, local, remote, ep.clone(), stopped.clone()));
                }
                Err(err) => {
                    // Out of file descriptors and the like: the listener stays good, and
                    // retrying at once would spin.
                    tracing::warn!(error = %err, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
    drop(listener);
    drop(stopped);
    let _ = stop.send(true);
    if tokio::time::timeout(grace, stop.closed()).await.is_err() {
        tracing::warn!(
            connections = stop.receiver_count(),
            "connections still open after the shutdown grace period"
        );
    }
    Ok(())
}

async fn connection(
    stream: tokio::net::TcpStream,
    local: SocketAddr,
    remote: SocketAddr,
    ep: Arc<BoxEndpoint<'static>>,
    mut stopped: watch::Receiver<bool>,
) {
    let service = service_fn(move |req| {
        let ep = ep.clone();
        // Boxed: hyper keeps a slot of the future's size for the connection's life, and
        // an SSE connection lives long after its handler returned.
        Box::pin(async move {
            let req = Request::from((
                req,
                LocalAddr(Addr::SocketAddr(local)),
                RemoteAddr(Addr::SocketAddr(remote)),
                Scheme::HTTP,
            ));
            Ok::<_, Infallible>(hyper::Response::from(ep.get_response(req).await))
        })
    });
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .serve_connection(TokioIo::new(stream), service)
        .with_upgrades();
    tokio::pin!(conn);
    tokio::select! {
        result = conn.as_mut() => {
            if let Err(err) = result {
                tracing::debug!(error = %err, %remote, "connection ended with an error");
            }
            return;
        }
        _ = stopped.wait_for(|stop| *stop) => {}
    }
    // Finish the response in flight (if any), then close.
    conn.as_mut().graceful_shutdown();
    let _ = conn.await;
}
