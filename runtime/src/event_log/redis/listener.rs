//! The one pub/sub connection a [`RedisEventLog`](super::RedisEventLog) shares among all
//! of its readers.
//!
//! A reader that has caught up with the stored events [`join`](Listener::join)s the
//! *topic* of its prompt. The first member of a topic has the background task `SUBSCRIBE`
//! the prompt's notify channel; the last one to leave has it `UNSUBSCRIBE`. Each
//! notification carries the appended event itself (`<seq>:<kind JSON>`, published by the
//! append script), and the task keeps the latest of them in the topic's *window* — one
//! copy per prompt per process, however many readers follow it — then bumps the topic's
//! watch counter. A woken reader takes what it lacks from the window without asking
//! Redis; only a reader that fell further behind than the window, or that is told to
//! resync, reads the stream. A watch never lags, so a slow reader costs no extra reads,
//! which is what lets one process serve thousands of readers of one prompt.
//!
//! The connection is opened when the first reader joins, so a worker, which only appends,
//! never opens one. The task reconciles subscriptions in batches: joins and leaves mark a
//! prompt dirty and kick the task, which compares what is wanted with what the connection
//! holds. When the connection drops, the task reconnects with backoff, resubscribes every
//! topic and empties their windows (notifications may have been lost meanwhile), so their
//! readers read the stream once.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use ::redis::RedisResult;
use parley_protocol::keys;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use uuid::Uuid;

use super::{POLL_EVERY, wire};
use crate::event_log::SharedEvent;
use crate::topology::{Subscriber, Topology};

/// How many of its latest events a topic keeps for its readers. A reader further behind
/// reads the stream (in batches of [`READ_BATCH`](crate::event_log::READ_BATCH)).
const WINDOW: usize = 512;
const RECONNECT_MIN: Duration = Duration::from_millis(100);
const RECONNECT_MAX: Duration = Duration::from_secs(5);

/// What the members of one topic share: the latest events and the signals.
pub(super) struct TopicState {
    window: Mutex<Window>,
    /// Bumped whenever the window changes.
    wakes: watch::Sender<u64>,
    /// True once the connection is subscribed to the topic's channel.
    ready: watch::Sender<bool>,
}

struct Window {
    /// The latest notified events, contiguous by `seq`; emptied on a resync. Each is
    /// handed to every member as it is (one copy, one wire form: [`SharedEvent`]).
    events: VecDeque<Arc<SharedEvent>>,
    /// When a member should next look at the stream for itself, if no notification came.
    poll_due: Instant,
}

impl TopicState {
    fn new() -> Self {
        Self {
            window: Mutex::new(Window {
                events: VecDeque::new(),
                poll_due: Instant::now() + POLL_EVERY,
            }),
            wakes: watch::Sender::new(0),
            ready: watch::Sender::new(false),
        }
    }

