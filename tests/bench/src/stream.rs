//! What a reader sees of a stream, measured as its events arrive: the gaps between them
//! (how smooth the stream looks) and the tokens that arrive inside a level's measured
//! window (what CPU per 1,000 streamed tokens divides by).
//!
//! The tokens are counted as they arrive rather than per turn because at a real model's
//! pace a turn lasts seconds: the turns that straddle the window's edges (the warm-up's
//! last ones, the window's own last ones) stream part of their tokens inside it, and the
//! CPU read at the edges pays for exactly those.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::{Duration, Instant},
};

use crate::{procs::CpuSeconds, stats::nearest_rank};

/// A level's measured window, shared by all its turns (warm-up turns included).
#[derive(Debug)]
pub struct Window {
    pub from: Instant,
    pub to: Instant,
    tokens: AtomicU64,
    completed: AtomicU64,
}

impl Window {
    /// The window that opens `warmup` from now and lasts `duration`.
    pub fn new(warmup: Duration, duration: Duration) -> Self {
        let from = Instant::now() + warmup;
        Self {
            from,
            to: from + duration,
            tokens: AtomicU64::new(0),
            completed: AtomicU64::new(0),
        }
    }

    pub fn contains(&self, at: Instant) -> bool {
        at >= self.from && at < self.to
    }

    pub fn length(&self) -> Duration {
        self.to - self.from
    }

    fn count_tokens(&self, at: Instant, tokens: usize) {
        if tokens > 0 && self.contains(at) {
            self.tokens.fetch_add(tokens as u64, Ordering::Relaxed);
        }
    }

    /// A turn that worked ended at `at` (counted when that is inside the window).
    pub fn count_completed(&self, at: Instant) {
        if self.contains(at) {
            self.completed.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Tokens (words of the streamed text) that arrived inside the window.
    pub fn tokens(&self) -> u64 {
        self.tokens.load(Ordering::Relaxed)
    }

    /// Turns that ended, successfully, inside the window.
    pub fn completed(&self) -> u64 {
        self.completed.load(Ordering::Relaxed)
    }
}

/// One stream's reading, fed each event (pings left out) as it arrives.
#[derive(Debug)]
pub struct Reading<'a> {
    window: Option<&'a Window>,
    /// The last event since the first text; None before any text.
    last: Option<Instant>,
    gaps: Vec<u32>,
    in_word: bool,
}

impl<'a> Reading<'a> {
    pub fn new(window: Option<&'a Window>) -> Self {
        Self {
            window,
            last: None,
            gaps: Vec::new(),
            in_word: false,
        }
    }

    /// An event that arrived at `at` carrying `text` (empty for events without text).
    /// From the first event with text on, each event's gap to the one before is kept.
    pub fn event(&mut self, at: Instant, text: &str) {
        if let Some(last) = self.last {
            self.gaps.push(micros(at.saturating_duration_since(last)));
            self.last = Some(at);
        } else if !text.is_empty() {
            self.last = Some(at);
        }
        let (words, in_word) = new_words(self.in_word, text);
        self.in_word = in_word;
        if let Some(window) = self.window {
            window.count_tokens(at, words);
        }
    }

    /// The gaps (µs) between consecutive events from the first text to the last event.
    pub fn into_gaps(self) -> Vec<u32> {
        self.gaps
    }
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

/// The words that start in `piece` of a text that so far ends inside a word when
/// `in_word`, and whether the text then ends inside one. Counting word starts this way
/// gives the text's word count however it is cut into events.
pub fn new_words(mut in_word: bool, piece: &str) -> (usize, bool) {
    let mut starts = 0;
    for c in piece.chars() {
        let space = c.is_whitespace();
        if !space && !in_word {
            starts += 1;
        }
        in_word = !space;
    }
    (starts, in_word)
}

/// p50, p99 and the largest of a set of gaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GapStats {
    pub count: usize,
    pub p50: Duration,
    pub p99: Duration,
    pub max: Duration,
}

impl GapStats {
    /// Of every gap of every turn; None when there is none.
    pub fn of<'a>(turns: impl IntoIterator<Item = &'a [u32]>) -> Option<Self> {
        let mut all: Vec<u32> = turns.into_iter().flatten().copied().collect();
        all.sort_unstable();
        let us = |v: u32| Duration::from_micros(u64::from(v));
        Some(Self {
            count: all.len(),
            p50: us(nearest_rank(&all, 50.0)?),
            p99: us(nearest_rank(&all, 99.0)?),
            max: us(*all.last()?),
        })
    }
}

/// CPU milliseconds per 1,000 tokens: `seconds` of CPU over `tokens` streamed in the
/// same window (None when no token was). 1 s of CPU for 100,000 tokens is 10 ms.
pub fn ms_per_1k_tokens(seconds: f64, tokens: u64) -> Option<f64> {
    (tokens > 0).then(|| seconds * 1e3 / (tokens as f64 / 1e3))
}

/// Each process's CPU per 1,000 tokens streamed in the window, then the servers' sum
/// (`api`, `worker`, `postgres`, `redis`, `serve`: not the mock, not the bench).
pub struct TokenCpu {
    pub tokens: u64,
    pub window: Duration,
    pub procs: Vec<(String, Option<f64>)>,
    pub servers: Option<f64>,
}

