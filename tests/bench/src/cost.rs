//! The turn-cost report (`--cost N`): turns one after the other, and what they cost as
//! the servers count it — SQL statements and transactions (PostgreSQL), Redis commands
//! — with the SSE events the bench read, each per turn, beside the same turns sent
//! straight to the mock. Then every statement and Redis command with its calls per
//! turn, for BENCHMARKS.md.
//!
//! It runs a matrix of cases: the mock's pace (`--cost-delays`, ms between tokens, asked
//! per request), the reply's length (`--cost-tokens`) and the turn's kind (a plain turn,
//! or one function call: `--cost-variants`), and ends with one table of them all. A case
//! at a real model's pace runs fewer turns than N (about `--cost-seconds` of them, at
//! least [`MIN_PACED_TURNS`]), so the matrix stays short.
//!
//! PostgreSQL updates `pg_stat_database` from a backend at most once a second and, when
//! the backend goes idle, within [`SETTLE`]; the report waits that long before each
//! reading. What the servers do meanwhile on their own (the reaper, the job queue's
//! heartbeats and polls) is measured over an idle window of the same length first and
//! shown beside the totals, scaled to each case's counted window. Every case has a
//! session of its own, opened and warmed by one turn before the idle window, so no
//! session's creation is counted and no case's history grows from the one before.

use std::time::{Duration, Instant};

use anyhow::Context;

use crate::{
    cost_report::{self, Case, Counted},
    counters::Servers,
    load::{self, Expected, Turn},
    setup::{Api, Fixtures},
};

/// Long enough for every PostgreSQL backend to have reported its counters.
pub const SETTLE: Duration = Duration::from_secs(11);
/// Turns run before the first reading (connections warm, caches filled).
const WARMUP_TURNS: usize = 5;
/// How long after a case's last turn its statements and commands are read.
const TRAILING: Duration = Duration::from_secs(1);
/// The fewest turns a case at a real model's pace counts.
pub const MIN_PACED_TURNS: usize = 10;

/// What a turn of a case is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Variant {
    /// One model call answering N tokens (the tool offers no function).
    Plain,
    /// The model answers N tokens and calls `getCurrentTime`, then answers N tokens
    /// again with its result: two model calls, one function call, 2N tokens.
    FunctionCall,
}

pub struct Options {
    pub turns: usize,
    pub tokens: Vec<usize>,
    /// Ms between tokens; None: the mock's own pace.
    pub delays: Vec<Option<u64>>,
    pub variants: Vec<Variant>,
    /// A paced case counts about this many seconds of turns.
    pub seconds: f64,
    pub session_per_turn: bool,
    pub mock_url: String,
    pub model: String,
}

impl Case {
    fn content(&self) -> String {
        let delay = self
            .delay
            .map(|ms| format!(" token_delay_ms={ms}"))
            .unwrap_or_default();
        match self.variant {
            Variant::Plain => format!("[[mock tokens={}{delay}]] hi", self.tokens),
            Variant::FunctionCall => format!(
                "[[mock tool_call=getCurrentTime tokens={}{delay}]] what time is it",
                self.tokens
            ),
        }
    }

    fn expected(&self) -> Expected {
        match self.variant {
            Variant::Plain => Expected::Tokens(self.tokens),
            Variant::FunctionCall => Expected::FunctionCallTokens(self.tokens),
        }
    }
}

/// The turns a case counts: N at the mock's own or 0 ms pace; at a real pace as many as
/// take about `seconds` (the model's time alone), between [`MIN_PACED_TURNS`] and N.
pub fn turns_of(
    n: usize,
    tokens: usize,
    delay: Option<u64>,
    variant: Variant,
    seconds: f64,
) -> usize {
    let n = n.max(1);
    let calls = if variant == Variant::FunctionCall {
        2
    } else {
        1
    };
    let turn_s = (delay.unwrap_or(0) * (tokens * calls) as u64) as f64 / 1e3;
    if turn_s <= 0.0 {
        return n;
    }
    ((seconds / turn_s).round() as usize).clamp(MIN_PACED_TURNS.min(n), n)
}

