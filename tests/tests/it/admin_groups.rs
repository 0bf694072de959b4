//! `/v1/admin/groups`: the organisation tree, settings, members, deletion rules.
//!
//! Through the typed client (`parley_tests::client`); raw requests only for bodies no
//! schema of the API can express.

use parley_tests::ApiResult;
use parley_tests::both_backends;
use parley_tests::client::types::MemberRole;
use serde_json::json;
use uuid::Uuid;

use crate::fixtures::api::{self, uuid};

both_backends!(root_and_child_paths, |app| async move {
    let admin = app.admin_client();
    let created = admin
        .admin_create_group()
        .body_map(|b| b.name("School"))
        .send()
        .await
        .assert_status(201);
    let root_id = created.id;
    assert_eq!(
        created
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok()),
        Some(format!("/v1/admin/groups/{root_id}").as_str())
    );
    let root = created.into_inner();
    assert_eq!(root.path, format!("/{root_id}/"));
    assert!(root.parent_id.is_none(), "a root has no parent: {root:?}");
    assert_eq!(
        api::json_of(&root.settings),
        json!({}),
        "settings default to none"
    );

    let child = api::group(&admin, "Maths", Some(root_id), json!({"model": "m"})).await;
    assert_eq!(child.path, format!("/{root_id}/{}/", child.id));
    assert_eq!(child.parent_id, Some(root_id));
    assert_eq!(api::json_of(&child.settings), json!({"model": "m"}));
    let grandchild = api::group(&admin, "Year 9", Some(child.id), json!({})).await;
    assert_eq!(
        grandchild.path,
        format!("/{root_id}/{}/{}/", child.id, grandchild.id)
    );

    let fetched = admin
        .admin_get_group()
        .id(child.id)
        .send()
        .await
        .assert_status(200);
    assert_eq!(*fetched, child);
    let listed: Vec<Uuid> = api::groups(&admin, 2).await.iter().map(|g| g.id).collect();
    assert_eq!(
        listed,
        vec![grandchild.id, child.id, root_id],
        "newest first"
    );
});

both_backends!(invalid_groups_are_422, |app| async move {
    let admin = app.admin_client();
    // Settings that are not an object violate the schema: raw requests.
    for settings in [json!([1]), json!("x"), json!(3), json!(true)] {
        let body = json!({"name": "Bad", "settings": settings});
        let response = app.post_json("/v1/admin/groups", app.admin(), &body).await;
        assert_eq!(
            response.assert_problem(422),
            "validation_failed",
            "{settings}"
        );
    }
    let orphan = admin
        .admin_create_group()
        .body_map(|b| b.name("Orphan").parent_id(Uuid::now_v7()))
        .send()
        .await;
    assert_eq!(orphan.assert_problem(422), "parent_not_found");
    let nameless = admin
        .admin_create_group()
        .body_map(|b| b.name(""))
        .send()
        .await;
    assert_eq!(nameless.assert_problem(422), "validation_failed");
    let listed = api::groups(&admin, 100).await;
    assert_eq!(listed, Vec::new(), "nothing was created");
});

