//! `/v1/admin/classes` with their enrolments, and `/v1/admin/assignments`.
//!
//! Through the typed client (`parley_tests::client`); raw requests only for bodies the
//! client cannot send (unknown or mistyped fields, an explicit `null`).

use chrono::{DateTime, Utc};
use parley_tests::client::types::{Assignment, Class, CreateAssignment, EnrollmentRole, Tool};
use parley_tests::{ApiResult, TestApp, TestResponse, both_backends};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::fixtures::api::{self, location, uuid};

const OPENS: &str = "2030-01-01T09:00:00Z";
const CLOSES: &str = "2030-01-08T09:00:00Z";

/// An RFC 3339 time as an instant.
fn at(time: &str) -> DateTime<Utc> {
    time.parse()
        .unwrap_or_else(|err| panic!("{time:?} is no RFC 3339 time: {err}"))
}

/// A class in a fresh group, with a tool of that group.
async fn class_with_tool(app: &TestApp, name: &str) -> (Class, Tool) {
    let admin = app.admin_client();
    let group = api::group(&admin, &format!("Group of {name}"), None, json!({})).await;
    let class = api::class(&admin, group.id, name).await;
    let tool = api::tool(&admin, group.id, "Tutor", "x").await;
    (class, tool)
}

/// A raw PATCH of an assignment: for bodies the typed client cannot send.
async fn patch_raw(app: &TestApp, id: Uuid, body: Value) -> TestResponse {
    let path = format!("/v1/admin/assignments/{id}");
    app.patch_json(&path, app.admin(), &body).await
}

/// The assignment a raw response holds.
fn assignment_of(response: &TestResponse) -> Assignment {
    response.assert_status(200);
    serde_json::from_value(response.body.clone())
        .unwrap_or_else(|err| panic!("not an Assignment ({err}): {response}"))
}

both_backends!(class_lifecycle, |app| async move {
    let admin = app.admin_client();
    let group = api::group(&admin, "School", None, json!({})).await;
    let create = |group_id: Uuid, name: &'static str| {
        admin
            .admin_create_class()
            .body_map(move |b| b.group_id(group_id).name(name))
            .send()
    };
    let created = create(group.id, "Algebra").await.assert_status(201);
    let path = format!("/v1/admin/classes/{}", created.id);
    assert_eq!(location(&created), Some(path.as_str()));
    let class = created.into_inner();
    assert_eq!(class.group_id, group.id);
    assert_eq!(class.name, "Algebra");
    let other = api::class(&admin, group.id, "Biology").await;
    let get = || admin.admin_get_class().id(class.id).send();
    let delete = || admin.admin_delete_class().id(class.id).send();

    assert_eq!(*get().await.assert_status(200), class);
    let listed: Vec<Uuid> = api::classes(&admin, 1).await.iter().map(|c| c.id).collect();
    assert_eq!(listed, vec![other.id, class.id]);

    let renamed = admin
        .admin_update_class()
        .id(class.id)
        .body_map(|b| b.name("Algebra II".to_owned()))
        .send()
        .await
        .assert_status(200);
    assert_eq!(renamed.name, "Algebra II");
    assert_eq!(renamed.group_id, group.id);
    assert_eq!(get().await.assert_status(200).name, "Algebra II");
    // An update has no `group_id`: only a raw request can try to move a class.
    let moved = app
        .patch_json(&path, app.admin(), &json!({"group_id": group.id}))
        .await;
    assert_eq!(moved.assert_problem(422), "validation_failed");

    let orphan = create(Uuid::now_v7(), "Nowhere").await;
    assert_eq!(orphan.assert_problem(422), "group_not_found");
    let nameless = create(group.id, "").await;
    assert_eq!(nameless.assert_problem(422), "validation_failed");

    delete().await.assert_status(204);
    get().await.assert_problem(404);
    delete().await.assert_problem(404);
    let listed = api::classes(&admin, 100).await;
    assert_eq!(listed, vec![other]);
});

