//! Cancel signals in distributed mode: `PUBLISH` of the prompt id on the one channel
//! [`keys::CANCELS`], and one pub/sub connection per process that listens to it.
//!
//! The connection is opened by the first [`listen`](Cancels::listen) (so only worker
//! processes open one) and kept while the log lives. Every time it is (re)subscribed —
//! the first time as well — every listener is told that signals may have been missed
//! ([`CancelHeard::MaybeMissed`](crate::event_log::CancelHeard)): one that registered
//! before the subscription was confirmed, or while the connection was down, would not
//! have heard a signal sent meanwhile.

use std::sync::OnceLock;
use std::time::Duration;

use crate::topology::{Subscriber, Topology};
use parley_protocol::keys;
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::event_log::cancel::{CancelListener, Registry};

const RECONNECT_MIN: Duration = Duration::from_millis(100);
const RECONNECT_MAX: Duration = Duration::from_secs(5);

enum Command {
    /// Drop the connection as if Redis had closed it (tests).
    #[cfg(test)]
    Reconnect,
}

/// The listeners of one log and the task that feeds them; the task ends with the log.
pub(super) struct Cancels {
    topology: Topology,
    registry: Registry,
    /// Set once the task runs; dropping it ends the task.
    commands: OnceLock<mpsc::Sender<Command>>,
}

impl Cancels {
    pub(super) fn new(topology: Topology) -> Self {
        Self {
            topology,
            registry: Registry::default(),
            commands: OnceLock::new(),
        }
    }

    /// A listener of the prompt's cancel signals; starts the subscription on first use
    /// (on the current tokio runtime).
    pub(super) fn listen(&self, prompt_id: Uuid) -> CancelListener {
        let listener = self.registry.listen(prompt_id);
        self.commands.get_or_init(|| {
            let (commands, receiver) = mpsc::channel(1);
            tokio::spawn(run(self.topology.clone(), self.registry.clone(), receiver));
            commands
        });
        listener
    }

    /// How many listeners the prompt has in this process.
    pub(super) fn listeners(&self, prompt_id: Uuid) -> usize {
        self.registry.listeners(prompt_id)
    }

    #[cfg(test)]
    pub(super) async fn reconnect(&self) {
        if let Some(commands) = self.commands.get() {
            let _ = commands.send(Command::Reconnect).await;
        }
    }
}

/// Publishes a cancel of `prompt_id`.
pub(super) fn signal(prompt_id: Uuid, command: &str) -> ::redis::Cmd {
    let mut publish = ::redis::cmd(command);
    publish.arg(keys::CANCELS).arg(prompt_id.to_string());
    publish
}

enum Ended {
    Shutdown,
    Lost(String),
}

async fn run(topology: Topology, registry: Registry, mut commands: mpsc::Receiver<Command>) {
    let mut delay = RECONNECT_MIN;
    loop {
        let ended = match subscribe(&topology).await {
            Ok(subscriber) => {
                delay = RECONNECT_MIN;
                registry.lapse_all();
                serve(subscriber, &registry, &mut commands).await
            }
            Err(error) => Ended::Lost(error.to_string()),
        };
        let Ended::Lost(why) = ended else {
            return;
        };
        tracing::warn!(error = %why, retry_in = ?delay, "cancel signal connection lost");
        tokio::select! {
            () = tokio::time::sleep(delay) => {}
            command = commands.recv() => if command.is_none() { return },
        }
        delay = (delay * 2).min(RECONNECT_MAX);
    }
}

async fn subscribe(topology: &Topology) -> ::redis::RedisResult<Subscriber> {
    let mut subscriber = topology.subscriber().await?;
    subscriber.subscribe(vec![keys::CANCELS.to_owned()]).await?;
    Ok(subscriber)
}

async fn serve(
    mut subscriber: Subscriber,
    registry: &Registry,
    commands: &mut mpsc::Receiver<Command>,
) -> Ended {
    loop {
        tokio::select! {
            command = commands.recv() => match command {
                None => return Ended::Shutdown,
                #[cfg(test)]
                Some(Command::Reconnect) => return Ended::Lost("reconnect requested".into()),
            },
            message = subscriber.next() => match message {
                Some((_, payload)) => {
                    let prompt = std::str::from_utf8(&payload)
                        .ok()
                        .and_then(|text| text.parse::<Uuid>().ok());
                    if let Some(prompt_id) = prompt {
                        registry.deliver(prompt_id);
                    }
                }
                None => return Ended::Lost("the connection closed".into()),
            },
        }
    }
}
