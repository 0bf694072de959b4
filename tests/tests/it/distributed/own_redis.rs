//! A `redis-server` of a test's own: one it may restart, or whose counters no other
//! test moves.

use std::time::Duration;

/// A `redis-server` of the test's own, which it may restart (without persistence: the
/// restarted server is empty, as a Redis without AOF or RDB is after a crash).
pub(super) struct OwnRedis {
    port: u16,
    process: std::process::Child,
}

impl OwnRedis {
    pub(super) fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        Self {
            port,
            process: Self::spawn(port),
        }
    }

    fn spawn(port: u16) -> std::process::Child {
        std::process::Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--loglevel", "warning"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("redis-server on PATH (scripts/test.sh installs it)")
    }

    pub(super) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Kills it (by PID) and starts an empty one on the same port.
    pub(super) async fn restart(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
        self.process = Self::spawn(self.port);
        self.ready().await;
    }

    /// Waits until it listens.
    pub(super) async fn ready(&self) {
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(("127.0.0.1", self.port))
                .await
                .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the redis-server does not listen");
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}
