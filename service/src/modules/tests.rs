use std::time::Duration;

use async_trait::async_trait;
use parley_entity::enums::ModuleOutcome;
use parley_protocol::error::ErrorCode;
use parley_protocol::hooks::{
    ConversationContext, Hook, HookContext, HookResult, Modifications, RequestContext,
    ScopeContext, SessionContext, ToolContext, UserContext,
};
use serde_json::{Value, json};
use uuid::Uuid;

use super::{runner, *};

/// A module for tests: appends its name to the message, or sleeps, fails or blocks.
struct Scripted {
    behaviour: &'static str,
}

#[async_trait]
impl Module for Scripted {
    fn check_config(&self, _: &Value) -> Result<(), ConfigError> {
        Ok(())
    }

    async fn run(&self, ctx: &HookContext) -> Result<HookResult, ModuleError> {
        let current = ctx.conversation.current_message.as_ref().unwrap();
        match self.behaviour {
            "slow" => {
                tokio::time::sleep(Duration::from_secs(5)).await;
                Ok(HookResult::proceed())
            }
            "fail" => Err(ModuleError::Failed("boom".into())),
            "block" => Ok(HookResult::block("test", "r".into(), "no".into())),
            tag => Ok(HookResult {
                modifications: Some(Modifications {
                    message_content: Some(format!("{}+{tag}", current.content)),
                    system_prompt_additions: vec![format!("from {tag}")],
                    ..Modifications::default()
                }),
                ..HookResult::default()
            }),
        }
    }
}

fn enabled(name: &str, priority: u8, fail_closed: bool, behaviour: &'static str) -> Enabled {
    Enabled {
        registered: Arc::new(Registered {
            name: name.into(),
            kind: ModuleKind::Webhook,
            priority,
            fail_closed,
            timeout: Duration::from_millis(100),
            hooks: vec![Hook::BeforeAi],
            config: json!({}),
            module: Arc::new(Scripted { behaviour }),
        }),
        config: json!({}),
    }
}

fn context(text: &str) -> HookContext {
    HookContext {
        request: RequestContext {
            request_id: Uuid::now_v7(),
            hook: Hook::BeforeAi,
            timestamp: chrono::Utc::now(),
            prompt_id: None,
        },
        user: UserContext {
            id: Uuid::nil(),
            email: "a@b.c".into(),
            name: "A".into(),
            role: "student".into(),
        },
        scope: ScopeContext::default(),
        tool: ToolContext {
            id: Uuid::nil(),
            name: "t".into(),
            kind: "chat".into(),
            definition: Default::default(),
        },
        session: SessionContext {
            id: Uuid::nil(),
            state: "active".into(),
            started_at: chrono::Utc::now(),
            message_count: 0,
            end_reason: None,
        },
        conversation: ConversationContext {
            messages: Vec::new(),
            current_message: Some(context::current(text)),
        },
        response: None,
        config: json!({}),
    }
}

#[tokio::test]
async fn modules_rewrite_in_turn_and_each_sees_the_last_rewrite() {
    let modules = [enabled("a", 20, false, "a"), enabled("b", 30, false, "b")];
    let outcome = runner::run_blocking(&modules, context("hi")).await;
    assert_eq!(outcome.message.as_deref(), Some("hi+a+b"));
    assert_eq!(outcome.additions, ["from a", "from b"]);
    assert_eq!(outcome.audits.len(), 2);
    assert_eq!(outcome.audits[0].original_content, "hi");
    assert_eq!(outcome.audits[1].original_content, "hi+a");
    assert!(
        outcome
            .events
            .iter()
            .all(|e| e.outcome == ModuleOutcome::Modify)
    );
}

