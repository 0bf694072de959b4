//! Fifty turns at once against a budget that fits ten: each model call holds its worst
//! case only while the budget is below its limit, so ten of them (± 1) run — the worst
//! case counted as the provider counts — and what is spent passes the limit by at most
//! one reservation; the turns that did not fit end `failed`/`budget_exceeded`
//! without a model call. Then turns one at a time until one is refused at submit (429):
//! spending reaches the limit and passes it by less than one reservation. The figures go
//! to BENCHMARKS.md ("Issue #15: budgets").

use std::time::Duration;

use parley_tests::both_backends;

use super::{all_prompts_ended, budget, create_budget, spawn, spent_in_db, student};
use crate::fixtures;

/// Every turn's message: ten tokens of answer, a tenth of a second apart, so that the
/// calls overlap.
const CONTENT: &str = "[[mock tokens=10 token_delay_ms=100]] hello";

both_backends!(
    fifty_concurrent_turns_overrun_a_budget_by_at_most_one_reservation,
    |backend: Backend| async move {
        let (mock, app, _config) = spawn(backend, 50).await;

        // One turn of another user, under a large budget, measures a turn's hold (read
        // while its call runs) and its cost.
        let (calib, calib_session) = student(&app, "calibration@example.com").await;
        let calib_budget = create_budget(&app, "user", &calib.user_id, "day", 100.0).await;
        let calib_budget = fixtures::id(&calib_budget);
        let prompt = app
            .send_in_background(&calib.token, &calib_session, CONTENT)
            .await;
        let mut reservation = 0;
        for _ in 0..100 {
            reservation = budget(&app, &calib_budget).await["reserved_micros"]
                .as_i64()
                .unwrap_or_default();
            if reservation > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            reservation > 0,
            "the call holds its worst case while it runs"
        );
        app.wait_for_prompt_state(&calib.token, &prompt, "completed", Duration::from_secs(30))
            .await;
        let per_turn = spent_in_db(&app, &calib.user_id).await;
        assert!(
            per_turn > 0 && per_turn <= reservation,
            "cost {per_turn}, held {reservation}"
        );

        // Alice's budget fits ten such turns.
        let limit = 10 * per_turn;
        let (alice, first_session) = student(&app, "alice@example.com").await;
        let alice_budget =
            create_budget(&app, "user", &alice.user_id, "day", limit as f64 / 1e6).await;
        let alice_budget = fixtures::id(&alice_budget);
        let mut sessions = vec![first_session];
        let tool = fixtures::id(&alice.tool);
        for _ in 1..50 {
            let session = fixtures::session(&app, &alice.token, &tool).await;
            sessions.push(fixtures::id(&session));
        }
        let calls_before = mock.requests().len();
        let started = std::time::Instant::now();
        let submitted =
            futures::future::join_all(sessions.iter().map(|session| {
                app.send_message(&alice.token, session, CONTENT, "?background=true")
            }))
            .await;
        let accepted = submitted.iter().filter(|r| r.status == 202).count();
        let refused_at_submit = submitted.iter().filter(|r| r.status == 429).count();
        assert_eq!(accepted + refused_at_submit, 50, "202 or 429 only");
        all_prompts_ended(&app, Duration::from_secs(120)).await;
        let elapsed = started.elapsed();

        let user = &alice.user_id;
        let user_sql = app.sql_uuid(user);
        let completed = app
            .count(&format!(
                "SELECT COUNT(*) FROM prompts p JOIN sessions s ON s.id = p.session_id \
                 WHERE s.user_id = {user_sql} AND p.state = 'completed'"
            ))
            .await as usize;
        let refused_at_call = app
            .count(&format!(
                "SELECT COUNT(*) FROM prompts p JOIN sessions s ON s.id = p.session_id \
                 WHERE s.user_id = {user_sql} AND p.state = 'failed' \
                 AND p.error_code = 'budget_exceeded'"
            ))
            .await as usize;
        assert_eq!(
            completed + refused_at_call,
            accepted,
            "every accepted turn completed or was refused by its budget"
        );
        assert!(
            completed >= 1,
            "the budget admits while it is below its limit"
        );
        let calls = mock.requests().len() - calls_before;
        assert_eq!(calls, completed, "a refused turn made no model call");

        let burst_spent = spent_in_db(&app, user).await;
        assert!(
            burst_spent - limit <= reservation,
            "the burst spent {burst_spent}, over the limit {limit} by more than one reservation"
        );

        // Then one turn at a time, until the budget refuses one when it is submitted:
        // spending reaches the limit and passes it by less than one reservation.
        let mut sequential = 0;
        let refused = loop {
            let session = &sessions[sequential % sessions.len()];
            let response = app.send_message(&alice.token, session, CONTENT, "").await;
            if response.status == 429 {
                break response;
            }
            response.assert_status(201);
            sequential += 1;
            assert!(sequential <= 20, "the budget never refused a turn");
        };
        crate::budgets::assert_over_budget(&refused, "your budget");
        let spent = spent_in_db(&app, user).await;
        let shown = budget(&app, &alice_budget).await;
        assert_eq!(
            shown["spent_micros"].as_i64(),
            Some(spent),
            "the counter is what the usage rows cost: {shown}"
        );
        assert_eq!(shown["reserved_micros"].as_i64(), Some(0), "no hold leaked");
        let overrun = spent - limit;
        assert!(
            spent >= limit,
            "turns are admitted while the budget is below its limit"
        );
        assert!(
            overrun <= reservation,
            "spent {spent} over the limit {limit} by {overrun}: more than one reservation ({reservation})"
        );
        eprintln!(
            "BUDGET FIGURES ({backend:?}): 50 turns submitted at once (done in {elapsed:.1?}); \
             limit {limit} µ$ (10 turns of {per_turn} µ$), one reservation {reservation} µ$; \
             accepted {accepted} (429 at submit {refused_at_submit}); completed {completed}, \
             refused before their model call {refused_at_call}; model calls {calls}; \
             burst spent {burst_spent} µ$ ({:.0} % of the limit); then {sequential} turns one \
             at a time until a 429: spent {spent} µ$, overrun {overrun} µ$ ({:.2} reservations)",
            burst_spent as f64 * 100.0 / limit as f64,
            overrun as f64 / reservation as f64
        );
        // A budget of ten turns admits ten, give or take one: a call holds its worst case
        // (the prompt as the worker counts it, which the calibration turn's reported usage
        // taught it, and the output limit, two tokens above the answer) and the burst's
        // holds fill the budget at about the turns' real cost.
        assert!(
            (9..=11).contains(&completed),
            "a budget of ten turns admitted {completed} of a burst (held {reservation} µ$ a call, each cost {per_turn} µ$)"
        );
    }
);
