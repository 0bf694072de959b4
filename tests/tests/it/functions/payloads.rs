//! The payload registry and suggestions end to end: payload types listed, a function's
//! payload on `tool_complete` and in `complete`, a result that does not fit its payload
//! type, LLM payload markers and suggestions taken out of the answer, and the
//! server-handled actions a client runs from them.

use parley_tests::both_backends;
use parley_tests::client::types::RunAction;
use serde_json::json;

use super::*;

/// An LLM payload type, and the test MCP server whose `echo` results must be short.
const CONFIG: &str = r#"
[[payload_types]]
name = "flashcard"
description = "A question and its answer, to study."
source = "llm"
llm_instructions = "Use it when the user wants to practise."
schema = { type = "object", properties = { question = { type = "string" }, answer = { type = "string" } }, required = ["question", "answer"] }
frontend_config = { title = "Flashcard", icon = "cards" }

[[payload_types]]
name = "short_echo"
description = "An echo of at most five characters."
source = "tool"
schema = { type = "object", properties = { echo = { type = "string", maxLength = 5 } }, required = ["echo"] }
"#;

fn config_with_mcp() -> String {
    format!(
        "{CONFIG}\n[[mcp_servers]]\nname = \"lab\"\ncommand = {:?}\npayload_types = {{ echo = \"short_echo\" }}\n",
        parley_tests::mcp_test_bin().display().to_string()
    )
}

