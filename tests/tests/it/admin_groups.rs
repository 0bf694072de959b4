//! `/v1/admin/groups`: the organisation tree, settings, members, deletion rules.

use parley_tests::both_backends;
use serde_json::{Value, json};

use crate::fixtures::{self, id, items};

both_backends!(root_and_child_paths, |app| async move {
    let created = app
        .post_json("/v1/admin/groups", app.admin(), &json!({"name": "School"}))
        .await;
    created.assert_status(201);
    let root = created.body.clone();
    let root_id = id(&root);
    assert_eq!(
        created.header("location"),
        Some(format!("/v1/admin/groups/{root_id}").as_str())
    );
    assert_eq!(root["path"], format!("/{root_id}/"));
    assert!(root["parent_id"].is_null(), "a root has no parent: {root}");
    assert_eq!(root["settings"], json!({}), "settings default to {{}}");

    let child = fixtures::group(&app, "Maths", Some(&root_id), json!({"model": "m"})).await;
    let child_id = id(&child);
    assert_eq!(child["path"], format!("/{root_id}/{child_id}/"));
    assert_eq!(child["parent_id"], root_id.as_str());
    assert_eq!(child["settings"], json!({"model": "m"}));
    let grandchild = fixtures::group(&app, "Year 9", Some(&child_id), json!({})).await;
    assert_eq!(
        grandchild["path"],
        format!("/{root_id}/{child_id}/{}/", id(&grandchild))
    );

    let fetched = app
        .get(&format!("/v1/admin/groups/{child_id}"), app.admin())
        .await;
    fetched.assert_status(200);
    assert_eq!(fetched.body, child);
    let listed = fixtures::ids(&fixtures::all_pages(&app, "/v1/admin/groups", 2).await);
    assert_eq!(
        listed,
        vec![id(&grandchild), child_id, root_id],
        "newest first"
    );
});

both_backends!(invalid_groups_are_422, |app| async move {
    for settings in [json!([1]), json!("x"), json!(3), json!(true)] {
        let body = json!({"name": "Bad", "settings": settings});
        let response = app.post_json("/v1/admin/groups", app.admin(), &body).await;
        assert_eq!(
            response.assert_problem(422),
            "invalid_settings",
            "{settings}"
        );
    }
    let orphan = json!({"name": "Orphan", "parent_id": uuid::Uuid::now_v7()});
    let response = app
        .post_json("/v1/admin/groups", app.admin(), &orphan)
        .await;
    assert_eq!(response.assert_problem(422), "parent_not_found");
    let nameless = app
        .post_json("/v1/admin/groups", app.admin(), &json!({"name": ""}))
        .await;
    assert_eq!(nameless.assert_problem(422), "validation_failed");
    let listed = fixtures::all_pages(&app, "/v1/admin/groups", 100).await;
    assert_eq!(listed, Vec::<Value>::new(), "nothing was created");
});

both_backends!(patch_group, |app| async move {
    let root = fixtures::group(&app, "Org", None, json!({})).await;
    let group = fixtures::group(
        &app,
        "Team",
        Some(&id(&root)),
        json!({"model": "a", "max_messages": 5}),
    )
    .await;
    let path = format!("/v1/admin/groups/{}", id(&group));

    let renamed = app
        .patch_json(&path, app.admin(), &json!({"name": "Squad"}))
        .await;
    renamed.assert_status(200);
    assert_eq!(renamed.body["name"], "Squad");
    assert_eq!(renamed.body["settings"], group["settings"], "absent stays");

    let replaced = app
        .patch_json(&path, app.admin(), &json!({"settings": {"model": "b"}}))
        .await;
    replaced.assert_status(200);
    assert_eq!(
        replaced.body["settings"],
        json!({"model": "b"}),
        "settings are replaced as a whole"
    );
    assert_eq!(
        replaced.body["path"], group["path"],
        "the path never changes"
    );
    assert_eq!(replaced.body["parent_id"], group["parent_id"]);

    let bad = app
        .patch_json(&path, app.admin(), &json!({"settings": [1, 2]}))
        .await;
    assert_eq!(bad.assert_problem(422), "invalid_settings");
    let moved = app
        .patch_json(&path, app.admin(), &json!({"parent_id": null}))
        .await;
    assert_eq!(moved.assert_problem(422), "validation_failed");

    let fetched = app.get(&path, app.admin()).await;
    assert_eq!(fetched.body["name"], "Squad");
    assert_eq!(fetched.body["settings"], json!({"model": "b"}));
});

