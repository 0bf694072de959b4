//! `parley-mcp-test`: an MCP server for Parley's tests, over stdio ([`serve_stdio`]) or
//! streamable HTTP ([`serve_http`], at `/mcp`). The binary serves stdio by default and
//! HTTP with `--http ADDR`; the worker's function conformance suite runs the library
//! in-process.
//!
//! Its tools, each with a JSON schema derived from its arguments:
//! * `echo {text}` — answers `text` (and `{"echo": text}` as structured content);
//! * `wait {ms, steps?}` — waits `ms` milliseconds, reporting progress `steps` times
//!   (default 4) when the caller gave a progress token: a slow call, for timeouts and
//!   cancels;
//! * `fail {}` — an error result (`isError`), as a failing tool answers;
//! * `count {}` — how many calls this server has run (all tools), a side effect a
//!   test can count.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};
use std::time::Duration;

use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler, ServiceExt,
    handler::server::wrapper::Parameters,
    model::{
        CallToolResult, ContentBlock, Implementation, ProgressNotificationParam,
        ServerCapabilities, ServerConfig,
    },
    schemars,
    service::RequestContext,
    tool, tool_handler, tool_router,
};
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct WaitArgs {
    /// How long to wait, in milliseconds.
    ms: u64,
    /// How many progress reports to send while waiting.
    steps: Option<u32>,
}

/// The server: its tools, and the count of calls they ran (shared by every session).
#[derive(Clone)]
pub struct TestServer {
    calls: Arc<AtomicU64>,
}

#[tool_router]
impl TestServer {
    pub fn new(calls: Arc<AtomicU64>) -> Self {
        Self { calls }
    }

    fn called(&self) -> u64 {
        self.calls.fetch_add(1, Ordering::SeqCst) + 1
    }

    #[tool(description = "Sends the text back.")]
    async fn echo(
        &self,
        Parameters(EchoArgs { text }): Parameters<EchoArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.called();
        let mut result = CallToolResult::success(vec![ContentBlock::text(text.clone())]);
        result.structured_content = Some(json!({ "echo": text }));
        Ok(result)
    }

    #[tool(description = "Waits `ms` milliseconds, reporting progress along the way.")]
    async fn wait(
        &self,
        Parameters(WaitArgs { ms, steps }): Parameters<WaitArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        self.called();
        let steps = steps.unwrap_or(4).max(1);
        let token = ctx.meta.get_progress_token();
        for step in 1..=steps {
            tokio::time::sleep(Duration::from_millis(ms / u64::from(steps))).await;
            if let Some(token) = &token {
                let param = ProgressNotificationParam::new(token.clone(), f64::from(step))
                    .with_total(f64::from(steps))
                    .with_message(format!("step {step} of {steps}"));
                let _ = ctx.peer.notify_progress(param).await;
            }
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(format!(
            "waited {ms} ms"
        ))]))
    }

    #[tool(description = "Always fails.")]
    async fn fail(&self) -> Result<CallToolResult, McpError> {
        self.called();
        Ok(CallToolResult::error(vec![ContentBlock::text(
            "it failed on purpose",
        )]))
    }

    #[tool(description = "How many calls this server has run.")]
    async fn count(&self) -> Result<CallToolResult, McpError> {
        let calls = self.called();
        Ok(CallToolResult::success(vec![ContentBlock::text(
            calls.to_string(),
        )]))
    }
}

#[tool_handler]
impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_server_info(
            Implementation::new("parley-mcp-test", env!("CARGO_PKG_VERSION")),
        )
    }
}

/// Serves MCP on stdin/stdout until the client leaves.
pub async fn serve_stdio() -> anyhow::Result<()> {
    let calls = Arc::new(AtomicU64::new(0));
    let service = TestServer::new(calls)
        .serve(rmcp::transport::stdio())
        .await?;
    service.waiting().await?;
    Ok(())
}

/// Serves streamable HTTP at `/mcp` on `listener`, one session per client, until the
/// task is dropped.
pub async fn serve_http(listener: tokio::net::TcpListener) -> anyhow::Result<()> {
    use hyper_util::{
        rt::{TokioExecutor, TokioIo},
        server::conn::auto::Builder,
        service::TowerToHyperService,
    };
    use rmcp::transport::streamable_http_server::{
        StreamableHttpService, session::local::LocalSessionManager,
    };

    let calls = Arc::new(AtomicU64::new(0));
    let service = TowerToHyperService::new(StreamableHttpService::new(
        move || Ok(TestServer::new(calls.clone())),
        LocalSessionManager::default().into(),
        Default::default(),
    ));
    loop {
        let (stream, _) = listener.accept().await?;
        let service = service.clone();
        tokio::spawn(async move {
            let _ = Builder::new(TokioExecutor::default())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
