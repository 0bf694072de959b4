//! Runs the whole chain up, down and up again on an in-memory SQLite database, and checks
//! the parts of the schema that are easy to get wrong across backends (partial index,
//! in-table foreign keys and their actions, `down` with rows still present, the
//! full-text index over messages and its triggers).
//!
//! No async test runtime is a dev-dependency, so the tests drive their futures with
//! sqlx's `test_block_on` (a current-thread Tokio runtime), reached through sea-orm.

use sea_orm_migration::sea_orm::{
    ConnectionTrait, Database, DatabaseConnection, DbBackend, DbErr, Statement, sqlx::test_block_on,
};

use crate::{Migrator, MigratorTrait};

const TABLES: [&str; 27] = [
    "groups",
    "users",
    "group_members",
    "api_tokens",
    "tools",
    "classes",
    "enrollments",
    "assignments",
    "submissions",
    "sessions",
    "messages",
    "prompts",
    "blocks",
    "tool_calls",
    "message_audit",
    "extractions",
    "module_events",
    "ai_usage",
    "todos",
    "notes",
    "timers",
    "server_secrets",
    "messages_fts",
    "files",
    "scheduled_tasks",
    "tool_call_archive",
    "message_feedback",
];

async fn sqlite() -> DatabaseConnection {
    Database::connect("sqlite::memory:")
        .await
        .expect("open in-memory SQLite")
}

/// `sql` from `sqlite_master` for each object of `kind` named `name`.
async fn schema_sql(
    db: &DatabaseConnection,
    kind: &str,
    name: &str,
) -> Result<Option<String>, DbErr> {
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            "SELECT sql FROM sqlite_master WHERE type = ? AND name = ?",
            [kind.into(), name.into()],
        ))
        .await?;
    row.map(|row| row.try_get::<String>("", "sql")).transpose()
}

async fn tables_present(db: &DatabaseConnection) -> Result<Vec<&'static str>, DbErr> {
    let mut present = Vec::new();
    for table in TABLES {
        if schema_sql(db, "table", table).await?.is_some() {
            present.push(table);
        }
    }
    Ok(present)
}

#[test]
fn up_down_up_on_sqlite() {
    test_block_on(async {
        let db = sqlite().await;

        Migrator::up(&db, None).await.expect("first up");
        assert_eq!(tables_present(&db).await.unwrap(), TABLES);

        Migrator::down(&db, None).await.expect("down");
        assert!(tables_present(&db).await.unwrap().is_empty());

        Migrator::up(&db, None).await.expect("second up");
        assert_eq!(tables_present(&db).await.unwrap(), TABLES);
    });
}

