//! `/v1/todos` and `/v1/notes` (tag Data): the caller's own rows, newest first, paged;
//! and the full-text index over messages that `searchPriorSessions` reads.
//!
//! No endpoint writes todos or notes (the `createTodo` / `createNote` functions of the
//! function-calling loop will), so the tests write those rows straight into the app's
//! database, encoded by sea-query as the server's own writes are; everything read goes
//! through the generated client.

use chrono::{DateTime, Utc};
use parley_tests::client::Client;
use parley_tests::{ApiResult, TestApp, all_pages, both_backends, typed};
use sea_orm::sea_query::{Alias, Query};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, Value};
use uuid::Uuid;

use crate::fixtures::api::{self, uuid};

/// A connection that may write to the app's database (`TestApp::db` is read-only on
/// SQLite).
async fn writable_db(app: &TestApp) -> DatabaseConnection {
    let url = match app.database_url() {
        Some(url) => url.to_owned(),
        None => format!(
            "sqlite://{}?mode=rw",
            app.data_dir().join("parley.db").display()
        ),
    };
    Database::connect(parley_tests::connect_options(url))
        .await
        .expect("connecting to the app's database")
}

/// The current time at microsecond precision (what the server stores).
fn now() -> DateTime<Utc> {
    DateTime::from_timestamp_micros(Utc::now().timestamp_micros()).expect("a time")
}

/// Inserts one row into `table` and returns its new id.
async fn insert(db: &DatabaseConnection, table: &str, columns: Vec<(&str, Value)>) -> Uuid {
    let id = Uuid::now_v7();
    let at = now();
    let mut names = vec![Alias::new("id")];
    let mut values: Vec<sea_orm::sea_query::SimpleExpr> = vec![id.into()];
    for (name, value) in columns
        .into_iter()
        .chain([("created_at", at.into()), ("updated_at", at.into())])
    {
        names.push(Alias::new(name));
        values.push(value.into());
    }
    let statement = Query::insert()
        .into_table(Alias::new(table))
        .columns(names)
        .values_panic(values)
        .to_owned();
    db.execute(&statement)
        .await
        .unwrap_or_else(|err| panic!("inserting into {table}: {err}"));
    id
}

async fn todo(
    db: &DatabaseConnection,
    user_id: Uuid,
    title: &str,
    extra: Vec<(&str, Value)>,
) -> Uuid {
    let mut columns = vec![("user_id", user_id.into()), ("title", title.into())];
    columns.extend(extra);
    insert(db, "todos", columns).await
}

async fn note(
    db: &DatabaseConnection,
    user_id: Uuid,
    session_id: Option<Uuid>,
    title: &str,
) -> Uuid {
    let columns = vec![
        ("user_id", user_id.into()),
        ("session_id", session_id.into()),
        ("title", title.into()),
        ("content", format!("{title}: the details").into()),
    ];
    insert(db, "notes", columns).await
}

/// Every todo of the client's user, `limit` a page.
async fn todos(client: &Client, limit: u32) -> Vec<parley_tests::client::types::Todo> {
    all_pages(limit as usize, |cursor| async move {
        let mut request = client.list_todos().limit(limit);
        if let Some(cursor) = cursor {
            request = request.cursor(cursor);
        }
        let page = request.send().await.assert_status(200).into_inner();
        (page.items, page.next_cursor)
    })
    .await
}

/// Every note of the client's user, `limit` a page.
async fn notes(client: &Client, limit: u32) -> Vec<parley_tests::client::types::Note> {
    all_pages(limit as usize, |cursor| async move {
        let mut request = client.list_notes().limit(limit);
        if let Some(cursor) = cursor {
            request = request.cursor(cursor);
        }
        let page = request.send().await.assert_status(200).into_inner();
        (page.items, page.next_cursor)
    })
    .await
}

