use chrono::Duration;
use serde_json::json;

use super::*;
use crate::{
    enums::UserRole,
    query::{
        prompts::{Claim, claim},
        testing::{self, on_both_backends},
        tool_calls::{NewToolCall, start},
    },
};

/// A prompt claimed by `worker`, with a call of `createTodo` waiting for approval.
async fn waiting(
    db: &DatabaseConnection,
    worker: &str,
    api_id: &str,
) -> (prompts::Model, tool_calls::Model) {
    let user = testing::user(db, UserRole::Student).await;
    let session = testing::session(db, user).await;
    let prompt = testing::prompt(db, session.id).await;
    // In progress, held by `worker` (as its claim leaves it).
    prompts::Entity::update_many()
        .col_expr(prompts::Column::LeaseOwner, Expr::value(worker))
        .col_expr(
            prompts::Column::LeaseExpiresAt,
            Expr::value(crate::query::now() + Duration::seconds(30)),
        )
        .filter(prompts::Column::Id.eq(prompt.id))
        .exec(db)
        .await
        .unwrap();
    let call = second_call(db, &prompt, api_id).await;
    (prompt, call)
}

async fn second_call(
    db: &DatabaseConnection,
    prompt: &prompts::Model,
    api_id: &str,
) -> tool_calls::Model {
    let new = NewToolCall {
        session_id: prompt.session_id,
        prompt_id: prompt.id,
        api_tool_call_id: api_id.into(),
        tool_name: "createTodo".into(),
        tool_args: json!({"title": "asked"}),
        provider_state: None,
    };
    let (row, _) = start(db, new, crate::query::now()).await.unwrap();
    let expires = crate::query::now() + Duration::minutes(5);
    await_approval(db, row.id, expires).await.unwrap()
}

on_both_backends!(
    a_suspended_prompt_is_claimed_only_once_its_calls_are_decided,
    |db| {
        let (prompt, first) = waiting(&db, "w1", "call_1").await;
        assert_eq!(first.state, ToolCallState::AwaitingApproval);
        let second = second_call(&db, &prompt, "call_2").await;
        assert_eq!(
            suspend(&db, prompt.id, "w1").await.unwrap(),
            Suspension::Asleep
        );
        assert_eq!(
            suspend(&db, prompt.id, "w2").await.unwrap(),
            Suspension::Lost,
            "only the holder suspends"
        );
        let later = crate::query::now() + Duration::hours(1);
        // No lease: no claim, and not stranded.
        let taken = claim(&db, prompt.id, "w2", Duration::seconds(30), later)
            .await
            .unwrap();
        assert!(matches!(taken, Claim::Busy), "{taken:?}");
        let stranded = crate::query::prompts::stranded(&db, later, Duration::seconds(1), 10)
            .await
            .unwrap();
        assert!(!stranded.contains(&prompt.id));

        // The first decision: the other call still waits, so the prompt stays asleep.
        let user = testing::user(&db, UserRole::Student).await;
        let edited = json!({"title": "edited"});
        let now = crate::query::now();
        let approve = Verdict::Approve {
            input: Some(edited.clone()),
        };
        let decided = decide(&db, prompt.id, first.id, approve.clone(), Some(user), now)
            .await
            .unwrap();
        assert!(!decided.resume);
        assert_eq!(decided.call.state, ToolCallState::Approved);
        assert_eq!(decided.call.tool_args, edited);
        assert_eq!(decided.call.requested_args, Some(json!({"title": "asked"})));
        assert_eq!(decided.call.decided_by, Some(user));
        // A second decision on the same call is refused.
        let again = decide(&db, prompt.id, first.id, approve, Some(user), now).await;
        assert_eq!(again.unwrap_err().code(), ErrorCode::NotAwaitingApproval);
        // A call of another prompt is not found.
        let elsewhere = decide(&db, Uuid::now_v7(), second.id, Verdict::Expire, None, now).await;
        assert!(
            matches!(elsewhere, Err(Error::NotFound { .. })),
            "{elsewhere:?}"
        );

        // The last decision wakes it: the next claim takes it.
        let denied = decide(
            &db,
            prompt.id,
            second.id,
            Verdict::Deny {
                reason: Some("not now".into()),
            },
            Some(user),
            now,
        )
        .await
        .unwrap();
        assert!(denied.resume);
        assert_eq!(denied.call.state, ToolCallState::Denied);
        assert_eq!(denied.call.decision_reason.as_deref(), Some("not now"));
        assert_eq!(
            denied.call.tool_result,
            Some(json!({"error": "The user denied this call, so it was not run: not now"}))
        );
        let taken = claim(
            &db,
            prompt.id,
            "w2",
            Duration::seconds(30),
            crate::query::now(),
        )
        .await
        .unwrap();
        assert!(
            matches!(taken, Claim::Claimed(ref p, _) if p.attempt == 2),
            "{taken:?}"
        );
        assert!(start_approved(&db, first.id, now).await.unwrap());
        assert!(
            !start_approved(&db, first.id, now).await.unwrap(),
            "started once"
        );
    }
);

