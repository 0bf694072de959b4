//! SQLite write transactions in few round trips, for the writer thread's own connection
//! ([`super::on_writer`]).
//!
//! Each statement sea-orm runs on SQLite is a round trip between the caller and the
//! connection's thread, and on a busy machine most of its cost is the two threads
//! waking each other, not SQLite's work: a plain turn's create, claim and finish were
//! twelve round trips that held the write lock ~1.1 ms per write, and the lock was busy
//! 95 % of the time at C = 32 (BENCHMARKS.md, #9). sqlx runs a text of several
//! statements one after the other, binding `?`s in order across them, and returns the
//! rows of every one: a [`Batch`] is such a text, built from sea-query statements.
//!
//! A transaction that spans batches (`BEGIN IMMEDIATE` in the first, `COMMIT` in the
//! last, Rust deciding in between) is only sound on a connection nothing else uses: the
//! writer's own, which [`super::on_writer`] hands its writes one at a time.
//! [`transaction`] rolls back whatever did not commit.

use std::future::Future;

use parley_protocol::error::Result;
use sea_orm::{
    ConnectionTrait, DatabaseConnection, DbBackend, QueryResult, Statement, Value,
    sea_query::{QueryStatementWriter, SqliteQueryBuilder},
};

use crate::error::Context;

/// Statements sent to SQLite as one text: one round trip.
#[derive(Debug, Default)]
pub(crate) struct Batch {
    sql: String,
    values: Vec<Value>,
}

impl Batch {
    /// A batch that opens a write transaction (taking the write lock up front).
    pub(crate) fn begin() -> Self {
        Self::default().raw("BEGIN IMMEDIATE")
    }

    /// Appends a statement with no parameters.
    pub(crate) fn raw(mut self, sql: &str) -> Self {
        self.separate();
        self.sql.push_str(sql);
        self
    }

    /// Appends `statement`, when there is one.
    pub(crate) fn then(mut self, statement: Option<&impl QueryStatementWriter>) -> Self {
        if let Some(statement) = statement {
            let (sql, values) = statement.build(SqliteQueryBuilder);
            self.separate();
            self.sql.push_str(&sql);
            self.values.extend(values.0);
        }
        self
    }

    /// Appends `COMMIT`.
    pub(crate) fn commit(self) -> Self {
        self.raw("COMMIT")
    }

    fn separate(&mut self) {
        if !self.sql.is_empty() {
            self.sql.push_str(";\n");
        }
    }

    /// Runs the statements in order; the rows any of them returned, in order. It stops at
    /// the first that fails (those before it took effect).
    pub(crate) async fn run(
        self,
        db: &DatabaseConnection,
        attempt: &str,
    ) -> Result<Vec<QueryResult>> {
        let statement = Statement::from_sql_and_values(DbBackend::Sqlite, self.sql, self.values);
        db.query_all_raw(statement).await.context(attempt)
    }
}

/// Runs `work`, which opens a transaction with [`Batch::begin`] and, when it returns
/// `Some`, has committed it; when it returns `None` or an error, the transaction is
/// rolled back. (A panic in `work` is rolled back by [`super::on_writer`].)
pub(crate) async fn transaction<T, W>(db: &DatabaseConnection, work: W) -> Result<Option<T>>
where
    W: Future<Output = Result<Option<T>>>,
{
    let done = work.await;
    if !matches!(done, Ok(Some(_))) {
        rollback(db).await;
    }
    done
}

/// Rolls back the transaction open on `db`, if any. A failure is only logged: it means
/// there was none, or the connection is gone, and with it the transaction.
pub(crate) async fn rollback(db: &DatabaseConnection) {
    if let Err(err) = db.execute_unprepared("ROLLBACK").await
        && !err.to_string().contains("no transaction is active")
    {
        tracing::warn!(error = %err, "rolling back a write transaction failed");
    }
}

#[cfg(test)]
mod tests {
    use std::panic::AssertUnwindSafe;

    use futures::FutureExt;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
    use uuid::Uuid;

    use super::*;
    use crate::{
        ai_usage,
        block_meta::BlockMeta,
        blocks,
        enums::{MessageRole, PromptState, UserRole},
        messages,
        query::{
            self,
            conversation::{BlockDraft, MessageRow, UsageRow},
            prompts::{self as turns, Claim, Finished, NewTurn, OnActive, Outcome, TurnWrites},
            testing::{self, Backend},
        },
        sessions,
    };
    use parley_protocol::turn::TurnInput;

    const LEASE: chrono::TimeDelta = chrono::TimeDelta::seconds(30);