#[tokio::test]
async fn a_slow_or_failing_module_is_skipped_unless_fail_closed() {
    let modules = [
        enabled("slow", 10, false, "slow"),
        enabled("broken", 20, false, "fail"),
        enabled("x", 30, false, "x"),
    ];
    let outcome = runner::run_blocking(&modules, context("hi")).await;
    assert!(outcome.blocked.is_none());
    assert_eq!(outcome.message.as_deref(), Some("hi+x"));
    let outcomes: Vec<_> = outcome.events.iter().map(|e| e.outcome).collect();
    assert_eq!(
        outcomes,
        [
            ModuleOutcome::Timeout,
            ModuleOutcome::Error,
            ModuleOutcome::Modify
        ]
    );

    let modules = [
        enabled("guard", 5, true, "fail"),
        enabled("x", 30, false, "x"),
    ];
    let outcome = runner::run_blocking(&modules, context("hi")).await;
    let blocked = outcome
        .blocked
        .expect("a failing fail-closed module blocks");
    assert_eq!(blocked.category, runner::FAILURE_CATEGORY);
    assert_eq!(outcome.events.len(), 1, "nothing runs after a block");
}

#[tokio::test]
async fn a_block_stops_the_hook_with_the_direct_response() {
    let modules = [
        enabled("a", 20, false, "a"),
        enabled("stop", 50, false, "block"),
    ];
    let outcome = runner::run_blocking(&modules, context("hi")).await;
    let blocked = outcome.blocked.unwrap();
    assert_eq!(
        (blocked.module.as_str(), blocked.category.as_str()),
        ("stop", "test")
    );
    assert_eq!(blocked.direct_response, "no");
    assert_eq!(outcome.events.last().unwrap().outcome, ModuleOutcome::Block);
}

#[test]
fn enabled_modules_run_in_priority_order_then_by_name_with_merged_config() {
    let catalog = ModuleCatalog::builtin();
    let config = json!({"modules": [
        {"name": "analytics"},
        {"name": "pii_redactor", "config": {"types": ["email"]}},
        {"name": "safety_filter"},
        {"name": "gone"},
    ]});
    let config = serde_json::from_value(config).expect("a stored config");
    let enabled = catalog.enabled(&config);
    let names: Vec<_> = enabled.iter().map(Enabled::name).collect();
    assert_eq!(names, ["safety_filter", "pii_redactor", "analytics"]);
    assert_eq!(enabled[1].config, json!({"types": ["email"]}));
}

#[test]
fn tool_definitions_are_checked_against_the_catalog() {
    let catalog = ModuleCatalog::builtin();
    let ok = [("pii_redactor".to_owned(), Some(json!({"types": ["email"]})))];
    assert!(catalog.check_tool(&ok).is_ok());
    let unknown = [("nope".to_owned(), None)];
    let err = catalog.check_tool(&unknown).unwrap_err();
    assert_eq!(err.code(), ErrorCode::UnknownModule);
    assert!(err.to_string().contains("no module named `nope`"), "{err}");
    let twice = [
        ("analytics".to_owned(), None),
        ("analytics".to_owned(), None),
    ];
    let err = catalog.check_tool(&twice).unwrap_err();
    assert_eq!(err.code(), ErrorCode::UnknownModule);
    assert!(err.to_string().contains("twice"), "{err}");
    let bad = [("pii_redactor".to_owned(), Some(json!({"types": ["dna"]})))];
    let err = catalog.check_tool(&bad).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidModuleConfig);
    assert!(err.to_string().contains("dna"), "{err}");
}

#[test]
fn configured_modules_are_validated() {
    let http = crate::outbound::Outbound::new(Default::default()).unwrap();
    let mut hook = ModuleSettings::builtin("ops", ModuleKind::Webhook);
    let err = ModuleCatalog::new(vec![hook.clone()], http.clone()).unwrap_err();
    assert!(
        matches!(err.problem, SettingsError::Missing("url")),
        "{err}"
    );
    assert_eq!(err.to_string(), "`ops`: a webhook needs `url`");
    hook.url = Some("http://127.0.0.1:9/hook".into());
    hook.secret = Some("0123456789abcdef".into());
    hook.priority = Some(100);
    let err = ModuleCatalog::new(vec![hook.clone()], http.clone()).unwrap_err();
    assert!(matches!(err.problem, SettingsError::Priority), "{err}");
    hook.priority = Some(3);
    let catalog = ModuleCatalog::new(vec![hook], http).unwrap();
    let ops = catalog.get("ops").unwrap();
    assert_eq!((ops.priority, ops.fail_closed), (3, false));
    assert!(catalog.get("safety_filter").unwrap().fail_closed);
}
