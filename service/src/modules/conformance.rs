//! The module conformance suite: what the catalog, the hook runner ([`super::runner`])
//! and tool definitions rely on from every [`Module`](super::Module), run against each
//! kind through its [`Harness`] (the PII redactor, the safety filter and analytics
//! in-process; the webhook against a receiver on a local port). A new kind adds a
//! harness and `conformance_suite!(its_harness)` beside its tests.
//!
//! Every module:
//! * is built by the catalog from its kind's default settings (`config` `{}`), which
//!   `check_config` accepts, and runs at its kind's default hooks;
//! * refuses settings of the wrong type — not an object, and the harness's examples —
//!   with a [`ConfigError`] that names the problem (the key at fault), whether they are
//!   the deployment's (a [`CatalogError`](super::CatalogError)), a tool's override (a
//!   [`ToolModulesError`](super::ToolModulesError) with the code
//!   `invalid_module_config`) or reach a run (a [`ModuleError::Config`], not a guess);
//! * passes what is not its business through unchanged: a plain message at every hook,
//!   and what it would act on at the session hooks, where there is no message;
//! * does what it declares at each hook it declares: every hook it runs at has an example
//!   of what it does there, and every example is at a hook it runs at;
//! * gives well-formed outcomes: a block with its category, reason and direct response
//!   and no changes; a change to the message at `chat:before_ai` only and to the answer
//!   at `chat:after_ai` only, that changes something; findings with a kind and an
//!   object; a result that survives the webhook wire format (JSON) unchanged; the same
//!   result when run again.

use parley_protocol::error::ErrorCode;
use std::sync::Arc;

use parley_protocol::hooks::{
    ConversationContext, Hook, HookAction, HookContext, HookResult, RequestContext, ScopeContext,
    SessionContext, ToolContext, UserContext,
};
use serde_json::{Value, json};
use uuid::Uuid;

use super::{
    ConfigError, Enabled, ModuleCatalog, ModuleError, ModuleSettings, Registered, SettingsError,
    ToolModulesError, context, runner,
};
use crate::outbound::{Outbound, OutboundPolicy};

/// What a module must do with an [`Example`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Stop the turn.
    Block,
    /// Rewrite the message (`chat:before_ai`) or replace the answer (`chat:after_ai`).
    Modify,
    /// Change nothing, and report a finding of this kind.
    Observe(&'static str),
}

/// A message (and at `chat:after_ai` an answer) a module acts on, at one hook.
#[derive(Debug, Clone)]
pub struct Example {
    pub hook: Hook,
    pub message: &'static str,
    pub response: Option<&'static str>,
    pub expect: Expect,
}

impl Example {
    pub fn new(hook: Hook, message: &'static str, expect: Expect) -> Self {
        Self {
            hook,
            message,
            response: None,
            expect,
        }
    }

    /// At `chat:after_ai`, over `response`.
    pub fn answer(message: &'static str, response: &'static str, expect: Expect) -> Self {
        Self {
            hook: Hook::AfterAi,
            message,
            response: Some(response),
            expect,
        }
    }
}

/// How the suite reaches one module kind.
#[async_trait::async_trait]
pub trait Harness: Send + Sync {
    /// The module as `parley.toml` would define it with default settings (and what its
    /// kind needs besides: a webhook's URL and secret).
    async fn settings(&self) -> ModuleSettings;

