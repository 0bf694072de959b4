//! Calls that do not run: the reason goes back to the model and the turn goes on. The
//! iteration limit. What the catalog lists and what a tool definition may name.

use parley_tests::both_backends;
use parley_tests::turns::text_of;
use serde_json::json;

use super::*;

both_backends!(
    bad_calls_are_fed_back_not_fatal,
    |backend: Backend| async move {
        let agent = agent(backend, Setup::default()).await;
        let events = agent
            .turn(concat!(
                r#"[[mock tool_call_raw='createTodo:{"title": "x' "#,
                r#"tool_call='createTodo:{"title": 5}' tool_call=deleteEverything]] go"#
            ))
            .await;
        let done = of_type(&events, "tool_complete");
        assert_eq!(done.len(), 3, "every call gets its tool_complete");
        assert!(done.iter().all(|d| d["state"] == "error"), "{done:?}");
        let started = of_type(&events, "tool_start");
        assert_eq!(
            started[0]["input"],
            json!(r#"{"title": "x"#),
            "unparsable input as text"
        );
        let told = agent.mock.requests()[1].tool_results().join("\n");
        for reason in [
            "the arguments are not valid JSON",
            "invalid arguments",
            "no function named `deleteEverything`",
        ] {
            assert!(
                told.contains(reason),
                "the model is told {reason:?}: {told}"
            );
        }
        assert_eq!(
            completed(&events)["payload"]["tool_history"]
                .as_array()
                .map(Vec::len),
            Some(3)
        );
        let todos = agent.client.list_todos().send().await.assert_status(200);
        assert!(todos.items.is_empty(), "nothing ran");
    }
);

both_backends!(
    a_denied_permission_is_fed_back,
    |backend: Backend| async move {
        let setup = Setup {
            permissions: &["-todos:write:self"],
            ..Setup::default()
        };
        let agent = agent(backend, setup).await;
        let functions = agent
            .client
            .list_functions()
            .send()
            .await
            .assert_status(200);
        let names: Vec<&str> = functions.items.iter().map(|f| f.name.as_str()).collect();
        assert!(
            !names.contains(&"createTodo"),
            "a revoked permission hides it: {names:?}"
        );
        assert!(names.contains(&"createNote"), "{names:?}");

        let events = agent
            .turn(r#"[[mock tool_call='createTodo:{"title": "sneaky"}']] try"#)
            .await;
        let done = of_type(&events, "tool_complete")[0];
        assert_eq!(done["state"], "error");
        let reason = done["output"]["error"].as_str().unwrap_or_default();
        assert!(
            reason.contains("permission denied") && reason.contains("todos:write:self"),
            "{done}"
        );
        assert!(
            text_of(&events).contains("permission denied"),
            "the model was told"
        );
        let todos = agent.client.list_todos().send().await.assert_status(200);
        assert!(todos.items.is_empty());
    }
);

both_backends!(
    the_iteration_limit_ends_the_turn_with_a_clear_message,
    |backend: Backend| async move {
        let setup = Setup {
            max_iterations: Some(2),
            ..Setup::default()
        };
        let agent = agent(backend, setup).await;
        let events = agent
            .turn("[[mock tool_call=getCurrentTime tool_rounds=5]] loop forever")
            .await;
        let end = completed(&events);
        assert_eq!(
            end["payload"]["tool_history"].as_array().map(Vec::len),
            Some(1),
            "the second round's calls were not run: {end}"
        );
        assert!(
            text_of(&events).contains("Stopped after 2 rounds of function calls"),
            "{}",
            text_of(&events)
        );
        assert_eq!(agent.mock.requests().len(), 2, "two model calls at most");
    }
);

both_backends!(
    tool_definitions_name_existing_functions_only,
    |app| async move {
        let admin = app.admin_client();
        let group = api::group(&admin, "Defs", None, serde_json::json!({})).await;
        let definition = |functions: &[&str]| ToolDefinition {
            functions: Some(functions.iter().map(|f| (*f).to_owned()).collect()),
            ..api::definition("b")
        };
        let code = admin
            .admin_create_tool()
            .body_map(|b| {
                b.group_id(group.id)
                    .name("T")
                    .definition(definition(&["getCurrentTime", "launchRockets"]))
            })
            .send()
            .await
            .assert_problem(422);
        assert_eq!(code, "unknown_function");
        let tool = api::tool_with(&admin, group.id, "T", definition(&["getCurrentTime"])).await;
        let code = admin
            .admin_update_tool()
            .id(tool.id)
            .body_map(|b| b.definition(definition(&["nope"])))
            .send()
            .await
            .assert_problem(422);
        assert_eq!(code, "unknown_function");
        // Approval only for a function the tool offers.
        let code = admin
            .admin_update_tool()
            .id(tool.id)
            .body_map(|b| {
                b.definition(ToolDefinition {
                    approval_required: Some(vec!["createTodo".into()]),
                    ..definition(&["getCurrentTime"])
                })
            })
            .send()
            .await
            .assert_problem(422);
        assert_eq!(code, "unknown_function");
        let functions = admin.list_functions().send().await.assert_status(200);
        let names: Vec<&str> = functions.items.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ALL, "an admin may call every built-in");
        let clock = functions
            .items
            .iter()
            .find(|f| f.name == "getCurrentTime")
            .unwrap();
        assert_eq!(clock.parameters["type"], "object");
        assert!(clock.permissions.is_empty());
        assert!(!clock.requires_approval);
    }
);

both_backends!(the_demo_model_calls_the_clock, |app| async move {
    // No provider configured: the offline demo model and the demo tool, which offers
    // getCurrentTime.
    let admin = app.admin_client();
    let session = demo_session(&admin).await;
    let mut feed = app
        .stream_message(
            &app.admin_token,
            &session.id.to_string(),
            "What time is it?",
        )
        .await;
    let events = feed.until_terminal(WAIT).await;
    let done = of_type(&events, "tool_complete");
    assert_eq!(done.len(), 1, "{events:?}");
    assert_eq!(done[0]["tool"], "getCurrentTime");
    assert_eq!(done[0]["state"], "success");
    let text = text_of(&events);
    assert!(text.contains("[[tool:0]]It is "), "{text}");
});

both_backends!(
    the_demo_offers_suggestions_a_button_and_a_call_that_waits_for_approval,
    |app| async move {
        // No provider: the demo tool asks for suggestions and makes createTodo wait.
        let admin = app.admin_client();
        let session = demo_session(&admin).await;
        let id = session.id.to_string();
        let events = app
            .stream_message(&app.admin_token, &id, "Hello!")
            .await
            .until_terminal(WAIT)
            .await;
        let end = completed(&events);
        assert_eq!(
            end["payload"]["suggested_values"].as_array().map(Vec::len),
            Some(2),
            "{end}"
        );
        assert_eq!(
            end["payload"]["suggested_actions"][0]["action"],
            "send_message"
        );
        assert!(
            !end["payload"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("SUGGESTED"),
            "{end}"
        );

        let mut feed = app
            .stream_message(&app.admin_token, &id, "Remind me to practise fractions")
            .await;
        let request = loop {
            let event = feed.next(WAIT).await.expect("the feed goes on");
            assert_ne!(event.event, "complete", "the call waits for approval");
            if event.event == "approval_requested" {
                break event.data;
            }
        };
        assert_eq!(request["tool"], "createTodo");
        assert_eq!(
            request["input"],
            serde_json::json!({"title": "practise fractions"})
        );
        let prompt: Uuid = request["prompt_id"].as_str().unwrap().parse().unwrap();
        let call: Uuid = request["call_id"].as_str().unwrap().parse().unwrap();
        admin
            .approve_call()
            .id(prompt)
            .call_id(call)
            .body(parley_tests::client::types::ApproveCall { input: None })
            .send()
            .await
            .assert_status(200);
        let rest = feed.until_terminal(WAIT).await;
        let text = completed(&rest)["payload"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        assert!(
            text.contains("\"practise fractions\" is on your to-do list"),
            "{text}"
        );
        let todos = admin.list_todos().send().await.assert_status(200);
        assert_eq!(todos.items.len(), 1);
    }
);

/// A new session of the admin's on the demo tool a fresh deployment starts with.
async fn demo_session(
    admin: &parley_tests::client::Client,
) -> parley_tests::client::types::Session {
    let demo = admin
        .list_tools()
        .send()
        .await
        .assert_status(200)
        .into_inner()
        .items
        .into_iter()
        .find(|t| t.name == "Demo tutor")
        .expect("the demo tool");
    api::session(admin, demo.id).await
}
