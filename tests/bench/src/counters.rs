//! The servers' own counters, read before and after a run of turns: PostgreSQL's
//! `pg_stat_statements` (calls per normalized statement) and `pg_stat_database`
//! (transactions, rows), and Redis's `INFO commandstats` (calls per command, those run
//! inside scripts included). Read with `psql` and `redis-cli` — the bench needs no
//! database driver of its own, and what it counts is what the servers count.
//!
//! The snapshots are taken through a connection to another database of the same cluster
//! (`template1`), and only the benchmarked database's rows are read, so the snapshots'
//! own statements and transactions are not counted. Redis's `INFO` is left out the same
//! way.

use std::{collections::BTreeMap, process::Command};

use anyhow::{Context, bail};

/// Where the counters are: the app's PostgreSQL URL, and Redis's.
#[derive(Debug, Clone)]
pub struct Servers {
    pub pg_url: Option<String>,
    pub redis_url: Option<String>,
}

/// One reading of every counter.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// Calls per statement (normalized text, whitespace folded).
    pub statements: BTreeMap<String, u64>,
    /// `xact_commit + xact_rollback` of the benchmarked database.
    pub transactions: u64,
    /// `tup_returned`, `tup_inserted`, `tup_updated`, `tup_deleted`.
    pub rows: [u64; 4],
    /// Calls per Redis command (`INFO` left out).
    pub redis: BTreeMap<String, u64>,
}

/// What a run of turns cost: the later snapshot less the earlier one.
#[derive(Debug, Clone, Default)]
pub struct Delta {
    pub statements: BTreeMap<String, u64>,
    pub transactions: u64,
    pub rows: [u64; 4],
    pub redis: BTreeMap<String, u64>,
}

/// Transaction control, counted apart from the statements that touch data.
pub fn is_transaction_control(statement: &str) -> bool {
    let first = statement
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_ascii_uppercase();
    matches!(
        first.as_str(),
        "BEGIN" | "COMMIT" | "ROLLBACK" | "START" | "SAVEPOINT" | "RELEASE" | "END"
    )
}

impl Servers {
    /// Loads `pg_stat_statements` (in the snapshot database) when PostgreSQL is counted;
    /// the server must have it in `shared_preload_libraries` (scripts/bench.sh starts it
    /// so).
    pub fn prepare(&self) -> anyhow::Result<()> {
        if let Some(url) = &self.pg_url {
            psql(
                &stats_url(url)?,
                "CREATE EXTENSION IF NOT EXISTS pg_stat_statements",
            )
            .context("pg_stat_statements (start PostgreSQL with shared_preload_libraries=pg_stat_statements)")?;
        }
        Ok(())
    }

    pub fn snapshot(&self) -> anyhow::Result<Snapshot> {
        let mut snap = Snapshot::default();
        if let Some(url) = &self.pg_url {
            let stats = stats_url(url)?;
            let db = database_of(url)?;
            let statements = psql(
                &stats,
                &format!(
                    "SELECT s.calls, regexp_replace(s.query, '\\s+', ' ', 'g') \
                     FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid \
                     WHERE d.datname = '{db}'"
                ),
            )?;
            for line in statements.lines() {
                let Some((calls, query)) = line.split_once('\x1f') else {
                    continue;
                };
                let calls: u64 = calls.trim().parse().unwrap_or(0);
                *snap.statements.entry(query.trim().to_owned()).or_default() += calls;
            }
            let totals = psql(
                &stats,
                &format!(
                    "SELECT xact_commit + xact_rollback, tup_returned, tup_inserted, \
                     tup_updated, tup_deleted FROM pg_stat_database WHERE datname = '{db}'"
                ),
            )?;
            let values: Vec<u64> = totals
                .trim()
                .split('\x1f')
                .map(|v| v.trim().parse().unwrap_or(0))
                .collect();
            if values.len() != 5 {
                bail!("unexpected pg_stat_database answer: {totals:?}");
            }
            snap.transactions = values[0];
            snap.rows = [values[1], values[2], values[3], values[4]];
        }
        if let Some(url) = &self.redis_url {
            let out = Command::new("redis-cli")
                .args(["-u", url, "info", "commandstats"])
                .output()
                .context("running redis-cli (is redis-tools installed?)")?;
            if !out.status.success() {
                bail!("redis-cli: {}", String::from_utf8_lossy(&out.stderr));
            }
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                // cmdstat_xadd:calls=123,usec=…
                let Some(rest) = line.trim().strip_prefix("cmdstat_") else {
                    continue;
                };
                let Some((name, fields)) = rest.split_once(':') else {
                    continue;
                };
                if name == "info" {
                    continue;
                }
                let calls = fields
                    .split(',')
                    .find_map(|f| f.strip_prefix("calls="))
                    .and_then(|c| c.parse().ok())
                    .unwrap_or(0);
                snap.redis.insert(name.to_owned(), calls);
            }
        }
        Ok(snap)
    }
}