on_both_backends!(
    a_call_decided_before_its_turn_let_go_wakes_it_as_it_suspends,
    |db| {
        let (prompt, call) = waiting(&db, "w1", "call_1").await;
        // The owner decides while the worker still holds the prompt: nothing to wake yet.
        let now = crate::query::now();
        let decided = decide(
            &db,
            prompt.id,
            call.id,
            Verdict::Approve { input: None },
            None,
            now,
        )
        .await
        .unwrap();
        assert!(!decided.resume);
        // The worker lets go: the prompt is claimable at once.
        assert_eq!(
            suspend(&db, prompt.id, "w1").await.unwrap(),
            Suspension::Decided
        );
        let taken = claim(
            &db,
            prompt.id,
            "w2",
            Duration::seconds(30),
            crate::query::now(),
        )
        .await
        .unwrap();
        assert!(matches!(taken, Claim::Claimed(..)), "{taken:?}");
    }
);

on_both_backends!(
    expired_approvals_are_found_by_their_expiry_and_cancel_never_runs,
    |db| {
        let (prompt, call) = waiting(&db, "w1", "call_1").await;
        let before = call.approval_expires_at.unwrap();
        assert!(
            due(&db, before - Duration::seconds(1), 10)
                .await
                .unwrap()
                .is_empty()
        );
        let expiry = Expiry {
            prompt_id: prompt.id,
            call_id: call.id,
            expires_at: before,
            state: ToolCallState::AwaitingApproval,
        };
        assert_eq!(due(&db, before, 10).await.unwrap(), vec![expiry]);
        let mine = waiting_for(&db, prompt_owner(&db, &prompt).await)
            .await
            .unwrap();
        assert_eq!(mine.iter().map(|c| c.id).collect::<Vec<_>>(), vec![call.id]);
        assert_eq!(cancel_waiting(&db, prompt.id, before).await.unwrap(), 1);
        assert!(due(&db, before, 10).await.unwrap().is_empty());
        let decided = decide(&db, prompt.id, call.id, Verdict::Expire, None, before).await;
        assert_eq!(decided.unwrap_err().code(), ErrorCode::NotAwaitingApproval);
        assert_eq!(
            crate::query::tool_calls::get(&db, call.id)
                .await
                .unwrap()
                .state,
            ToolCallState::Canceled
        );
    }
);

async fn prompt_owner(db: &DatabaseConnection, prompt: &prompts::Model) -> Uuid {
    crate::query::sessions::get(db, prompt.session_id)
        .await
        .unwrap()
        .user_id
}

on_both_backends!(
    a_client_call_waits_for_one_answer_and_the_last_answer_wakes_the_prompt,
    |db| {
        let (prompt, approval) = waiting(&db, "w1", "call_1").await;
        let new = NewToolCall {
            session_id: prompt.session_id,
            prompt_id: prompt.id,
            api_tool_call_id: "call_2".into(),
            tool_name: "lookup".into(),
            tool_args: json!({"word": "gato"}),
            provider_state: None,
        };
        let (row, _) = start(&db, new, crate::query::now()).await.unwrap();
        let expires = crate::query::now() + Duration::minutes(5);
        let client = await_result(&db, row.id, expires).await.unwrap();
        assert_eq!(client.state, ToolCallState::AwaitingClient);
        // Asked again (a resumed attempt), it keeps its first expiry.
        let again = await_result(&db, row.id, expires + Duration::hours(1))
            .await
            .unwrap();
        assert_eq!(again.approval_expires_at, client.approval_expires_at);
        assert_eq!(
            suspend(&db, prompt.id, "w1").await.unwrap(),
            Suspension::Asleep
        );
        let states: Vec<_> = due(&db, expires, 10)
            .await
            .unwrap()
            .into_iter()
            .map(|e| (e.call_id, e.state))
            .collect();
        assert!(
            states.contains(&(client.id, ToolCallState::AwaitingClient))
                && states.contains(&(approval.id, ToolCallState::AwaitingApproval)),
            "{states:?}"
        );

        let user = testing::user(&db, UserRole::Student).await;
        let now = crate::query::now();
        let answered = |result| Answered {
            state: ToolCallState::Success,
            result,
            error: None,
            by: Some(user),
        };
        // Neither verb answers the other's wait.
        let approved = decide(&db, prompt.id, client.id, Verdict::Expire, None, now).await;
        assert_eq!(approved.unwrap_err().code(), ErrorCode::NotAwaitingApproval);
        let misdirected = answer(&db, prompt.id, approval.id, answered(json!("x")), now).await;
        assert_eq!(
            misdirected.unwrap_err().code(),
            ErrorCode::NotAwaitingResult
        );
        let elsewhere = answer(&db, Uuid::now_v7(), client.id, answered(json!("x")), now).await;
        assert!(
            matches!(elsewhere, Err(Error::NotFound { .. })),
            "{elsewhere:?}"
        );

        // The answer is recorded; the approval still waits, so the prompt sleeps on.
        let first = answer(
            &db,
            prompt.id,
            client.id,
            answered(json!({"meaning": "cat"})),
            now,
        )
        .await
        .unwrap();
        assert!(!first.resume);
        assert_eq!(first.call.state, ToolCallState::Success);
        assert_eq!(first.call.tool_result, Some(json!({"meaning": "cat"})));
        assert_eq!(first.call.decided_by, Some(user));
        let second = answer(&db, prompt.id, client.id, answered(json!("dog")), now).await;
        assert_eq!(second.unwrap_err().code(), ErrorCode::NotAwaitingResult);

        let last = decide(&db, prompt.id, approval.id, Verdict::Expire, None, now)
            .await
            .unwrap();
        assert!(last.resume, "the last wait's end wakes the prompt");
    }
);
