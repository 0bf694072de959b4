//! `/v1/admin/classes` with their enrolments, and `/v1/admin/assignments`.

use chrono::{DateTime, Utc};
use parley_tests::{TestApp, both_backends};
use serde_json::{Value, json};

use crate::fixtures::{self, id, items};

const OPENS: &str = "2030-01-01T09:00:00Z";
const CLOSES: &str = "2030-01-08T09:00:00Z";

/// A JSON time as an instant (the wire format may differ from what was sent).
fn instant(value: &Value) -> DateTime<Utc> {
    value
        .as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .unwrap_or_else(|| panic!("not an RFC 3339 time: {value}"))
        .with_timezone(&Utc)
}

/// A class in a fresh group, with a tool of that group: (class JSON, tool JSON).
async fn class_with_tool(app: &TestApp, name: &str) -> (Value, Value) {
    let group = fixtures::group(app, &format!("Group of {name}"), None, json!({})).await;
    let class = fixtures::class(app, &id(&group), name).await;
    let tool = fixtures::tool(app, &id(&group), "Tutor", json!({"behavior": "x"})).await;
    (class, tool)
}

both_backends!(class_lifecycle, |app| async move {
    let group = fixtures::group(&app, "School", None, json!({})).await;
    let created = app
        .post_json(
            "/v1/admin/classes",
            app.admin(),
            &json!({"group_id": id(&group), "name": "Algebra"}),
        )
        .await;
    created.assert_status(201);
    let class_id = id(&created.body);
    let path = format!("/v1/admin/classes/{class_id}");
    assert_eq!(created.header("location"), Some(path.as_str()));
    assert_eq!(created.body["group_id"], id(&group).as_str());
    assert_eq!(created.body["name"], "Algebra");
    let other = fixtures::class(&app, &id(&group), "Biology").await;

    let fetched = app.get(&path, app.admin()).await;
    fetched.assert_status(200);
    assert_eq!(fetched.body, created.body);
    let listed = fixtures::all_pages(&app, "/v1/admin/classes", 1).await;
    assert_eq!(fixtures::ids(&listed), vec![id(&other), class_id.clone()]);

    let renamed = app
        .patch_json(&path, app.admin(), &json!({"name": "Algebra II"}))
        .await;
    renamed.assert_status(200);
    assert_eq!(renamed.body["name"], "Algebra II");
    assert_eq!(renamed.body["group_id"], id(&group).as_str());
    assert_eq!(app.get(&path, app.admin()).await.body["name"], "Algebra II");
    let moved = app
        .patch_json(&path, app.admin(), &json!({"group_id": id(&group)}))
        .await;
    assert_eq!(moved.assert_problem(422), "validation_failed");

    let orphan = json!({"group_id": uuid::Uuid::now_v7(), "name": "Nowhere"});
    let response = app
        .post_json("/v1/admin/classes", app.admin(), &orphan)
        .await;
    assert_eq!(response.assert_problem(422), "group_not_found");
    let nameless = json!({"group_id": id(&group), "name": ""});
    let response = app
        .post_json("/v1/admin/classes", app.admin(), &nameless)
        .await;
    assert_eq!(response.assert_problem(422), "validation_failed");

    app.delete(&path, app.admin()).await.assert_status(204);
    app.get(&path, app.admin()).await.assert_problem(404);
    app.delete(&path, app.admin()).await.assert_problem(404);
    let listed = fixtures::all_pages(&app, "/v1/admin/classes", 100).await;
    assert_eq!(fixtures::ids(&listed), vec![id(&other)]);
});

