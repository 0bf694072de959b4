//! Search across one's own sessions (`GET /v1/sessions/search`): the full-text index of
//! messages ([`super::search`]: `messages.search` on PostgreSQL, `messages_fts` on
//! SQLite; the same words rule on both), grouped by session — each session once, with
//! its best matching message and a snippet of it. Deleted sessions have no messages left
//! to find; archived ones are found (a search is how one gets back to them).

use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{ConnectionTrait, DbBackend, FromQueryResult, Statement, Value};
use uuid::Uuid;

use super::search::{fts5_all_words, words};
use crate::error::Context;

/// A session that matches a search.
#[derive(Debug, Clone, PartialEq, Eq, FromQueryResult)]
pub struct SessionHit {
    pub session_id: Uuid,
    pub title: Option<String>,
    /// The best matching message of the session.
    pub message_id: Uuid,
    /// That message's text (the caller cuts the snippet: [`snippet`]).
    pub content: String,
}

/// The user's own sessions (never another user's, never a deleted one) with a message
/// containing every word of `query`, best match first; at most `limit`. A query without
/// a word is refused (422 `empty_query`).
pub async fn search_own_sessions<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    query: &str,
    limit: u64,
) -> Result<Vec<SessionHit>> {
    let words = words(query);
    if words.is_empty() {
        return Err(Error::invalid(
            ErrorCode::EmptyQuery,
            "the search has no word to look for",
        ));
    }
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let backend = db.get_database_backend();
    // Each matching message ranked; then the best of each session; then the sessions.
    let (matches, values): (&str, Vec<Value>) = match backend {
        DbBackend::Postgres => (
            "SELECT m.id, m.session_id, m.content, m.created_at, \
             ts_rank(m.search, q) AS rank \
             FROM messages m JOIN sessions s ON s.id = m.session_id \
             CROSS JOIN plainto_tsquery('simple', $1) AS q \
             WHERE m.search @@ q AND s.user_id = $2 AND s.deleted_at IS NULL",
            vec![
                query.replace('\0', " ").into(),
                user_id.into(),
                limit.into(),
            ],
        ),
        DbBackend::Sqlite => (
            // bm25 is lower for better matches: negated, higher is better on both.
            "SELECT m.id, m.session_id, m.content, m.created_at, \
             -bm25(messages_fts) AS rank \
             FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid \
             JOIN sessions s ON s.id = m.session_id \
             WHERE messages_fts MATCH $1 AND s.user_id = $2 AND s.deleted_at IS NULL",
            vec![fts5_all_words(&words).into(), user_id.into(), limit.into()],
        ),
        other => {
            return Err(Error::internal(
                "searching sessions",
                format!("full-text search is not built for {other:?}"),
            ));
        }
    };
    let sql = format!(
        "WITH hits AS ({matches}), \
         ranked AS (SELECT hits.*, ROW_NUMBER() OVER (PARTITION BY session_id \
           ORDER BY rank DESC, created_at DESC, id DESC) AS nth FROM hits) \
         SELECT r.session_id, s.title, r.id AS message_id, r.content \
         FROM ranked r JOIN sessions s ON s.id = r.session_id \
         WHERE r.nth = 1 \
         ORDER BY r.rank DESC, s.last_activity_at DESC, r.session_id DESC \
         LIMIT $3"
    );
    // SQLite numbers its parameters `?N`.
    let sql = match backend {
        DbBackend::Sqlite => sql.replace('$', "?"),
        _ => sql,
    };
    SessionHit::find_by_statement(Statement::from_sql_and_values(backend, sql, values))
        .all(db)
        .await
        .context("searching sessions")
}

/// How many characters a snippet shows at most.
pub const SNIPPET_CHARS: usize = 160;

/// A snippet of `content` around the first word of `query` it contains (case-insensitive,
/// as the index matches): at most [`SNIPPET_CHARS`] characters on word boundaries, with
/// `…` where text was left out; the start of the text when no word is found verbatim.
pub fn snippet(content: &str, query: &str) -> String {
    let tokens: Vec<(usize, &str)> = content
        .split_whitespace()
        .map(|t| (t.as_ptr() as usize - content.as_ptr() as usize, t))
        .collect();
    let wanted: Vec<String> = words(query).iter().map(|w| w.to_lowercase()).collect();
    let hit = tokens
        .iter()
        .position(|(_, token)| {
            words(token)
                .iter()
                .any(|w| wanted.contains(&w.to_lowercase()))
        })
        .unwrap_or(0);
    // A few words of context before the hit, then as many after as fit.
    let start = hit.saturating_sub(4);
    let mut out = String::new();
    let mut end = start;
    for (_, token) in &tokens[start..] {
        let extra = usize::from(!out.is_empty()) + token.chars().count();
        if out.chars().count() + extra > SNIPPET_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(token);
        end += 1;
    }
    if out.is_empty() {
        out = content.trim().chars().take(SNIPPET_CHARS - 1).collect();
        out.push('…');
        return out;
    }
    if start > 0 {
        out.insert(0, '…');
    }
    if end < tokens.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests;
