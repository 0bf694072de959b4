//! Where Parley's Redis is, and the connections each seam opens to it (#17).
//!
//! Two topologies, told apart by the URL's scheme:
//!
//! * **One server** (`redis://`, `rediss://`): a standalone Redis, or a primary with
//!   replicas behind Sentinel or a proxy. Commands go over a [`ConnectionManager`].
//! * **A Redis Cluster** (`redis+cluster://`, `rediss+cluster://`): the URL lists seed
//!   nodes, comma-separated (`redis+cluster://:secret@10.0.0.1:7000,10.0.0.2:7000`); the
//!   client learns the rest of the cluster from them and follows its slots as they move
//!   (failover, resharding). Every key Parley writes carries the hash tag of what it
//!   belongs to (a prompt, a user, a queue partition, a breaker, a quota or budget
//!   subject), so each script and pipeline stays in one slot.
//!
//! Pub/sub differs between the two. On one server Parley uses classic `PUBLISH` /
//! `SUBSCRIBE`. A cluster would broadcast a classic `PUBLISH` to every node, so there it
//! uses **sharded** pub/sub (`SPUBLISH` / `SSUBSCRIBE`, Redis 7): a channel lives on the
//! node of its slot, and a channel carries the hash tag of the keys it announces.

use std::time::Duration;

use futures::StreamExt;
use futures::stream::BoxStream;
use redis::aio::{
    ConnectionLike, ConnectionManager, ConnectionManagerConfig, MultiplexedConnection,
};
use redis::cluster::{ClusterClient, ClusterConfig};
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
use redis::{
    AsyncConnectionConfig, Client, Cmd, ErrorKind, FromRedisValue, IntoConnectionInfo, Pipeline,
    ProtocolVersion, PushInfo, PushKind, RedisError, RedisFuture, RedisResult, ServerErrorKind,
    Value,
};
use tokio::sync::mpsc;

/// The schemes of a cluster's URL.
const CLUSTER_SCHEMES: [(&str, &str); 2] = [
    ("redis+cluster://", "redis://"),
    ("rediss+cluster://", "rediss://"),
];

/// Where Parley's Redis is. Cheap to clone.
#[derive(Clone)]
pub enum Topology {
    /// One server (standalone, or a primary with replicas).
    Single(Client),
    /// A Redis Cluster, reached through its seed nodes.
    Cluster(Box<ClusterClient>),
}

impl std::fmt::Debug for Topology {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The URL may hold a password: only the kind is shown.
        f.write_str(match self {
            Self::Single(_) => "Topology::Single",
            Self::Cluster(_) => "Topology::Cluster",
        })
    }
}

/// How long a shared connection waits, and how often it retries.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    pub connect: Duration,
    pub response: Duration,
    pub retries: usize,
}

impl Timeouts {
    /// The seams' command connections (queue, event log, user feed): a command waits up
    /// to 5 s, and a connection that failed is retried twice.
    pub const SEAMS: Self = Self {
        connect: Duration::from_secs(2),
        response: Duration::from_secs(5),
        retries: 2,
    };
}

impl Topology {
    /// The topology of `url`: `redis+cluster://` (or `rediss+cluster://`) and a
    /// comma-separated list of seed nodes for a cluster, `redis://` or `rediss://` for
    /// one server. Does not contact Redis.
    pub fn from_url(url: &str) -> RedisResult<Self> {
        let Some(seeds) = cluster_seeds(url) else {
            return single_client(url).map(Self::Single);
        };
        let mut nodes = Vec::new();
        for seed in seeds {
            nodes.push(seed.into_connection_info()?.set_tcp_settings(nodelay()));
        }
        if nodes.is_empty() {
            return Err(RedisError::from((
                ErrorKind::InvalidClientConfig,
                "a redis+cluster:// URL needs at least one host:port",
            )));
        }
        ClusterClient::builder(nodes)
            // Sharded pub/sub arrives as RESP3 pushes.
            .use_protocol(ProtocolVersion::RESP3)
            // No command is sent twice: a reply lost with its node's connection comes
            // back as an error, as it does on one server, and the caller decides (an
            // event writer looks for its entry's tag before appending again). The
            // client still learns the new slots from the failure.
            .retries(0)
            .tcp_settings(nodelay())
            .build()
            .map(|client| Self::Cluster(Box::new(client)))
    }

