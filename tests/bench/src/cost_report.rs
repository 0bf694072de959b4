//! What the turn-cost report prints: each case's counts per turn beside the direct mock
//! and the idle background, with every statement and Redis command, then one table of
//! every case (the per-turn counts at each pace, plain and with a function call).

use std::time::Duration;

use crate::{
    cost::Variant,
    counters::{Delta, Servers, is_transaction_control},
    load::Turn,
    stats::{Percentiles, fmt_ms},
};

/// One case of the matrix.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    pub variant: Variant,
    /// Ms between tokens; None: the mock's own pace.
    pub delay: Option<u64>,
    pub tokens: usize,
    /// Turns counted.
    pub turns: usize,
}

impl Case {
    pub fn label(&self) -> String {
        format!(
            "{}, {}-token replies, {}",
            match self.variant {
                Variant::Plain => "plain",
                Variant::FunctionCall => "one function call",
            },
            self.tokens,
            pace(self.delay)
        )
    }
}

fn pace(delay: Option<u64>) -> String {
    delay.map_or_else(
        || "the mock's own pace".to_owned(),
        |ms| format!("{ms} ms/token"),
    )
}

/// A case's turns and what the servers counted over them.
pub struct Counted {
    pub case: Case,
    pub parley: Vec<Turn>,
    /// The same exchange straight with the mock (plain cases only).
    pub direct: Vec<Turn>,
    pub cost: Delta,
    /// The statements' and Redis commands' counted window over the idle one (to scale
    /// the idle background).
    pub idle_share: f64,
    /// The same for `pg_stat_database` (transactions, rows), read after a settle.
    pub idle_share_db: f64,
    pub ran: Duration,
}

impl Counted {
    fn per(&self, v: u64) -> f64 {
        v as f64 / self.parley.len().max(1) as f64
    }

    fn background(&self, v: u64) -> f64 {
        v as f64 * self.idle_share / self.parley.len().max(1) as f64
    }

    fn background_db(&self, v: u64) -> f64 {
        v as f64 * self.idle_share_db / self.parley.len().max(1) as f64
    }
}

/// Transactions begun explicitly (`BEGIN`, `START TRANSACTION`).
fn begins(delta: &Delta) -> u64 {
    delta
        .statements
        .iter()
        .filter(|(q, _)| {
            let first = q.split_whitespace().next().unwrap_or_default();
            first.eq_ignore_ascii_case("BEGIN") || first.eq_ignore_ascii_case("START")
        })
        .map(|(_, n)| n)
        .sum()
}

fn events(turns: &[Turn]) -> Option<f64> {
    (!turns.is_empty())
        .then(|| turns.iter().map(|t| t.events).sum::<usize>() as f64 / turns.len() as f64)
}

fn latency_p50(turns: &[Turn]) -> Option<Duration> {
    Percentiles::of(&turns.iter().map(|t| t.latency).collect::<Vec<_>>()).map(|p| p.p50)
}

fn show(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.1}"))
}