pub async fn run(api: &Api, servers: &Servers, options: &Options) -> anyhow::Result<()> {
    servers.prepare()?;
    let mut cases = Vec::new();
    for variant in &options.variants {
        for delay in &options.delays {
            for tokens in &options.tokens {
                let turns = turns_of(options.turns, *tokens, *delay, *variant, options.seconds);
                cases.push(Case {
                    variant: *variant,
                    delay: *delay,
                    tokens: *tokens,
                    turns,
                });
            }
        }
    }
    let plain = api
        .fixtures(1, &[], &[])
        .await
        .context("creating fixtures")?;
    let calling = if options.variants.contains(&Variant::FunctionCall) {
        Some(
            api.fixtures(1, &["getCurrentTime"], &[])
                .await
                .context("creating fixtures")?,
        )
    } else {
        None
    };
    let fixtures_of = |variant: Variant| match (variant, &calling) {
        (Variant::FunctionCall, Some(f)) => f,
        _ => &plain,
    };

    // The baseline of each plain case: the same exchange straight with the mock (a few
    // turns at a real pace: only its chunks per turn and latency are shown).
    let url = format!(
        "{}/chat/completions",
        options.mock_url.trim_end_matches('/')
    );
    let mut direct: Vec<Vec<Turn>> = Vec::new();
    for case in &cases {
        let mut turns = Vec::new();
        if case.variant == Variant::Plain {
            let n = if case.delay.unwrap_or(0) > 0 {
                case.turns.min(3)
            } else {
                case.turns
            };
            for _ in 0..n {
                let turn = load::direct_turn(
                    &api.client,
                    &url,
                    &options.model,
                    &case.content(),
                    case.tokens,
                )
                .await
                .map_err(|f| anyhow::anyhow!("direct turn: {}: {}", f.kind, f.detail))?;
                turns.push(turn);
            }
        }
        direct.push(turns);
    }

    // Warm-up: connections, caches; then one session per case, warmed by one turn at
    // the mock's own pace.
    for variant in &options.variants {
        let f = fixtures_of(*variant);
        let warm = Case {
            variant: *variant,
            delay: None,
            tokens: options.tokens[0],
            turns: 0,
        };
        let session = api.open_session(&f.users[0], &f.tool_id).await?;
        for _ in 0..WARMUP_TURNS {
            turn(api, f, &session, &warm, false).await?;
        }
    }
    let mut sessions = Vec::with_capacity(cases.len());
    for case in &cases {
        let f = fixtures_of(case.variant);
        let session = api.open_session(&f.users[0], &f.tool_id).await?;
        let warm = Case {
            delay: None,
            ..*case
        };
        turn(api, f, &session, &warm, false).await?;
        sessions.push(session);
    }

    // Only PostgreSQL's counters lag; without them (embedded mode) nothing need settle.
    let settle = if servers.pg_url.is_some() {
        SETTLE
    } else {
        Duration::from_millis(100)
    };
    tokio::time::sleep(settle).await;
    let idle_from = servers.snapshot().context("reading the counters")?;
    tokio::time::sleep(settle).await;
    let mut before = servers.snapshot().context("reading the counters")?;
    let idle = before.since(&idle_from);
    let mut counted = Vec::with_capacity(cases.len());
    for ((case, session), direct) in cases.iter().zip(&sessions).zip(direct) {
        let f = fixtures_of(case.variant);
        let started = Instant::now();
        let mut parley = Vec::with_capacity(case.turns);
        for _ in 0..case.turns {
            parley.push(turn(api, f, session, case, options.session_per_turn).await?);
        }
        let ran = started.elapsed();
        // Statements and Redis commands are counted as they run: read them once the
        // last turn's trailing writes are done, so the settle's background (the timers'
        // polls, a few a second) does not weigh on a case of few slow turns.
        tokio::time::sleep(TRAILING).await;
        let quick = servers.snapshot().context("reading the counters")?;
        tokio::time::sleep(settle.saturating_sub(TRAILING)).await;
        let after = servers.snapshot().context("reading the counters")?;
        let mut cost = after.since(&before);
        let counted_now = quick.since(&before);
        cost.statements = counted_now.statements;
        cost.redis = counted_now.redis;
        let one = Counted {
            case: *case,
            parley,
            direct,
            cost,
            // The statements' window is the turns and the trailing second, the
            // transactions' the turns and one settle; the idle window is one settle.
            idle_share: (ran + TRAILING).as_secs_f64() / settle.as_secs_f64(),
            idle_share_db: (ran + settle).as_secs_f64() / settle.as_secs_f64(),
            ran,
        };
        cost_report::print_case(servers, options.session_per_turn, &one, &idle);
        counted.push(one);
        before = after;
    }
    cost_report::print_matrix(servers, &counted, &idle);
    Ok(())
}

/// One turn of `case` in `session` (or in a new session of its own).
async fn turn(
    api: &Api,
    fixtures: &Fixtures,
    session: &str,
    case: &Case,
    session_per_turn: bool,
) -> anyhow::Result<Turn> {
    let user = &fixtures.users[0];
    let content = case.content();
    let result = if session_per_turn {
        load::new_session_turn(
            api,
            user,
            &fixtures.tool_id,
            &content,
            case.expected(),
            None,
        )
        .await
    } else {
        let url = api.url(&format!("/v1/sessions/{session}/messages"));
        load::parley_turn(&api.client, &url, &user.token, &content, case.expected()).await
    };
    result.map_err(|f| anyhow::anyhow!("turn ({}): {}: {}", case.label(), f.kind, f.detail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paced_cases_count_fewer_turns() {
        // At the mock's own pace, or 0 ms: N.
        assert_eq!(turns_of(100, 200, None, Variant::Plain, 30.0), 100);
        assert_eq!(
            turns_of(100, 200, Some(0), Variant::FunctionCall, 30.0),
            100
        );
        // 50 tokens at 5 ms: 0.25 s a turn, 120 fit in 30 s: N caps them.
        assert_eq!(turns_of(100, 50, Some(5), Variant::Plain, 30.0), 100);
        // 200 tokens at 20 ms: 4 s a turn, 7.5 in 30 s: at least 10.
        assert_eq!(turns_of(100, 200, Some(20), Variant::Plain, 30.0), 10);
        // 50 tokens at 20 ms: 1 s, 30 turns; a function call's turn streams twice.
        assert_eq!(turns_of(100, 50, Some(20), Variant::Plain, 30.0), 30);
        assert_eq!(turns_of(100, 50, Some(20), Variant::FunctionCall, 30.0), 15);
        // Fewer than 10 asked: as asked.
        assert_eq!(turns_of(3, 200, Some(20), Variant::Plain, 30.0), 3);
    }
}
