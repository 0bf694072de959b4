//! Sessions people manage (#14): titles (the first words, a title model, the owner's),
//! rename, pin, archive, delete, and search across one's own sessions — on both
//! backends, through the typed client; raw requests only for what it cannot send (a
//! `null` title, malformed bodies) or hides (fields a response must omit).

use std::time::Duration;

use parley_tests::client::types::{self, TitleSource};
use parley_tests::{ApiResult, TestApp, both_backends};
use serde_json::json;
use uuid::Uuid;

use crate::fixtures::api;

/// Sends `content` and waits for the finished turn (JSON mode).
async fn exchange(app: &TestApp, token: &str, session_id: Uuid, content: &str) {
    app.send_message(token, &session_id.to_string(), content, "")
        .await
        .assert_status(201);
}

async fn session(client: &parley_tests::client::Client, id: Uuid) -> types::Session {
    client
        .get_session()
        .id(id)
        .send()
        .await
        .assert_status(200)
        .into_inner()
}

async fn rename(client: &parley_tests::client::Client, id: Uuid, title: &str) -> types::Session {
    client
        .update_session()
        .id(id)
        .body_map(|b| b.title(Some(title.to_owned())))
        .send()
        .await
        .assert_status(200)
        .into_inner()
}

both_backends!(
    the_first_exchange_titles_with_the_first_words,
    |app| async move {
        let alice = api::student_with_tool(&app, "words@example.com").await;
        let me = app.client_as(&alice.token);
        let id = api::session(&me, alice.tool.id).await.id;
        let fresh = app
            .get(&format!("/v1/sessions/{id}"), Some(&alice.token))
            .await;
        for absent in ["title", "title_source", "pinned", "archived", "pinned_at"] {
            assert!(
                fresh.body.get(absent).is_none(),
                "{absent} omitted: {fresh}"
            );
        }

        exchange(
            &app,
            &alice.token,
            id,
            "  How does photosynthesis work in green plants today?",
        )
        .await;
        let titled = session(&me, id).await;
        assert_eq!(
            titled.title.as_deref(),
            Some("How does photosynthesis work in green")
        );
        assert_eq!(titled.title_source, Some(TitleSource::Words));

        // Later exchanges keep it; the owner's title wins for good.
        exchange(&app, &alice.token, id, "And what about cacti?").await;
        assert_eq!(session(&me, id).await.title, titled.title);
        let renamed = rename(&me, id, "  Biology homework ").await;
        assert_eq!(renamed.title.as_deref(), Some("Biology homework"));
        assert_eq!(renamed.title_source, Some(TitleSource::User));
        exchange(&app, &alice.token, id, "One more question").await;
        assert_eq!(
            session(&me, id).await.title.as_deref(),
            Some("Biology homework")
        );

        // `null` clears it; the next finished exchange titles the session again.
        let cleared = app
            .patch_json(
                &format!("/v1/sessions/{id}"),
                Some(&alice.token),
                &json!({"title": null}),
            )
            .await;
        cleared.assert_status(200);
        assert!(cleared.body.get("title").is_none(), "{cleared}");
        exchange(&app, &alice.token, id, "Osmosis next").await;
        assert_eq!(
            session(&me, id).await.title.as_deref(),
            Some("Osmosis next")
        );
    }
);

both_backends!(
    a_title_model_titles_after_the_first_exchange,
    |backend: Backend| async move {
        let app =
            TestApp::spawn_with_env(backend, &[("PARLEY_TITLES__MODEL", "parley-demo")]).await;
        let alice = api::student_with_tool(&app, "model@example.com").await;
        let me = app.client_as(&alice.token);
        let id = api::session(&me, alice.tool.id).await.id;
        exchange(&app, &alice.token, id, "What caused the French Revolution?").await;
        let mut titled = session(&me, id).await;
        for _ in 0..100 {
            if titled.title_source == Some(TitleSource::Model) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            titled = session(&me, id).await;
        }
        assert_eq!(titled.title_source, Some(TitleSource::Model), "{titled:?}");
        assert_eq!(titled.title.as_deref(), Some("Caused French Revolution"));
        // The title call is in the ledger, under the session.
        let rows = app
            .count(&format!(
                "SELECT COUNT(*) FROM ai_usage WHERE session_id = {}",
                app.sql_uuid(&id.to_string())
            ))
            .await;
        assert_eq!(rows, 2, "the turn's call and the title's");
    }
);

