//! Sessions: the lifecycle, ownership, group reach, assignment windows, pagination.

use std::collections::HashSet;

use parley_tests::both_backends;
use serde_json::json;

use crate::fixtures::{self, id, in_seconds};

both_backends!(session_lifecycle, |app| async move {
    let org = fixtures::group(
        &app,
        "Org",
        None,
        json!({"model": "org-model", "constraints": {"topics": ["math"]}}),
    )
    .await;
    let team = fixtures::group(&app, "Team", Some(&id(&org)), json!({"max_messages": 30})).await;
    let (user_id, token) = app.create_user("life@example.com", "student").await;
    fixtures::add_member(&app, &id(&team), &user_id).await;
    // Defined for the organisation, reached through membership of a sub-group.
    let tool = fixtures::tool(
        &app,
        &id(&org),
        "Tutor",
        json!({"behavior": "Guide, do not tell.", "constraints": {"no_direct_answers": true}}),
    )
    .await;

    let created = app
        .post_json("/v1/sessions", Some(&token), &json!({"tool_id": id(&tool)}))
        .await;
    created.assert_status(201);
    let session_id = id(&created.body);
    assert_eq!(
        created.header("location"),
        Some(format!("/v1/sessions/{session_id}").as_str())
    );
    assert_eq!(created.body["state"], "active");
    assert_eq!(created.body["message_count"], 0);
    let config = &created.body["config"];
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
        config.get("max_messages").is_none_or(|v| v.is_null()),
        "a sibling chain does not apply: {config}"
    );

    let fetched = app
        .get(&format!("/v1/sessions/{session_id}"), Some(&token))
        .await;
    fetched.assert_status(200);
    assert_eq!(fetched.body["id"], session_id.as_str());

    let messages = app
        .get(&format!("/v1/sessions/{session_id}/messages"), Some(&token))
        .await;
    messages.assert_status(200);
    assert_eq!(messages.body["items"], json!([]));

    let done = app
        .post_json(
            &format!("/v1/sessions/{session_id}/complete"),
            Some(&token),
            &json!({}),
        )
        .await;
    done.assert_status(200);
    assert_eq!(done.body["state"], "completed");
    assert!(done.body["ended_at"].is_string(), "{done}");

    let again = app
        .post_json(
            &format!("/v1/sessions/{session_id}/complete"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(again.assert_problem(409), "session_completed");
});

both_backends!(another_users_session_is_404, |app| async move {
    let alice = fixtures::student_with_tool(&app, "alice@example.com").await;
    let (_, bob) = app.create_user("bob@example.com", "student").await;
    let created = app
        .post_json(
            "/v1/sessions",
            Some(&alice.token),
            &json!({"tool_id": id(&alice.tool)}),
        )
        .await;
    created.assert_status(201);
    let session_id = id(&created.body);

    for path in [
        format!("/v1/sessions/{session_id}"),
        format!("/v1/sessions/{session_id}/messages"),
    ] {
        assert_eq!(
            app.get(&path, Some(&bob)).await.assert_problem(404),
            "not_found"
        );
    }
    let complete = app
        .post_json(
            &format!("/v1/sessions/{session_id}/complete"),
            Some(&bob),
            &json!({}),
        )
        .await;
    complete.assert_problem(404);
    let listed = app.get("/v1/sessions", Some(&bob)).await;
    assert_eq!(
        listed.body["items"],
        json!([]),
        "bob sees none of alice's sessions"
    );
    // Alice's session is untouched by Bob's attempts.
    let mine = app
        .get(&format!("/v1/sessions/{session_id}"), Some(&alice.token))
        .await;
    assert_eq!(mine.body["state"], "active");
    // A session id that exists nowhere answers the same way.
    let missing = app
        .get(
            &format!("/v1/sessions/{}", uuid::Uuid::now_v7()),
            Some(&bob),
        )
        .await;
    missing.assert_problem(404);
});

both_backends!(tool_outside_ones_groups_is_404, |app| async move {
    let alice = fixtures::student_with_tool(&app, "alice@example.com").await;
    let other = fixtures::student_with_tool(&app, "carol@example.com").await;

    let denied = app
        .post_json(
            "/v1/sessions",
            Some(&alice.token),
            &json!({"tool_id": id(&other.tool)}),
        )
        .await;
    denied.assert_problem(404);
    let unknown = app
        .post_json(
            "/v1/sessions",
            Some(&alice.token),
            &json!({"tool_id": uuid::Uuid::now_v7()}),
        )
        .await;
    unknown.assert_problem(404);

    let catalog = app.get("/v1/tools", Some(&alice.token)).await;
    catalog.assert_status(200);
    let ids: Vec<&str> = catalog.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        vec![id(&alice.tool).as_str()],
        "only the tools of alice's groups: {catalog}"
    );
    assert!(
        catalog.body["items"][0].get("definition").is_none(),
        "users do not see tool definitions"
    );

    let missing_field = app
        .post_json("/v1/sessions", Some(&alice.token), &json!({}))
        .await;
    assert_eq!(missing_field.assert_problem(422), "validation_failed");
});

