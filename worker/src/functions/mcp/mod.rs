//! Functions from MCP servers (the Model Context Protocol, through the `rmcp` crate).
//!
//! Each server configured in `parley.toml` (`[[mcp_servers]]`) is reached over stdio (a
//! child process: `command`, `args`, `env`) or streamable HTTP (`url`, an optional bearer
//! token). At start-up Parley connects, lists the server's tools and registers each as
//! a function named `<server>_<tool>`, with the tool's description and input schema, the
//! server's permissions and timeout. A call is a `tools/call` request:
//!
//! * progress notifications of the call become `tool_progress` events;
//! * an `isError` result is a failed call, its text fed back to the model;
//! * the structured content is the result when there is one, else `{"content": text}`;
//! * a call cut by its timeout or by a cancel sends `notifications/cancelled` to the
//!   server (the turn's runner ends the call `canceled`);
//! * a connection that broke is reopened on the next call.
//!
//! A server that cannot be reached at start-up does not stay out: [`join`] retries it
//! in the background and its tools join the process's registry when it answers.
//!
//! Over HTTP the requests go through Parley's outbound client
//! (`parley_service::outbound`): redirects only on the URL's own origin, and with
//! `outbound.deny_private_addresses` only public addresses. Secrets (`env` values, the
//! bearer token) are never logged.

pub mod join;

use std::{
    collections::{BTreeMap, HashMap},
    sync::{Arc, Mutex},
    time::Duration,
};

use async_trait::async_trait;
use parley_service::{
    FunctionSpec,
    functions::Mode,
    outbound::{Outbound, describe},
};
use rmcp::{
    ClientHandler, ServiceExt,
    model::{
        CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
        ClientCapabilities, ClientConfig, ClientRequest, Implementation, ProgressNotificationParam,
        ProgressToken, RequestId, ServerResult,
    },
    service::{NotificationContext, Peer, RoleClient, RunningService},
    transport::{
        StreamableHttpClientTransport, TokioChildProcess,
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};
use tokio::sync::Mutex as AsyncMutex;

use super::{CallContext, Function, FunctionError, Progress};

/// How to reach one MCP server.
#[derive(Debug, Clone)]
pub enum McpTransport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, SecretString>,
    },
    /// A streamable HTTP endpoint, reached through `outbound`.
    Http {
        url: String,
        bearer_token: Option<SecretString>,
        outbound: Outbound,
    },
}

/// One configured MCP server.
#[derive(Debug, Clone)]
pub struct McpServerConfig {
    /// Its functions are named `<name>_<tool>`.
    pub name: String,
    pub transport: McpTransport,
    /// The permissions a caller needs for any of its functions.
    pub permissions: Vec<String>,
    /// How long one call may take.
    pub timeout: Duration,
    /// How long connecting (and listing the tools) may take.
    pub connect_timeout: Duration,
    /// The payload types of tools' results, by tool name.
    pub payload_types: BTreeMap<String, String>,
    /// The tools that run asynchronously.
    pub async_tools: Vec<String>,
    /// The tools whose every call waits for the session's owner to approve it.
    pub approval_tools: Vec<String>,
}

/// Why a server's functions could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// It did not answer (or not well): worth trying again later.
    #[error("MCP server `{server}`: {message}")]
    Connect { server: String, message: String },
    /// Its URL is one Parley may not reach (`outbound.deny_private_addresses` and an IP
    /// literal, or not an http(s) URL): trying again cannot help.
    #[error("MCP server `{server}`: {message}")]
    Refused { server: String, message: String },
}

impl McpError {
    /// Whether a later attempt may succeed.
    pub fn is_transient(&self) -> bool {
        matches!(self, Self::Connect { .. })
    }
}

/// Why a connection did not open.
#[derive(Debug, thiserror::Error)]
enum OpenError {
    /// The URL is refused before any connection.
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Failed(String),
}

/// Routes a server's progress notifications to the calls waiting for them.
#[derive(Clone, Default)]
struct Handler {
    progress: Arc<Mutex<HashMap<ProgressToken, Progress>>>,
}