    fn new_turn(session: &sessions::Model) -> NewTurn {
        NewTurn {
            user_message_id: None,
            session_id: session.id,
            user_id: session.user_id,
            input: TurnInput::text("hello"),
            model: None,
            default_model: "mock".into(),
            served_models: vec!["mock".to_owned()].into(),
            idempotency_key: None,
            request_hash: None,
            on_active: OnActive::Reject,
        }
    }

    /// A started turn of `session`, claimed by `worker`.
    async fn claimed(
        db: &DatabaseConnection,
        session: &sessions::Model,
        worker: &str,
    ) -> crate::prompts::Model {
        let turn = turns::create_turn(db, new_turn(session), query::now())
            .await
            .expect("recording a turn");
        assert!(turn.run_now && !turn.replayed, "the idle session was taken");
        match turns::claim(db, turn.prompt.id, worker, LEASE, query::now()).await {
            Ok(Claim::Claimed(prompt, _)) => prompt,
            other => panic!("claiming: {other:?}"),
        }
    }

    /// A plain answer's outcome and writes: the user message, the answer with one text
    /// block, one usage row.
    fn answer(
        prompt: &crate::prompts::Model,
        user_id: Uuid,
        tool_id: Uuid,
    ) -> (Outcome, TurnWrites) {
        let (asked, answered) = (Uuid::now_v7(), Uuid::now_v7());
        let message = |id, role, content: &str, prompt_id, parent_id| MessageRow {
            id,
            role,
            content: content.into(),
            prompt_id,
            is_complete: true,
            parent_id,
        };
        let outcome = Outcome {
            assistant_message_id: Some(answered),
            user_message_id: Some(asked),
            model: Some("mock".into()),
            ..Outcome::bare(PromptState::Completed)
        };
        let writes = TurnWrites {
            messages: vec![
                message(asked, MessageRole::User, "hello", None, None),
                message(
                    answered,
                    MessageRole::Assistant,
                    "Hi!",
                    Some(prompt.id),
                    Some(asked),
                ),
            ],
            blocks: vec![BlockDraft {
                content: "Hi!".into(),
                ..BlockDraft::new(0, BlockMeta::Text)
            }],
            answer_id: Some(answered),
            checkpointed: false,
            title: Some("hello".into()),
            usage: vec![UsageRow {
                prompt_id: prompt.id,
                message_id: Some(answered),
                session_id: prompt.session_id,
                user_id,
                tool_id,
                model: "mock".into(),
                vendor: "mock".into(),
                tokens: parley_protocol::events::Usage::plain(3, 2),
                cost_usd: 0.0,
                latency_ms: 5,
                ttft_ms: Some(1),
                error: None,
            }],
        };
        (outcome, writes)
    }

    async fn seqs(db: &DatabaseConnection, session: Uuid) -> Vec<i32> {
        messages::Entity::find()
            .filter(messages::Column::SessionId.eq(session))
            .order_by_asc(messages::Column::Seq)
            .all(db)
            .await
            .expect("reading messages")
            .into_iter()
            .map(|m| m.seq)
            .collect()
    }

    async fn reread(db: &DatabaseConnection, id: Uuid) -> sessions::Model {
        sessions::Entity::find_by_id(id)
            .one(db)
            .await
            .expect("reading the session")
            .expect("the session")
    }

