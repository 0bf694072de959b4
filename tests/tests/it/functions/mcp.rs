//! Functions from MCP servers: our test server (`tests/mcp-server`) over stdio and over
//! streamable HTTP, configured in `parley.toml`, listed by `GET /v1/functions` and run
//! by the agent loop like built-ins — including a failing tool, a call cut by its
//! timeout and a call cancelled while it runs.

use std::process::Stdio;

use parley_tests::turns::prompt_id_of;
use parley_tests::{both_backends, mcp_test_bin};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use super::*;

/// The functions of the test server configured as `lab`.
const LAB: [&str; 4] = ["lab_count", "lab_echo", "lab_fail", "lab_wait"];

/// `[[mcp_servers]]` for the test server over stdio, calls bounded by `timeout_ms`.
fn stdio_server(timeout_ms: u64) -> String {
    format!(
        "[[mcp_servers]]\nname = \"lab\"\ncommand = {:?}\ntimeout_ms = {timeout_ms}\n",
        mcp_test_bin().display().to_string()
    )
}

/// An [`Agent`] whose tool offers every function of the `lab` server `config` names.
async fn lab_agent(backend: Backend, config: &str, worker: &str) -> Agent {
    agent(
        backend,
        Setup {
            functions: &LAB,
            config,
            worker,
            ..Setup::default()
        },
    )
    .await
}

/// The test server over streamable HTTP; killed on drop.
pub(super) struct HttpServer {
    _child: Child,
    pub(super) url: String,
}

/// The test server over streamable HTTP on a free port.
async fn http_server() -> HttpServer {
    http_server_on("127.0.0.1:0").await
}

/// The test server over streamable HTTP on `addr`.
pub(super) async fn http_server_on(addr: &str) -> HttpServer {
    let mut child = Command::new(mcp_test_bin())
        .args(["--http", addr])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("starting the test MCP server");
    let stdout = child.stdout.take().expect("its stdout");
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .expect("the MCP server did not say where it listens")
        .expect("reading its stdout")
        .expect("a line");
    let url = line
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_owned();
    HttpServer { _child: child, url }
}