pub fn print_case(servers: &Servers, session_per_turn: bool, c: &Counted, idle: &Delta) {
    let n = c.parley.len();
    println!();
    println!(
        "== turn cost: {n} turns ({}) at C = 1, {} ({:.1} s), counted on the servers",
        c.case.label(),
        if session_per_turn {
            "each in a new session (POST /v1/sessions + the message)"
        } else {
            "one session"
        },
        c.ran.as_secs_f64()
    );
    println!(
        "  {:<44} {:>10} {:>12} {:>18}",
        "per turn", "Parley", "direct mock", "of it idle bkgd"
    );
    let pg = servers.pg_url.is_some();
    let row = |label: &str, value: Option<f64>, direct: &str, bkgd: Option<f64>| {
        println!(
            "  {label:<44} {:>10} {direct:>12} {:>18}",
            show(value),
            show(bkgd)
        );
    };
    let (cost, per, bg) = (&c.cost, |v| c.per(v), |v| c.background(v));
    row(
        "SQL statements (BEGIN/COMMIT/ROLLBACK apart)",
        pg.then(|| per(cost.data_statements())),
        "0",
        pg.then(|| bg(idle.data_statements())),
    );
    row(
        "  transaction-control statements",
        pg.then(|| per(cost.control_statements())),
        "0",
        pg.then(|| bg(idle.control_statements())),
    );
    row(
        "  of them BEGIN (explicit transactions)",
        pg.then(|| per(begins(cost))),
        "0",
        pg.then(|| bg(begins(idle))),
    );
    row(
        "transactions (pg_stat_database)",
        pg.then(|| per(cost.transactions)),
        "0",
        pg.then(|| c.background_db(idle.transactions)),
    );
    for (i, what) in ["returned", "inserted", "updated", "deleted"]
        .iter()
        .enumerate()
    {
        row(
            &format!("  rows {what}"),
            pg.then(|| per(cost.rows[i])),
            "0",
            pg.then(|| c.background_db(idle.rows[i])),
        );
    }
    let redis = servers.redis_url.is_some();
    row(
        "Redis commands (incl. those inside scripts)",
        redis.then(|| per(cost.redis_commands())),
        "0",
        redis.then(|| bg(idle.redis_commands())),
    );
    row(
        "SSE events read (pings left out)",
        events(&c.parley),
        &events(&c.direct).map_or_else(|| "–".to_owned(), |v| format!("{v:.1}")),
        Some(0.0),
    );
    println!(
        "  {:<44} {:>10} {:>12}",
        "latency p50 at C = 1 (ms)",
        fmt_ms(latency_p50(&c.parley)),
        fmt_ms(latency_p50(&c.direct))
    );
    if !pg {
        println!(
            "  (no PostgreSQL counted: embedded mode's SQLite has no server counters, or no --pg-url)"
        );
    }
    if pg {
        println!(
            "\n  statements, calls per turn (idle background: calls in the idle window × {:.2} / {n}):",
            c.idle_share
        );
        let mut list: Vec<(&String, &u64)> = cost.statements.iter().collect();
        list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (query, calls) in list {
            let kind = if is_transaction_control(query) {
                "tx "
            } else {
                ""
            };
            let bkgd = bg(*idle.statements.get(query).unwrap_or(&0));
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
            let bkgd = bg(*idle.redis.get(command).unwrap_or(&0));
            println!("  {:>7.2} ({bkgd:>4.2}) {command}", per(*calls));
        }
    }
}

/// One Markdown table of every case: per turn, each count less its idle background
/// (the servers' own work — timer polls, heartbeats — over the case's window, shared by
/// its turns), with the count and that background in parentheses.
pub fn print_matrix(servers: &Servers, counted: &[Counted], idle: &Delta) {
    let (pg, redis) = (servers.pg_url.is_some(), servers.redis_url.is_some());
    println!();
    println!("== per-turn counts, every case: net of the idle background (count − background)");
    println!(
        "| turn | ms/token | tokens | turns | SQL statements | BEGIN | transactions (pg_stat_database) | Redis commands | SSE events (direct chunks) | latency p50 (ms) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for c in counted {
        let cell = |on: bool, total: u64, bkgd: f64| {
            if on {
                let total = c.per(total);
                format!("{:.1} ({total:.1} − {bkgd:.1})", total - bkgd)
            } else {
                "n/a".to_owned()
            }
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} |",
            match c.case.variant {
                Variant::Plain => "plain",
                Variant::FunctionCall => "function call",
            },
            c.case
                .delay
                .map_or_else(|| "mock's".to_owned(), |ms| ms.to_string()),
            c.case.tokens,
            c.parley.len(),
            cell(
                pg,
                c.cost.data_statements(),
                c.background(idle.data_statements())
            ),
            cell(pg, begins(&c.cost), c.background(begins(idle))),
            cell(pg, c.cost.transactions, c.background_db(idle.transactions)),
            cell(
                redis,
                c.cost.redis_commands(),
                c.background(idle.redis_commands())
            ),
            show(events(&c.parley)),
            events(&c.direct).map_or_else(|| "–".to_owned(), |v| format!("{v:.1}")),
            fmt_ms(latency_p50(&c.parley)),
        );
    }
    println!(
        "\n(A function-call turn: the mock answers N tokens with the call, then N tokens again after its result — two model calls, 2N tokens. SQL statements leave out BEGIN/COMMIT/ROLLBACK; BEGIN counts explicit transactions; pg_stat_database counts every transaction, an autocommitted statement too. The background is per second, not per turn: at C = 1 a 4 s turn carries 4 s of it, under load it is shared by many turns.)"
    );
}