both_backends!(group_members, |app| async move {
    let group = fixtures::group(&app, "Club", None, json!({})).await;
    let group_id = id(&group);
    let (ann, _) = app.create_user("ann@example.com", "student").await;
    let (ben, _) = app.create_user("ben@example.com", "teacher").await;
    let member_path = |user_id: &str| format!("/v1/admin/groups/{group_id}/members/{user_id}");
    let members_path = format!("/v1/admin/groups/{group_id}/members");

    let first = app
        .put_json(&member_path(&ann), app.admin(), &json!({"role": "member"}))
        .await;
    first.assert_status(200);
    assert_eq!(first.body["group_id"], group_id.as_str());
    assert_eq!(first.body["user_id"], ann.as_str());
    assert_eq!(first.body["role"], "member");
    let same = app
        .put_json(&member_path(&ann), app.admin(), &json!({"role": "member"}))
        .await;
    same.assert_status(200);
    assert_eq!(same.body, first.body, "putting again changes nothing");
    let promoted = app
        .put_json(&member_path(&ann), app.admin(), &json!({"role": "manager"}))
        .await;
    promoted.assert_status(200);
    assert_eq!(promoted.body["role"], "manager");
    assert_eq!(promoted.body["created_at"], first.body["created_at"]);

    fixtures::add_member(&app, &group_id, &ben).await;
    let listed = app.get(&members_path, app.admin()).await;
    listed.assert_status(200);
    let members = items(&listed);
    let users: Vec<&str> = members
        .iter()
        .map(|m| m["user_id"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        users,
        vec![ben.as_str(), ann.as_str()],
        "newest users first"
    );
    assert_eq!(members[1]["role"], "manager");
    let paged = fixtures::all_pages(&app, &members_path, 1).await;
    assert_eq!(paged, members, "pages of one give the same list");

    app.delete(&member_path(&ann), app.admin())
        .await
        .assert_status(204);
    app.delete(&member_path(&ann), app.admin())
        .await
        .assert_problem(404);
    let listed = app.get(&members_path, app.admin()).await;
    assert_eq!(items(&listed).len(), 1, "{listed}");
    assert_eq!(items(&listed)[0]["user_id"], ben.as_str());

    let nobody = uuid::Uuid::now_v7().to_string();
    let missing_user = app
        .put_json(
            &member_path(&nobody),
            app.admin(),
            &json!({"role": "member"}),
        )
        .await;
    missing_user.assert_problem(404);
    let elsewhere = format!("/v1/admin/groups/{}/members", uuid::Uuid::now_v7());
    app.get(&elsewhere, app.admin()).await.assert_problem(404);
    let missing_group = app
        .put_json(
            &format!("{elsewhere}/{ben}"),
            app.admin(),
            &json!({"role": "member"}),
        )
        .await;
    missing_group.assert_problem(404);
    let bad_role = app
        .put_json(&member_path(&ben), app.admin(), &json!({"role": "owner"}))
        .await;
    assert_eq!(bad_role.assert_problem(422), "validation_failed");
});

both_backends!(delete_groups, |app| async move {
    let root = fixtures::group(&app, "Org", None, json!({})).await;
    let child = fixtures::group(&app, "Team", Some(&id(&root)), json!({})).await;
    let (user_id, _) = app.create_user("member@example.com", "student").await;
    fixtures::add_member(&app, &id(&child), &user_id).await;
    let root_path = format!("/v1/admin/groups/{}", id(&root));
    let child_path = format!("/v1/admin/groups/{}", id(&child));

    let blocked = app.delete(&root_path, app.admin()).await;
    assert_eq!(blocked.assert_problem(409), "group_not_empty");
    app.get(&root_path, app.admin()).await.assert_status(200);

    // A group holding a tool or a class is not empty either.
    let tool = fixtures::tool(&app, &id(&child), "T", json!({"behavior": "x"})).await;
    let blocked = app.delete(&child_path, app.admin()).await;
    assert_eq!(blocked.assert_problem(409), "group_not_empty");
    app.delete(&format!("/v1/admin/tools/{}", id(&tool)), app.admin())
        .await
        .assert_status(204);
    let class = fixtures::class(&app, &id(&child), "C").await;
    let blocked = app.delete(&child_path, app.admin()).await;
    assert_eq!(blocked.assert_problem(409), "group_not_empty");
    app.delete(&format!("/v1/admin/classes/{}", id(&class)), app.admin())
        .await
        .assert_status(204);

    // Members do not hold a group: they go with it.
    app.delete(&child_path, app.admin())
        .await
        .assert_status(204);
    app.get(&child_path, app.admin()).await.assert_problem(404);
    app.get(&format!("/v1/admin/users/{user_id}"), app.admin())
        .await
        .assert_status(200);
    app.delete(&root_path, app.admin()).await.assert_status(204);
    app.delete(&root_path, app.admin())
        .await
        .assert_problem(404);
    let listed = fixtures::all_pages(&app, "/v1/admin/groups", 100).await;
    assert_eq!(listed, Vec::<Value>::new());
});