    /// Clients for each seed node of `url` as one server (to ask a node about itself),
    /// or for the one server it names.
    pub fn node_clients(url: &str) -> RedisResult<Vec<Client>> {
        match cluster_seeds(url) {
            Some(seeds) => seeds.iter().map(|seed| single_client(seed)).collect(),
            None => Ok(vec![single_client(url)?]),
        }
    }

    /// Whether this is a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        matches!(self, Self::Cluster(_))
    }

    /// The command that publishes on a channel: `PUBLISH` on one server, `SPUBLISH`
    /// (sharded, to the channel's slot only) on a cluster.
    pub fn publish_command(&self) -> &'static str {
        match self {
            Self::Single(_) => "PUBLISH",
            Self::Cluster(_) => "SPUBLISH",
        }
    }

    /// A lazily connected, multiplexed connection every task of the process shares:
    /// Parley starts (and reports not-ready) while Redis is down, and connects once it
    /// is back.
    pub fn shared(&self, timeouts: Timeouts) -> RedisResult<Shared> {
        match self {
            Self::Single(client) => {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(timeouts.connect))
                    .set_response_timeout(Some(timeouts.response))
                    .set_number_of_retries(timeouts.retries)
                    .set_max_delay(Duration::from_secs(2));
                ConnectionManager::new_lazy_with_config(client.clone(), config).map(Shared::Single)
            }
            Self::Cluster(client) => {
                let config = ClusterConfig::new()
                    .set_connection_timeout(timeouts.connect)
                    .set_response_timeout(timeouts.response);
                Ok(Shared::Cluster(
                    client.get_pending_async_connection_with_config(config),
                ))
            }
        }
    }

    /// A connection of its own, for a blocking command (a blocking command would stall
    /// every other command of a shared one). `response` bounds a reply (`None`: no bound;
    /// the caller times the command out itself).
    pub async fn dedicated(&self, response: Option<Duration>) -> RedisResult<Shared> {
        let connect = Duration::from_secs(2);
        match self {
            Self::Single(client) => {
                let config = AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(connect))
                    .set_response_timeout(response);
                client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await
                    .map(Shared::Plain)
            }
            Self::Cluster(client) => {
                // The cluster client needs a bound; a day stands for none.
                let config = ClusterConfig::new()
                    .set_connection_timeout(connect)
                    .set_response_timeout(response.unwrap_or(Duration::from_secs(86_400)));
                client
                    .get_async_connection_with_config(config)
                    .await
                    .map(Shared::Cluster)
            }
        }
    }

    /// A connection that listens to channels (see [`Subscriber`]).
    pub async fn subscriber(&self) -> RedisResult<Subscriber> {
        match self {
            Self::Single(client) => {
                let (sink, stream) = client.get_async_pubsub().await?.split();
                Ok(Subscriber::Classic {
                    sink,
                    messages: stream
                        .map(|m| {
                            (
                                m.get_channel_name().to_owned(),
                                m.get_payload_bytes().to_vec(),
                            )
                        })
                        .boxed(),
                })
            }
            Self::Cluster(client) => {
                let (pushes_tx, pushes) = mpsc::unbounded_channel();
                let config = ClusterConfig::new()
                    .set_connection_timeout(Duration::from_secs(2))
                    .set_response_timeout(Duration::from_secs(5))
                    .set_push_sender(pushes_tx);
                let connection = client.get_async_connection_with_config(config).await?;
                Ok(Subscriber::Sharded { connection, pushes })
            }
        }
    }
}

