//! Full-text search over a user's own messages (the `searchPriorSessions` function).
//!
//! The index is the migration `m20261123_000008_create_message_search`: on PostgreSQL the
//! generated column `messages.search` (`to_tsvector('simple', content)`, GIN-indexed), on
//! SQLite the FTS5 table `messages_fts` over `messages` (tokenizer `unicode61` with
//! diacritics kept). Neither stems nor drops stop words, so both backends find a message
//! when it contains every word of the query, case-insensitively.
//!
//! What the user typed is only ever words: on PostgreSQL it goes to
//! `plainto_tsquery('simple', $n)` (which ignores tsquery operators); on SQLite each word
//! becomes a double-quoted FTS5 string (quotes doubled), joined with `AND`, so no FTS
//! syntax in the input (`"`, `*`, `NEAR`, `-`, `:`, `^`…) can fail the query or change its
//! meaning. A query with no word in it finds nothing.

use parley_protocol::error::Result;
use sea_orm::{
    ConnectionTrait, DbBackend, FromQueryResult, Statement, Value, prelude::DateTimeUtc,
};
use uuid::Uuid;

use crate::{enums::MessageRole, error::Context};

/// A message that matches a search.
#[derive(Debug, Clone, PartialEq, Eq, FromQueryResult)]
pub struct MessageHit {
    pub message_id: Uuid,
    pub session_id: Uuid,
    pub role: MessageRole,
    pub content: String,
    pub created_at: DateTimeUtc,
}

/// The words of a query: runs of letters and digits (what both tokenizers index).
pub(crate) fn words(query: &str) -> Vec<&str> {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect()
}

/// An FTS5 query that matches rows containing every word: `"w1" AND "w2"`, each word a
/// string with its double quotes doubled, so FTS5 reads it as text, never as syntax.
pub(crate) fn fts5_all_words(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" AND ")
}