both_backends!(patch_group, |app| async move {
    let admin = app.admin_client();
    let root = api::group(&admin, "Org", None, json!({})).await;
    let group = api::group(
        &admin,
        "Team",
        Some(root.id),
        json!({"model": "a", "max_messages": 5}),
    )
    .await;
    let update = || admin.admin_update_group().id(group.id);

    let renamed = update()
        .body_map(|b| b.name("Squad".to_owned()))
        .send()
        .await
        .assert_status(200);
    assert_eq!(renamed.name, "Squad");
    assert_eq!(renamed.settings, group.settings, "absent stays");

    let replaced = update()
        .body_map(|b| b.settings(api::overrides(json!({"model": "b"}))))
        .send()
        .await
        .assert_status(200);
    assert_eq!(
        api::json_of(&replaced.settings),
        json!({"model": "b"}),
        "settings are replaced as a whole"
    );
    assert_eq!(replaced.path, group.path, "the path never changes");
    assert_eq!(replaced.parent_id, group.parent_id);

    // Settings that are not an object violate the schema: a raw request.
    let bad = app
        .patch_json(
            &format!("/v1/admin/groups/{}", group.id),
            app.admin(),
            &json!({"settings": [1, 2]}),
        )
        .await;
    assert_eq!(bad.assert_problem(422), "validation_failed");
    // An update has no `parent_id`: only a raw request can try to move a group.
    let moved = app
        .patch_json(
            &format!("/v1/admin/groups/{}", group.id),
            app.admin(),
            &json!({"parent_id": null}),
        )
        .await;
    assert_eq!(moved.assert_problem(422), "validation_failed");

    let fetched = admin
        .admin_get_group()
        .id(group.id)
        .send()
        .await
        .assert_status(200);
    assert_eq!(fetched.name, "Squad");
    assert_eq!(api::json_of(&fetched.settings), json!({"model": "b"}));
});

both_backends!(group_members, |app| async move {
    let admin = app.admin_client();
    let group = api::group(&admin, "Club", None, json!({})).await;
    let (ann, _) = app.create_user("ann@example.com", "student").await;
    let (ben, _) = app.create_user("ben@example.com", "teacher").await;
    let (ann, ben) = (uuid(&ann), uuid(&ben));
    let put = |user_id: Uuid, role: MemberRole| {
        admin
            .admin_put_group_member()
            .id(group.id)
            .user_id(user_id)
            .body_map(|b| b.role(role))
            .send()
    };
    let list = || admin.admin_list_group_members().id(group.id).send();
    let remove = || {
        admin
            .admin_remove_group_member()
            .id(group.id)
            .user_id(ann)
            .send()
    };

    let first = put(ann, MemberRole::Member).await.assert_status(200);
    assert_eq!(first.group_id, group.id);
    assert_eq!(first.user_id, ann);
    assert_eq!(first.role, MemberRole::Member);
    let same = put(ann, MemberRole::Member).await.assert_status(200);
    assert_eq!(*same, *first, "putting again changes nothing");
    let promoted = put(ann, MemberRole::Manager).await.assert_status(200);
    assert_eq!(promoted.role, MemberRole::Manager);
    assert_eq!(promoted.created_at, first.created_at);

    api::add_member(&admin, group.id, ben).await;
    let members = list().await.assert_status(200).into_inner().items;
    let users: Vec<Uuid> = members.iter().map(|m| m.user_id).collect();
    assert_eq!(users, vec![ben, ann], "newest users first");
    assert_eq!(members[1].role, MemberRole::Manager);
    let paged = api::members(&admin, group.id, 1).await;
    assert_eq!(paged, members, "pages of one give the same list");

    remove().await.assert_status(204);
    remove().await.assert_problem(404);
    let listed = list().await.assert_status(200).into_inner();
    assert_eq!(listed.items.len(), 1, "{listed:?}");
    assert_eq!(listed.items[0].user_id, ben);

    put(Uuid::now_v7(), MemberRole::Member)
        .await
        .assert_problem(404);
    let elsewhere = Uuid::now_v7();
    admin
        .admin_list_group_members()
        .id(elsewhere)
        .send()
        .await
        .assert_problem(404);
    admin
        .admin_put_group_member()
        .id(elsewhere)
        .user_id(ben)
        .body_map(|b| b.role(MemberRole::Member))
        .send()
        .await
        .assert_problem(404);
    // `owner` is no `MemberRole`: only a raw request can send it.
    let bad_role = app
        .put_json(
            &format!("/v1/admin/groups/{}/members/{ben}", group.id),
            app.admin(),
            &json!({"role": "owner"}),
        )
        .await;
    assert_eq!(bad_role.assert_problem(422), "validation_failed");
});

