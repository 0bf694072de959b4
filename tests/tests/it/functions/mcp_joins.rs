//! MCP servers over streamable HTTP that are not there at start-up: one that is down
//! joins when it comes back — `GET /v1/functions` lists its tools, tool definitions may
//! name them, turns call them — without a restart; one on a loopback address is refused
//! (and not retried) under `outbound.deny_private_addresses`. That such a server is
//! reached by default is `an_mcp_server_over_streamable_http_answers_and_fails_like_a_function`.

use parley_tests::both_backends;
use serde_json::json;

use super::mcp::http_server_on;
use super::*;

/// `[[mcp_servers]]` for the test server as `lab` at `url`.
fn http_lab(url: &str) -> String {
    format!("[[mcp_servers]]\nname = \"lab\"\nurl = {url:?}\n")
}

/// An agent whose tool offers only `getCurrentTime` (a tool may not name a function the
/// deployment does not have yet).
async fn clock_agent(backend: Backend, config: &str, env: &[(&str, &str)]) -> Agent {
    let setup = Setup {
        functions: &["getCurrentTime"],
        config,
        ..Setup::default()
    };
    agent_with_env(backend, setup, env).await
}

async fn function_names(agent: &Agent) -> Vec<String> {
    let listed = agent
        .client
        .list_functions()
        .send()
        .await
        .assert_status(200);
    listed.items.iter().map(|f| f.name.clone()).collect()
}

/// Makes the agent's tool offer `functions`: its id, or the refusal's problem code.
async fn offer(agent: &Agent, functions: &[&str]) -> Result<Uuid, String> {
    let admin = agent.app.admin_client();
    let tools = admin.admin_list_tools().send().await.assert_status(200);
    let tool = tools
        .items
        .iter()
        .find(|t| t.name == "Agent")
        .expect("the agent's tool");
    let update = admin
        .admin_update_tool()
        .id(tool.id)
        .body_map(|b| {
            b.definition(ToolDefinition {
                functions: Some(functions.iter().map(|f| (*f).to_owned()).collect()),
                ..api::definition("Help with homework.")
            })
        })
        .send()
        .await;
    if update.is_ok() {
        Ok(tool.id)
    } else {
        Err(update.assert_problem(422))
    }
}

both_backends!(
    an_mcp_server_down_at_start_up_joins_when_it_comes_back,
    |backend: Backend| async move {
        // A free port nothing listens on (yet).
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let config = http_lab(&format!("http://127.0.0.1:{port}/mcp"));
        let info = [("PARLEY_LOG", "warn,parley_worker::functions::mcp=info")];
        let agent = clock_agent(backend, &config, &info).await;
        assert!(
            !function_names(&agent).await.iter().any(|n| n == "lab_echo"),
            "the server is down"
        );
        assert_eq!(
            offer(&agent, &["lab_echo"]).await.expect_err("not yet"),
            "unknown_function"
        );

        let _server = http_server_on(&format!("127.0.0.1:{port}")).await;
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while !function_names(&agent).await.iter().any(|n| n == "lab_echo") {
            assert!(
                std::time::Instant::now() < deadline,
                "the server never joined: {}",
                agent.app.server_log()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let log = agent.app.full_server_log();
        let joined = log.lines().find(|l| l.contains("an MCP server joined"));
        assert!(
            joined.is_some_and(|l| l.contains("INFO")
                && l.contains("lab")
                && l.contains("functions=4")),
            "the join is logged at info: {log}"
        );

        // Tool definitions may name its functions now, and turns call them.
        let tool_id = offer(&agent, &["lab_echo", "getCurrentTime"])
            .await
            .expect("the joined function is known");
        let session = api::session(&agent.client, tool_id).await;
        let mut feed = agent
            .app
            .stream_message(
                &agent.token,
                &session.id.to_string(),
                r#"[[mock tool_call='lab_echo:{"text": "back again"}']] echo it"#,
            )
            .await;
        assert_eq!(feed.status, 200);
        let events = feed.until_terminal(WAIT).await;
        let done = of_type(&events, "tool_complete");
        assert_eq!(done.len(), 1, "{events:?}");
        assert_eq!(done[0]["tool"], "lab_echo");
        assert_eq!(done[0]["state"], "success", "{}", done[0]);
        assert_eq!(done[0]["output"], json!({"echo": "back again"}));
        completed(&events);
    }
);

both_backends!(
    denying_private_addresses_keeps_an_mcp_server_on_loopback_out,
    |backend: Backend| async move {
        let server = http_server_on("127.0.0.1:0").await;
        let deny = [("PARLEY_OUTBOUND__DENY_PRIVATE_ADDRESSES", "true")];
        let agent = clock_agent(backend, &http_lab(&server.url), &deny).await;
        let names = function_names(&agent).await;
        assert!(!names.iter().any(|n| n.starts_with("lab_")), "{names:?}");
        assert!(names.iter().any(|n| n == "getCurrentTime"), "{names:?}");
        let log = agent.app.full_server_log();
        assert!(
            log.contains("127.0.0.1 is not a public address"),
            "the log says why: {}",
            agent.app.server_log()
        );
        // A refusal is not retried: nothing would change the answer.
        assert!(!log.contains("retrying in the background"), "{log}");
    }
);