impl ClientHandler for Handler {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let progress = self
            .progress
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(&params.progress_token)
            .cloned();
        if let Some(progress) = progress {
            let fraction = match params.total {
                Some(total) if total > 0.0 => params.progress / total,
                _ => 0.0,
            };
            progress.report(
                "running",
                params.message.unwrap_or_default(),
                fraction,
                None,
            );
        }
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("parley", env!("CARGO_PKG_VERSION")),
        )
    }
}

type Session = RunningService<RoleClient, Handler>;

/// A connection to one server, reopened when it broke.
struct Connection {
    config: McpServerConfig,
    handler: Handler,
    session: AsyncMutex<Option<Arc<Session>>>,
}

impl Connection {
    async fn open(config: &McpServerConfig, handler: Handler) -> Result<Session, OpenError> {
        let initializing = |err: rmcp::service::ClientInitializeError| {
            OpenError::Failed(format!("initializing: {}", describe(&err)))
        };
        let connecting = async {
            match &config.transport {
                McpTransport::Stdio { command, args, env } => {
                    let mut cmd = tokio::process::Command::new(command);
                    cmd.args(args)
                        .envs(env.iter().map(|(k, v)| (k, v.expose_secret())))
                        .stderr(std::process::Stdio::inherit());
                    let transport = TokioChildProcess::new(cmd)
                        .map_err(|err| OpenError::Failed(format!("starting `{command}`: {err}")))?;
                    handler.serve(transport).await.map_err(initializing)
                }
                McpTransport::Http {
                    url,
                    bearer_token,
                    outbound,
                } => {
                    // Every request of the session goes to this URL (or a redirect on its
                    // origin, which the outbound client checks): checked once here.
                    let parsed = reqwest::Url::parse(url)
                        .map_err(|err| OpenError::Refused(format!("`url`: {err}")))?;
                    outbound
                        .check_url(&parsed)
                        .map_err(|err| OpenError::Refused(err.to_string()))?;
                    let mut transport_config =
                        StreamableHttpClientTransportConfig::with_uri(url.as_str());
                    if let Some(token) = bearer_token {
                        transport_config = transport_config.auth_header(token.expose_secret());
                    }
                    let transport = StreamableHttpClientTransport::with_client(
                        outbound.client().clone(),
                        transport_config,
                    );
                    handler.serve(transport).await.map_err(initializing)
                }
            }
        };
        tokio::time::timeout(config.connect_timeout, connecting)
            .await
            .map_err(|_| {
                OpenError::Failed(format!("no answer within {:?}", config.connect_timeout))
            })?
    }

    /// The open session, opened again when the last one closed.
    async fn session(&self) -> Result<Arc<Session>, OpenError> {
        let mut current = self.session.lock().await;
        if let Some(session) = current.as_ref()
            && !session.is_transport_closed()
        {
            return Ok(session.clone());
        }
        tracing::info!(server = %self.config.name, "connecting to the MCP server");
        let session = Arc::new(Self::open(&self.config, self.handler.clone()).await?);
        *current = Some(session.clone());
        Ok(session)
    }
}

/// Connects to `config`'s server and returns its tools as functions.
#[tracing::instrument(skip_all, fields(server = %config.name))]
pub async fn functions(config: McpServerConfig) -> Result<Vec<Arc<dyn Function>>, McpError> {
    let fail = |message: String| McpError::Connect {
        server: config.name.clone(),
        message,
    };
    let handler = Handler::default();
    let session = Connection::open(&config, handler.clone())
        .await
        .map_err(|err| match err {
            OpenError::Refused(message) => McpError::Refused {
                server: config.name.clone(),
                message,
            },
            OpenError::Failed(message) => fail(message),
        })?;
    let tools = tokio::time::timeout(config.connect_timeout, session.list_all_tools())
        .await
        .map_err(|_| {
            fail(format!(
                "listing tools took over {:?}",
                config.connect_timeout
            ))
        })?
        .map_err(|err| fail(format!("listing tools: {err}")))?;
    let connection = Arc::new(Connection {
        config: config.clone(),
        handler,
        session: AsyncMutex::new(Some(Arc::new(session))),
    });
    let mut functions: Vec<Arc<dyn Function>> = Vec::new();
    for tool in tools {
        let name = format!("{}_{}", config.name, tool.name);
        if !valid_name(&name) {
            tracing::warn!(tool = %tool.name, "skipping an MCP tool whose name is not a function name ([A-Za-z0-9_-], at most 64)");
            continue;
        }
        let parameters = Value::Object((*tool.input_schema).clone());
        if let Err(err) = jsonschema::validator_for(&parameters) {
            tracing::warn!(tool = %tool.name, error = %err, "skipping an MCP tool whose input schema does not compile");
            continue;
        }
        let spec = FunctionSpec {
            name,
            description: tool
                .description
                .as_deref()
                .unwrap_or("A function of an MCP server.")
                .to_owned(),
            parameters,
            permissions: config.permissions.clone(),
            mode: if config.async_tools.iter().any(|t| *t == tool.name) {
                Mode::Async
            } else {
                Mode::Sync
            },
            timeout: config.timeout,
            payload_type: config.payload_types.get(tool.name.as_ref()).cloned(),
            requires_approval: config.approval_tools.iter().any(|t| *t == tool.name),
        };
        functions.push(Arc::new(McpFunction {
            spec,
            tool: tool.name.to_string(),
            connection: connection.clone(),
        }));
    }
    tracing::info!(functions = functions.len(), "loaded the MCP server's tools");
    Ok(functions)
}