both_backends!(enrolments, |app| async move {
    let group = fixtures::group(&app, "School", None, json!({})).await;
    let class = fixtures::class(&app, &id(&group), "Algebra").await;
    let class_id = id(&class);
    let (sam, _) = app.create_user("sam@example.com", "student").await;
    let (tess, _) = app.create_user("tess@example.com", "teacher").await;
    let enrol_path = |user_id: &str| format!("/v1/admin/classes/{class_id}/enrollments/{user_id}");
    let list_path = format!("/v1/admin/classes/{class_id}/enrollments");

    let first = app
        .put_json(&enrol_path(&sam), app.admin(), &json!({"role": "student"}))
        .await;
    first.assert_status(200);
    assert_eq!(first.body["class_id"], class_id.as_str());
    assert_eq!(first.body["user_id"], sam.as_str());
    assert_eq!(first.body["role"], "student");
    let again = app
        .put_json(&enrol_path(&sam), app.admin(), &json!({"role": "student"}))
        .await;
    again.assert_status(200);
    assert_eq!(again.body, first.body, "enrolling again changes nothing");
    let changed = app
        .put_json(&enrol_path(&sam), app.admin(), &json!({"role": "teacher"}))
        .await;
    changed.assert_status(200);
    assert_eq!(changed.body["role"], "teacher");
    assert_eq!(
        changed.body["id"], first.body["id"],
        "the enrolment is kept"
    );
    assert_eq!(changed.body["created_at"], first.body["created_at"]);

    let teacher = app
        .put_json(&enrol_path(&tess), app.admin(), &json!({"role": "teacher"}))
        .await;
    teacher.assert_status(200);
    let listed = app.get(&list_path, app.admin()).await;
    listed.assert_status(200);
    let enrolled = items(&listed);
    assert_eq!(enrolled.len(), 2, "{listed}");
    assert_eq!(enrolled[0]["user_id"], tess.as_str(), "newest users first");
    assert_eq!(enrolled[1], changed.body);
    assert_eq!(fixtures::all_pages(&app, &list_path, 1).await, enrolled);

    app.delete(&enrol_path(&sam), app.admin())
        .await
        .assert_status(204);
    app.delete(&enrol_path(&sam), app.admin())
        .await
        .assert_problem(404);
    let listed = app.get(&list_path, app.admin()).await;
    assert_eq!(fixtures::ids(&items(&listed)), vec![id(&teacher.body)]);

    let nobody = uuid::Uuid::now_v7().to_string();
    let missing_user = app
        .put_json(
            &enrol_path(&nobody),
            app.admin(),
            &json!({"role": "student"}),
        )
        .await;
    missing_user.assert_problem(404);
    let no_class = format!("/v1/admin/classes/{}/enrollments", uuid::Uuid::now_v7());
    app.get(&no_class, app.admin()).await.assert_problem(404);
    let missing_class = app
        .put_json(
            &format!("{no_class}/{sam}"),
            app.admin(),
            &json!({"role": "student"}),
        )
        .await;
    missing_class.assert_problem(404);
    app.delete(&format!("{no_class}/{sam}"), app.admin())
        .await
        .assert_problem(404);
});

both_backends!(assignment_lifecycle, |app| async move {
    let (class, tool) = class_with_tool(&app, "Algebra").await;
    let body = json!({
        "class_id": id(&class),
        "tool_id": id(&tool),
        "title": "Quadratics",
        "instructions": "Factor them.",
        "config": {"max_messages": 10},
        "available_at": OPENS,
        "closes_at": CLOSES,
    });
    let created = app
        .post_json("/v1/admin/assignments", app.admin(), &body)
        .await;
    created.assert_status(201);
    let path = format!("/v1/admin/assignments/{}", id(&created.body));
    assert_eq!(created.header("location"), Some(path.as_str()));
    let assignment = &created.body;
    assert_eq!(assignment["class_id"], id(&class).as_str());
    assert_eq!(assignment["tool_id"], id(&tool).as_str());
    assert_eq!(assignment["title"], "Quadratics");
    assert_eq!(assignment["instructions"], "Factor them.");
    assert_eq!(assignment["config"], json!({"max_messages": 10}));
    assert_eq!(instant(&assignment["available_at"]), instant(&json!(OPENS)));
    assert_eq!(instant(&assignment["closes_at"]), instant(&json!(CLOSES)));
    let fetched = app.get(&path, app.admin()).await;
    fetched.assert_status(200);
    assert_eq!(&fetched.body, assignment);

    let retitled = app
        .patch_json(&path, app.admin(), &json!({"title": "Quadratics II"}))
        .await;
    retitled.assert_status(200);
    assert_eq!(retitled.body["title"], "Quadratics II");
    assert_eq!(
        retitled.body["closes_at"], assignment["closes_at"],
        "absent stays"
    );

    let open_ended = app
        .patch_json(&path, app.admin(), &json!({"closes_at": null}))
        .await;
    open_ended.assert_status(200);
    assert!(open_ended.body["closes_at"].is_null(), "{open_ended}");
    assert_eq!(open_ended.body["available_at"], assignment["available_at"]);
    let fetched = app.get(&path, app.admin()).await;
    assert!(fetched.body["closes_at"].is_null(), "{fetched}");
    let immediate = app
        .patch_json(&path, app.admin(), &json!({"available_at": null}))
        .await;
    assert!(immediate.body["available_at"].is_null(), "{immediate}");

    app.delete(&path, app.admin()).await.assert_status(204);
    app.get(&path, app.admin()).await.assert_problem(404);
    app.delete(&path, app.admin()).await.assert_problem(404);
});

