//! The generic admin queries on real databases: paging and filters, the order of an
//! update's checks, what holds a row against deletion, and memberships.

use chrono::{Duration, Utc};
use uuid::Uuid;

use super::*;
use crate::{
    assignments, classes,
    enums::{MemberRole, UserRole},
    group_members, groups,
    query::{
        assignments::{AssignmentChanges, NewAssignment},
        classes::NewClass,
        groups::{GroupChanges, NewGroup},
        testing::{self, on_both_backends},
        tools::NewTool,
    },
    tools, users,
};

fn first(limit: u64) -> PageRequest<Uuid> {
    PageRequest { limit, after: None }
}

async fn group<C: ConnectionTrait>(db: &C, parent_id: Option<Uuid>) -> groups::Model {
    let new = NewGroup {
        name: "G".into(),
        parent_id,
        settings: None,
    };
    groups::Entity::create(db, new)
        .await
        .expect("creating a group")
}

async fn tool<C: ConnectionTrait>(db: &C, group_id: Uuid) -> tools::Model {
    let new = NewTool {
        group_id,
        name: "T".into(),
        kind: "chat".into(),
        definition: parley_protocol::config::ToolDefinition::new("Help."),
    };
    tools::Entity::create(db, new)
        .await
        .expect("creating a tool")
}

async fn assignment<C: ConnectionTrait>(
    db: &C,
    class_id: Uuid,
    tool_id: Uuid,
) -> assignments::Model {
    let new = NewAssignment {
        class_id,
        tool_id,
        title: "A".into(),
        instructions: String::new(),
        config: None,
        available_at: Some(Utc::now()),
        closes_at: None,
    };
    assignments::Entity::create(db, new)
        .await
        .expect("creating an assignment")
}

fn is_not_found(result: Result<impl std::fmt::Debug>, noun: &str) -> bool {
    matches!(result, Err(Error::NotFound { what }) if what == noun)
}

fn code_of<T>(result: Result<T>) -> &'static str {
    match result {
        Err(Error::Invalid { code, .. } | Error::Conflict { code, .. }) => code.as_str(),
        Err(other) => panic!("not a coded error: {other:?}"),
        Ok(_) => panic!("no error"),
    }
}

on_both_backends!(lists_page_newest_first_within_their_filter, |db| {
    let school = group(&db, None).await;
    let tutor = tool(&db, school.id).await;
    let class = |name: &str| NewClass {
        group_id: school.id,
        name: name.into(),
    };
    let (a, b) = (
        classes::Entity::create(&db, class("A")).await.unwrap(),
        classes::Entity::create(&db, class("B")).await.unwrap(),
    );
    let mut in_a = Vec::new();
    for _ in 0..3 {
        in_a.push(assignment(&db, a.id, tutor.id).await.id);
    }
    let in_b = assignment(&db, b.id, tutor.id).await.id;

    let page = list::<assignments::Entity, _>(&db, Some(a.id), first(2))
        .await
        .unwrap();
    let ids: Vec<Uuid> = page.items.iter().map(|x| x.id).collect();
    assert_eq!(ids, [in_a[2], in_a[1]], "newest first, only class A");
    assert_eq!(page.next, Some(in_a[1]));
    let rest = PageRequest {
        limit: 2,
        after: page.next,
    };
    let page = list::<assignments::Entity, _>(&db, Some(a.id), rest)
        .await
        .unwrap();
    assert_eq!(
        page.items.iter().map(|x| x.id).collect::<Vec<_>>(),
        [in_a[0]]
    );
    assert_eq!(page.next, None);
    let all = list::<assignments::Entity, _>(&db, None, first(10))
        .await
        .unwrap();
    assert_eq!(all.items.len(), 4);
    assert_eq!(all.items[0].id, in_b);
});

