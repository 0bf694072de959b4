//! The turn-cost report (`--cost N`): N turns one after the other, and what they cost as
//! the servers count it — SQL statements and transactions (PostgreSQL), Redis commands
//! — with the SSE events the bench read, each per turn, beside the same N turns sent
//! straight to the mock. Then every statement and Redis command with its calls per
//! turn, for BENCHMARKS.md.
//!
//! PostgreSQL updates `pg_stat_database` from a backend at most once a second and, when
//! the backend goes idle, within [`SETTLE`]; the report waits that long before each
//! reading. What the servers do meanwhile on their own (the reaper, the job queue's
//! heartbeats and polls) is measured over an idle window of the same length first and
//! shown beside the totals.

use std::time::{Duration, Instant};

use anyhow::Context;

use crate::{
    counters::{Delta, Servers, is_transaction_control},
    load::{self, Expected, Turn},
    setup::{Api, Fixtures},
    stats::{Percentiles, fmt_ms},
};

/// Long enough for every PostgreSQL backend to have reported its counters.
const SETTLE: Duration = Duration::from_secs(11);
/// Turns run before the first reading (connections warm, caches filled).
const WARMUP_TURNS: usize = 5;

pub struct Options {
    pub turns: usize,
    pub tokens: usize,
    pub session_per_turn: bool,
    pub mock_url: String,
    pub model: String,
}