both_backends!(todos_are_the_callers_own_newest_first, |app| async move {
    let alice = api::student_with_tool(&app, "alice@example.com").await;
    let (bob_id, bob_token) = app.create_user("bob@example.com", "student").await;
    let (_, carol_token) = app.create_user("carol@example.com", "teacher").await;
    let me = app.client_as(&alice.token);
    let session = api::session(&me, alice.tool.id).await;
    let db = writable_db(&app).await;

    let due = now() + chrono::Duration::days(2);
    let first = todo(
        &db,
        alice.user_id,
        "Read chapter 3",
        vec![
            ("session_id", session.id.into()),
            ("notes", "pages 40-52".into()),
            ("due_at", due.into()),
        ],
    )
    .await;
    let second = todo(&db, alice.user_id, "Practise fractions", vec![]).await;
    let bobs = todo(&db, uuid(&bob_id), "Bob's todo", vec![]).await;
    let third = todo(&db, alice.user_id, "Revise", vec![]).await;

    let mine = todos(&me, 2).await;
    let ids: Vec<Uuid> = mine.iter().map(|t| t.id).collect();
    assert_eq!(ids, [third, second, first], "newest first, own only");
    let read = &mine[2];
    assert_eq!(read.title, "Read chapter 3");
    assert_eq!(read.session_id, Some(session.id));
    assert_eq!(read.notes.as_deref(), Some("pages 40-52"));
    assert_eq!(read.due_at, Some(due));
    assert_eq!(read.completed_at, None);

    // Absent fields are omitted, not null.
    let raw = app.get("/v1/todos?limit=1", Some(&alice.token)).await;
    raw.assert_status(200);
    let item = &raw.body["items"][0];
    assert_eq!(item["id"], third.to_string());
    for absent in ["session_id", "notes", "due_at", "completed_at"] {
        assert!(item.get(absent).is_none(), "{absent} in {item}");
    }

    let bob = todos(&app.client_as(&bob_token), 20).await;
    assert_eq!(bob.iter().map(|t| t.id).collect::<Vec<_>>(), [bobs]);
    let empty = app
        .client_as(&carol_token)
        .list_todos()
        .send()
        .await
        .assert_status(200)
        .into_inner();
    assert!(
        empty.items.is_empty() && empty.next_cursor.is_none(),
        "{empty:?}"
    );
});

both_backends!(notes_are_the_callers_own_newest_first, |app| async move {
    let alice = api::student_with_tool(&app, "alice@example.com").await;
    let (bob_id, bob_token) = app.create_user("bob@example.com", "student").await;
    let me = app.client_as(&alice.token);
    let session = api::session(&me, alice.tool.id).await;
    let db = writable_db(&app).await;

    let first = note(&db, alice.user_id, Some(session.id), "Photosynthesis").await;
    let bobs = note(&db, uuid(&bob_id), None, "Bob's note").await;
    let second = note(&db, alice.user_id, None, "Waterloo").await;

    let mine = notes(&me, 1).await;
    assert_eq!(
        mine.iter().map(|n| n.id).collect::<Vec<_>>(),
        [second, first]
    );
    assert_eq!(mine[1].title, "Photosynthesis");
    assert_eq!(mine[1].content, "Photosynthesis: the details");
    assert_eq!(mine[1].session_id, Some(session.id));
    assert_eq!(mine[0].session_id, None);

    let bob = notes(&app.client_as(&bob_token), 20).await;
    assert_eq!(bob.iter().map(|n| n.id).collect::<Vec<_>>(), [bobs]);
    // The admin sees their own notes (none), not everyone's.
    let admin = notes(&app.admin_client(), 20).await;
    assert!(admin.is_empty(), "{admin:?}");
});

both_backends!(
    todo_and_note_lists_check_token_and_paging,
    |app| async move {
        let anonymous = app.anonymous_client();
        assert_eq!(
            anonymous.list_todos().send().await.assert_problem(401),
            "unauthenticated"
        );
        assert_eq!(
            anonymous.list_notes().send().await.assert_problem(401),
            "unauthenticated"
        );
        let admin = app.admin_client();
        for limit in [0, 101] {
            assert_eq!(
                admin
                    .list_todos()
                    .limit(limit)
                    .send()
                    .await
                    .assert_problem(400),
                "invalid_parameter",
                "limit {limit}"
            );
            assert_eq!(
                admin
                    .list_notes()
                    .limit(limit)
                    .send()
                    .await
                    .assert_problem(400),
                "invalid_parameter",
                "limit {limit}"
            );
        }
        assert_eq!(
            admin
                .list_todos()
                .cursor("nope")
                .send()
                .await
                .assert_problem(400),
            "invalid_cursor"
        );
        assert_eq!(
            admin
                .list_notes()
                .cursor("nope")
                .send()
                .await
                .assert_problem(400),
            "invalid_cursor"
        );
        // An empty cursor is the first page.
        admin
            .list_todos()
            .cursor("")
            .send()
            .await
            .assert_status(200);
    }
);

both_backends!(messages_of_turns_are_indexed_for_search, |app| async move {
    let alice = api::student_with_tool(&app, "alice@example.com").await;
    let me = app.client_as(&alice.token);
    let session = api::session(&me, alice.tool.id).await;
    typed::send_message(&me, session.id, "Explain photosynthesis, please")
        .await
        .assert_status(201);
    // The demo model's answer quotes the question.
    let matches = |word: &str| match app.database_url() {
        Some(_) => format!(
            "SELECT COUNT(*) FROM messages WHERE search @@ plainto_tsquery('simple', '{word}')"
        ),
        None => format!("SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH '\"{word}\"'"),
    };
    assert_eq!(app.count(&matches("PHOTOSYNTHESIS")).await, 2);
    assert_eq!(app.count(&matches("offline")).await, 1, "the answer only");
    assert_eq!(app.count(&matches("waterloo")).await, 0);
});