on_both_backends!(updates_check_changes_against_the_row, |db| {
    let missing = Uuid::now_v7();
    let rename = GroupChanges {
        name: Some("New".into()),
        ..GroupChanges::default()
    };
    assert!(is_not_found(
        update::<groups::Entity, _>(&db, missing, rename).await,
        "group"
    ));

    let school = group(&db, None).await;
    let rename = GroupChanges {
        name: Some("New".into()),
        ..GroupChanges::default()
    };
    let renamed = update::<groups::Entity, _>(&db, school.id, rename)
        .await
        .unwrap();
    assert_eq!(renamed.name, "New");
    assert_eq!(renamed.settings, school.settings, "absent fields stay");
    assert!(renamed.updated_at >= school.updated_at);

    // An assignment's window is checked as it stands after the changes.
    let class = classes::Entity::create(
        &db,
        NewClass {
            group_id: school.id,
            name: "C".into(),
        },
    )
    .await
    .unwrap();
    let quiz = assignment(&db, class.id, tool(&db, school.id).await.id).await;
    let opens = quiz.available_at.unwrap();
    let early = AssignmentChanges {
        closes_at: Some(Some(opens - Duration::hours(1))),
        ..AssignmentChanges::default()
    };
    assert_eq!(
        code_of(update::<assignments::Entity, _>(&db, quiz.id, early).await),
        "invalid_window"
    );
    let reopen = AssignmentChanges {
        available_at: Some(None),
        closes_at: Some(Some(opens - Duration::hours(1))),
        ..AssignmentChanges::default()
    };
    let open = update::<assignments::Entity, _>(&db, quiz.id, reopen)
        .await
        .unwrap();
    assert_eq!(open.available_at, None);
});

on_both_backends!(deletes_refuse_held_rows_and_report_missing_ones, |db| {
    let school = group(&db, None).await;
    let child = group(&db, Some(school.id)).await;
    assert_eq!(
        code_of(delete::<groups::Entity, _>(&db, school.id).await),
        "group_not_empty"
    );
    delete::<groups::Entity, _>(&db, child.id).await.unwrap();
    assert!(is_not_found(
        delete::<groups::Entity, _>(&db, child.id).await,
        "group"
    ));

    let session = testing::session(&db, testing::user(&db, UserRole::Student).await).await;
    assert_eq!(
        code_of(delete::<tools::Entity, _>(&db, session.tool_id).await),
        "tool_in_use"
    );
    // Nothing holds a user but the database: it answers with the user's own conflict.
    assert_eq!(
        code_of(delete::<users::Entity, _>(&db, session.user_id).await),
        "user_has_sessions"
    );
    let unused = tool(&db, school.id).await;
    delete::<tools::Entity, _>(&db, unused.id).await.unwrap();
    assert!(
        find::<tools::Entity, _>(&db, unused.id)
            .await
            .unwrap()
            .is_none()
    );
    delete::<groups::Entity, _>(&db, school.id).await.unwrap();
});

on_both_backends!(members_are_put_once_listed_by_user_and_removed, |db| {
    let school = group(&db, None).await;
    let users = [
        testing::user(&db, UserRole::Student).await,
        testing::user(&db, UserRole::Teacher).await,
        testing::user(&db, UserRole::Student).await,
    ];
    let put = |user_id, role| put_member::<group_members::Entity, _>(&db, school.id, user_id, role);
    let joined = put(users[0], MemberRole::Member).await.unwrap();
    // Putting again changes the role and keeps the first membership.
    let again = put(users[0], MemberRole::Manager).await.unwrap();
    assert_eq!(again.role, MemberRole::Manager);
    assert_eq!(again.created_at, joined.created_at);
    put(users[1], MemberRole::Member).await.unwrap();
    put(users[2], MemberRole::Member).await.unwrap();
    assert!(is_not_found(
        put(Uuid::now_v7(), MemberRole::Member).await,
        "user"
    ));
    let elsewhere =
        put_member::<group_members::Entity, _>(&db, Uuid::now_v7(), users[0], MemberRole::Member);
    assert!(is_not_found(elsewhere.await, "group"));

    let page = list_members::<group_members::Entity, _>(&db, school.id, first(2))
        .await
        .unwrap();
    let ids: Vec<Uuid> = page.items.iter().map(|m| m.user_id).collect();
    assert_eq!(ids, [users[2], users[1]], "newest users first");
    let rest = PageRequest {
        limit: 2,
        after: page.next,
    };
    let page = list_members::<group_members::Entity, _>(&db, school.id, rest)
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0].role, MemberRole::Manager);

    remove_member::<group_members::Entity, _>(&db, school.id, users[0])
        .await
        .unwrap();
    let gone = remove_member::<group_members::Entity, _>(&db, school.id, users[0]).await;
    assert!(is_not_found(gone, "group member"));
});