both_backends!(
    payload_types_are_listed_and_a_functions_payload_is_checked,
    |backend: Backend| async move {
        let config = config_with_mcp();
        let agent = agent(
            backend,
            Setup {
                functions: &["createTodo", "lab_echo"],
                config: &config,
                ..Setup::default()
            },
        )
        .await;
        let types = agent
            .client
            .list_payload_types()
            .send()
            .await
            .assert_status(200);
        let names: Vec<&str> = types.items.iter().map(|t| t.name.as_str()).collect();
        for name in [
            "flashcard",
            "note",
            "prior_session_matches",
            "short_echo",
            "todo",
        ] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        let card = types.items.iter().find(|t| t.name == "flashcard").unwrap();
        assert_eq!(card.source.to_string(), "llm");
        assert_eq!(card.schema["required"], json!(["question", "answer"]));
        assert_eq!(card.frontend_config["title"], "Flashcard");
        // A tool enables only payload types the model writes.
        let admin = agent.app.admin_client();
        let tool = admin
            .admin_list_tools()
            .send()
            .await
            .assert_status(200)
            .items[0]
            .id;
        for (types, code) in [
            (&["todo"][..], "unknown_payload_type"),
            (&["nope"][..], "unknown_payload_type"),
        ] {
            let got = admin
                .admin_update_tool()
                .id(tool)
                .body_map(|b| {
                    b.definition(ToolDefinition {
                        payload_types: Some(types.iter().map(|t| (*t).to_owned()).collect()),
                        ..api::definition("x")
                    })
                })
                .send()
                .await
                .assert_problem(422);
            assert_eq!(got, code, "{types:?}");
        }
        let functions = agent
            .client
            .list_functions()
            .send()
            .await
            .assert_status(200);
        let echo = functions
            .items
            .iter()
            .find(|f| f.name == "lab_echo")
            .unwrap();
        assert_eq!(echo.payload_type.as_deref(), Some("short_echo"));

        // A result that fits: the payload rides on tool_complete and in complete.
        let events = agent
            .turn(r#"[[mock tool_call='createTodo:{"title": "milk"}']] remember milk"#)
            .await;
        let done = of_type(&events, "tool_complete")[0];
        assert_eq!(done["payload"]["type"], "todo");
        assert_eq!(done["payload"]["data"], done["output"]);
        assert_eq!(
            completed(&events)["payload"]["custom_payload"],
            done["payload"]
        );

        // A result that does not fit its payload type fails the call, clearly.
        let events = agent
            .turn(r#"[[mock tool_call='lab_echo:{"text": "far too long"}']] echo"#)
            .await;
        let done = of_type(&events, "tool_complete")[0];
        assert_eq!(done["state"], "error", "{done}");
        let error = done["output"]["error"].as_str().unwrap();
        assert!(
            error.contains("short_echo") && error.contains("/echo"),
            "{error}"
        );
        assert!(done.get("payload").is_none(), "{done}");
        assert!(
            completed(&events)["payload"]
                .get("custom_payload")
                .is_none()
        );
        let requests = agent.mock.requests();
        let told = requests.last().unwrap().tool_results();
        assert!(
            told[0].contains("short_echo"),
            "the model is told: {told:?}"
        );
        let fitting = agent
            .turn(r#"[[mock tool_call='lab_echo:{"text": "ok"}']] echo"#)
            .await;
        assert_eq!(
            of_type(&fitting, "tool_complete")[0]["payload"]["type"],
            "short_echo"
        );
    }
);

both_backends!(
    markers_in_the_answer_become_payloads_and_suggestions,
    |backend: Backend| async move {
        let agent = agent(
            backend,
            Setup {
                functions: &[],
                config: CONFIG,
                payload_types: &["flashcard"],
                suggestions: true,
                worker: "event_retention_s = 1",
                ..Setup::default()
            },
        )
        .await;
        let reply = "Let us practise.\n\
            FLASHCARD: {\"question\": \"2+2?\", \"answer\": \"4\"}\n\
            SUGGESTED_VALUES: [{\"label\": \"Another\", \"value\": \"Give me another card\"}]\n\
            SUGGESTED_ACTIONS: [{\"label\": \"Quiz me\", \"action\": \"send_message\", \"handler\": \"server\", \"data\": {\"content\": \"Quiz me on this\"}}, {\"label\": \"Launch\", \"action\": \"launch\", \"handler\": \"server\"}, {\"label\": \"Close\", \"action\": \"close_panel\", \"handler\": \"client\", \"style\": \"secondary\"}]";
        let events = agent
            .turn(&format!("[[mock reply='{reply}']] practise"))
            .await;
        let end = completed(&events);
        let payload = &end["payload"];
        assert_eq!(payload["message"], "Let us practise.");
        assert_eq!(
            payload["custom_payload"],
            json!({"type": "flashcard", "data": {"question": "2+2?", "answer": "4"}})
        );
        assert_eq!(
            payload["suggested_values"],
            json!([{"label": "Another", "value": "Give me another card"}])
        );
        let actions = payload["suggested_actions"].as_array().unwrap();
        let offered: Vec<&str> = actions
            .iter()
            .map(|a| a["action"].as_str().unwrap())
            .collect();
        assert_eq!(
            offered,
            ["send_message", "close_panel"],
            "`launch` has no handler"
        );

        // The model was told how to write them; the stored message is the clean text.
        let requests = agent.mock.requests();
        let system = requests[0].system_prompt().unwrap_or_default();
        assert!(
            system.contains("=== Response Formats ===")
                && system.contains("FLASHCARD: ")
                && system.contains("SUGGESTED_VALUES: ")
                && system.contains("send_message"),
            "{system}"
        );
        let messages = agent
            .client
            .list_session_messages()
            .id(agent.session_id)
            .send()
            .await
            .assert_status(200);
        assert_eq!(messages.items.last().unwrap().content, "Let us practise.");

        // After the event log's retention the rebuilt complete carries them too.
        let prompt = events[0].data["prompt_id"].as_str().unwrap().to_owned();
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let mut feed = agent.app.prompt_events(&agent.token, &prompt, None).await;
        let rebuilt = feed.until_terminal(WAIT).await;
        assert_eq!(&completed(&rebuilt)["payload"], payload);

        // A tool that did not enable the type or suggestions keeps the text as written.
        let plain = agent
            .turn("[[mock reply='Just text.\nFLASHCARD: {\"question\": 1}']] plain")
            .await;
        let plain = &completed(&plain)["payload"];
        assert_eq!(
            plain["message"], "Just text.",
            "an invalid payload is still taken out"
        );
        assert!(plain.get("custom_payload").is_none(), "{plain}");
    }
);

both_backends!(
    a_suggested_server_action_runs_once_offered_and_only_then,
    |backend: Backend| async move {
        let agent = agent(
            backend,
            Setup {
                functions: &[],
                suggestions: true,
                ..Setup::default()
            },
        )
        .await;
        let run = |action: &str| {
            agent
                .client
                .run_action()
                .id(agent.session_id)
                .body(RunAction {
                    action: action.parse().expect("an action the document names"),
                })
                .send()
        };
        // Nothing offered yet; a name without a handler is refused first.
        assert_eq!(
            run("send_message").await.assert_problem(409),
            "action_not_offered"
        );
        // A name without a handler is not in the document: only a raw request sends it.
        let raw = agent
            .app
            .post_json(
                &format!("/v1/sessions/{}/actions", agent.session_id),
                Some(&agent.token),
                &json!({"action": "launch_rockets"}),
            )
            .await;
        assert_eq!(raw.status, 422, "{}", raw.text);

        // The turn the action starts takes a while to its first token, so that the double
        // click below comes while it runs (once it has answered, its answer is the last
        // one, and that offers nothing).
        const NEXT: &str = "next please [[mock first_token_delay_ms=1500]]";
        let reply = format!(
            "Done.\nSUGGESTED_ACTIONS: [{{\"label\": \"Next\", \"action\": \"send_message\", \"handler\": \"server\", \"data\": {{\"content\": \"{NEXT}\"}}}}]"
        );
        // The offer is the last answer only if this turn completed: say so if it did not.
        let offered = agent.turn(&format!("[[mock reply='{reply}']] go")).await;
        super::completed(&offered);
        assert_eq!(
            run("end_session").await.assert_problem(409),
            "action_not_offered"
        );
        let ran = run("send_message").await.assert_status(200);
        assert_eq!(ran.action, "send_message");
        let prompt_id = ran.prompt_id.expect("the turn it started");
        assert_eq!(
            ran.events_url.as_deref(),
            Some(format!("/v1/prompts/{prompt_id}/events").as_str())
        );
        // A double click is the same turn.
        let again = run("send_message").await.assert_status(200);
        assert_eq!(again.prompt_id, Some(prompt_id));
        let mut feed = agent
            .app
            .prompt_events(&agent.token, &prompt_id.to_string(), None)
            .await;
        let events = feed.until_terminal(WAIT).await;
        completed(&events);
        let requests = agent.mock.requests();
        assert_eq!(
            requests.last().unwrap().last_user_message(),
            Some(NEXT),
            "the offered text is the user's message"
        );

        // The new answer offers nothing: the old offer is gone.
        assert_eq!(
            run("send_message").await.assert_problem(409),
            "action_not_offered"
        );
        let reply = "Bye.\nSUGGESTED_ACTIONS: [{\"label\": \"End\", \"action\": \"end_session\", \"handler\": \"server\"}]";
        agent.turn(&format!("[[mock reply='{reply}']] bye")).await;
        // Another user's session is not found.
        let (_, other) = agent.app.create_user("other@example.com", "student").await;
        let stranger = agent
            .app
            .client_as(&other)
            .run_action()
            .id(agent.session_id)
            .body(RunAction {
                action: "end_session".parse().unwrap(),
            })
            .send()
            .await
            .assert_problem(404);
        assert_eq!(stranger, "not_found");
        let ended = run("end_session").await.assert_status(200);
        assert_eq!(ended.session_state.to_string(), "completed");
        assert_eq!(ended.prompt_id, None);
        assert_eq!(
            run("end_session").await.assert_problem(409),
            "session_completed"
        );
    }
);
