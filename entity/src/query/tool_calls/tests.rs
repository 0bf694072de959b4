use chrono::Duration;
use serde_json::json;

use super::*;
use crate::{
    enums::UserRole,
    query::testing::{self, on_both_backends},
};

fn call(session_id: Uuid, prompt_id: Uuid, api_id: &str) -> NewToolCall {
    NewToolCall {
        session_id,
        prompt_id,
        api_tool_call_id: api_id.to_owned(),
        tool_name: "createTodo".to_owned(),
        tool_args: json!({"title": "Read chapter 3"}),
        provider_state: None,
    }
}

on_both_backends!(start_twice_returns_the_same_row, |db| {
    let user = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, user).await;
    let prompt = testing::prompt(&db, session.id).await;
    let t0 = crate::query::now();

    let (first, inserted) = start(&db, call(session.id, prompt.id, "call_1"), t0)
        .await
        .unwrap();
    assert!(inserted, "a new call is a new row");
    assert_eq!(first.state, ToolCallState::Running);
    assert_eq!(first.started_at, Some(t0));
    assert_eq!(first.created_at, t0);
    assert_eq!(first.tool_args, json!({"title": "Read chapter 3"}));
    assert_eq!(
        (first.tool_result.as_ref(), first.completed_at),
        (None, None)
    );

    // A retried turn replays the call: the same row, even with other arguments.
    let mut replay = call(session.id, prompt.id, "call_1");
    replay.tool_args = json!({"title": "something else"});
    let (again, inserted) = start(&db, replay, t0 + Duration::seconds(5)).await.unwrap();
    assert_eq!(again, first);
    assert!(!inserted, "a replayed call finds its row");

    // Finished, a replay still finds it, finished.
    let done = finish(
        &db,
        first.id,
        None,
        ToolCallState::Success,
        Some(json!({"id": "t1"})),
        None,
        t0 + Duration::milliseconds(1500),
    )
    .await
    .unwrap();
    let replayed = start(
        &db,
        call(session.id, prompt.id, "call_1"),
        t0 + Duration::seconds(9),
    )
    .await
    .unwrap()
    .0;
    assert_eq!(replayed, done);
    assert_eq!(replayed.state, ToolCallState::Success);

    // Another id, or the same id in another prompt, is another call.
    let second = start(&db, call(session.id, prompt.id, "call_2"), t0)
        .await
        .unwrap()
        .0;
    assert_ne!(second.id, first.id);
    let other_prompt = testing::prompt(&db, session.id).await;
    let elsewhere = start(&db, call(session.id, other_prompt.id, "call_1"), t0)
        .await
        .unwrap()
        .0;
    assert_ne!(elsewhere.id, first.id);
    assert_eq!(of_prompt(&db, prompt.id).await.unwrap().len(), 2);
});

on_both_backends!(finish_happens_once, |db| {
    let user = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, user).await;
    let prompt = testing::prompt(&db, session.id).await;
    let t0 = crate::query::now();
    let running = start(&db, call(session.id, prompt.id, "call_1"), t0)
        .await
        .unwrap()
        .0;

    let t1 = t0 + Duration::milliseconds(1234);
    let done = finish(
        &db,
        running.id,
        None,
        ToolCallState::Error,
        None,
        Some("the function timed out".into()),
        t1,
    )
    .await
    .unwrap();
    assert_eq!(done.state, ToolCallState::Error);
    assert_eq!(
        done.error_message.as_deref(),
        Some("the function timed out")
    );
    assert_eq!(done.tool_result, None);
    assert_eq!(done.completed_at, Some(t1));
    assert_eq!(done.duration_ms, Some(1234));
    assert_eq!(done.started_at, Some(t0));

    // A second finish (a late executor, a cancel) changes nothing.
    let late = finish(
        &db,
        running.id,
        None,
        ToolCallState::Success,
        Some(json!({"ok": true})),
        None,
        t1 + Duration::seconds(3),
    )
    .await
    .unwrap();
    assert_eq!(late, done);
    // Told when it started (one statement), likewise.
    let late = finish(
        &db,
        running.id,
        Some(t0),
        ToolCallState::Success,
        None,
        None,
        t1 + Duration::seconds(4),
    )
    .await
    .unwrap();
    assert_eq!(late, done);

    // Only final states end a call; an unknown call is 404.
    assert!(matches!(
        finish(
            &db,
            running.id,
            None,
            ToolCallState::Running,
            None,
            None,
            t1
        )
        .await,
        Err(Error::Internal(_))
    ));
    assert!(matches!(
        finish(
            &db,
            Uuid::now_v7(),
            None,
            ToolCallState::Canceled,
            None,
            None,
            t1
        )
        .await,
        Err(Error::NotFound { .. })
    ));

    // A success keeps its result.
    let ok = start(&db, call(session.id, prompt.id, "call_2"), t0)
        .await
        .unwrap()
        .0;
    let ok = finish(
        &db,
        ok.id,
        ok.started_at,
        ToolCallState::Success,
        Some(json!({"todo": {"title": "x"}})),
        None,
        t0,
    )
    .await
    .unwrap();
    assert_eq!(ok.tool_result, Some(json!({"todo": {"title": "x"}})));
    assert_eq!(ok.duration_ms, Some(0));
});

