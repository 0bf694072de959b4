//! Calls that run: the protocol of a tool turn, what is stored, what the model is told.

use parley_tests::both_backends;
use parley_tests::turns::text_of;
use serde_json::json;

use super::*;

both_backends!(
    one_call_runs_and_its_result_goes_back_to_the_model,
    |backend: Backend| async move {
        let agent = agent(backend, Setup::default()).await;
        let events = agent
            .turn(r#"[[mock tool_call='createTodo:{"title": "buy milk"}']] remind me"#)
            .await;
        let kinds: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
        let start = kinds
            .iter()
            .position(|k| *k == "tool_start")
            .expect("a tool_start");
        let complete = kinds
            .iter()
            .position(|k| *k == "tool_complete")
            .expect("a tool_complete");
        assert!(start < complete, "{kinds:?}");

        let started = of_type(&events, "tool_start")[0];
        assert_eq!(started["index"], 0);
        assert_eq!(started["tool"], "createTodo");
        assert_eq!(started["input"], json!({"title": "buy milk"}));
        let block = &of_type(&events, "block_start")
            .into_iter()
            .find(|b| b["block_type"] == "tool_call")
            .expect("a tool_call block")["index"];
        assert_eq!(&started["block_index"], block);
        let done = of_type(&events, "tool_complete")[0];
        assert_eq!(done["state"], "success");
        assert_eq!(done["tool_use_id"], started["tool_use_id"]);
        assert!(done["output"]["todo_id"].is_string(), "{done}");
        let states: Vec<&str> = of_type(&events, "prompt_state")
            .iter()
            .filter_map(|s| s["state"].as_str())
            .collect();
        assert_eq!(
            states,
            [
                "in_progress",
                "waiting_for_tools",
                "in_progress",
                "completed"
            ]
        );

        // The marker stands where the call was made; the model's answer follows.
        let text = text_of(&events);
        assert!(text.starts_with("[[tool:0]]Tool result: "), "{text}");
        let end = completed(&events);
        assert_eq!(end["payload"]["message"], text.as_str());
        let history = &end["payload"]["tool_history"];
        assert_eq!(history.as_array().map(Vec::len), Some(1), "{end}");
        assert_eq!(history[0]["tool_name"], "createTodo");
        assert_eq!(history[0]["input"], json!({"title": "buy milk"}));
        assert_eq!(history[0]["output"], done["output"]);
        assert_eq!(history[0]["status"], "success");

        // The model got the result; the todo is the user's.
        let requests = agent.mock.requests();
        assert_eq!(requests.len(), 2, "one model call per iteration");
        assert!(requests[0].tool_names().contains(&"createTodo".to_owned()));
        assert_eq!(
            requests[1].tool_results(),
            [done["output"].to_string().as_str()]
        );
        let todos = agent.client.list_todos().send().await.assert_status(200);
        assert_eq!(todos.items.len(), 1);
        assert_eq!(todos.items[0].title, "buy milk");
        // The app's database holds this one turn.
        let usage = agent.app.count("SELECT COUNT(*) FROM ai_usage").await;
        assert_eq!(usage, 2, "one usage row per model call");
    }
);

both_backends!(
    parallel_calls_with_split_names_run_in_order,
    |backend: Backend| async move {
        let agent = agent(backend, Setup::default()).await;
        let events = agent
        .turn(concat!(
            r#"[[mock split_name=1 tool_call='createNote:{"title": "one", "content": "first note"}' "#,
            r#"tool_call='createNote:{"title": "two", "content": "second note, a longer one"}']] notes"#
        ))
        .await;
        let done = of_type(&events, "tool_complete");
        assert_eq!(done.len(), 2);
        let mut indexes: Vec<u64> = done.iter().filter_map(|d| d["index"].as_u64()).collect();
        indexes.sort_unstable();
        assert_eq!(indexes, [0, 1]);
        assert!(
            done.iter()
                .all(|d| d["tool"] == "createNote" && d["state"] == "success")
        );
        let text = text_of(&events);
        assert!(
            text.starts_with("[[tool:0]][[tool:1]]"),
            "markers in order: {text}"
        );
        let history = &completed(&events)["payload"]["tool_history"];
        assert_eq!(history[0]["input"]["title"], "one");
        assert_eq!(history[1]["input"]["title"], "two");
        let notes = agent.client.list_notes().send().await.assert_status(200);
        let mut titles: Vec<&str> = notes.items.iter().map(|n| n.title.as_str()).collect();
        titles.sort_unstable();
        assert_eq!(titles, ["one", "two"]);
    }
);

both_backends!(
    the_rebuilt_feed_shows_the_same_calls_after_their_payloads_are_archived,
    |backend: Backend| async move {
        let setup = Setup {
            worker: "event_retention_s = 1\ntool_payload_retention_s = 1\narchive_every_s = 1",
            ..Setup::default()
        };
        let agent = agent(backend, setup).await;
        let live = agent
            .turn(r#"[[mock tool_call='createTodo:{"title": "again"}']] note it"#)
            .await;
        // The function's payload is part of what is rebuilt.
        assert_eq!(
            of_type(&live, "tool_complete")[0]["payload"]["type"],
            "todo"
        );
        assert_eq!(
            completed(&live)["payload"]["custom_payload"]["type"],
            "todo"
        );
        let prompt = live[0].data["prompt_id"].as_str().unwrap().to_owned();
        // The scheduled archive pass moves the call's payload out of `tool_calls` a
        // second after the call (one worker runs it; its row counts the runs).
        let app = &agent.app;
        let of_prompt = format!("prompt_id = {}", app.sql_uuid(&prompt));
        let archived = format!(
            "SELECT COUNT(*) FROM tool_calls WHERE {of_prompt} AND archived_at IS NOT NULL"
        );
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while app.count(&archived).await == 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "not archived within 10 s"
            );
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        let emptied =
            format!("SELECT COUNT(*) FROM tool_calls WHERE {of_prompt} AND tool_result IS NULL");
        assert_eq!(app.count(&emptied).await, 1, "the hot row keeps no payload");
        let moved = "SELECT COUNT(*) FROM tool_call_archive WHERE tool_result IS NOT NULL";
        assert_eq!(app.count(moved).await, 1);
        let runs = "SELECT runs FROM scheduled_tasks WHERE name = 'archive_tool_payloads'";
        assert!(app.count(runs).await >= 1);
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        let mut feed = agent.app.prompt_events(&agent.token, &prompt, None).await;
        let rebuilt = feed.until_terminal(WAIT).await;
        let strip = |events: &[SseEvent], kind: &str| -> Vec<Value> {
            of_type(events, kind)
                .into_iter()
                .map(|e| {
                    let mut e = e.clone();
                    e.as_object_mut().unwrap().remove("seq");
                    e
                })
                .collect()
        };
        for kind in ["tool_start", "tool_complete", "complete"] {
            assert_eq!(strip(&rebuilt, kind), strip(&live, kind), "{kind}");
        }
        assert_eq!(text_of(&rebuilt), text_of(&live));
    }
);