pub async fn run(
    api: &Api,
    fixtures: &Fixtures,
    servers: &Servers,
    options: &Options,
) -> anyhow::Result<()> {
    servers.prepare()?;
    let n = options.turns.max(1);
    let content = format!("[[mock tokens={}]] hi", options.tokens);
    let expected = Expected::Tokens(options.tokens);
    let user = &fixtures.users[0];

    // The baseline: the same exchange straight with the mock.
    let url = format!(
        "{}/chat/completions",
        options.mock_url.trim_end_matches('/')
    );
    let mut direct = Vec::with_capacity(n);
    for _ in 0..n {
        direct.push(
            load::direct_turn(&api.client, &url, &options.model, &content, options.tokens)
                .await
                .map_err(|f| anyhow::anyhow!("direct turn: {}: {}", f.kind, f.detail))?,
        );
    }

    let session = api.open_session(user, &fixtures.tool_id).await?;
    let session_url = api.url(&format!("/v1/sessions/{session}/messages"));
    let turn = || async {
        let result = if options.session_per_turn {
            load::new_session_turn(api, user, &fixtures.tool_id, &content, expected).await
        } else {
            load::parley_turn(&api.client, &session_url, &user.token, &content, expected).await
        };
        result.map_err(|f| anyhow::anyhow!("turn: {}: {}", f.kind, f.detail))
    };
    for _ in 0..WARMUP_TURNS {
        turn().await?;
    }
    tokio::time::sleep(SETTLE).await;
    let idle_from = servers.snapshot().context("reading the counters")?;
    tokio::time::sleep(SETTLE).await;
    let before = servers.snapshot().context("reading the counters")?;
    let idle = before.since(&idle_from);
    let started = Instant::now();
    let mut parley = Vec::with_capacity(n);
    for _ in 0..n {
        parley.push(turn().await?);
    }
    let ran = started.elapsed();
    tokio::time::sleep(SETTLE).await;
    let after = servers.snapshot().context("reading the counters")?;
    let cost = after.since(&before);
    // The counted window is the turns plus one settle; the idle window was one settle.
    let idle_share = (ran + SETTLE).as_secs_f64() / SETTLE.as_secs_f64();
    print(
        servers, options, n, &parley, &direct, &cost, &idle, idle_share, ran,
    );
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn print(
    servers: &Servers,
    options: &Options,
    n: usize,
    parley: &[Turn],
    direct: &[Turn],
    cost: &Delta,
    idle: &Delta,
    idle_share: f64,
    ran: Duration,
) {
    let per = |v: u64| v as f64 / n as f64;
    let background = |v: u64| v as f64 * idle_share / n as f64;
    let events = |turns: &[Turn]| {
        turns.iter().map(|t| t.events).sum::<usize>() as f64 / turns.len().max(1) as f64
    };
    let latency = |turns: &[Turn]| {
        Percentiles::of(&turns.iter().map(|t| t.latency).collect::<Vec<_>>()).map(|p| p.p50)
    };
    println!();
    println!(
        "== turn cost: {n} plain {}-token turns at C = 1, {} ({:.1} s), counted on the servers",
        options.tokens,
        if options.session_per_turn {
            "each in a new session (POST /v1/sessions + the message)"
        } else {
            "one session"
        },
        ran.as_secs_f64()
    );
    println!(
        "  {:<44} {:>10} {:>12} {:>18}",
        "per turn", "Parley", "direct mock", "of it idle bkgd"
    );
    let pg = servers.pg_url.is_some();
    let row = |label: &str, value: Option<f64>, direct: &str, bkgd: Option<f64>| {
        let show = |v: Option<f64>| v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.1}"));
        println!(
            "  {label:<44} {:>10} {direct:>12} {:>18}",
            show(value),
            show(bkgd)
        );
    };
    row(
        "SQL statements (BEGIN/COMMIT/ROLLBACK apart)",
        pg.then(|| per(cost.data_statements())),
        "0",
        pg.then(|| background(idle.data_statements())),
    );
    row(
        "  transaction-control statements",
        pg.then(|| per(cost.control_statements())),
        "0",
        pg.then(|| background(idle.control_statements())),
    );
    row(
        "transactions (pg_stat_database)",
        pg.then(|| per(cost.transactions)),
        "0",
        pg.then(|| background(idle.transactions)),
    );
    for (i, what) in ["returned", "inserted", "updated", "deleted"]
        .iter()
        .enumerate()
    {
        row(
            &format!("  rows {what}"),
            pg.then(|| per(cost.rows[i])),
            "0",
            pg.then(|| background(idle.rows[i])),
        );
    }
    let redis = servers.redis_url.is_some();
    row(
        "Redis commands (incl. those inside scripts)",
        redis.then(|| per(cost.redis_commands())),
        "0",
        redis.then(|| background(idle.redis_commands())),
    );
    row(
        "SSE events read (pings left out)",
        Some(events(parley)),
        &format!("{:.1}", events(direct)),
        Some(0.0),
    );
    println!(
        "  {:<44} {:>10} {:>12}",
        "latency p50 at C = 1 (ms)",
        fmt_ms(latency(parley)),
        fmt_ms(latency(direct))
    );
    if !pg {
        println!(
            "  (no PostgreSQL counted: embedded mode's SQLite has no server counters, or no --pg-url)"
        );
    }
    if pg {
        println!(
            "\n  statements, calls per turn (idle background: calls in the idle window × {idle_share:.2} / {n}):"
        );
        let mut list: Vec<(&String, &u64)> = cost.statements.iter().collect();
        list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (query, calls) in list {
            let kind = if is_transaction_control(query) {
                "tx "
            } else {
                ""
            };
            let bkgd = background(*idle.statements.get(query).unwrap_or(&0));
            let mut text = query.clone();
            if text.len() > 220 {
                let cut = (0..=220)
                    .rev()
                    .find(|i| text.is_char_boundary(*i))
                    .unwrap_or(0);
                text.truncate(cut);
                text.push('…');
            }
            println!("  {:>7.2} ({bkgd:>4.2}) {kind}{text}", per(*calls));
        }
    }
    if redis {
        println!("\n  Redis commands, calls per turn (idle background):");
        let mut list: Vec<(&String, &u64)> = cost.redis.iter().collect();
        list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (command, calls) in list {
            let bkgd = background(*idle.redis.get(command).unwrap_or(&0));
            println!("  {:>7.2} ({bkgd:>4.2}) {command}", per(*calls));
        }
    }
}