both_backends!(assignment_window_and_enrolment, |app| async move {
    let student = fixtures::student_with_tool(&app, "dana@example.com").await;
    let (_, outsider) = app.create_user("eve@example.com", "student").await;
    let group_id = id(&student.group);
    let class = fixtures::class(&app, &group_id, "Algebra").await;
    fixtures::enroll(&app, &id(&class), &student.user_id).await;
    let assignment = |available_at: Option<String>, closes_at: Option<String>| {
        let app = &app;
        let body = json!({
            "class_id": id(&class),
            "tool_id": id(&student.tool),
            "title": "Quadratics",
            "instructions": "Factor the polynomials.",
            "config": {"constraints": {"topics": ["quadratics"]}},
            "available_at": available_at,
            "closes_at": closes_at,
        });
        async move {
            let response = app
                .post_json("/v1/admin/assignments", app.admin(), &body)
                .await;
            response.assert_status(201);
            id(&response.body)
        }
    };
    let future = assignment(Some(in_seconds(3600)), None).await;
    let past = assignment(Some(in_seconds(-7200)), Some(in_seconds(-3600))).await;
    let open = assignment(Some(in_seconds(-60)), Some(in_seconds(3600))).await;
    let open_session = |assignment_id: String, token: String| {
        let app = &app;
        let tool_id = id(&student.tool);
        async move {
            app.post_json(
                "/v1/sessions",
                Some(&token),
                &json!({"tool_id": tool_id, "assignment_id": assignment_id}),
            )
            .await
        }
    };

    let early = open_session(future, student.token.clone()).await;
    assert_eq!(early.assert_problem(409), "assignment_not_open");
    let late = open_session(past, student.token.clone()).await;
    assert_eq!(late.assert_problem(409), "assignment_closed");
    let not_enrolled = open_session(open.clone(), outsider).await;
    not_enrolled.assert_problem(404);

    let ok = open_session(open.clone(), student.token.clone()).await;
    ok.assert_status(201);
    assert_eq!(ok.body["assignment_id"], open.as_str());
    let config = &ok.body["config"];
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
    let other_tool = fixtures::tool(&app, &group_id, "Other", json!({"behavior": "x"})).await;
    let mismatch = app
        .post_json(
            "/v1/sessions",
            Some(&student.token),
            &json!({"tool_id": id(&other_tool), "assignment_id": open}),
        )
        .await;
    assert_eq!(mismatch.assert_problem(422), "tool_mismatch");
});

both_backends!(pagination_has_no_duplicates_or_gaps, |app| async move {
    let student = fixtures::student_with_tool(&app, "pager@example.com").await;
    let mut created = Vec::new();
    for _ in 0..23 {
        let response = app
            .post_json(
                "/v1/sessions",
                Some(&student.token),
                &json!({"tool_id": id(&student.tool)}),
            )
            .await;
        response.assert_status(201);
        created.push(id(&response.body));
    }
    for session_id in created.iter().step_by(3) {
        app.post_json(
            &format!("/v1/sessions/{session_id}/complete"),
            Some(&student.token),
            &json!({}),
        )
        .await
        .assert_status(200);
    }

    let mut seen = Vec::new();
    let mut states = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/sessions?limit=5&cursor={c}"),
            None => "/v1/sessions?limit=5".to_owned(),
        };
        let page = app.get(&path, Some(&student.token)).await;
        page.assert_status(200);
        let items = page.body["items"].as_array().unwrap();
        assert!(items.len() <= 5);
        for item in items {
            seen.push(id(item));
            states.push(item["state"].as_str().unwrap().to_owned());
        }
        pages += 1;
        match page.body["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => break,
        }
        assert!(pages < 10, "pagination does not end");
    }
    assert_eq!(pages, 5);
    let unique: HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "no duplicates");
    assert_eq!(unique, created.iter().collect::<HashSet<_>>(), "no gaps");
    let first_completed = states.iter().position(|s| s == "completed").unwrap();
    assert!(
        states[..first_completed].iter().all(|s| s == "active"),
        "active sessions come first: {states:?}"
    );
    assert!(
        states[first_completed..].iter().all(|s| s == "completed"),
        "{states:?}"
    );
    assert_eq!(first_completed, 15);
    // Within the active ones, the most recently active first.
    let active_created: Vec<&String> = created
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 3 != 0)
        .map(|(_, s)| s)
        .rev()
        .collect();
    assert_eq!(seen[..15].iter().collect::<Vec<_>>(), active_created);

    let filtered = app
        .get(
            "/v1/sessions?state=completed&limit=100",
            Some(&student.token),
        )
        .await;
    assert_eq!(filtered.body["items"].as_array().unwrap().len(), 8);
    let by_tool = app
        .get(
            &format!("/v1/sessions?tool_id={}&limit=100", uuid::Uuid::now_v7()),
            Some(&student.token),
        )
        .await;
    assert_eq!(by_tool.body["items"], json!([]));

    let bad_cursor = app
        .get("/v1/sessions?cursor=garbage", Some(&student.token))
        .await;
    assert_eq!(bad_cursor.assert_problem(400), "invalid_cursor");
    let bad_limit = app.get("/v1/sessions?limit=0", Some(&student.token)).await;
    assert_eq!(bad_limit.assert_problem(400), "invalid_parameter");
    let bad_state = app
        .get("/v1/sessions?state=paused", Some(&student.token))
        .await;
    bad_state.assert_problem(400);
});
