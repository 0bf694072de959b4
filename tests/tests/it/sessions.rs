//! Sessions: the lifecycle, ownership, group reach, assignment windows, pagination.
//!
//! Through the typed client (`parley_tests::client`); raw requests only for what it
//! cannot send (a body without its required field, a value outside an enum) or hides
//! (a field a response must not have).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use parley_tests::client::types::{EnrollmentRole, SessionState, ToolConstraints, ToolDefinition};
use parley_tests::client::{Client, types};
use parley_tests::{ApiResult, both_backends};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::fixtures::api::{self, in_seconds, uuid};

/// Opens a session with a tool, for an assignment when given; the raw result.
async fn open_session(
    client: &Client,
    tool_id: Uuid,
    assignment_id: Option<Uuid>,
) -> parley_tests::ApiResponse<types::Session> {
    client
        .create_session()
        .body_map(|b| b.tool_id(tool_id).assignment_id(assignment_id))
        .send()
        .await
}

both_backends!(session_lifecycle, |app| async move {
    let admin = app.admin_client();
    let org = api::group(
        &admin,
        "Org",
        None,
        json!({"model": "org-model", "constraints": {"topics": ["math"]}}),
    )
    .await;
    let team = api::group(&admin, "Team", Some(org.id), json!({"max_messages": 30})).await;
    let (user_id, token) = app.create_user("life@example.com", "student").await;
    api::add_member(&admin, team.id, uuid(&user_id)).await;
    // Defined for the organisation, reached through membership of a sub-group.
    let definition = ToolDefinition {
        constraints: Some(ToolConstraints {
            no_direct_answers: Some(true),
            topics: None,
        }),
        ..api::definition("Guide, do not tell.")
    };
    let tool = api::tool_with(&admin, org.id, "Tutor", definition).await;
    let me = app.client_as(&token);

    let created = open_session(&me, tool.id, None).await.assert_status(201);
    let session_id = created.id;
    assert_eq!(
        api::location(&created),
        Some(format!("/v1/sessions/{session_id}").as_str())
    );
    let created = created.into_inner();
    assert_eq!(created.state, SessionState::Active);
    assert_eq!(created.message_count, 0);
    let config = api::json_of(&created.config);
    assert_eq!(
        config["model"], "org-model",
        "org settings cascade: {config}"
    );
    assert_eq!(config["constraints"]["topics"], json!(["math"]), "{config}");
    assert_eq!(
        config["constraints"]["no_direct_answers"], true,
        "the tool overrides: {config}"
    );
    assert_eq!(config["behavior"], "Guide, do not tell.");
    assert!(
        config.get("max_messages").is_none_or(Value::is_null),
        "a sibling chain does not apply: {config}"
    );

    let fetched = me
        .get_session()
        .id(session_id)
        .send()
        .await
        .assert_status(200);
    assert_eq!(fetched.id, session_id);

    let messages = me
        .list_session_messages()
        .id(session_id)
        .send()
        .await
        .assert_status(200);
    assert_eq!(messages.items, Vec::new());

    let complete = || me.complete_session().id(session_id).send();
    let done = complete().await.assert_status(200);
    assert_eq!(done.state, SessionState::Completed);
    assert!(done.ended_at.is_some(), "{:?}", *done);

    assert_eq!(complete().await.assert_problem(409), "session_completed");
});

both_backends!(another_users_session_is_404, |app| async move {
    let alice = api::student_with_tool(&app, "alice@example.com").await;
    let (_, bob) = app.create_user("bob@example.com", "student").await;
    let (alice_client, bob) = (app.client_as(&alice.token), app.client_as(&bob));
    let session_id = api::session(&alice_client, alice.tool.id).await.id;

    let session = bob.get_session().id(session_id).send().await;
    assert_eq!(session.assert_problem(404), "not_found");
    let messages = bob.list_session_messages().id(session_id).send().await;
    assert_eq!(messages.assert_problem(404), "not_found");
    bob.complete_session()
        .id(session_id)
        .send()
        .await
        .assert_problem(404);
    let listed = bob.list_sessions().send().await.assert_status(200);
    assert_eq!(
        listed.items,
        Vec::new(),
        "bob sees none of alice's sessions"
    );
    // Alice's session is untouched by Bob's attempts.
    let mine = alice_client
        .get_session()
        .id(session_id)
        .send()
        .await
        .assert_status(200);
    assert_eq!(mine.state, SessionState::Active);
    // A session id that exists nowhere answers the same way.
    bob.get_session()
        .id(Uuid::now_v7())
        .send()
        .await
        .assert_problem(404);
});

both_backends!(tool_outside_ones_groups_is_404, |app| async move {
    let alice = api::student_with_tool(&app, "alice@example.com").await;
    let other = api::student_with_tool(&app, "carol@example.com").await;
    let me = app.client_as(&alice.token);

    open_session(&me, other.tool.id, None)
        .await
        .assert_problem(404);
    open_session(&me, Uuid::now_v7(), None)
        .await
        .assert_problem(404);

    let catalog = me.list_tools().send().await.assert_status(200).into_inner();
    let ids: Vec<Uuid> = catalog.items.iter().map(|t| t.id).collect();
    assert_eq!(
        ids,
        vec![alice.tool.id],
        "only the tools of alice's groups: {catalog:?}"
    );
    // The typed `ToolSummary` would silently drop a `definition` the server leaked:
    // only the raw body shows it is absent.
    let raw = app.get("/v1/tools", Some(&alice.token)).await;
    raw.assert_status(200);
    assert!(
        raw.body["items"][0].get("definition").is_none(),
        "users do not see tool definitions: {raw}"
    );

    // A body without its required `tool_id` cannot be built by the client: raw.
    let missing_field = app
        .post_json("/v1/sessions", Some(&alice.token), &json!({}))
        .await;
    assert_eq!(missing_field.assert_problem(422), "validation_failed");
});

