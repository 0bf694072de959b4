use parley_protocol::config::SessionConfig;
use parley_service::{
    outbound::OutboundPolicy,
    payloads::{PayloadRegistry, PayloadSource, PayloadType},
};
use uuid::Uuid;

use super::*;
use crate::functions::conformance::{Example, Expect, Harness, conformance_suite};

/// The in-tree test server (`tests/mcp-server`: echo, wait, fail, count) over
/// streamable HTTP on a port of its own, in-process; `echo`'s results are payloads.
struct TestServer;

#[async_trait]
impl Harness for TestServer {
    async fn setup(&self) -> (Vec<Arc<dyn Function>>, CallContext) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let addr = listener.local_addr().expect("its address");
        tokio::spawn(parley_mcp_test::serve_http(listener));
        let outbound = Outbound::new(OutboundPolicy::default()).expect("an HTTP client");
        let config = McpServerConfig {
            name: "lab".into(),
            transport: McpTransport::Http {
                url: format!("http://{addr}/mcp"),
                bearer_token: None,
                outbound,
            },
            permissions: vec!["lab:use".into()],
            timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(5),
            payload_types: [("echo".to_owned(), "echoed".to_owned())].into(),
            async_tools: Vec::new(),
            approval_tools: Vec::new(),
        };
        let functions = functions(config).await.expect("the test server answers");
        let context = CallContext {
            db: sea_orm::DatabaseConnection::default(),
            user_id: Uuid::now_v7(),
            session_id: Uuid::now_v7(),
            prompt_id: Uuid::now_v7(),
            call_id: Uuid::now_v7(),
            session_config: SessionConfig::default(),
        };
        (functions, context)
    }

    fn examples(&self) -> Vec<Example> {
        use Expect::*;
        vec![
            Example::new("lab_echo", json!({"text": "hello"}), Answer),
            Example::new("lab_echo", json!({"text": 5}), Refused),
            Example::new("lab_echo", json!({}), Refused),
            Example::new("lab_wait", json!({"ms": 20, "steps": 2}), Answer),
            Example::new("lab_wait", json!({"ms": "soon"}), Refused),
            Example::new("lab_fail", json!({}), Failed),
            Example::new("lab_count", json!({}), Answer),
        ]
    }

    fn payloads(&self) -> PayloadRegistry {
        PayloadRegistry::builtin_and([PayloadType {
            name: "echoed".into(),
            description: "What the server sent back.".into(),
            source: PayloadSource::Tool,
            schema: json!({
                "type": "object",
                "properties": {"echo": {"type": "string"}},
                "required": ["echo"]
            }),
            llm_instructions: String::new(),
            frontend_config: None,
        }])
        .expect("valid payload types")
    }
}

conformance_suite!(TestServer);

#[test]
fn function_names_are_what_providers_accept() {
    assert!(valid_name("files_read-file"));
    assert!(!valid_name("files_read.file"));
    assert!(!valid_name(""));
    assert!(!valid_name(&"a".repeat(65)));
}