both_backends!(
    an_mcp_servers_tools_are_listed_and_called_over_stdio,
    |backend: Backend| async move {
        let config = stdio_server(60_000);
        let agent = agent(
            backend,
            Setup {
                functions: &["lab_echo", "getCurrentTime"],
                config: &config,
                ..Setup::default()
            },
        )
        .await;
        let listed = agent
            .client
            .list_functions()
            .send()
            .await
            .assert_status(200);
        let names: Vec<&str> = listed.items.iter().map(|f| f.name.as_str()).collect();
        for name in LAB {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        let echo = listed.items.iter().find(|f| f.name == "lab_echo").unwrap();
        assert_eq!(echo.description, "Sends the text back.");
        assert_eq!(
            echo.parameters["properties"]["text"]["type"], "string",
            "the tool's input schema: {:?}",
            echo.parameters
        );

        let events = agent
            .turn(r#"[[mock tool_call='lab_echo:{"text": "hello from the lab"}']] echo it"#)
            .await;
        let done = of_type(&events, "tool_complete")[0];
        assert_eq!(done["tool"], "lab_echo");
        assert_eq!(done["state"], "success", "{done}");
        assert_eq!(done["output"], json!({"echo": "hello from the lab"}));
        let requests = agent.mock.requests();
        assert!(requests[0].tool_names().contains(&"lab_echo".to_owned()));
        assert_eq!(
            requests[1].tool_results(),
            [json!({"echo": "hello from the lab"}).to_string().as_str()]
        );
        let end = completed(&events);
        assert_eq!(end["payload"]["tool_history"][0]["tool_name"], "lab_echo");

        // Offering a function the deployment lacks is still refused.
        let admin = agent.app.admin_client();
        let tools = admin.admin_list_tools().send().await.assert_status(200);
        let code = admin
            .admin_update_tool()
            .id(tools.items[0].id)
            .body_map(|b| {
                b.definition(ToolDefinition {
                    functions: Some(vec!["lab_nothing".into()]),
                    ..api::definition("x")
                })
            })
            .send()
            .await
            .assert_problem(422);
        assert_eq!(code, "unknown_function");
    }
);

both_backends!(
    an_mcp_server_over_streamable_http_answers_and_fails_like_a_function,
    |backend: Backend| async move {
        let server = http_server().await;
        let config = format!(
            "[[mcp_servers]]\nname = \"lab\"\nurl = {:?}\nbearer_token = \"not-logged-0123456789\"\n",
            server.url
        );
        let agent = lab_agent(backend, &config, "").await;
        let events = agent
            .turn(
                r#"[[mock tool_call='lab_echo:{"text": "over http"}' tool_call='lab_fail:{}']] go"#,
            )
            .await;
        let done = of_type(&events, "tool_complete");
        assert_eq!(done.len(), 2, "{events:?}");
        let by_tool = |tool: &str| *done.iter().find(|d| d["tool"] == tool).unwrap();
        assert_eq!(by_tool("lab_echo")["state"], "success");
        assert_eq!(by_tool("lab_echo")["output"], json!({"echo": "over http"}));
        let failed = by_tool("lab_fail");
        assert_eq!(failed["state"], "error");
        assert_eq!(failed["output"]["error"], "it failed on purpose");
        // The model read both results and answered; the turn completed.
        assert_eq!(agent.mock.requests()[1].tool_results().len(), 2);
        completed(&events);
        assert!(
            !agent
                .app
                .full_server_log()
                .contains("not-logged-0123456789"),
            "the bearer token reached the log"
        );
    }
);

both_backends!(
    an_mcp_call_past_its_timeout_ends_canceled_and_the_model_is_told,
    |backend: Backend| async move {
        let config = stdio_server(300);
        let agent = lab_agent(backend, &config, "").await;
        let events = agent
            .turn(r#"[[mock tool_call='lab_wait:{"ms": 5000}']] wait"#)
            .await;
        let done = of_type(&events, "tool_complete")[0];
        assert_eq!(done["state"], "canceled", "{done}");
        let requests = agent.mock.requests();
        let told = requests[1].tool_results();
        assert!(told[0].contains("took too long"), "{told:?}");
        let end = completed(&events);
        assert_eq!(end["payload"]["tool_history"][0]["status"], "canceled");
        let states = agent
            .app
            .query_strings("SELECT state FROM tool_calls")
            .await;
        assert_eq!(states, ["canceled"]);
    }
);

both_backends!(
    a_cancel_while_an_mcp_call_runs_ends_the_call_and_the_turn,
    |backend: Backend| async move {
        let config = stdio_server(60_000);
        let agent = lab_agent(backend, &config, "").await;
        let session = agent.session_id.to_string();
        let mut feed = agent
            .app
            .stream_message(
                &agent.token,
                &session,
                r#"[[mock tool_call='lab_wait:{"ms": 20000, "steps": 40}']] wait long"#,
            )
            .await;
        assert_eq!(feed.status, 200);
        // Progress reports of the MCP server arrive as tool_progress events.
        let mut seen = Vec::new();
        while !seen.iter().any(|e: &SseEvent| e.event == "tool_progress") {
            seen.push(feed.next(WAIT).await.expect("the feed ended early"));
        }
        let progress = seen.last().unwrap();
        assert_eq!(progress.data["tool"], "lab_wait");
        assert_eq!(progress.data["index"], 0);
        let fraction = progress.data["progress"].as_f64().unwrap();
        assert!(fraction > 0.0 && fraction < 1.0, "{progress:?}");

        let prompt_id = uuid(&prompt_id_of(&seen));
        let cancelled_at = std::time::Instant::now();
        agent
            .client
            .cancel_prompt()
            .id(prompt_id)
            .send()
            .await
            .assert_status(202);
        let rest = feed.until_terminal(WAIT).await;
        assert!(
            cancelled_at.elapsed() < Duration::from_secs(10),
            "the call was not cut: the turn ended {:?} after the cancel",
            cancelled_at.elapsed()
        );
        let all: Vec<SseEvent> = seen.into_iter().chain(rest).collect();
        parley_tests::turns::assert_gap_free(&all);
        let done = of_type(&all, "tool_complete");
        assert_eq!(done.len(), 1, "{all:?}");
        assert_eq!(done[0]["state"], "canceled");
        assert_eq!(all.last().unwrap().event, "cancelled", "{all:?}");
        let states = agent
            .app
            .query_strings("SELECT state FROM tool_calls")
            .await;
        assert_eq!(states, ["canceled"]);
    }
);

both_backends!(
    an_async_call_is_acknowledged_at_once_and_finishes_in_its_own_job,
    |backend: Backend| async move {
        let config = format!("{}async_tools = [\"wait\"]\n", stdio_server(60_000));
        let agent = lab_agent(backend, &config, "event_retention_s = 1").await;
        let listed = agent
            .client
            .list_functions()
            .send()
            .await
            .assert_status(200);
        let wait = listed.items.iter().find(|f| f.name == "lab_wait").unwrap();
        assert_eq!(wait.mode.to_string(), "async");

        // The job ends while the turn still streams (each model call takes 1.5 s to
        // start): its tool_complete is on the feed, after the call was queued.
        let events = agent
            .turn(r#"[[mock tool_call='lab_wait:{"ms": 200}' first_token_delay_ms=1500]] wait"#)
            .await;
        let queued = of_type(&events, "tool_progress");
        assert_eq!(queued[0]["stage"], "queued", "{events:?}");
        let done = of_type(&events, "tool_complete");
        assert_eq!(done.len(), 1, "{events:?}");
        assert_eq!(done[0]["state"], "success");
        assert_eq!(done[0]["output"], json!({"content": "waited 200 ms"}));
        let requests = agent.mock.requests();
        let told = requests[1].tool_results();
        assert!(
            told[0].contains("accepted"),
            "the model is told at once: {told:?}"
        );

        // The job outlives the turn: the turn ends with the call still running, and the
        // row (and a rebuilt feed) get the result when it is done.
        let events = agent
            .turn(r#"[[mock tool_call='lab_wait:{"ms": 1500}']] wait longer"#)
            .await;
        assert!(of_type(&events, "tool_complete").is_empty(), "{events:?}");
        let end = completed(&events);
        assert_eq!(end["payload"]["tool_history"][0]["status"], "running");
        let prompt = events[0].data["prompt_id"].as_str().unwrap().to_owned();
        let deadline = std::time::Instant::now() + WAIT;
        let sql = format!(
            "SELECT state FROM tool_calls WHERE prompt_id = {}",
            agent.app.sql_uuid(&prompt)
        );
        loop {
            if agent.app.query_strings(&sql).await == ["success"] {
                break;
            }
            assert!(
                std::time::Instant::now() < deadline,
                "the call never finished"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let mut feed = agent.app.prompt_events(&agent.token, &prompt, None).await;
        let rebuilt = feed.until_terminal(WAIT).await;
        let done = of_type(&rebuilt, "tool_complete");
        assert_eq!(done.len(), 1, "{rebuilt:?}");
        assert_eq!(done[0]["output"], json!({"content": "waited 1500 ms"}));
        assert_eq!(of_type(&rebuilt, "tool_progress")[0]["stage"], "queued");
    }
);