both_backends!(assignment_window_and_enrolment, |app| async move {
    let admin = app.admin_client();
    let student = api::student_with_tool(&app, "dana@example.com").await;
    let (_, outsider) = app.create_user("eve@example.com", "student").await;
    let group_id = student.group.id;
    let class = api::class(&admin, group_id, "Algebra").await;
    api::enroll(&admin, class.id, student.user_id, EnrollmentRole::Student).await;
    let assignment = |available_at: Option<DateTime<Utc>>, closes_at: Option<DateTime<Utc>>| {
        let admin = &admin;
        let (class_id, tool_id) = (class.id, student.tool.id);
        async move {
            admin
                .admin_create_assignment()
                .body_map(|b| {
                    b.class_id(class_id)
                        .tool_id(tool_id)
                        .title("Quadratics")
                        .instructions("Factor the polynomials.".to_owned())
                        .config(api::overrides(
                            json!({"constraints": {"topics": ["quadratics"]}}),
                        ))
                        .available_at(available_at)
                        .closes_at(closes_at)
                })
                .send()
                .await
                .assert_status(201)
                .id
        }
    };
    let future = assignment(Some(in_seconds(3600)), None).await;
    let past = assignment(Some(in_seconds(-7200)), Some(in_seconds(-3600))).await;
    let open = assignment(Some(in_seconds(-60)), Some(in_seconds(3600))).await;
    let me = app.client_as(&student.token);
    let tool_id = student.tool.id;

    let early = open_session(&me, tool_id, Some(future)).await;
    assert_eq!(early.assert_problem(409), "assignment_not_open");
    let late = open_session(&me, tool_id, Some(past)).await;
    assert_eq!(late.assert_problem(409), "assignment_closed");
    let not_enrolled = open_session(&app.client_as(&outsider), tool_id, Some(open)).await;
    not_enrolled.assert_problem(404);

    let ok = open_session(&me, tool_id, Some(open))
        .await
        .assert_status(201)
        .into_inner();
    assert_eq!(ok.assignment_id, Some(open));
    let config = api::json_of(&ok.config);
    assert_eq!(
        config["assignment"]["instructions"], "Factor the polynomials.",
        "{config}"
    );
    assert_eq!(
        config["constraints"]["topics"],
        json!(["quadratics"]),
        "the assignment overrides: {config}"
    );
    assert_eq!(config["behavior"], "Help with homework.");

    // The assignment is done with its own tool only.
    let other_tool = api::tool(&admin, group_id, "Other", "x").await;
    let mismatch = open_session(&me, other_tool.id, Some(open)).await;
    assert_eq!(mismatch.assert_problem(422), "tool_mismatch");
});

both_backends!(pagination_has_no_duplicates_or_gaps, |app| async move {
    let student = api::student_with_tool(&app, "pager@example.com").await;
    let me = app.client_as(&student.token);
    let mut created = Vec::new();
    for _ in 0..23 {
        created.push(api::session(&me, student.tool.id).await.id);
    }
    for session_id in created.iter().step_by(3) {
        me.complete_session()
            .id(*session_id)
            .send()
            .await
            .assert_status(200);
    }

    let mut seen = Vec::new();
    let mut states = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut request = me.list_sessions().limit(5);
        if let Some(c) = cursor {
            request = request.cursor(c);
        }
        let page = request.send().await.assert_status(200).into_inner();
        assert!(page.items.len() <= 5, "{page:?}");
        for item in &page.items {
            seen.push(item.id);
            states.push(item.state);
        }
        pages += 1;
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
        assert!(pages < 10, "pagination does not end");
    }
    assert_eq!(pages, 5);
    let unique: HashSet<&Uuid> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no duplicates");
    assert_eq!(unique, created.iter().collect::<HashSet<_>>(), "no gaps");
    let first_completed = states
        .iter()
        .position(|s| *s == SessionState::Completed)
        .unwrap();
    assert!(
        states[..first_completed]
            .iter()
            .all(|s| *s == SessionState::Active),
        "active sessions come first: {states:?}"
    );
    assert!(
        states[first_completed..]
            .iter()
            .all(|s| *s == SessionState::Completed),
        "{states:?}"
    );
    assert_eq!(first_completed, 15);
    // Within the active ones, the most recently active first.
    let active_created: Vec<&Uuid> = created
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, s)| s)
        .rev()
        .collect();
    assert_eq!(seen[..15].iter().collect::<Vec<_>>(), active_created);

    let filtered = me
        .list_sessions()
        .state(SessionState::Completed)
        .limit(100)
        .send()
        .await
        .assert_status(200);
    assert_eq!(filtered.items.len(), 8, "{:?}", *filtered);
    let by_tool = me
        .list_sessions()
        .tool_id(Uuid::now_v7())
        .limit(100)
        .send()
        .await
        .assert_status(200);
    assert_eq!(by_tool.items, Vec::new());

    let bad_cursor = me.list_sessions().cursor("garbage").send().await;
    assert_eq!(bad_cursor.assert_problem(400), "invalid_cursor");
    // The client does not check the document's `minimum` (see tests/build.rs).
    let bad_limit = me.list_sessions().limit(0).send().await;
    assert_eq!(bad_limit.assert_problem(400), "invalid_parameter");
    // `paused` is no `SessionState`: only a raw request can send it.
    let bad_state = app
        .get("/v1/sessions?state=paused", Some(&student.token))
        .await;
    bad_state.assert_problem(400);
});