both_backends!(rename_pin_archive_and_the_list, |app| async move {
    let alice = api::student_with_tool(&app, "list@example.com").await;
    let me = app.client_as(&alice.token);
    let mut ids = Vec::new();
    for _ in 0..4 {
        ids.push(api::session(&me, alice.tool.id).await.id);
    }
    let pinned = me
        .update_session()
        .id(ids[0])
        .body_map(|b| b.pinned(Some(true)))
        .send()
        .await
        .assert_status(200);
    assert_eq!(pinned.pinned, Some(true));
    assert!(pinned.pinned_at.is_some());
    let archived = me
        .update_session()
        .id(ids[3])
        .body_map(|b| b.archived(Some(true)).title(Some("Old stuff".to_owned())))
        .send()
        .await
        .assert_status(200);
    assert_eq!(
        (archived.archived, archived.title.as_deref()),
        (Some(true), Some("Old stuff"))
    );

    let me_ref = &me;
    let listed: Vec<Uuid> = parley_tests::all_pages(1, |cursor| async move {
        let mut request = me_ref.list_sessions().limit(1);
        if let Some(cursor) = cursor {
            request = request.cursor(cursor);
        }
        let page = request.send().await.assert_status(200).into_inner();
        (page.items, page.next_cursor)
    })
    .await
    .iter()
    .map(|s: &types::Session| s.id)
    .collect();
    assert_eq!(
        listed,
        [ids[0], ids[2], ids[1]],
        "pinned first, archived left out"
    );
    let only_archived = me
        .list_sessions()
        .archived(true)
        .send()
        .await
        .assert_status(200);
    assert_eq!(
        only_archived.items.iter().map(|s| s.id).collect::<Vec<_>>(),
        [ids[3]]
    );
    let only_pinned = me
        .list_sessions()
        .pinned(true)
        .send()
        .await
        .assert_status(200);
    assert_eq!(
        only_pinned.items.iter().map(|s| s.id).collect::<Vec<_>>(),
        [ids[0]]
    );

    // Unpinning and bringing back; an empty change answers the session as it is.
    me.update_session()
        .id(ids[0])
        .body_map(|b| b.pinned(Some(false)))
        .send()
        .await
        .assert_status(200);
    let back = me
        .update_session()
        .id(ids[3])
        .body_map(|b| b.archived(Some(false)))
        .send()
        .await
        .assert_status(200);
    assert_eq!(back.archived, None);
    let same = app
        .patch_json(
            &format!("/v1/sessions/{}", ids[3]),
            Some(&alice.token),
            &json!({}),
        )
        .await;
    same.assert_status(200);
    assert_eq!(same.body["title"], "Old stuff");
    assert!(
        same.body.get("pinned").is_none() && same.body.get("archived").is_none(),
        "{same}"
    );
    let all = me.list_sessions().send().await.assert_status(200);
    assert_eq!(all.items.len(), 4);
});

both_backends!(
    bad_changes_and_searches_are_refused_with_a_code,
    |app| async move {
        let alice = api::student_with_tool(&app, "bad@example.com").await;
        let me = app.client_as(&alice.token);
        let id = api::session(&me, alice.tool.id).await.id;
        let path = format!("/v1/sessions/{id}");
        for (body, code) in [
            (json!({"title": "   "}), "invalid_title"),
            (json!({"title": ""}), "invalid_title"),
            (json!({"title": "x".repeat(201)}), "validation_failed"),
            (json!({"title": 42}), "validation_failed"),
            (json!({"pinned": "yes"}), "validation_failed"),
            (json!({"colour": "red"}), "validation_failed"),
        ] {
            let refused = app.patch_json(&path, Some(&alice.token), &body).await;
            assert_eq!(refused.assert_problem(422), code, "{body}");
        }
        assert_eq!(session(&me, id).await.title, None, "nothing changed");
        for q in ["***", "  ", "\"-\""] {
            let refused = me.search_sessions().q(q).send().await.assert_problem(422);
            assert_eq!(refused, "empty_query", "{q:?}");
        }
        let missing = app.get("/v1/sessions/search", Some(&alice.token)).await;
        missing.assert_problem(400);
        let unauthenticated = app.patch_json(&path, None, &json!({"pinned": true})).await;
        unauthenticated.assert_problem(401);
        app.delete(&path, None).await.assert_problem(401);
        app.get("/v1/sessions/search?q=x", None)
            .await
            .assert_problem(401);
    }
);

both_backends!(
    another_users_session_is_404_to_change_delete_and_search,
    |app| async move {
        let alice = api::student_with_tool(&app, "alice@example.com").await;
        let bob = api::student_with_tool(&app, "bob@example.com").await;
        let (alice_client, bob_client) = (app.client_as(&alice.token), app.client_as(&bob.token));
        let id = api::session(&alice_client, alice.tool.id).await.id;
        exchange(
            &app,
            &alice.token,
            id,
            "Alice's private photosynthesis question",
        )
        .await;

        let renamed = bob_client
            .update_session()
            .id(id)
            .body_map(|b| b.title(Some("mine now".to_owned())))
            .send()
            .await;
        assert_eq!(renamed.assert_problem(404), "not_found");
        let deleted = bob_client.delete_session().id(id).send().await;
        assert_eq!(deleted.assert_problem(404), "not_found");
        let found = bob_client
            .search_sessions()
            .q("photosynthesis")
            .send()
            .await
            .assert_status(200);
        assert_eq!(found.items, Vec::new());
        bob_client
            .delete_session()
            .id(Uuid::now_v7())
            .send()
            .await
            .assert_problem(404);
        // Alice's session is untouched.
        let mine = session(&alice_client, id).await;
        assert_eq!(
            mine.title.as_deref(),
            Some("Alice's private photosynthesis question")
        );
    }
);