both_backends!(enrolments, |app| async move {
    let admin = app.admin_client();
    let group = api::group(&admin, "School", None, json!({})).await;
    let class = api::class(&admin, group.id, "Algebra").await;
    let (sam, _) = app.create_user("sam@example.com", "student").await;
    let (tess, _) = app.create_user("tess@example.com", "teacher").await;
    let (sam, tess) = (uuid(&sam), uuid(&tess));
    let enrol = |class_id: Uuid, user_id: Uuid, role: EnrollmentRole| {
        admin
            .admin_put_enrollment()
            .id(class_id)
            .user_id(user_id)
            .body_map(move |b| b.role(role))
            .send()
    };
    let remove = |class_id: Uuid, user_id: Uuid| {
        admin
            .admin_remove_enrollment()
            .id(class_id)
            .user_id(user_id)
            .send()
    };
    let list = |class_id: Uuid| admin.admin_list_enrollments().id(class_id).send();

    let first = enrol(class.id, sam, EnrollmentRole::Student)
        .await
        .assert_status(200);
    assert_eq!(first.class_id, class.id);
    assert_eq!(first.user_id, sam);
    assert_eq!(first.role, EnrollmentRole::Student);
    let again = enrol(class.id, sam, EnrollmentRole::Student)
        .await
        .assert_status(200);
    assert_eq!(*again, *first, "enrolling again changes nothing");
    let changed = enrol(class.id, sam, EnrollmentRole::Teacher)
        .await
        .assert_status(200)
        .into_inner();
    assert_eq!(changed.role, EnrollmentRole::Teacher);
    assert_eq!(changed.id, first.id, "the enrolment is kept");
    assert_eq!(changed.created_at, first.created_at);

    let teacher = enrol(class.id, tess, EnrollmentRole::Teacher)
        .await
        .assert_status(200);
    let enrolled = list(class.id).await.assert_status(200).into_inner().items;
    assert_eq!(enrolled.len(), 2, "{enrolled:?}");
    assert_eq!(enrolled[0].user_id, tess, "newest users first");
    assert_eq!(enrolled[1], changed);
    assert_eq!(api::enrollments(&admin, class.id, 1).await, enrolled);

    remove(class.id, sam).await.assert_status(204);
    remove(class.id, sam).await.assert_problem(404);
    let listed = list(class.id).await.assert_status(200).into_inner().items;
    let ids: Vec<Uuid> = listed.iter().map(|e| e.id).collect();
    assert_eq!(ids, vec![teacher.id]);

    let missing_user = enrol(class.id, Uuid::now_v7(), EnrollmentRole::Student).await;
    missing_user.assert_problem(404);
    let no_class = Uuid::now_v7();
    list(no_class).await.assert_problem(404);
    enrol(no_class, sam, EnrollmentRole::Student)
        .await
        .assert_problem(404);
    remove(no_class, sam).await.assert_problem(404);
});

both_backends!(assignment_lifecycle, |app| async move {
    let admin = app.admin_client();
    let (class, tool) = class_with_tool(&app, "Algebra").await;
    let created = admin
        .admin_create_assignment()
        .body_map(|b| {
            b.class_id(class.id)
                .tool_id(tool.id)
                .title("Quadratics")
                .instructions(Some("Factor them.".to_owned()))
                .config(api::overrides(json!({"max_messages": 10})))
                .available_at(at(OPENS))
                .closes_at(at(CLOSES))
        })
        .send()
        .await
        .assert_status(201);
    let id = created.id;
    assert_eq!(
        location(&created),
        Some(format!("/v1/admin/assignments/{id}").as_str())
    );
    let assignment = created.into_inner();
    assert_eq!(assignment.class_id, class.id);
    assert_eq!(assignment.tool_id, tool.id);
    assert_eq!(assignment.title, "Quadratics");
    assert_eq!(assignment.instructions, "Factor them.");
    assert_eq!(
        api::json_of(&assignment.config),
        json!({"max_messages": 10})
    );
    assert_eq!(assignment.available_at, Some(at(OPENS)));
    assert_eq!(assignment.closes_at, Some(at(CLOSES)));
    let get = || admin.admin_get_assignment().id(id).send();
    let delete = || admin.admin_delete_assignment().id(id).send();
    assert_eq!(*get().await.assert_status(200), assignment);

    let retitled = admin
        .admin_update_assignment()
        .id(id)
        .body_map(|b| b.title("Quadratics II".to_owned()))
        .send()
        .await
        .assert_status(200);
    assert_eq!(retitled.title, "Quadratics II");
    assert_eq!(retitled.closes_at, assignment.closes_at, "absent stays");

    // `null` clears a time, and the client omits a `None`: raw requests send it.
    let open_ended = patch_raw(&app, id, json!({"closes_at": null})).await;
    let open_ended = assignment_of(&open_ended);
    assert!(open_ended.closes_at.is_none(), "{open_ended:?}");
    assert_eq!(open_ended.available_at, assignment.available_at);
    let fetched = get().await.assert_status(200);
    assert!(fetched.closes_at.is_none(), "{fetched:?}");
    let immediate = patch_raw(&app, id, json!({"available_at": null})).await;
    let immediate = assignment_of(&immediate);
    assert!(immediate.available_at.is_none(), "{immediate:?}");

    delete().await.assert_status(204);
    get().await.assert_problem(404);
    delete().await.assert_problem(404);
});