    #[test]
    fn turns_on_an_sqlite_file_are_written_in_batches_on_the_writers_connection() {
        testing::run(Backend::SqliteFile, |db| async move {
            let writer = query::writer_connection(&db);
            assert!(
                query::owns_connection(&writer),
                "the writer has a connection of its own"
            );
            assert!(!query::owns_connection(&db));
            let user = testing::user(&db, UserRole::Student).await;
            let session = testing::session(&db, user).await;
            // The first turn through the batched forms themselves (`None` would mean the
            // general path had to decide), the second through the public calls.
            let recorded =
                turns::take_idle_session_sqlite(&writer, &new_turn(&session), query::now())
                    .await
                    .expect("recording a turn")
                    .expect("the batched create took the idle session");
            let Ok(Claim::Claimed(
                first,
                turns::SessionAt {
                    count: 0,
                    leaf: None,
                    ..
                },
            )) = turns::claim(&db, recorded.prompt.id, "w1", LEASE, query::now()).await
            else {
                panic!("claiming an empty session's first turn");
            };
            let (outcome, writes) = answer(&first, user, session.tool_id);
            let done = turns::finish_in_two_batches(
                &writer,
                &first,
                "w1",
                &outcome,
                &writes,
                query::now(),
            )
            .await
            .expect("finishing")
            .expect("the batched finish ended the plain turn");
            let mut ends = vec![(first, done)];
            let turn = turns::create_turn(&db, new_turn(&session), query::now())
                .await
                .expect("recording a turn");
            let Ok(Claim::Claimed(
                second,
                turns::SessionAt {
                    count: 2,
                    leaf: Some(_),
                    ..
                },
            )) = turns::claim(&db, turn.prompt.id, "w1", LEASE, query::now()).await
            else {
                panic!("claiming the second turn, after two messages");
            };
            let (outcome, writes) = answer(&second, user, session.tool_id);
            let done = turns::finish(&db, &second, "w1", outcome, writes, query::now())
                .await
                .expect("finishing");
            ends.push((second, done));
            for (turn, (prompt, done)) in ends.into_iter().enumerate() {
                let Finished::Ended {
                    prompt: ended,
                    next,
                    message_count,
                } = done
                else {
                    panic!("turn {turn}: the lease was held");
                };
                assert_eq!(message_count, Some(2 * turn as i32 + 2), "turn {turn}");
                assert_eq!(ended.state, PromptState::Completed);
                assert_eq!(ended.lease_owner, None);
                assert_eq!(next, None);
                let blocks = blocks::Entity::find()
                    .filter(blocks::Column::PromptId.eq(prompt.id))
                    .all(&db)
                    .await
                    .expect("reading blocks");
                assert_eq!(blocks.len(), 1);
                assert!(blocks[0].is_finalized);
                assert_eq!(blocks[0].message_id, ended.assistant_message_id);
                let usage = ai_usage::Entity::find()
                    .filter(ai_usage::Column::PromptId.eq(prompt.id))
                    .all(&db)
                    .await
                    .expect("reading usage");
                assert_eq!(usage.len(), 1);
            }
            assert_eq!(seqs(&db, session.id).await, [1, 2, 3, 4]);
            let session = reread(&db, session.id).await;
            assert_eq!(session.message_count, 4);
            assert_eq!(session.active_prompt_id, None);
            // The first finish titled the session with the first words.
            assert_eq!(
                (session.title.as_deref(), session.title_source),
                (Some("hello"), Some(crate::enums::TitleSource::Words))
            );
        });
    }

    #[test]
    fn a_batched_finish_that_lost_its_lease_writes_nothing() {
        testing::run(Backend::SqliteFile, |db| async move {
            let user = testing::user(&db, UserRole::Student).await;
            let session = testing::session(&db, user).await;
            let first = claimed(&db, &session, "w1").await;
            // The lease lapses and another worker takes the prompt.
            let later = query::now() + LEASE * 2;
            let Ok(Claim::Claimed(second, _)) =
                turns::claim(&db, first.id, "w2", LEASE, later).await
            else {
                panic!("w2 takes the lapsed lease");
            };
            let (outcome, writes) = answer(&first, user, session.tool_id);
            let lost = turns::finish(&db, &first, "w1", outcome, writes, later)
                .await
                .expect("finishing");
            assert!(matches!(lost, Finished::LeaseLost), "{lost:?}");
            assert_eq!(
                seqs(&db, session.id).await,
                Vec::<i32>::new(),
                "rolled back"
            );
            // The owner's finish is whole.
            let (outcome, writes) = answer(&second, user, session.tool_id);
            let done = turns::finish(&db, &second, "w2", outcome, writes, later)
                .await
                .expect("finishing");
            assert!(matches!(done, Finished::Ended { .. }), "{done:?}");
            assert_eq!(seqs(&db, session.id).await, [1, 2]);
        });
    }

    #[test]
    fn a_write_that_panics_inside_a_batched_transaction_leaves_the_writer_usable() {
        testing::run(Backend::SqliteFile, |db| async move {
            let user = testing::user(&db, UserRole::Student).await;
            let session = testing::session(&db, user).await;
            let panicked = AssertUnwindSafe(query::on_writer(
                &db,
                query::Urgency::InOrder,
                |conn| async move {
                    Batch::begin()
                        .raw("UPDATE sessions SET message_count = 999")
                        .run(&conn, "writing half")
                        .await?;
                    panic!("a bug between two batches");
                    #[allow(
                        unreachable_code,
                        reason = "the closure's type needs an Ok after the panic"
                    )]
                    Ok(())
                },
            ))
            .catch_unwind()
            .await;
            assert!(panicked.is_err(), "the panic reaches the caller");
            // The next write begins its own transaction, and the half write is gone.
            let prompt = claimed(&db, &session, "w1").await;
            assert_eq!(prompt.state, PromptState::InProgress);
            let session = reread(&db, session.id).await;
            assert_eq!(session.message_count, 0, "the half write was rolled back");
        });
    }
}