pub const SERVER_PROCS: [&str; 5] = ["api", "worker", "postgres", "redis", "serve"];

impl TokenCpu {
    /// Processes given under one name (several workers, the nodes of a Redis Cluster)
    /// count as one, in the order of their first.
    pub fn new(cpu: &CpuSeconds, tokens: u64, window: Duration) -> Self {
        let mut by_name: Vec<(String, f64)> = Vec::new();
        for (name, seconds) in cpu {
            match by_name.iter_mut().find(|(n, _)| n == name) {
                Some((_, sum)) => *sum += seconds,
                None => by_name.push((name.clone(), *seconds)),
            }
        }
        let procs = by_name
            .iter()
            .map(|(name, s)| (name.clone(), ms_per_1k_tokens(*s, tokens)))
            .collect();
        let server_seconds: f64 = cpu
            .iter()
            .filter(|(name, _)| SERVER_PROCS.contains(&name.as_str()))
            .map(|(_, s)| s)
            .sum();
        Self {
            tokens,
            window,
            procs,
            servers: ms_per_1k_tokens(server_seconds, tokens),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processes_of_one_role_count_as_one() {
        let cpu = vec![
            ("api".to_owned(), 1.0),
            ("worker".to_owned(), 2.0),
            ("worker".to_owned(), 3.0),
            ("mock".to_owned(), 4.0),
        ];
        let tc = TokenCpu::new(&cpu, 1000, Duration::from_secs(1));
        let names: Vec<&str> = tc.procs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["api", "worker", "mock"]);
        assert_eq!(tc.procs[1].1, ms_per_1k_tokens(5.0, 1000));
        assert_eq!(tc.servers, ms_per_1k_tokens(6.0, 1000));
    }

    #[test]
    fn words_are_counted_however_the_text_is_cut() {
        let text = "t1 t2 t3 t4  t5\nt6";
        let whole = new_words(false, text).0;
        assert_eq!(whole, 6);
        for cut in 0..=text.len() {
            let (a, in_word) = new_words(false, &text[..cut]);
            let (b, _) = new_words(in_word, &text[cut..]);
            assert_eq!(a + b, whole, "cut at {cut}");
        }
        // A word split over two events is one word; a space in between makes two.
        assert_eq!(new_words(true, "2 t3"), (1, true));
        assert_eq!(new_words(false, " t3 "), (1, false));
        assert_eq!(new_words(false, ""), (0, false));
    }

    #[test]
    fn gaps_run_from_the_first_text_to_the_last_event() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut r = Reading::new(None);
        r.event(at(0), ""); // prompt_state: before any text, no gap
        r.event(at(100), ""); // block_start
        r.event(at(130), "t1"); // the first text: gaps start here
        r.event(at(150), " t2");
        r.event(at(190), ""); // complete
        assert_eq!(r.into_gaps(), vec![20_000, 40_000]);
    }

    #[test]
    fn tokens_count_only_inside_the_window() {
        let window = Window::new(Duration::from_millis(0), Duration::from_secs(3600));
        let before = window.from - Duration::from_millis(1);
        let mut r = Reading::new(Some(&window));
        r.event(before, "t1 t2"); // before the window: not counted
        r.event(window.from, " t3 t");
        r.event(window.from, "4 t5");
        r.event(window.to, " t6"); // the window's end is outside it
        assert_eq!(window.tokens(), 3);
        window.count_completed(window.from);
        window.count_completed(window.to);
        assert_eq!(window.completed(), 1);
    }

    #[test]
    fn gap_percentiles_are_nearest_rank_over_all_turns() {
        let a: Vec<u32> = (1..=50).map(|ms| ms * 1000).collect();
        let b: Vec<u32> = (51..=100).map(|ms| ms * 1000).collect();
        let stats = GapStats::of([a.as_slice(), b.as_slice()]).unwrap();
        assert_eq!(stats.count, 100);
        assert_eq!(stats.p50, Duration::from_millis(50));
        assert_eq!(stats.p99, Duration::from_millis(99));
        assert_eq!(stats.max, Duration::from_millis(100));
        assert_eq!(GapStats::of([[].as_slice()]), None);
    }

    #[test]
    fn cpu_per_thousand_tokens() {
        // 1 s of CPU over 100,000 tokens: 10 ms per 1,000.
        assert_eq!(ms_per_1k_tokens(1.0, 100_000), Some(10.0));
        assert_eq!(ms_per_1k_tokens(0.25, 5_000), Some(50.0));
        assert_eq!(ms_per_1k_tokens(1.0, 0), None);
        let cpu = vec![
            ("api".to_owned(), 0.5),
            ("worker".to_owned(), 1.0),
            ("postgres".to_owned(), 0.25),
            ("redis".to_owned(), 0.25),
            ("mock".to_owned(), 4.0),
            ("bench".to_owned(), 4.0),
        ];
        let per = TokenCpu::new(&cpu, 40_000, Duration::from_secs(20));
        // Servers: 2 s over 40,000 tokens = 50 ms per 1,000; the mock and bench apart.
        assert_eq!(per.servers, Some(50.0));
        assert_eq!(per.procs[0], ("api".to_owned(), Some(12.5)));
        assert_eq!(per.procs[4], ("mock".to_owned(), Some(100.0)));
    }
}