/// Messages of the user's own sessions (never another user's) that contain every word of
/// `query`, except those of `exclude_session` (typically the session asking); the best
/// matches first (`ts_rank` on PostgreSQL, `bm25` on SQLite), then the newest. At most
/// `limit` hits; a query without words finds none.
pub async fn search_own_messages<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    query: &str,
    exclude_session: Option<Uuid>,
    limit: u64,
) -> Result<Vec<MessageHit>> {
    let words = words(query);
    if words.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let backend = db.get_database_backend();
    let statement = match backend {
        DbBackend::Postgres => {
            // PostgreSQL text cannot hold NUL; it separates words like any other symbol.
            let text = query.replace('\0', " ");
            let mut values: Vec<Value> = vec![text.into(), user_id.into()];
            let mut sql = String::from(
                "SELECT m.id AS message_id, m.session_id, m.role, m.content, m.created_at \
                 FROM messages m \
                 JOIN sessions s ON s.id = m.session_id \
                 CROSS JOIN plainto_tsquery('simple', $1) AS q \
                 WHERE m.search @@ q AND s.user_id = $2",
            );
            if let Some(session) = exclude_session {
                values.push(session.into());
                sql.push_str(&format!(" AND m.session_id <> ${}", values.len()));
            }
            values.push(limit.into());
            sql.push_str(&format!(
                " ORDER BY ts_rank(m.search, q) DESC, m.created_at DESC, m.id DESC LIMIT ${}",
                values.len()
            ));
            Statement::from_sql_and_values(backend, sql, values)
        }
        DbBackend::Sqlite => {
            let mut values: Vec<Value> = vec![fts5_all_words(&words).into(), user_id.into()];
            let mut sql = String::from(
                "SELECT m.id AS message_id, m.session_id, m.role, m.content, m.created_at \
                 FROM messages_fts \
                 JOIN messages m ON m.rowid = messages_fts.rowid \
                 JOIN sessions s ON s.id = m.session_id \
                 WHERE messages_fts MATCH ? AND s.user_id = ?",
            );
            if let Some(session) = exclude_session {
                values.push(session.into());
                sql.push_str(" AND m.session_id <> ?");
            }
            values.push(limit.into());
            sql.push_str(" ORDER BY bm25(messages_fts), m.created_at DESC, m.id DESC LIMIT ?");
            Statement::from_sql_and_values(backend, sql, values)
        }
        other => {
            return Err(parley_protocol::error::Error::internal(
                "searching messages",
                format!("full-text search is not built for {other:?}"),
            ));
        }
    };
    MessageHit::find_by_statement(statement)
        .all(db)
        .await
        .context("searching messages")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        enums::UserRole,
        query::testing::{self, on_both_backends},
    };

    /// The contents of the hits, in order.
    async fn found(
        db: &sea_orm::DatabaseConnection,
        user: Uuid,
        query: &str,
        exclude: Option<Uuid>,
    ) -> Vec<String> {
        search_own_messages(db, user, query, exclude, 20)
            .await
            .unwrap_or_else(|err| panic!("{query:?}: {err:?}"))
            .into_iter()
            .map(|hit| hit.content)
            .collect()
    }

    on_both_backends!(finds_only_the_users_own_messages, |db| {
        let alice = testing::user(&db, UserRole::Student).await;
        let bob = testing::user(&db, UserRole::Student).await;
        let biology = testing::session(&db, alice).await;
        let history = testing::session(&db, alice).await;
        let bobs = testing::session(&db, bob).await;
        let question = testing::message(
            &db,
            biology.id,
            MessageRole::User,
            "How does photosynthesis work?",
        )
        .await;
        testing::message(
            &db,
            biology.id,
            MessageRole::Assistant,
            "Photosynthesis turns light, water and CO2 into sugar.",
        )
        .await;
        testing::message(&db, history.id, MessageRole::User, "Who won at Waterloo?").await;
        testing::message(&db, bobs.id, MessageRole::User, "Photosynthesis homework").await;

        let hits = search_own_messages(&db, alice, "photosynthesis", None, 20)
            .await
            .unwrap();
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert!(hits.iter().all(|h| h.session_id == biology.id), "{hits:?}");
        let asked = hits
            .iter()
            .find(|h| h.message_id == question.id)
            .expect("the question is found");
        assert_eq!(
            (asked.role, asked.content.as_str(), asked.created_at),
            (
                MessageRole::User,
                question.content.as_str(),
                question.created_at
            )
        );

        // Bob finds only his own; nobody finds what is not there.
        assert_eq!(
            found(&db, bob, "PHOTOSYNTHESIS", None).await,
            ["Photosynthesis homework"]
        );
        assert!(found(&db, bob, "waterloo", None).await.is_empty());
        assert!(
            found(&db, Uuid::now_v7(), "photosynthesis", None)
                .await
                .is_empty()
        );

        // Every word must be there, in any order and case, as a whole word.
        assert_eq!(
            found(&db, alice, "sugar LIGHT", None).await,
            ["Photosynthesis turns light, water and CO2 into sugar."]
        );
        assert!(found(&db, alice, "sugar waterloo", None).await.is_empty());
        assert!(
            found(&db, alice, "photo", None).await.is_empty(),
            "no prefixes"
        );
        assert!(
            found(&db, alice, "works", None).await.is_empty(),
            "no stemming"
        );

        // The asking session is left out.
        assert_eq!(
            found(&db, alice, "waterloo", Some(biology.id)).await,
            ["Who won at Waterloo?"]
        );
        assert!(
            found(&db, alice, "waterloo", Some(history.id))
                .await
                .is_empty()
        );

        // The limit holds.
        let one = search_own_messages(&db, alice, "photosynthesis", None, 1)
            .await
            .unwrap();
        assert_eq!(one.len(), 1);
    });

    on_both_backends!(best_matches_first_then_newest, |db| {
        let user = testing::user(&db, UserRole::Student).await;
        let session = testing::session(&db, user).await;
        let old = testing::message(&db, session.id, MessageRole::User, "fractions").await;
        let best = testing::message(
            &db,
            session.id,
            MessageRole::User,
            "fractions fractions fractions: adding fractions",
        )
        .await;
        let new = testing::message(&db, session.id, MessageRole::User, "fractions").await;
        testing::message(&db, session.id, MessageRole::User, "decimals").await;
        let hits: Vec<Uuid> = search_own_messages(&db, user, "fractions", None, 10)
            .await
            .unwrap()
            .iter()
            .map(|h| h.message_id)
            .collect();
        // The most occurrences rank first; equal ranks come newest first.
        assert_eq!(hits, [best.id, new.id, old.id]);
    });

    on_both_backends!(user_input_is_only_words, |db| {
        let user = testing::user(&db, UserRole::Student).await;
        let session = testing::session(&db, user).await;
        testing::message(
            &db,
            session.id,
            MessageRole::User,
            "Say \"NEAR\" or content:x AND y* -z (a OR b) ^c 'q' café & | ! <-> :*",
        )
        .await;
        testing::message(&db, session.id, MessageRole::Assistant, "Unrelated answer").await;
        for query in [
            "\"",
            "\"\"",
            "NEAR",
            "near(",
            "NEAR(a b)",
            "content:x",
            "x AND",
            "AND",
            "OR",
            "NOT",
            "y*",
            "*",
            "-z",
            "(a",
            "a)",
            "^c",
            "'q'",
            "q'",
            "&",
            "|",
            "!",
            "<->",
            ":*",
            "a & | b",
            "café",
            "\0",
            "x\0y",
            "{}",
            "[a]",
            "content : x",
            "+",
            "%",
            "_",
            "\\",
        ] {
            // Must not fail, whatever the text.
            let hits = search_own_messages(&db, user, query, None, 10)
                .await
                .unwrap_or_else(|err| panic!("{query:?}: {err:?}"));
            assert!(hits.len() <= 1, "{query:?}: {hits:?}");
        }
        // Operators are plain words: `NEAR`, `AND`, `OR` match the message that says them.
        for query in [
            "near",
            "AND",
            "or content",
            "y z",
            "a b c",
            "\"say\"",
            "(café)",
        ] {
            assert_eq!(
                found(&db, user, query, None).await.len(),
                1,
                "{query:?} finds the message"
            );
        }
        // Without a word there is nothing to find.
        for query in ["", "   ", "*", "\"\"", "&|!", "-", "<->"] {
            assert!(found(&db, user, query, None).await.is_empty(), "{query:?}");
        }
        // Accents count on both backends; `not` is a word like any other.
        assert!(found(&db, user, "cafe", None).await.is_empty());
        assert!(found(&db, user, "not", None).await.is_empty());
    });

    #[test]
    fn words_are_runs_of_letters_and_digits() {
        assert_eq!(
            words("  Hello, wörld! 42x_y "),
            ["Hello", "wörld", "42x", "y"]
        );
        assert!(words("").is_empty());
        assert!(words(" \"*^:-()' ").is_empty());
    }

    #[test]
    fn fts5_queries_quote_every_word() {
        assert_eq!(
            fts5_all_words(&["a", "NEAR", "b"]),
            r#""a" AND "NEAR" AND "b""#
        );
        assert_eq!(fts5_all_words(&["say\"hi"]), r#""say""hi""#);
    }
}