/// The seed nodes of a cluster URL, each as a `redis://` (or `rediss://`) URL with the
/// same credentials; `None` for a URL of one server.
fn cluster_seeds(url: &str) -> Option<Vec<String>> {
    let (scheme, plain) = CLUSTER_SCHEMES
        .iter()
        .find(|(scheme, _)| url.starts_with(scheme))?;
    let rest = &url[scheme.len()..];
    let (userinfo, hosts) = match rest.rsplit_once('@') {
        Some((userinfo, hosts)) => (format!("{userinfo}@"), hosts),
        None => (String::new(), rest),
    };
    let hosts = hosts.split(['/', '?']).next().unwrap_or_default();
    Some(
        hosts
            .split(',')
            .filter(|h| !h.is_empty())
            .map(|host| format!("{plain}{userinfo}{host}/"))
            .collect(),
    )
}

/// A Redis client for one server whose connections send small writes at once
/// (`TCP_NODELAY`): every event is one small command, and Nagle's algorithm would hold
/// it for the peer's delayed ACK (tens of milliseconds).
fn single_client(url: &str) -> RedisResult<Client> {
    let info = url.into_connection_info()?.set_tcp_settings(nodelay());
    Client::open(info)
}

fn nodelay() -> redis::io::tcp::TcpSettings {
    redis::io::tcp::TcpSettings::default().set_nodelay(true)
}

/// A connection to either topology. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub enum Shared {
    /// One server, reconnecting on its own.
    Single(ConnectionManager),
    /// One server, a connection of its own ([`Topology::dedicated`]).
    Plain(MultiplexedConnection),
    /// A cluster: one multiplexed connection per node, commands routed by their keys.
    Cluster(ClusterConnection),
}

impl Shared {
    /// Runs `cmd` (which names no key, e.g. `CLIENT ID`) on the primary that holds
    /// `key`: the one a command on `key` through this connection reaches.
    pub async fn query_beside<T: FromRedisValue>(
        &mut self,
        key: &str,
        cmd: &Cmd,
    ) -> RedisResult<T> {
        match self {
            Self::Single(c) => cmd.query_async(c).await,
            Self::Plain(c) => cmd.query_async(c).await,
            Self::Cluster(c) => {
                let slot: u16 = redis::cmd("CLUSTER")
                    .arg("KEYSLOT")
                    .arg(key)
                    .query_async(c)
                    .await?;
                let route = Route::new(slot, SlotAddr::Master);
                let routing = RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(route));
                let value = c.route_command(cmd.clone(), routing).await?;
                T::from_redis_value(value).map_err(Into::into)
            }
        }
    }
}

/// How many times a command a cluster node redirected (`MOVED`: its slot has a new
/// primary, after a failover or a resharding) or asked to retry (`TRYAGAIN`) is sent
/// again, after a short pause in which the client rebuilds its slot map.
const REDIRECTS: u32 = 3;

/// Whether a cluster refused `error`'s command without running it, because another
/// node serves its slot now: safe to send again.
fn redirected(error: &RedisError) -> bool {
    matches!(
        error.kind(),
        ErrorKind::Server(ServerErrorKind::Moved | ServerErrorKind::TryAgain)
    )
}

/// Sends a command (`send`, once per try) to a cluster, and again while a node redirects
/// it (see [`redirected`]), up to [`REDIRECTS`] times.
async fn resent_when_redirected<T, F, Fut>(mut send: F) -> RedisResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = RedisResult<T>>,
{
    let mut sent = 0;
    loop {
        match send().await {
            Err(error) if redirected(&error) && sent < REDIRECTS => {
                sent += 1;
                tokio::time::sleep(Duration::from_millis(20 * u64::from(sent))).await;
            }
            done => return done,
        }
    }
}