both_backends!(assignment_windows_and_references, |app| async move {
    let (class, tool) = class_with_tool(&app, "Algebra").await;
    let post = |extra: Value| {
        let app = &app;
        let mut body = json!({"class_id": id(&class), "tool_id": id(&tool), "title": "T"});
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        async move {
            app.post_json("/v1/admin/assignments", app.admin(), &body)
                .await
        }
    };
    for window in [
        json!({"available_at": CLOSES, "closes_at": OPENS}),
        json!({"available_at": OPENS, "closes_at": OPENS}),
    ] {
        let response = post(window.clone()).await;
        assert_eq!(response.assert_problem(422), "invalid_window", "{window}");
    }
    let checks = [
        (json!({"class_id": uuid::Uuid::now_v7()}), "class_not_found"),
        (json!({"tool_id": uuid::Uuid::now_v7()}), "tool_not_found"),
        (json!({"config": [1]}), "validation_failed"),
        (json!({"title": ""}), "validation_failed"),
    ];
    for (extra, code) in checks {
        assert_eq!(
            post(extra.clone()).await.assert_problem(422),
            code,
            "{extra}"
        );
    }
    let listed = fixtures::all_pages(&app, "/v1/admin/assignments", 100).await;
    assert_eq!(listed, Vec::<Value>::new(), "nothing was created");

    // Only one end set, or none, is a valid window.
    let opens_only = post(json!({"available_at": OPENS})).await;
    opens_only.assert_status(201);
    let path = format!("/v1/admin/assignments/{}", id(&opens_only.body));
    assert!(opens_only.body["closes_at"].is_null());
    assert_eq!(
        opens_only.body["config"],
        json!({}),
        "config defaults to {{}}"
    );
    post(json!({"closes_at": OPENS})).await.assert_status(201);
    post(json!({})).await.assert_status(201);

    // An update is checked against the window as it stands after it.
    let early = app
        .patch_json(&path, app.admin(), &json!({"closes_at": OPENS}))
        .await;
    assert_eq!(early.assert_problem(422), "invalid_window");
    let both = json!({"available_at": CLOSES, "closes_at": OPENS});
    let swapped = app.patch_json(&path, app.admin(), &both).await;
    assert_eq!(swapped.assert_problem(422), "invalid_window");
    let fetched = app.get(&path, app.admin()).await;
    assert!(fetched.body["closes_at"].is_null(), "unchanged: {fetched}");
    let fixed = app
        .patch_json(&path, app.admin(), &json!({"closes_at": CLOSES}))
        .await;
    fixed.assert_status(200);
    assert_eq!(instant(&fixed.body["closes_at"]), instant(&json!(CLOSES)));
    let bad_config = app
        .patch_json(&path, app.admin(), &json!({"config": "x"}))
        .await;
    assert_eq!(bad_config.assert_problem(422), "validation_failed");
});

both_backends!(assignments_by_class, |app| async move {
    let (algebra, tool) = class_with_tool(&app, "Algebra").await;
    let group_id = algebra["group_id"].as_str().unwrap_or_default().to_owned();
    let biology = fixtures::class(&app, &group_id, "Biology").await;
    let mut mine = Vec::new();
    let mut all = Vec::new();
    for n in 0..5 {
        let class = if n % 2 == 0 { &algebra } else { &biology };
        let body = json!({"class_id": id(class), "tool_id": id(&tool), "title": format!("A{n}")});
        let response = app
            .post_json("/v1/admin/assignments", app.admin(), &body)
            .await;
        response.assert_status(201);
        if n % 2 == 0 {
            mine.push(id(&response.body));
        }
        all.push(id(&response.body));
    }
    mine.reverse();
    all.reverse();

    let filtered = format!("/v1/admin/assignments?class_id={}", id(&algebra));
    let listed = fixtures::all_pages(&app, &filtered, 2).await;
    assert_eq!(fixtures::ids(&listed), mine, "newest first, one class only");
    assert!(
        listed
            .iter()
            .all(|a| a["class_id"] == id(&algebra).as_str())
    );
    let everything = fixtures::all_pages(&app, "/v1/admin/assignments", 2).await;
    assert_eq!(fixtures::ids(&everything), all);
    let nowhere = format!("/v1/admin/assignments?class_id={}", uuid::Uuid::now_v7());
    assert_eq!(
        fixtures::all_pages(&app, &nowhere, 2).await,
        Vec::<Value>::new()
    );

    // Deleting a class takes its assignments with it.
    app.delete(&format!("/v1/admin/classes/{}", id(&algebra)), app.admin())
        .await
        .assert_status(204);
    let everything = fixtures::all_pages(&app, "/v1/admin/assignments", 100).await;
    assert!(
        everything
            .iter()
            .all(|a| a["class_id"] == id(&biology).as_str()),
        "{everything:?}"
    );
    assert_eq!(everything.len(), 2);
});