both_backends!(assignment_windows_and_references, |app| async move {
    let admin = app.admin_client();
    let (class, tool) = class_with_tool(&app, "Algebra").await;
    let base = CreateAssignment {
        class_id: class.id,
        tool_id: tool.id,
        title: "T".to_owned(),
        instructions: Some(String::new()),
        available_at: None,
        closes_at: None,
        config: None,
    };
    let post = |body: CreateAssignment| admin.admin_create_assignment().body(body).send();
    let (opens, closes) = (Some(at(OPENS)), Some(at(CLOSES)));
    for (available_at, closes_at) in [(closes, opens), (opens, opens)] {
        let window = CreateAssignment {
            available_at,
            closes_at,
            ..base.clone()
        };
        let response = post(window).await;
        assert_eq!(
            response.assert_problem(422),
            "invalid_window",
            "{available_at:?}..{closes_at:?}"
        );
    }
    let checks = [
        (
            CreateAssignment {
                class_id: Uuid::now_v7(),
                ..base.clone()
            },
            "class_not_found",
        ),
        (
            CreateAssignment {
                tool_id: Uuid::now_v7(),
                ..base.clone()
            },
            "tool_not_found",
        ),
        (
            CreateAssignment {
                title: String::new(),
                ..base.clone()
            },
            "validation_failed",
        ),
    ];
    for (body, code) in checks {
        let response = post(body.clone()).await;
        assert_eq!(response.assert_problem(422), code, "{body:?}");
    }
    // A config that is not an object violates the schema: a raw request.
    let mut bad_config = serde_json::to_value(&base).expect("serializable");
    bad_config["config"] = json!([1]);
    let response = app
        .post_json("/v1/admin/assignments", app.admin(), &bad_config)
        .await;
    assert_eq!(response.assert_problem(422), "validation_failed");
    let listed = api::assignments(&admin, None, 100).await;
    assert_eq!(listed, Vec::new(), "nothing was created");

    // Only one end set, or none, is a valid window.
    let opens_only = CreateAssignment {
        available_at: opens,
        ..base.clone()
    };
    let opens_only = post(opens_only).await.assert_status(201).into_inner();
    assert!(opens_only.closes_at.is_none(), "{opens_only:?}");
    assert_eq!(
        api::json_of(&opens_only.config),
        json!({}),
        "config defaults to none"
    );
    let closes_only = CreateAssignment {
        closes_at: opens,
        ..base.clone()
    };
    post(closes_only).await.assert_status(201);
    post(base.clone()).await.assert_status(201);

    // An update is checked against the window as it stands after it.
    let update = || admin.admin_update_assignment().id(opens_only.id);
    let early = update().body_map(|b| b.closes_at(opens)).send().await;
    assert_eq!(early.assert_problem(422), "invalid_window");
    let swapped = update()
        .body_map(|b| b.available_at(closes).closes_at(opens))
        .send()
        .await;
    assert_eq!(swapped.assert_problem(422), "invalid_window");
    let fetched = admin.admin_get_assignment().id(opens_only.id).send().await;
    let fetched = fetched.assert_status(200);
    assert!(fetched.closes_at.is_none(), "unchanged: {fetched:?}");
    let fixed = update()
        .body_map(|b| b.closes_at(closes))
        .send()
        .await
        .assert_status(200);
    assert_eq!(fixed.closes_at, closes);
    // A config that is not an object violates the schema: a raw request.
    let bad_config = patch_raw(&app, opens_only.id, json!({"config": "x"})).await;
    assert_eq!(bad_config.assert_problem(422), "validation_failed");
});