impl ConnectionLike for Shared {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Self::Single(c) => c.req_packed_command(cmd),
            Self::Plain(c) => c.req_packed_command(cmd),
            // The client sends nothing twice (`retries(0)`), not even to follow a
            // redirect; a redirected command did not run, so it is sent again here.
            Self::Cluster(c) => {
                let c = c.clone();
                Box::pin(resent_when_redirected(move || {
                    let mut c = c.clone();
                    async move { c.req_packed_command(cmd).await }
                }))
            }
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Self::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Self::Plain(c) => c.req_packed_commands(pipeline, offset, count),
            // A pipeline's commands share a slot (its node redirects them all).
            Self::Cluster(c) => {
                let c = c.clone();
                Box::pin(resent_when_redirected(move || {
                    let mut c = c.clone();
                    async move { c.req_packed_commands(pipeline, offset, count).await }
                }))
            }
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Single(c) => c.get_db(),
            Self::Plain(c) => c.get_db(),
            Self::Cluster(c) => c.get_db(),
        }
    }
}

/// A connection that listens to channels: classic `SUBSCRIBE` on one server, sharded
/// `SSUBSCRIBE` on a cluster (each channel on the node of its slot, through the cluster
/// connection's per-node connections).
///
/// A subscriber that ends ([`Subscriber::next`] returns `None`) has lost its connection,
/// and messages may have been lost with it: its owner opens a new one, subscribes again
/// and treats everything it follows as possibly missed. On a cluster, a node's
/// connection that drops ends the subscriber the same way, even though the client would
/// resubscribe on its own.
pub enum Subscriber {
    Classic {
        sink: redis::aio::PubSubSink,
        messages: BoxStream<'static, (String, Vec<u8>)>,
    },
    Sharded {
        connection: ClusterConnection,
        pushes: mpsc::UnboundedReceiver<PushInfo>,
    },
}

impl Subscriber {
    pub async fn subscribe(&mut self, channels: Vec<String>) -> RedisResult<()> {
        match self {
            Self::Classic { sink, .. } => sink.subscribe(channels).await,
            Self::Sharded { connection, .. } => {
                // One command per channel: the channels of one call may lie in several
                // slots, which one `SSUBSCRIBE` may not span.
                for channel in channels {
                    connection.ssubscribe(channel).await?;
                }
                Ok(())
            }
        }
    }

    pub async fn unsubscribe(&mut self, channels: Vec<String>) -> RedisResult<()> {
        match self {
            Self::Classic { sink, .. } => sink.unsubscribe(channels).await,
            Self::Sharded { connection, .. } => {
                for channel in channels {
                    connection.sunsubscribe(channel).await?;
                }
                Ok(())
            }
        }
    }

    /// The next message, as its channel and payload; `None` once the connection is lost.
    pub async fn next(&mut self) -> Option<(String, Vec<u8>)> {
        match self {
            Self::Classic { messages, .. } => messages.next().await,
            Self::Sharded { pushes, .. } => loop {
                let push = pushes.recv().await?;
                match push.kind {
                    PushKind::SMessage | PushKind::Message => {
                        if let Some(message) = channel_and_payload(push.data) {
                            return Some(message);
                        }
                    }
                    PushKind::Disconnection => return None,
                    _ => {}
                }
            },
        }
    }
}

fn channel_and_payload(data: Vec<Value>) -> Option<(String, Vec<u8>)> {
    let mut data = data.into_iter();
    let channel = String::from_redis_value(data.next()?).ok()?;
    let payload = Vec::<u8>::from_redis_value(data.next()?).ok()?;
    Some((channel, payload))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cluster_url_lists_its_seed_nodes_and_keeps_the_password() {
        let t = Topology::from_url("redis+cluster://:pw@127.0.0.1:7000,127.0.0.1:7001").unwrap();
        assert!(t.is_cluster());
        assert_eq!(t.publish_command(), "SPUBLISH");
        let Topology::Cluster(_) = t else {
            unreachable!()
        };

        let single = Topology::from_url("redis://127.0.0.1:6379/").unwrap();
        assert!(!single.is_cluster());
        assert_eq!(single.publish_command(), "PUBLISH");

        assert!(Topology::from_url("redis+cluster://").is_err());
        assert!(Topology::from_url("http://x").is_err());
    }
}