#[test]
fn unfinished_prompts_index_is_partial() {
    test_block_on(async {
        let db = sqlite().await;
        Migrator::up(&db, None).await.expect("up");

        let sql = schema_sql(&db, "index", "idx_prompts_state_unfinished")
            .await
            .unwrap()
            .expect("partial index exists");
        assert!(
            sql.contains(r#"WHERE "state" IN ('created', 'in_progress', 'waiting_for_tools')"#),
            "{sql}"
        );
    });
}

#[test]
fn foreign_keys_cascade_and_set_null() {
    test_block_on(async {
        let db = sqlite().await;
        Migrator::up(&db, None).await.expect("up");

        let now = "2026-11-21T00:00:00Z";
        for sql in [
            format!(
                "INSERT INTO users (id, email, name, role, permissions, created_at, updated_at) \
                 VALUES ('u1', 'a@example.com', 'A', 'admin', '[]', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO groups (id, name, path, settings, created_at, updated_at) \
                 VALUES ('g1', 'G', '/g1/', '{{}}', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO groups (id, parent_id, name, path, settings, created_at, updated_at) \
                 VALUES ('g2', 'g1', 'H', '/g1/g2/', '{{}}', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO tools (id, group_id, name, type, definition, created_at, updated_at) \
                 VALUES ('t1', 'g1', 'T', 'chat', '{{}}', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO sessions (id, user_id, tool_id, state, started_at, last_activity_at, \
                 message_count, config) VALUES ('s1', 'u1', 't1', 'active', '{now}', '{now}', 0, '{{}}')"
            ),
            format!(
                "INSERT INTO messages (id, session_id, seq, role, content, is_complete, created_at) \
                 VALUES ('m1', 's1', 1, 'user', 'hi', true, '{now}')"
            ),
            format!(
                "INSERT INTO prompts (id, session_id, user_message_id, state, attempt, created_at) \
                 VALUES ('p1', 's1', 'm1', 'created', 0, '{now}')"
            ),
            format!(
                "INSERT INTO todos (id, user_id, session_id, title, created_at, updated_at) \
                 VALUES ('td1', 'u1', 's1', 'T', '{now}', '{now}')"
            ),
        ] {
            db.execute_unprepared(&sql).await.expect(&sql);
        }

        // A duplicate seq in one session is refused.
        let dup = format!(
            "INSERT INTO messages (id, session_id, seq, role, content, is_complete, created_at) \
             VALUES ('m2', 's1', 1, 'user', 'again', true, '{now}')"
        );
        assert!(db.execute_unprepared(&dup).await.is_err());

        // Deleting the message nulls the prompt's pointer; deleting the session cascades.
        db.execute_unprepared("DELETE FROM messages WHERE id = 'm1'")
            .await
            .unwrap();
        let count = |sql: &'static str| {
            let db = &db;
            async move {
                let row = db
                    .query_one_raw(Statement::from_string(db.get_database_backend(), sql))
                    .await
                    .unwrap()
                    .unwrap();
                row.try_get_by_index::<i64>(0).unwrap()
            }
        };
        assert_eq!(
            count("SELECT COUNT(*) FROM prompts WHERE user_message_id IS NULL").await,
            1
        );
        db.execute_unprepared("DELETE FROM sessions WHERE id = 's1'")
            .await
            .unwrap();
        assert_eq!(count("SELECT COUNT(*) FROM prompts").await, 0);
        assert_eq!(
            count("SELECT COUNT(*) FROM todos WHERE session_id IS NULL").await,
            1
        );

        // A group that still owns a tool cannot be deleted.
        assert!(
            db.execute_unprepared("DELETE FROM groups WHERE id = 'g1'")
                .await
                .is_err()
        );

        // Rolling back works with rows still in place, including a group hierarchy.
        Migrator::down(&db, None).await.expect("down with data");
        assert!(tables_present(&db).await.unwrap().is_empty());
    });
}

/// Ids of the messages whose indexed content matches an FTS5 query.
async fn fts_hits(db: &DatabaseConnection, query: &str) -> Vec<String> {
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            "SELECT m.id FROM messages_fts JOIN messages m ON m.rowid = messages_fts.rowid \
             WHERE messages_fts MATCH ? ORDER BY m.id",
            [query.into()],
        ))
        .await
        .unwrap_or_else(|err| panic!("{query}: {err}"));
    rows.iter()
        .map(|row| row.try_get::<String>("", "id").unwrap())
        .collect()
}