both_backends!(
    search_finds_ones_own_sessions_with_a_snippet,
    |app| async move {
        let alice = api::student_with_tool(&app, "search@example.com").await;
        let me = app.client_as(&alice.token);
        let biology = api::session(&me, alice.tool.id).await.id;
        let history = api::session(&me, alice.tool.id).await.id;
        exchange(
            &app,
            &alice.token,
            biology,
            "Explain photosynthesis and chlorophyll",
        )
        .await;
        exchange(&app, &alice.token, history, "Who won at Waterloo?").await;
        rename(&me, biology, "Biology").await;

        let found = me
            .search_sessions()
            .q("CHLOROPHYLL")
            .send()
            .await
            .assert_status(200);
        assert_eq!(found.items.len(), 1, "{:?}", found.items);
        let hit = &found.items[0];
        assert_eq!(
            (hit.session_id, hit.title.as_deref()),
            (biology, Some("Biology"))
        );
        assert!(hit.snippet.contains("chlorophyll"), "{hit:?}");
        let messages = me
            .list_session_messages()
            .id(biology)
            .send()
            .await
            .assert_status(200);
        assert!(
            messages
                .items
                .iter()
                .any(|m| m.id == hit.message_id && m.content.contains("chlorophyll")),
            "the hit names a message of the session"
        );
        // Every word must be there; the demo's answers quote the question, so both match.
        let waterloo = me
            .search_sessions()
            .q("waterloo won")
            .send()
            .await
            .assert_status(200);
        assert_eq!(
            waterloo
                .items
                .iter()
                .map(|h| h.session_id)
                .collect::<Vec<_>>(),
            [history]
        );
        let none = me
            .search_sessions()
            .q("waterloo chlorophyll")
            .send()
            .await
            .assert_status(200);
        assert_eq!(none.items, Vec::new());
        let one = me
            .search_sessions()
            .q("demo")
            .limit(1)
            .send()
            .await
            .assert_status(200);
        assert_eq!(one.items.len(), 1, "the limit holds");
    }
);

both_backends!(
    deleting_a_session_removes_its_content_and_keeps_the_ledger,
    |app| async move {
        let alice = api::student_with_tool(&app, "delete@example.com").await;
        let me = app.client_as(&alice.token);
        let id = api::session(&me, alice.tool.id).await.id;
        let kept = api::session(&me, alice.tool.id).await.id;
        exchange(&app, &alice.token, id, "My secret diary entry").await;
        exchange(&app, &alice.token, kept, "Another secret").await;

        // A turn in flight: refused until it ends.
        let sid = id.to_string();
        app.send_in_background(&alice.token, &sid, "a second secret")
            .await;
        let busy = me.delete_session().id(id).send().await;
        assert_eq!(busy.assert_problem(409), "prompt_active");
        let mut deleted = me.delete_session().id(id).send().await;
        for _ in 0..100 {
            if deleted.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            deleted = me.delete_session().id(id).send().await;
        }
        deleted.assert_status(204);

        assert_eq!(
            me.get_session().id(id).send().await.assert_problem(404),
            "not_found"
        );
        me.list_session_messages()
            .id(id)
            .send()
            .await
            .assert_problem(404);
        me.delete_session().id(id).send().await.assert_problem(404);
        me.update_session()
            .id(id)
            .body_map(|b| b.pinned(Some(true)))
            .send()
            .await
            .assert_problem(404);
        app.send_message(&alice.token, &sid, "hello?", "")
            .await
            .assert_problem(404);
        let listed = me.list_sessions().send().await.assert_status(200);
        assert_eq!(
            listed.items.iter().map(|s| s.id).collect::<Vec<_>>(),
            [kept]
        );
        let found = me
            .search_sessions()
            .q("secret")
            .send()
            .await
            .assert_status(200);
        assert_eq!(
            found.items.iter().map(|h| h.session_id).collect::<Vec<_>>(),
            [kept]
        );

        let of_session = |table: &str| {
            format!(
                "SELECT COUNT(*) FROM {table} WHERE session_id = {}",
                app.sql_uuid(&sid)
            )
        };
        assert_eq!(app.count(&of_session("messages")).await, 0);
        assert_eq!(
            app.count(&of_session("ai_usage")).await,
            2,
            "the ledger keeps both turns"
        );
        assert_eq!(
            app.count(&format!(
                "{} AND message_id IS NOT NULL",
                of_session("ai_usage")
            ))
            .await,
            0,
            "without pointing at content"
        );
        assert_eq!(
            app.count(&format!(
                "{} AND (input IS NOT NULL OR system_message IS NOT NULL)",
                of_session("prompts")
            ))
            .await,
            0,
            "the prompts keep no text"
        );
        // The other session is whole.
        assert_eq!(
            app.count(&format!(
                "SELECT COUNT(*) FROM messages WHERE session_id = {}",
                app.sql_uuid(&kept.to_string())
            ))
            .await,
            2
        );
    }
);