impl Snapshot {
    pub fn since(&self, before: &Snapshot) -> Delta {
        let diff = |now: &BTreeMap<String, u64>, then: &BTreeMap<String, u64>| {
            now.iter()
                .map(|(k, v)| (k.clone(), v.saturating_sub(*then.get(k).unwrap_or(&0))))
                .filter(|(_, v)| *v > 0)
                .collect::<BTreeMap<_, _>>()
        };
        let mut rows = [0; 4];
        for (i, row) in rows.iter_mut().enumerate() {
            *row = self.rows[i].saturating_sub(before.rows[i]);
        }
        Delta {
            statements: diff(&self.statements, &before.statements),
            transactions: self.transactions.saturating_sub(before.transactions),
            rows,
            redis: diff(&self.redis, &before.redis),
        }
    }
}

impl Delta {
    /// Statements that touch data (transaction control left out).
    pub fn data_statements(&self) -> u64 {
        self.statements
            .iter()
            .filter(|(q, _)| !is_transaction_control(q))
            .map(|(_, n)| n)
            .sum()
    }

    pub fn control_statements(&self) -> u64 {
        self.statements
            .iter()
            .filter(|(q, _)| is_transaction_control(q))
            .map(|(_, n)| n)
            .sum()
    }

    pub fn redis_commands(&self) -> u64 {
        self.redis.values().sum()
    }
}

/// One `psql` command; fields separated by U+001F, one row a line.
fn psql(url: &str, sql: &str) -> anyhow::Result<String> {
    let out = Command::new("psql")
        .args([
            "-X",
            "-q",
            "-t",
            "-A",
            "-F",
            "\x1f",
            "-v",
            "ON_ERROR_STOP=1",
        ])
        .args(["-d", url, "-c", sql])
        .output()
        .context("running psql")?;
    if !out.status.success() {
        bail!("psql: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `postgres://user@host:port/db?opts` → `db`.
fn database_of(url: &str) -> anyhow::Result<String> {
    let path = url.split('?').next().unwrap_or(url);
    let (_, db) = path
        .rsplit_once('/')
        .filter(|(head, db)| head.contains("//") && !db.is_empty() && !db.contains('@'))
        .with_context(|| "the PostgreSQL URL names no database".to_owned())?;
    if !db.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        bail!("unexpected database name {db:?}");
    }
    Ok(db.to_owned())
}

/// The same server, database `template1`: the snapshots' own statements land there.
fn stats_url(url: &str) -> anyhow::Result<String> {
    let db = database_of(url)?;
    let (path, query) = match url.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (url, None),
    };
    let head = path
        .strip_suffix(db.as_str())
        .context("the database is not at the end of the URL")?;
    Ok(match query {
        Some(q) => format!("{head}template1?{q}"),
        None => format!("{head}template1"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_statement_kinds() {
        let url = "postgres://postgres@127.0.0.1:5432/postgres";
        assert_eq!(database_of(url).unwrap(), "postgres");
        assert_eq!(
            stats_url(url).unwrap(),
            "postgres://postgres@127.0.0.1:5432/template1"
        );
        assert_eq!(
            stats_url("postgres://u@h/app?sslmode=disable").unwrap(),
            "postgres://u@h/template1?sslmode=disable"
        );
        assert!(database_of("postgres://u@h").is_err());
        assert!(is_transaction_control("BEGIN"));
        assert!(is_transaction_control("commit"));
        assert!(!is_transaction_control("SELECT 1"));
    }
}