/// What providers accept as a function name.
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// One tool of an MCP server.
struct McpFunction {
    spec: FunctionSpec,
    tool: String,
    connection: Arc<Connection>,
}

/// Tells the server a request's result is no longer wanted, unless disarmed, and stops
/// routing its progress.
struct CallGuard {
    peer: Peer<RoleClient>,
    id: RequestId,
    token: ProgressToken,
    progress: Arc<Mutex<HashMap<ProgressToken, Progress>>>,
    armed: bool,
}

impl Drop for CallGuard {
    fn drop(&mut self) {
        self.progress
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(&self.token);
        if self.armed {
            let peer = self.peer.clone();
            let param = CancelledNotificationParam::new(
                Some(self.id.clone()),
                Some("the call was cancelled".into()),
            );
            tokio::spawn(async move {
                let _ = peer
                    .send_notification(CancelledNotification::new(param).into())
                    .await;
            });
        }
    }
}

#[async_trait]
impl Function for McpFunction {
    fn spec(&self) -> &FunctionSpec {
        &self.spec
    }

    async fn call(
        &self,
        _ctx: &CallContext,
        args: Value,
        progress: &Progress,
    ) -> Result<Value, FunctionError> {
        let server = &self.connection.config.name;
        let unreachable = |err: &dyn std::fmt::Display| {
            tracing::warn!(server = %server, tool = %self.tool, error = %err, "an MCP call failed");
            FunctionError::Failed(format!("the MCP server `{server}` could not be reached"))
        };
        let session = self
            .connection
            .session()
            .await
            .map_err(|err| unreachable(&err))?;
        let Value::Object(arguments) = args else {
            return Err(FunctionError::Invalid(
                "the arguments must be an object".into(),
            ));
        };
        let params = CallToolRequestParams::new(self.tool.clone()).with_arguments(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let peer = session.peer().clone();
        let handle = peer
            .send_request_with_option(request, Default::default())
            .await
            .map_err(|err| unreachable(&err))?;
        let progress_map = self.connection.handler.progress.clone();
        progress_map
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(handle.progress_token.clone(), progress.clone());
        let mut guard = CallGuard {
            peer,
            id: handle.id.clone(),
            token: handle.progress_token.clone(),
            progress: progress_map,
            armed: true,
        };
        let response = handle.await_response().await;
        guard.armed = false;
        drop(guard);
        match response.map_err(|err| unreachable(&err))? {
            ServerResult::CallToolResult(result) => {
                let text: Vec<&str> = result
                    .content
                    .iter()
                    .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
                    .collect();
                let text = text.join("\n");
                if result.is_error == Some(true) {
                    let message = if text.is_empty() {
                        "the MCP tool failed".to_owned()
                    } else {
                        text
                    };
                    return Err(FunctionError::Failed(message));
                }
                Ok(match result.structured_content {
                    Some(structured) => structured,
                    None => json!({ "content": text }),
                })
            }
            other => Err(unreachable(&format!("unexpected answer: {other:?}"))),
        }
    }
}

#[cfg(test)]
mod tests;
