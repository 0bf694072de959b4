//! MCP servers joining the process: at start-up, and later for those that were down.
//!
//! A server that is down when Parley starts (deployed after it, restarting, behind a
//! network that is not up yet) would otherwise stay out until the next restart, and
//! every turn of a tool that offers its functions would go without them. Instead,
//! [`connect_all`] tries every server once, concurrently, and keeps trying each one that
//! did not answer in the background — after 1 s, doubling to 60 s, each wait jittered so
//! the processes of a deployment do not knock together — for the life of the process.
//! When it answers, its tools join the [`LiveRegistry`]: turns that start from then on
//! can call them and the API lists them. A server refused by policy (its URL is a
//! non-public address under `outbound.deny_private_addresses`) is not retried: nothing
//! would change the answer.
//!
//! Start-up keeps its rule that two functions with one name stop the start; a late
//! server whose tools clash with names already taken is logged and stays out.

use std::time::Duration;

use rand::Rng;

use super::{McpServerConfig, functions};
use crate::functions::{RegistryError, live::LiveRegistry};

/// The first wait before trying a server again.
const FIRST_RETRY: Duration = Duration::from_secs(1);
/// The longest wait between two tries.
const MOST_BETWEEN_RETRIES: Duration = Duration::from_secs(60);

/// Connects to every server and adds the tools of those that answer to `registry`;
/// returns once each has answered or failed once. Those that failed are retried in the
/// background and join when they answer. An error (two functions with one name among
/// those that answered) should stop the start.
pub async fn connect_all(
    servers: Vec<McpServerConfig>,
    registry: &LiveRegistry,
) -> Result<(), RegistryError> {
    let loads = servers.into_iter().map(|config| async move {
        let loaded = functions(config.clone()).await;
        (config, loaded)
    });
    let mut later = Vec::new();
    for (config, loaded) in futures::future::join_all(loads).await {
        match loaded {
            Ok(functions) => registry.extend(functions)?,
            Err(err) if err.is_transient() => {
                tracing::error!(error = %err, "an MCP server's functions are not available yet; retrying in the background");
                later.push(config);
            }
            Err(err) => {
                tracing::error!(error = %err, "an MCP server's functions are not available")
            }
        }
    }
    for config in later {
        tokio::spawn(rejoin(config, registry.clone()));
    }
    Ok(())
}

/// Tries `config`'s server until it answers (or is refused), then adds its tools.
#[tracing::instrument(skip_all, fields(server = %config.name))]
async fn rejoin(config: McpServerConfig, registry: LiveRegistry) {
    let mut backoff = Backoff::new(FIRST_RETRY, MOST_BETWEEN_RETRIES);
    loop {
        // The thread's generator is not `Send`: drawn before the await.
        let wait = backoff.next_wait(&mut rand::rng());
        tokio::time::sleep(wait).await;
        match functions(config.clone()).await {
            Ok(functions) => {
                let count = functions.len();
                match registry.extend(functions) {
                    Ok(()) => tracing::info!(functions = count, "an MCP server joined"),
                    Err(err) => tracing::error!(
                        error = %err,
                        "an MCP server answered, but its functions cannot join"
                    ),
                }
                return;
            }
            Err(err) if err.is_transient() => {
                tracing::debug!(error = %err, "an MCP server is still not available");
            }
            Err(err) => {
                tracing::error!(error = %err, "an MCP server's functions are not available");
                return;
            }
        }
    }
}

/// Waits that double from `first` up to `most`, each drawn from its upper half.
struct Backoff {
    next: Duration,
    most: Duration,
}

impl Backoff {
    fn new(first: Duration, most: Duration) -> Self {
        Self { next: first, most }
    }

    /// The wait before the next try: between half the current step and all of it.
    fn next_wait(&mut self, rng: &mut impl Rng) -> Duration {
        let step = self.next;
        self.next = (step * 2).min(self.most);
        step.mul_f64(rng.random_range(0.5..=1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_to_the_cap_and_are_jittered_within_their_upper_half() {
        let mut backoff = Backoff::new(FIRST_RETRY, MOST_BETWEEN_RETRIES);
        let mut rng = rand::rng();
        let steps = [1, 2, 4, 8, 16, 32, 60, 60, 60];
        for step in steps {
            let step = Duration::from_secs(step);
            let wait = backoff.next_wait(&mut rng);
            assert!(
                wait >= step / 2 && wait <= step,
                "{wait:?} within the upper half of {step:?}"
            );
        }
    }
}