#[test]
fn message_search_indexes_old_rows_and_follows_writes() {
    test_block_on(async {
        let db = sqlite().await;
        // Everything before the search migration, with a message already written.
        let before = Migrator::migrations()
            .iter()
            .position(|m| m.name().contains("create_message_search"))
            .expect("the search migration") as u32;
        Migrator::up(&db, Some(before))
            .await
            .expect("up to the one before it");
        let now = "2026-11-21T00:00:00Z";
        for sql in [
            format!(
                "INSERT INTO users (id, email, name, role, permissions, created_at, updated_at) \
                 VALUES ('u1', 'a@example.com', 'A', 'admin', '[]', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO groups (id, name, path, settings, created_at, updated_at) \
                 VALUES ('g1', 'G', '/g1/', '{{}}', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO tools (id, group_id, name, type, definition, created_at, updated_at) \
                 VALUES ('t1', 'g1', 'T', 'chat', '{{}}', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO sessions (id, user_id, tool_id, state, started_at, last_activity_at, \
                 message_count, config) VALUES ('s1', 'u1', 't1', 'active', '{now}', '{now}', 0, '{{}}')"
            ),
            format!(
                "INSERT INTO messages (id, session_id, seq, role, content, is_complete, created_at) \
                 VALUES ('m1', 's1', 1, 'user', 'Photosynthesis in green plants', true, '{now}')"
            ),
        ] {
            db.execute_unprepared(&sql).await.expect(&sql);
        }

        Migrator::up(&db, None).await.expect("the search migration");
        assert_eq!(fts_hits(&db, "photosynthesis").await, ["m1"], "rebuilt");

        db.execute_unprepared(&format!(
            "INSERT INTO messages (id, session_id, seq, role, content, is_complete, created_at) \
             VALUES ('m2', 's1', 2, 'assistant', 'Plants use light; café', true, '{now}')"
        ))
        .await
        .unwrap();
        assert_eq!(
            fts_hits(&db, "plants").await,
            ["m1", "m2"],
            "insert, any case"
        );
        assert_eq!(fts_hits(&db, "café").await, ["m2"]);
        assert!(fts_hits(&db, "cafe").await.is_empty(), "accents are kept");
        assert!(fts_hits(&db, "plant").await.is_empty(), "no stemming");

        db.execute_unprepared("UPDATE messages SET content = 'Chlorophyll' WHERE id = 'm1'")
            .await
            .unwrap();
        assert!(fts_hits(&db, "photosynthesis").await.is_empty(), "update");
        assert_eq!(fts_hits(&db, "chlorophyll").await, ["m1"]);
        // An update of other columns leaves the index alone.
        db.execute_unprepared("UPDATE messages SET is_complete = false WHERE id = 'm1'")
            .await
            .unwrap();
        assert_eq!(fts_hits(&db, "chlorophyll").await, ["m1"]);

        db.execute_unprepared("DELETE FROM messages WHERE id = 'm2'")
            .await
            .unwrap();
        assert!(fts_hits(&db, "plants").await.is_empty(), "delete");
        let check = db
            .execute_unprepared("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')")
            .await;
        assert!(check.is_ok(), "the index agrees with the table: {check:?}");

        // Down removes the index and its triggers; writes still work without them.
        let through_search = Migrator::migrations().len() as u32 - before;
        Migrator::down(&db, Some(through_search))
            .await
            .expect("down through the search migration");
        assert!(
            schema_sql(&db, "table", "messages_fts")
                .await
                .unwrap()
                .is_none()
        );
        for trigger in [
            "messages_fts_after_insert",
            "messages_fts_after_update",
            "messages_fts_after_delete",
        ] {
            assert!(
                schema_sql(&db, "trigger", trigger).await.unwrap().is_none(),
                "{trigger}"
            );
        }
        db.execute_unprepared("UPDATE messages SET content = 'again' WHERE id = 'm1'")
            .await
            .unwrap();
        Migrator::up(&db, None).await.expect("up again");
        assert_eq!(fts_hits(&db, "again").await, ["m1"], "rebuilt again");
    });
}

#[test]
fn the_message_tree_backfills_each_session_as_one_line() {
    test_block_on(async {
        let db = sqlite().await;
        let before = Migrator::migrations()
            .iter()
            .position(|m| m.name().contains("create_message_tree"))
            .expect("the tree migration") as u32;
        Migrator::up(&db, Some(before))
            .await
            .expect("up to the one before it");
        let now = "2026-11-21T00:00:00Z";
        let mut rows = vec![
            format!(
                "INSERT INTO users (id, email, name, role, permissions, created_at, updated_at) \
                 VALUES ('u1', 'a@example.com', 'A', 'admin', '[]', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO groups (id, name, path, settings, created_at, updated_at) \
                 VALUES ('g1', 'G', '/g1/', '{{}}', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO tools (id, group_id, name, type, definition, created_at, updated_at) \
                 VALUES ('t1', 'g1', 'T', 'chat', '{{}}', '{now}', '{now}')"
            ),
        ];
        for (session, count) in [("s1", 3), ("s2", 0)] {
            rows.push(format!(
                "INSERT INTO sessions (id, user_id, tool_id, state, started_at, last_activity_at, \
                 message_count, config) VALUES ('{session}', 'u1', 't1', 'active', '{now}', \
                 '{now}', {count}, '{{}}')"
            ));
        }
        for seq in 1..=3 {
            let role = if seq % 2 == 1 { "user" } else { "assistant" };
            rows.push(format!(
                "INSERT INTO messages (id, session_id, seq, role, content, is_complete, \
                 created_at) VALUES ('m{seq}', 's1', {seq}, '{role}', 'x', true, '{now}')"
            ));
        }
        for sql in rows {
            db.execute_unprepared(&sql).await.expect(&sql);
        }

        Migrator::up(&db, Some(1))
            .await
            .expect("the tree migration");
        let parents: Vec<(String, Option<String>)> = db
            .query_all_raw(Statement::from_string(
                DbBackend::Sqlite,
                "SELECT id, parent_id FROM messages ORDER BY seq",
            ))
            .await
            .unwrap()
            .iter()
            .map(|row| {
                (
                    row.try_get("", "id").unwrap(),
                    row.try_get("", "parent_id").unwrap(),
                )
            })
            .collect();
        assert_eq!(
            parents,
            [
                ("m1".to_owned(), None),
                ("m2".to_owned(), Some("m1".to_owned())),
                ("m3".to_owned(), Some("m2".to_owned())),
            ]
        );
        let leaves: Vec<Option<String>> = db
            .query_all_raw(Statement::from_string(
                DbBackend::Sqlite,
                "SELECT active_leaf_id FROM sessions ORDER BY id",
            ))
            .await
            .unwrap()
            .iter()
            .map(|row| row.try_get("", "active_leaf_id").unwrap())
            .collect();
        assert_eq!(leaves, [Some("m3".to_owned()), None]);
        Migrator::down(&db, Some(1)).await.expect("down again");
    });
}