    fn window(&self) -> MutexGuard<'_, Window> {
        self.window
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Adds a notified event: after the last one, or as the start of a new window when
    /// notifications were missed in between. A repeat is ignored.
    fn push(&self, event: Arc<SharedEvent>) {
        {
            let mut window = self.window();
            let events = &mut window.events;
            let seq = event.event().seq;
            match events.back().map(|last| last.event().seq) {
                Some(last) if seq <= last => return,
                Some(last) if seq > last + 1 => events.clear(),
                _ => {}
            }
            events.push_back(event);
            if events.len() > WINDOW {
                events.pop_front();
            }
            // The log is alive and its notifications arrive: nobody needs to poll for now.
            window.poll_due = Instant::now() + POLL_EVERY;
        }
        self.wakes.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Whether the caller should look at the stream now: one member per topic per
    /// [`POLL_EVERY`] without notifications, whatever the number of members; what it
    /// finds it [shares](TopicState::share).
    fn take_poll_turn(&self) -> bool {
        let now = Instant::now();
        let mut window = self.window();
        if window.poll_due > now {
            return false;
        }
        window.poll_due = now + POLL_EVERY;
        true
    }

    /// Hands what a poll found to the other members: events the notifications did not
    /// bring go into the window; a log that is gone makes every member read the stream
    /// (and see for itself).
    pub(super) fn share(&self, found: impl IntoIterator<Item = Arc<SharedEvent>>, log_gone: bool) {
        if log_gone {
            self.resync();
            return;
        }
        for event in found {
            self.push(event);
        }
    }

    /// Notifications may have been missed: members must read the stream.
    fn resync(&self) {
        self.window().events.clear();
        self.wakes.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// The window's events from `next` on (see [`Membership::events_from`]).
    fn events_from(&self, next: u64) -> Option<Vec<Arc<SharedEvent>>> {
        let window = self.window();
        let events = &window.events;
        let first = events.front()?.event().seq;
        let last = events.back()?.event().seq;
        if next < first {
            return None;
        }
        if next > last {
            // Up to date, or ahead of the notifications (its read found events they have
            // not announced yet): they will come.
            return Some(Vec::new());
        }
        let skip = usize::try_from(next - first).ok()?;
        Some(events.iter().skip(skip).cloned().collect())
    }
}

struct Topic {
    shared: Arc<TopicState>,
    members: usize,
}

#[derive(Default)]
struct State {
    topics: HashMap<Uuid, Topic>,
    /// Prompts whose subscription may need to change.
    dirty: HashSet<Uuid>,
    /// Prompts whose channel the connection is subscribed to.
    listening: HashSet<Uuid>,
}

type Shared = Arc<Mutex<State>>;

fn lock(state: &Shared) -> MutexGuard<'_, State> {
    // Every update under the lock is a single map or set operation; a panic elsewhere
    // cannot leave the state half-written.
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

enum Command {
    Reconcile,
    /// Drop the connection as if Redis had closed it (tests).
    #[cfg(test)]
    Reconnect,
}

/// The handle shared by a log and its readers; the task ends when the last handle goes.
pub(super) struct Listener {
    state: Shared,
    commands: mpsc::Sender<Command>,
}

impl Listener {
    /// Spawns the task that owns the pub/sub connection (on the current tokio runtime).
    pub(super) fn start(topology: Topology) -> Arc<Self> {
        let state = Shared::default();
        let (commands, receiver) = mpsc::channel(1);
        tokio::spawn(run(topology, state.clone(), receiver));
        Arc::new(Self { state, commands })
    }

    /// Becomes a member of the prompt's topic until the membership is dropped.
    pub(super) fn join(self: &Arc<Self>, prompt_id: Uuid) -> Membership {
        let mut state = lock(&self.state);
        let created = !state.topics.contains_key(&prompt_id);
        let topic = state.topics.entry(prompt_id).or_insert_with(|| Topic {
            shared: Arc::new(TopicState::new()),
            members: 0,
        });
        topic.members += 1;
        let membership = Membership {
            listener: self.clone(),
            prompt_id,
            wakes: topic.shared.wakes.subscribe(),
            ready: topic.shared.ready.subscribe(),
            shared: topic.shared.clone(),
        };
        if created {
            state.dirty.insert(prompt_id);
            drop(state);
            self.kick();
        }
        membership
    }

    /// The prompts whose notify channel the shared connection is subscribed to.
    pub(super) fn listening(&self) -> Vec<Uuid> {
        lock(&self.state).listening.iter().copied().collect()
    }

    #[cfg(test)]
    pub(super) async fn reconnect(&self) {
        let _ = self.commands.send(Command::Reconnect).await;
    }

    fn kick(&self) {
        // A full queue already holds a command, and every command reconciles.
        let _ = self.commands.try_send(Command::Reconcile);
    }
}

/// A reader's place in a topic.
pub(super) struct Membership {
    listener: Arc<Listener>,
    prompt_id: Uuid,
    shared: Arc<TopicState>,
    /// Changes whenever the topic's window does.
    pub(super) wakes: watch::Receiver<u64>,
    pub(super) ready: watch::Receiver<bool>,
}

impl Membership {
    /// Whether this member should look at the stream itself now: one member per topic
    /// per [`POLL_EVERY`] without notifications, whatever the number of members; what it
    /// finds it [shares](TopicState::share).
    pub(super) fn take_poll_turn(&self) -> bool {
        self.shared.take_poll_turn()
    }

    /// The topic, for sharing what a poll found even after the membership is gone.
    pub(super) fn topic(&self) -> Arc<TopicState> {
        self.shared.clone()
    }

    /// The window's events from `next` on, if the window reaches back to `next` (empty
    /// when the reader has them all, or even more); `None` when the reader must read the
    /// stream.
    pub(super) fn events_from(&self, next: u64) -> Option<Vec<Arc<SharedEvent>>> {
        self.shared.events_from(next)
    }
}

impl Drop for Membership {
    fn drop(&mut self) {
        let mut state = lock(&self.listener.state);
        let Some(topic) = state.topics.get_mut(&self.prompt_id) else {
            return;
        };
        topic.members -= 1;
        if topic.members == 0 {
            state.topics.remove(&self.prompt_id);
            state.dirty.insert(self.prompt_id);
            drop(state);
            self.listener.kick();
        }
    }
}

enum Ended {
    Shutdown,
    Lost(String),
}

async fn run(topology: Topology, state: Shared, mut commands: mpsc::Receiver<Command>) {
    let mut delay = RECONNECT_MIN;
    loop {
        // Connect only once someone listens: a worker that only appends never opens one.
        while lock(&state).topics.is_empty() {
            if commands.recv().await.is_none() {
                return;
            }
        }
        let ended = match topology.subscriber().await {
            Ok(subscriber) => serve(subscriber, &state, &mut commands, &mut delay).await,
            Err(error) => Ended::Lost(error.to_string()),
        };
        let Ended::Lost(why) = ended else {
            return;
        };
        tracing::warn!(error = %why, retry_in = ?delay, "event log pub/sub connection lost");
        {
            let mut state = lock(&state);
            state.listening.clear();
            for topic in state.topics.values() {
                topic.shared.ready.send_replace(false);
            }
        }
        let pause = tokio::time::sleep(delay);
        tokio::pin!(pause);
        loop {
            tokio::select! {
                () = &mut pause => break,
                command = commands.recv() => if command.is_none() { return },
            }
        }
        delay = (delay * 2).min(RECONNECT_MAX);
    }
}

/// Runs one connection until it is lost or the log is dropped.
async fn serve(
    mut sink: Subscriber,
    state: &Shared,
    commands: &mut mpsc::Receiver<Command>,
    delay: &mut Duration,
) -> Ended {
    // A new connection holds no subscriptions: every topic must be (re)subscribed, and its
    // readers resync because notifications may have gone missing in between.
    {
        let mut state = lock(state);
        let wanted: Vec<Uuid> = state.topics.keys().copied().collect();
        state.dirty.extend(wanted);
    }
    if let Err(error) = reconcile(&mut sink, state, true).await {
        return Ended::Lost(error.to_string());
    }
    *delay = RECONNECT_MIN;
    loop {
        tokio::select! {
            command = commands.recv() => match command {
                None => return Ended::Shutdown,
                Some(Command::Reconcile) => {
                    if let Err(error) = reconcile(&mut sink, state, false).await {
                        return Ended::Lost(error.to_string());
                    }
                }
                #[cfg(test)]
                Some(Command::Reconnect) => return Ended::Lost("reconnect requested".into()),
            },
            message = sink.next() => match message {
                Some((channel, payload)) => deliver(state, &channel, &payload),
                None => return Ended::Lost("the connection closed".into()),
            },
        }
    }
}

/// Brings the connection's subscriptions in line with the topics marked dirty.
async fn reconcile(sink: &mut Subscriber, state: &Shared, resync: bool) -> RedisResult<()> {
    let (subscribe, unsubscribe) = {
        let mut state = lock(state);
        let dirty: Vec<Uuid> = state.dirty.drain().collect();
        let (mut subscribe, mut unsubscribe) = (Vec::new(), Vec::new());
        for prompt_id in dirty {
            let held = state.listening.contains(&prompt_id);
            match (state.topics.get(&prompt_id), held) {
                (Some(_), false) => subscribe.push(prompt_id),
                (Some(topic), true) => {
                    topic.shared.ready.send_replace(true);
                }
                (None, true) => unsubscribe.push(prompt_id),
                (None, false) => {}
            }
        }
        (subscribe, unsubscribe)
    };
    if !subscribe.is_empty() {
        sink.subscribe(channels(&subscribe)).await?;
        let mut state = lock(state);
        for prompt_id in subscribe {
            state.listening.insert(prompt_id);
            match state.topics.get(&prompt_id) {
                Some(topic) => {
                    // Resync first: a member that sees `ready` reads the stream next
                    // anyway, and one that was waiting is woken to.
                    if resync {
                        topic.shared.resync();
                    }
                    topic.shared.ready.send_replace(true);
                }
                // Its last member left while we subscribed: unsubscribe on the next kick.
                None => {
                    state.dirty.insert(prompt_id);
                }
            }
        }
    }
    if !unsubscribe.is_empty() {
        sink.unsubscribe(channels(&unsubscribe)).await?;
        let mut state = lock(state);
        for prompt_id in unsubscribe {
            state.listening.remove(&prompt_id);
        }
    }
    Ok(())
}

fn channels(prompt_ids: &[Uuid]) -> Vec<String> {
    prompt_ids.iter().map(|id| keys::notify(*id)).collect()
}

/// Puts a notification in its topic's window and wakes the topic's members.
fn deliver(state: &Shared, channel: &str, payload: &[u8]) {
    let Some(prompt_id) = prompt_of(channel) else {
        return;
    };
    let Some(shared) = lock(state)
        .topics
        .get(&prompt_id)
        .map(|topic| topic.shared.clone())
    else {
        return;
    };
    match wire::parse_notification(prompt_id, payload) {
        Some(events) => events
            .into_iter()
            .for_each(|event| shared.push(SharedEvent::new(event))),
        None => shared.resync(),
    }
}

/// The prompt of a `parley:{<prompt_id>}:notify` channel.
fn prompt_of(channel: &str) -> Option<Uuid> {
    let tagged = channel.strip_prefix(keys::PREFIX)?.strip_prefix(":{")?;
    tagged.strip_suffix("}:notify")?.parse().ok()
}

#[cfg(test)]
mod tests;