both_backends!(delete_groups, |app| async move {
    let admin = app.admin_client();
    let root = api::group(&admin, "Org", None, json!({})).await;
    let child = api::group(&admin, "Team", Some(root.id), json!({})).await;
    let (user_id, _) = app.create_user("member@example.com", "student").await;
    let user_id = uuid(&user_id);
    api::add_member(&admin, child.id, user_id).await;
    let delete = |id: Uuid| admin.admin_delete_group().id(id).send();
    let get = |id: Uuid| admin.admin_get_group().id(id).send();

    assert_eq!(delete(root.id).await.assert_problem(409), "group_not_empty");
    get(root.id).await.assert_status(200);

    // A group holding a tool or a class is not empty either.
    let tool = api::tool(&admin, child.id, "T", "x").await;
    assert_eq!(
        delete(child.id).await.assert_problem(409),
        "group_not_empty"
    );
    admin
        .admin_delete_tool()
        .id(tool.id)
        .send()
        .await
        .assert_status(204);
    let class = api::class(&admin, child.id, "C").await;
    assert_eq!(
        delete(child.id).await.assert_problem(409),
        "group_not_empty"
    );
    admin
        .admin_delete_class()
        .id(class.id)
        .send()
        .await
        .assert_status(204);

    // Members do not hold a group: they go with it.
    delete(child.id).await.assert_status(204);
    get(child.id).await.assert_problem(404);
    admin
        .admin_get_user()
        .id(user_id)
        .send()
        .await
        .assert_status(200);
    delete(root.id).await.assert_status(204);
    delete(root.id).await.assert_problem(404);
    assert_eq!(api::groups(&admin, 100).await, Vec::new());
});

both_backends!(
    groups_and_members_answer_names_beside_ids,
    |app| async move {
        let admin = app.admin_client();
        let root = api::group(&admin, "School", None, json!({})).await;
        assert_eq!(root.parent_name, None, "a root has no parent: {root:?}");
        let child = api::group(&admin, "Maths", Some(root.id), json!({})).await;
        assert_eq!(child.parent_name.as_deref(), Some("School"), "{child:?}");

        admin
            .admin_update_group()
            .id(root.id)
            .body_map(|b| b.name("Academy".to_owned()))
            .send()
            .await
            .assert_status(200);
        let fetched = admin
            .admin_get_group()
            .id(child.id)
            .send()
            .await
            .assert_status(200);
        assert_eq!(
            fetched.parent_name.as_deref(),
            Some("Academy"),
            "the new name"
        );
        let listed = api::groups(&admin, 1).await;
        let named: Vec<(&str, Option<&str>)> = listed
            .iter()
            .map(|g| (g.name.as_str(), g.parent_name.as_deref()))
            .collect();
        assert_eq!(named, vec![("Maths", Some("Academy")), ("Academy", None)]);

        let (ann, _) = app.create_user("ann@example.com", "student").await;
        let (ben, _) = app.create_user("ben@example.com", "teacher").await;
        let (ann, ben) = (uuid(&ann), uuid(&ben));
        let put = api::add_member(&admin, child.id, ann).await;
        assert_eq!(put.user_name.as_deref(), Some("ann"), "{put:?}");
        assert_eq!(put.user_email.as_deref(), Some("ann@example.com"));
        api::add_member(&admin, child.id, ben).await;
        admin
            .admin_update_user()
            .id(ann)
            .body_map(|b| b.name("Ann Smith".to_owned()))
            .send()
            .await
            .assert_status(200);
        for limit in [1, 100] {
            let members = api::members(&admin, child.id, limit).await;
            let named: Vec<(Uuid, Option<&str>, Option<&str>)> = members
                .iter()
                .map(|m| (m.user_id, m.user_name.as_deref(), m.user_email.as_deref()))
                .collect();
            assert_eq!(
                named,
                vec![
                    (ben, Some("ben"), Some("ben@example.com")),
                    (ann, Some("Ann Smith"), Some("ann@example.com")),
                ],
                "pages of {limit}: names as they are now"
            );
        }
    }
);
