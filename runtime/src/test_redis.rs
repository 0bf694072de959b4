//! Test support: a private `redis-server` a test may stop, start and count commands on,
//! apart from the shared one of `scripts/test.sh`.

/// The shared Redis of `scripts/test.sh` (`PARLEY_TEST_REDIS_URL`); a missing one fails
/// the test instead of skipping it.
#[allow(
    clippy::disallowed_methods,
    reason = "a test reads its servers (PARLEY_TEST_*) from the environment"
)]
pub(crate) fn shared_url() -> String {
    std::env::var("PARLEY_TEST_REDIS_URL").unwrap_or_else(|_| {
        panic!(
            "PARLEY_TEST_REDIS_URL is not set: the Redis tests need a live Redis; run the \
             suite with scripts/test.sh, which starts one (or export \
             PARLEY_TEST_REDIS_URL=redis://127.0.0.1:PORT/)"
        )
    })
}

/// The Redis Cluster of `scripts/test.sh` (`PARLEY_TEST_REDIS_CLUSTER_URL`, three
/// primaries with a replica each); a missing one fails the test instead of skipping it.
#[allow(
    clippy::disallowed_methods,
    reason = "a test reads its servers (PARLEY_TEST_*) from the environment"
)]
pub(crate) fn cluster_url() -> String {
    std::env::var("PARLEY_TEST_REDIS_CLUSTER_URL").unwrap_or_else(|_| {
        panic!(
            "PARLEY_TEST_REDIS_CLUSTER_URL is not set: the Redis Cluster tests need a live \
             cluster; run the suite with scripts/test.sh, which starts one"
        )
    })
}

/// A private `redis-server` on a free port, killed when dropped.
pub(crate) struct OwnServer {
    port: u16,
    process: Option<tokio::process::Child>,
}

impl OwnServer {
    pub(crate) fn start() -> Self {
        let port = free_port();
        let mut server = Self {
            port,
            process: None,
        };
        server.restart();
        server
    }

    pub(crate) fn restart(&mut self) {
        let process = tokio::process::Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--loglevel", "warning"])
            .stdout(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("redis-server on PATH (scripts/test.sh installs it)");
        self.process = Some(process);
    }

    pub(crate) async fn stop(&mut self) {
        if let Some(mut process) = self.process.take() {
            process.kill().await.unwrap();
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// How many times each of `commands` ran on the server at `url` (`INFO commandstats`,
/// which counts the commands scripts run too).
pub(crate) async fn command_counts(url: &str, commands: &[&str]) -> Vec<u64> {
    let mut conn = ::redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let info: String = ::redis::cmd("INFO")
        .arg("commandstats")
        .query_async(&mut conn)
        .await
        .unwrap();
    let calls = |command: &str| {
        let line = format!("cmdstat_{command}:calls=");
        info.lines()
            .find_map(|l| l.strip_prefix(&line))
            .and_then(|rest| rest.split(',').next())
            .map_or(0, |n| n.parse().unwrap())
    };
    commands.iter().map(|command| calls(command)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_url_must_say_whether_redis_is_a_cluster() {
        let standalone = OwnServer::start();
        wait_for(&standalone.url()).await;
        assert!(matches!(
            crate::check_redis_topology(&standalone.url()).await,
            Ok(())
        ));
        let as_cluster = standalone.url().replace("redis://", "redis+cluster://");
        let refused = crate::check_redis_topology(&as_cluster).await.unwrap_err();
        assert!(
            matches!(refused, crate::TopologyError::NotACluster),
            "{refused}"
        );

        let cluster = cluster_url();
        assert!(matches!(
            crate::check_redis_topology(&cluster).await,
            Ok(())
        ));
        // One node of it, named as one server: refused, with the fix in the message.
        let node = cluster
            .trim_start_matches("redis+cluster://")
            .split(',')
            .next()
            .unwrap()
            .to_owned();
        let refused = crate::check_redis_topology(&format!("redis://{node}/"))
            .await
            .unwrap_err();
        assert!(
            matches!(refused, crate::TopologyError::UnexpectedCluster),
            "{refused}"
        );
        assert!(
            refused.to_string().contains("redis+cluster://"),
            "{refused}"
        );

        // Not reachable: not checked (Parley starts while Redis is down).
        let down = format!("redis://127.0.0.1:{}/", free_port());
        assert!(matches!(crate::check_redis_topology(&down).await, Ok(())));
        let down = format!("redis+cluster://127.0.0.1:{}", free_port());
        assert!(matches!(crate::check_redis_topology(&down).await, Ok(())));
    }

    async fn wait_for(url: &str) {
        let client = ::redis::Client::open(url).unwrap();
        for _ in 0..100 {
            if client.get_multiplexed_async_connection().await.is_ok() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("{url} did not start");
    }
}
