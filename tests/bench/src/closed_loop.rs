//! The closed loop of a load level: C users each running turns back to back, a warm-up,
//! then a measured window; what the level measured.

use std::{
    collections::BTreeMap,
    future::Future,
    sync::Arc,
    time::{Duration, Instant},
};

use crate::{
    load::{Failure, Turn, TurnResult},
    stats::Percentiles,
    stream::{GapStats, Window},
};

/// How long each user runs turns.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Turns run but not recorded first.
    pub warmup: Duration,
    /// The measured window: turns that start in it are recorded.
    pub duration: Duration,
    /// A turn longer than this counts as a failure (and the user goes on).
    pub turn_timeout: Duration,
    /// The users' first turns start spread evenly over this long (user i of C at
    /// i/C of it), so that turns of equal length do not start and end in lockstep.
    pub ramp: Duration,
}

/// What one level measured.
pub struct Run {
    pub turns: Vec<Turn>,
    /// Failures by kind: count and one example.
    pub failures: BTreeMap<String, (usize, String)>,
    /// From the start of the measured window to the end of its last turn.
    pub elapsed: Duration,
    /// The measured window's length.
    pub window: Duration,
    /// Turns that ended, successfully, inside the window (whenever they started).
    pub completed_in_window: u64,
    /// Tokens that arrived inside the window (of any turn).
    pub tokens_in_window: u64,
}

impl Run {
    pub fn errors(&self) -> usize {
        self.failures.values().map(|(n, _)| n).sum()
    }

    pub fn turns_per_s(&self) -> f64 {
        self.turns.len() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// Turns that ended inside the window per second of it: the closed loop's steady
    /// rate, however long a turn is (the turns counted by [`Run::turns_per_s`] started in
    /// the window, and the time runs to the last one's end, which weighs on it when a
    /// turn lasts seconds).
    pub fn completed_per_s(&self) -> f64 {
        self.completed_in_window as f64 / self.window.as_secs_f64().max(1e-9)
    }

    /// The gaps between the events of every turn.
    pub fn gaps(&self) -> Option<GapStats> {
        GapStats::of(self.turns.iter().map(|t| t.gaps.as_slice()))
    }

    pub fn tokens_per_s(&self) -> f64 {
        self.turns.iter().map(|t| t.tokens).sum::<usize>() as f64
            / self.elapsed.as_secs_f64().max(1e-9)
    }

    pub fn ttft(&self) -> Option<Percentiles> {
        Percentiles::of(&self.turns.iter().map(|t| t.ttft).collect::<Vec<_>>())
    }

    pub fn latency(&self) -> Option<Percentiles> {
        Percentiles::of(&self.turns.iter().map(|t| t.latency).collect::<Vec<_>>())
    }

    /// Of the session creations, when each turn opened its own session.
    pub fn session(&self) -> Option<Percentiles> {
        Percentiles::of(
            &self
                .turns
                .iter()
                .filter_map(|t| t.session)
                .collect::<Vec<_>>(),
        )
    }

    /// One line per turn that worked, in start order:
    /// `started_s,headers_ms,claimed_ms,ttft_ms,latency_ms` (the `--series` file, to see
    /// when the slow turns happened and which stage was slow; a mark the turn has not is
    /// empty).
    pub fn series(&self) -> Vec<String> {
        let mut turns = self.turns.clone();
        turns.sort_by_key(|t| t.started);
        turns
            .iter()
            .map(|t| {
                let ms = |d: Duration| format!("{:.3}", d.as_secs_f64() * 1e3);
                format!(
                    "{:.4},{},{},{},{}",
                    t.started.as_secs_f64(),
                    t.headers.map(ms).unwrap_or_default(),
                    t.claimed.map(ms).unwrap_or_default(),
                    ms(t.ttft),
                    ms(t.latency)
                )
            })
            .collect()
    }

    /// SSE events per turn that worked.
    pub fn events_per_turn(&self) -> f64 {
        self.turns.iter().map(|t| t.events).sum::<usize>() as f64 / self.turns.len().max(1) as f64
    }
}

/// Runs `users` concurrent loops of `turn(user)` for warm-up + duration (the `window`,
/// made beforehand: its turns count the tokens that arrive in it, and the caller reads
/// the CPU at its edges); a user starts no turn after the window closes, and the turns in
/// flight then finish (bounded by the turn timeout).
pub async fn run_users_in<F, Fut>(window: Arc<Window>, users: usize, timing: Timing, turn: F) -> Run
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = TurnResult> + Send,
{
    let turn = Arc::new(turn);
    let measure_from = window.from;
    let stop_at = window.to;
    let start = Instant::now();
    let tasks: Vec<_> = (0..users)
        .map(|user| {
            let turn = turn.clone();
            let window = window.clone();
            let delay = timing.ramp.mul_f64(user as f64 / users.max(1) as f64);
            tokio::spawn(async move {
                let mut recorded = Vec::new();
                tokio::time::sleep_until((start + delay).into()).await;
                loop {
                    let began = Instant::now();
                    if began >= stop_at {
                        break;
                    }
                    let result = tokio::time::timeout(timing.turn_timeout, turn(user))
                        .await
                        .unwrap_or_else(|_| {
                            Err(Failure::new(
                                "timeout",
                                format!("no end within {:?}", timing.turn_timeout),
                            ))
                        });
                    let failed = result.is_err();
                    if !failed {
                        window.count_completed(Instant::now());
                    }
                    if began >= measure_from {
                        let result = result.map(|turn| Turn {
                            started: began - measure_from,
                            ..turn
                        });
                        recorded.push((Instant::now(), result));
                    }
                    if failed {
                        // Do not spin on a failing endpoint.
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
                recorded
            })
        })
        .collect();
    let mut run = Run {
        turns: Vec::new(),
        failures: BTreeMap::new(),
        elapsed: timing.duration,
        window: window.length(),
        completed_in_window: 0,
        tokens_in_window: 0,
    };
    let mut last_end = measure_from;
    for task in tasks {
        let Ok(recorded) = task.await else {
            *run.failures
                .entry("panic".into())
                .or_insert((0, String::new())) = (1, "a user task panicked".into());
            continue;
        };
        for (ended, result) in recorded {
            last_end = last_end.max(ended);
            match result {
                Ok(turn) => run.turns.push(turn),
                Err(failure) => {
                    let entry = run
                        .failures
                        .entry(failure.kind)
                        .or_insert((0, failure.detail));
                    entry.0 += 1;
                }
            }
        }
    }
    run.elapsed = last_end
        .duration_since(measure_from)
        .max(Duration::from_millis(1));
    run.completed_in_window = window.completed();
    run.tokens_in_window = window.tokens();
    run
}