#[test]
fn feedback_is_one_row_per_message_and_user_and_goes_with_its_message() {
    test_block_on(async {
        let db = sqlite().await;
        Migrator::up(&db, None).await.expect("up");
        let now = "2026-11-26T00:00:00Z";
        let feedback = |id: &str, message: &str, user: &str| {
            format!(
                "INSERT INTO message_feedback (id, message_id, session_id, user_id, rating, \
                 comment, tags, created_at, updated_at) VALUES ('{id}', '{message}', 's1', \
                 '{user}', 'up', NULL, '[]', '{now}', '{now}')"
            )
        };
        for sql in [
            format!(
                "INSERT INTO users (id, email, name, role, permissions, created_at, updated_at) \
                 VALUES ('u1', 'a@example.com', 'A', 'student', '[]', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO users (id, email, name, role, permissions, created_at, updated_at) \
                 VALUES ('u2', 'b@example.com', 'B', 'teacher', '[]', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO groups (id, name, path, settings, created_at, updated_at) \
                 VALUES ('g1', 'G', '/g1/', '{{}}', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO tools (id, group_id, name, type, definition, created_at, updated_at) \
                 VALUES ('t1', 'g1', 'T', 'chat', '{{}}', '{now}', '{now}')"
            ),
            format!(
                "INSERT INTO sessions (id, user_id, tool_id, state, started_at, last_activity_at, \
                 message_count, config) VALUES ('s1', 'u1', 't1', 'active', '{now}', '{now}', 2, '{{}}')"
            ),
            format!(
                "INSERT INTO messages (id, session_id, seq, role, content, is_complete, created_at) \
                 VALUES ('m1', 's1', 1, 'user', 'hi', true, '{now}')"
            ),
            format!(
                "INSERT INTO messages (id, session_id, seq, role, content, is_complete, created_at) \
                 VALUES ('m2', 's1', 2, 'assistant', 'hello', true, '{now}')"
            ),
            feedback("f1", "m2", "u1"),
            feedback("f2", "m2", "u2"),
        ] {
            db.execute_unprepared(&sql).await.expect(&sql);
        }
        // A second row for the same message and user is refused (the upsert's target).
        assert!(
            db.execute_unprepared(&feedback("f3", "m2", "u1"))
                .await
                .is_err()
        );
        let count = |sql: &'static str| {
            let db = &db;
            async move {
                let row = db
                    .query_one_raw(Statement::from_string(db.get_database_backend(), sql))
                    .await
                    .unwrap()
                    .unwrap();
                row.try_get_by_index::<i64>(0).unwrap()
            }
        };
        assert_eq!(count("SELECT COUNT(*) FROM message_feedback").await, 2);
        db.execute_unprepared("DELETE FROM messages WHERE id = 'm2'")
            .await
            .unwrap();
        assert_eq!(
            count("SELECT COUNT(*) FROM message_feedback").await,
            0,
            "the feedback goes with its message"
        );
        // The feedback migration and the ones after it (the metric rollups).
        let through_feedback = 2;
        Migrator::down(&db, Some(through_feedback))
            .await
            .expect("down with the feedback table");
        assert!(
            schema_sql(&db, "table", "message_feedback")
                .await
                .unwrap()
                .is_none()
        );
    });
}