both_backends!(assignments_by_class, |app| async move {
    let admin = app.admin_client();
    let (algebra, tool) = class_with_tool(&app, "Algebra").await;
    let biology = api::class(&admin, algebra.group_id, "Biology").await;
    let mut mine = Vec::new();
    let mut all = Vec::new();
    for n in 0..5 {
        let class = if n % 2 == 0 { &algebra } else { &biology };
        let created = api::assignment(&admin, class.id, tool.id, &format!("A{n}")).await;
        if n % 2 == 0 {
            mine.push(created.id);
        }
        all.push(created.id);
    }
    mine.reverse();
    all.reverse();
    let ids =
        |assignments: &[Assignment]| -> Vec<Uuid> { assignments.iter().map(|a| a.id).collect() };

    let listed = api::assignments(&admin, Some(algebra.id), 2).await;
    assert_eq!(ids(&listed), mine, "newest first, one class only");
    assert!(listed.iter().all(|a| a.class_id == algebra.id));
    let everything = api::assignments(&admin, None, 2).await;
    assert_eq!(ids(&everything), all);
    let nowhere = api::assignments(&admin, Some(Uuid::now_v7()), 2).await;
    assert_eq!(nowhere, Vec::new());

    // Deleting a class takes its assignments with it.
    admin
        .admin_delete_class()
        .id(algebra.id)
        .send()
        .await
        .assert_status(204);
    let everything = api::assignments(&admin, None, 100).await;
    assert!(
        everything.iter().all(|a| a.class_id == biology.id),
        "{everything:?}"
    );
    assert_eq!(everything.len(), 2);
});

both_backends!(
    classes_enrolments_and_assignments_answer_names,
    |app| async move {
        let admin = app.admin_client();
        let (class, tool) = class_with_tool(&app, "Algebra").await;
        assert_eq!(class.group_name.as_deref(), Some("Group of Algebra"));
        let (ann, _) = app.create_user("ann@example.com", "student").await;
        let ann = uuid(&ann);
        let enrolled = api::enroll(&admin, class.id, ann, EnrollmentRole::Student).await;
        assert_eq!(enrolled.user_name.as_deref(), Some("ann"), "{enrolled:?}");
        assert_eq!(enrolled.user_email.as_deref(), Some("ann@example.com"));
        let first = api::assignment(&admin, class.id, tool.id, "Week 1").await;
        assert_eq!(first.class_name.as_deref(), Some("Algebra"), "{first:?}");
        assert_eq!(first.tool_name.as_deref(), Some("Tutor"));
        let (other_class, other_tool) = class_with_tool(&app, "Geometry").await;
        api::assignment(&admin, other_class.id, other_tool.id, "Angles").await;

        // Renamed rows show their new names everywhere they are named.
        admin
            .admin_update_tool()
            .id(tool.id)
            .body_map(|b| b.name("Algebra coach".to_owned()))
            .send()
            .await
            .assert_status(200);
        admin
            .admin_update_class()
            .id(class.id)
            .body_map(|b| b.name("Algebra I".to_owned()))
            .send()
            .await
            .assert_status(200);
        admin
            .admin_update_user()
            .id(ann)
            .body_map(|b| b.name("Ann Smith".to_owned()))
            .send()
            .await
            .assert_status(200);
        let fetched = admin
            .admin_get_assignment()
            .id(first.id)
            .send()
            .await
            .assert_status(200);
        assert_eq!(fetched.class_name.as_deref(), Some("Algebra I"));
        assert_eq!(fetched.tool_name.as_deref(), Some("Algebra coach"));
        let listed = api::assignments(&admin, None, 1).await;
        let named: Vec<(&str, Option<&str>, Option<&str>)> = listed
            .iter()
            .map(|a| {
                (
                    a.title.as_str(),
                    a.class_name.as_deref(),
                    a.tool_name.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            named,
            vec![
                ("Angles", Some("Geometry"), Some("Tutor")),
                ("Week 1", Some("Algebra I"), Some("Algebra coach")),
            ]
        );
        let of_class = api::assignments(&admin, Some(class.id), 100).await;
        assert_eq!(of_class.len(), 1);
        assert_eq!(of_class[0].tool_name.as_deref(), Some("Algebra coach"));
        let enrolments = api::enrollments(&admin, class.id, 100).await;
        assert_eq!(enrolments.len(), 1);
        assert_eq!(enrolments[0].user_name.as_deref(), Some("Ann Smith"));
        assert_eq!(enrolments[0].user_email.as_deref(), Some("ann@example.com"));
        let classes = api::classes(&admin, 100).await;
        let named: Vec<(&str, Option<&str>)> = classes
            .iter()
            .map(|c| (c.name.as_str(), c.group_name.as_deref()))
            .collect();
        assert_eq!(
            named,
            vec![
                ("Geometry", Some("Group of Geometry")),
                ("Algebra I", Some("Group of Algebra")),
            ]
        );
    }
);