on_both_backends!(calls_of_a_prompt_in_order_and_attached, |db| {
    let user = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, user).await;
    let prompt = testing::prompt(&db, session.id).await;
    let other = testing::prompt(&db, session.id).await;
    let t0 = crate::query::now();
    let a = start(&db, call(session.id, prompt.id, "b_later_id"), t0)
        .await
        .unwrap()
        .0;
    let b = start(
        &db,
        call(session.id, prompt.id, "a_first_id"),
        t0 + Duration::seconds(1),
    )
    .await
    .unwrap()
    .0;
    let c = start(&db, call(session.id, other.id, "x"), t0)
        .await
        .unwrap()
        .0;
    let ids: Vec<Uuid> = of_prompt(&db, prompt.id)
        .await
        .unwrap()
        .iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(ids, [a.id, b.id]);
    assert!(of_prompt(&db, Uuid::now_v7()).await.unwrap().is_empty());

    let answer = testing::message(
        &db,
        session.id,
        crate::enums::MessageRole::Assistant,
        "Done.",
    )
    .await;
    let attached = attach(&db, prompt.id, answer.id).await.unwrap();
    assert_eq!(
        attached,
        of_prompt(&db, prompt.id).await.unwrap(),
        "the attached calls, in order"
    );
    assert_eq!(
        attached.iter().map(|c| c.id).collect::<Vec<_>>(),
        [a.id, b.id]
    );
    for call in of_prompt(&db, prompt.id).await.unwrap() {
        assert_eq!(call.message_id, Some(answer.id));
    }
    assert_eq!(
        get(&db, c.id).await.unwrap().message_id,
        None,
        "other prompts untouched"
    );
});

on_both_backends!(old_payloads_of_finished_turns_move_to_the_archive, |db| {
    use crate::enums::PromptState;
    let user = testing::user(&db, UserRole::Student).await;
    let session = testing::session(&db, user).await;
    let t0 = crate::query::now();
    let mut prompts = Vec::new();
    for state in [
        PromptState::Completed,
        PromptState::Error,
        PromptState::Completed,
    ] {
        let prompt = testing::prompt(&db, session.id).await;
        crate::prompts::Entity::update_many()
            .col_expr(crate::prompts::Column::State, Expr::value(state))
            .filter(crate::prompts::Column::Id.eq(prompt.id))
            .exec(&db)
            .await
            .unwrap();
        prompts.push(prompt.id);
    }
    let mut calls = Vec::new();
    for (n, prompt_id) in prompts.iter().enumerate() {
        let (row, _) = start(&db, call(session.id, *prompt_id, "call_1"), t0)
            .await
            .unwrap();
        // The third finished later than the cutoff.
        let at = t0 + Duration::seconds(if n == 2 { 100 } else { 10 });
        finish(
            &db,
            row.id,
            None,
            ToolCallState::Success,
            Some(json!({"n": n})),
            None,
            at,
        )
        .await
        .unwrap();
        calls.push(row.id);
    }
    let cutoff = t0 + Duration::seconds(50);
    let now = t0 + Duration::seconds(200);
    assert_eq!(archive_payloads(&db, cutoff, 100, now).await.unwrap(), 1);
    assert_eq!(
        archive_payloads(&db, cutoff, 100, now).await.unwrap(),
        0,
        "done once"
    );
    let hot = tool_calls::Entity::find_by_id(calls[0])
        .one(&db)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((hot.tool_args, hot.tool_result), (Value::Null, None));
    assert_eq!(hot.archived_at, Some(now));
    assert_eq!(hot.state, ToolCallState::Success, "the rest stays");
    // Read through the prompt, the payload is whole again.
    let read = of_prompt(&db, prompts[0]).await.unwrap();
    assert_eq!(read[0].tool_args, json!({"title": "Read chapter 3"}));
    assert_eq!(read[0].tool_result, Some(json!({"n": 0})));
    // A resumable prompt's call and a recent one stay.
    for (prompt_id, n) in [(prompts[1], 1), (prompts[2], 2)] {
        let read = of_prompt(&db, prompt_id).await.unwrap();
        assert_eq!(read[0].archived_at, None);
        assert_eq!(read[0].tool_result, Some(json!({"n": n})));
    }
});