    /// Settings it must refuse besides those that are not an object, each with the key
    /// its error must name (none for a kind that takes any object).
    fn refused(&self) -> Vec<(Value, &'static str)>;

    /// What it does, at each hook it runs at by default.
    fn examples(&self) -> Vec<Example>;
}

/// A message no module has any business with.
const PLAIN_MESSAGE: &str = "Can you explain how plants turn sunlight into food?";
const PLAIN_ANSWER: &str = "Plants use light, water and carbon dioxide to make sugar.";

/// The module, registered by a catalog of the deployment.
async fn registered(harness: &dyn Harness) -> Arc<Registered> {
    let settings = harness.settings().await;
    let name = settings.name.clone();
    let http = Outbound::new(OutboundPolicy::default()).expect("an HTTP client");
    let catalog = ModuleCatalog::new(vec![settings], http)
        .unwrap_or_else(|err| panic!("the default settings are accepted: {err}"));
    catalog.get(&name).expect("the module").clone()
}

fn enabled(registered: &Arc<Registered>) -> Enabled {
    Enabled {
        registered: registered.clone(),
        config: registered.config.clone(),
    }
}

/// The context of a run at `hook`: a message at the chat hooks (and the answer at
/// `chat:after_ai`), none at the session hooks (as [`context::build`] gives them).
fn hook_context(hook: Hook, message: &str, response: Option<&str>, config: &Value) -> HookContext {
    let chat = !matches!(hook, Hook::SessionStart | Hook::SessionEnd);
    HookContext {
        request: RequestContext {
            request_id: Uuid::now_v7(),
            hook,
            timestamp: chrono::Utc::now(),
            prompt_id: chat.then(Uuid::now_v7),
        },
        user: UserContext {
            id: Uuid::now_v7(),
            email: "student@example.com".into(),
            name: "Sam".into(),
            role: "student".into(),
        },
        scope: ScopeContext::default(),
        tool: ToolContext {
            id: Uuid::now_v7(),
            name: "Tutor".into(),
            kind: "chat".into(),
            definition: Default::default(),
        },
        session: SessionContext {
            id: Uuid::now_v7(),
            state: "active".into(),
            started_at: chrono::Utc::now(),
            message_count: 2,
            end_reason: (hook == Hook::SessionEnd).then(|| "completed_by_user".into()),
        },
        conversation: ConversationContext {
            messages: Vec::new(),
            current_message: chat.then(|| context::current(message)),
        },
        response: response
            .filter(|_| hook == Hook::AfterAi)
            .map(str::to_owned),
        config: config.clone(),
    }
}

/// The result of one run, which must not fail.
async fn run(registered: &Registered, ctx: &HookContext) -> HookResult {
    registered
        .module
        .run(ctx)
        .await
        .unwrap_or_else(|err| panic!("`{}` runs: {err}", registered.name))
}

fn unchanged(result: &HookResult) -> bool {
    result.action == HookAction::Continue
        && result.direct_response.is_none()
        && result.modifications.as_ref().is_none_or(|m| {
            m.message_content.is_none()
                && m.response_content.is_none()
                && m.system_prompt_additions.is_empty()
        })
}

pub async fn accepts_its_default_settings(harness: &dyn Harness) {
    let settings = harness.settings().await;
    assert_eq!(settings.config, json!({}), "the harness gives the defaults");
    let kind = settings.kind;
    let registered = registered(harness).await;
    registered
        .module
        .check_config(&json!({}))
        .unwrap_or_else(|err| panic!("`{}` accepts {{}}: {err}", registered.name));
    assert_eq!(registered.hooks, kind.default_hooks());
    assert!(!registered.hooks.is_empty(), "it runs somewhere");
    assert!((1..=99).contains(&registered.priority));
}

pub async fn refuses_settings_of_the_wrong_type_naming_the_problem(harness: &dyn Harness) {
    let registered = registered(harness).await;
    let module = &registered.module;
    let err = module
        .check_config(&Value::Null)
        .expect_err("null is refused");
    assert!(matches!(err, ConfigError::NotAnObject { .. }), "{err:?}");
    // (A tool's override of null is no override: it is not tried as one below.)
    let not_objects = [json!("email"), json!(["email"]), json!(3), json!(true)];
    let wrong = not_objects
        .into_iter()
        .map(|value| (value, None))
        .chain(harness.refused().into_iter().map(|(v, key)| (v, Some(key))));
    let http = Outbound::new(OutboundPolicy::default()).expect("an HTTP client");
    let catalog =
        ModuleCatalog::new(vec![harness.settings().await], http.clone()).expect("the defaults");
    for (wrong, key) in wrong {
        let err = module
            .check_config(&wrong)
            .expect_err("wrong settings are refused");
        match key {
            None => assert!(
                matches!(err, ConfigError::NotAnObject { .. }),
                "{wrong}: {err:?}"
            ),
            Some(key) => assert!(
                err.to_string().contains(&format!("`{key}`")),
                "{wrong}: `{err}` names `{key}`"
            ),
        }
        assert_eq!(err.code(), ErrorCode::InvalidModuleConfig);

        // The same refusal as the deployment's settings, a tool's override, and in a run.
        let mut settings = harness.settings().await;
        settings.config = wrong.clone();
        let refused = ModuleCatalog::new(vec![settings], http.clone()).expect_err("at start");
        assert!(
            matches!(&refused.problem, SettingsError::Config(e) if *e == err),
            "{refused:?}"
        );
        let entry = [(registered.name.clone(), Some(wrong.clone()))];
        let refused = catalog.check_tool(&entry).expect_err("in a tool");
        assert!(
            matches!(&refused, ToolModulesError::Settings { problem, .. } if *problem == err),
            "{refused:?}"
        );
        assert_eq!(refused.code(), ErrorCode::InvalidModuleConfig);
        let ctx = hook_context(
            registered.hooks[0],
            PLAIN_MESSAGE,
            Some(PLAIN_ANSWER),
            &wrong,
        );
        let ran = module.run(&ctx).await;
        assert!(
            matches!(&ran, Err(ModuleError::Config(e)) if *e == err),
            "{wrong}: {ran:?}"
        );
    }
}

pub async fn passes_what_is_not_its_business_unchanged(harness: &dyn Harness) {
    let registered = registered(harness).await;
    for hook in Hook::ALL {
        let ctx = hook_context(hook, PLAIN_MESSAGE, Some(PLAIN_ANSWER), &registered.config);
        let result = run(&registered, &ctx).await;
        assert!(unchanged(&result), "{hook:?}: {result:?}");
    }
    for example in harness.examples() {
        for hook in [Hook::SessionStart, Hook::SessionEnd] {
            let ctx = hook_context(hook, example.message, example.response, &registered.config);
            let result = run(&registered, &ctx).await;
            assert!(unchanged(&result), "{example:?} at {hook:?}: {result:?}");
        }
    }
}

pub async fn does_what_it_declares_at_each_hook_it_declares(harness: &dyn Harness) {
    let registered = registered(harness).await;
    let examples = harness.examples();
    for hook in &registered.hooks {
        assert!(
            examples.iter().any(|e| e.hook == *hook),
            "an example at {hook:?}, which it runs at"
        );
    }
    for example in examples {
        assert!(
            registered.hooks.contains(&example.hook),
            "{example:?} is at a hook it runs at"
        );
        let ctx = hook_context(
            example.hook,
            example.message,
            example.response,
            &registered.config,
        );
        let outcome = runner::run_blocking(&[enabled(&registered)], ctx).await;
        match &example.expect {
            Expect::Block => {
                let blocked = outcome.blocked.as_ref().expect("blocked");
                assert_eq!(blocked.module, registered.name);
            }
            Expect::Modify => {
                assert!(outcome.blocked.is_none(), "{outcome:?}");
                let changed = match example.hook {
                    Hook::AfterAi => outcome.response.is_some(),
                    _ => outcome.message.is_some(),
                };
                assert!(changed, "{example:?}: {outcome:?}");
            }
            Expect::Observe(kind) => {
                assert!(outcome.blocked.is_none() && outcome.message.is_none());
                assert!(
                    outcome.extractions.iter().any(|e| e.kind == *kind),
                    "{example:?}: {outcome:?}"
                );
            }
        }
    }
}

pub async fn outcomes_are_well_formed(harness: &dyn Harness) {
    let registered = registered(harness).await;
    for example in harness.examples() {
        let ctx = hook_context(
            example.hook,
            example.message,
            example.response,
            &registered.config,
        );
        let result = run(&registered, &ctx).await;
        let wire: HookResult =
            serde_json::from_value(serde_json::to_value(&result).expect("a result serializes"))
                .expect("a result reads back");
        assert_eq!(wire, result, "{example:?}: the wire format keeps it");
        assert_eq!(run(&registered, &ctx).await, result, "{example:?}: again");
        for finding in &result.extractions {
            assert!(
                !finding.kind.is_empty()
                    && finding
                        .kind
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{example:?}: a finding's kind is snake_case: {finding:?}"
            );
            assert!(finding.data.is_object(), "{example:?}: {finding:?}");
        }
        let changes = result.modifications.clone().unwrap_or_default();
        if result.action == HookAction::Block {
            for (what, text) in [
                ("category", &result.block_category),
                ("reason", &result.block_reason),
                ("direct response", &result.direct_response),
            ] {
                assert!(
                    text.as_deref().is_some_and(|t| !t.trim().is_empty()),
                    "{example:?}: a block says its {what}: {result:?}"
                );
            }
            assert!(result.modifications.is_none(), "{example:?}: {result:?}");
            continue;
        }
        assert!(
            result.direct_response.is_none(),
            "{example:?}: a direct response without a block: {result:?}"
        );
        if let Some(message) = &changes.message_content {
            assert_eq!(example.hook, Hook::BeforeAi, "{example:?}: {result:?}");
            assert_ne!(message, example.message, "{example:?}: a change changes");
        }
        if let Some(response) = &changes.response_content {
            assert_eq!(example.hook, Hook::AfterAi, "{example:?}: {result:?}");
            assert_ne!(Some(response.as_str()), example.response, "{example:?}");
        }
        if !changes.system_prompt_additions.is_empty() {
            assert_eq!(example.hook, Hook::BeforeAi, "{example:?}: {result:?}");
        }
    }
}

/// The suite as tests, against the harness `$harness` builds.
macro_rules! conformance_suite {
    ($harness:expr) => {
        mod conformance {
            #[allow(
                unused_imports,
                reason = "the suite's module imports what some harnesses do not use"
            )]
            use super::*;
            use $crate::modules::conformance as suite;

            #[tokio::test]
            async fn accepts_its_default_settings() {
                suite::accepts_its_default_settings(&$harness).await;
            }

            #[tokio::test]
            async fn refuses_settings_of_the_wrong_type_naming_the_problem() {
                suite::refuses_settings_of_the_wrong_type_naming_the_problem(&$harness).await;
            }

            #[tokio::test]
            async fn passes_what_is_not_its_business_unchanged() {
                suite::passes_what_is_not_its_business_unchanged(&$harness).await;
            }

            #[tokio::test]
            async fn does_what_it_declares_at_each_hook_it_declares() {
                suite::does_what_it_declares_at_each_hook_it_declares(&$harness).await;
            }

            #[tokio::test]
            async fn outcomes_are_well_formed() {
                suite::outcomes_are_well_formed(&$harness).await;
            }
        }
    };
}

pub(crate) use conformance_suite;
