//! The analytics module: counts what each user message holds (characters, words,
//! questions, code) at `chat:on_message`, as the extraction `message_stats`, which
//! dashboards sum per session, user or class. It observes only: it never changes or
//! delays a turn.

use async_trait::async_trait;
use parley_protocol::hooks::{Extraction, HookContext, HookResult};
use serde_json::{Value, json};

use super::{ConfigError, Module, ModuleError, read_settings};

/// The analytics module.
#[derive(Debug, Default)]
pub struct Analytics;

/// The counters of one message.
pub fn counters(text: &str) -> Value {
    json!({
        "characters": text.chars().count(),
        "words": text.split_whitespace().count(),
        "questions": text.matches('?').count(),
        "has_code": text.contains("```"),
    })
}

#[async_trait]
impl Module for Analytics {
    /// It takes no settings: `{}` only.
    fn check_config(&self, config: &Value) -> Result<(), ConfigError> {
        read_settings::<serde::de::IgnoredAny>(config, &[]).map(|_| ())
    }

    async fn run(&self, ctx: &HookContext) -> Result<HookResult, ModuleError> {
        self.check_config(&ctx.config)?;
        let Some(message) = &ctx.conversation.current_message else {
            return Ok(HookResult::proceed());
        };
        Ok(HookResult {
            extractions: vec![Extraction {
                kind: "message_stats".into(),
                data: counters(&message.content),
            }],
            ..HookResult::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use parley_protocol::hooks::Hook;

    use super::*;
    use crate::modules::{
        ModuleKind, ModuleSettings,
        conformance::{Example, Expect, Harness, conformance_suite},
    };

    struct Counters;

    #[async_trait]
    impl Harness for Counters {
        async fn settings(&self) -> ModuleSettings {
            ModuleSettings::builtin("analytics", ModuleKind::Analytics)
        }

        fn refused(&self) -> Vec<(Value, &'static str)> {
            vec![(json!({"depth": 2}), "depth")]
        }

        fn examples(&self) -> Vec<Example> {
            vec![Example::new(
                Hook::OnMessage,
                "What does ```x = 2``` do? And why?",
                Expect::Observe("message_stats"),
            )]
        }
    }

    conformance_suite!(Counters);

    #[test]
    fn counters_count() {
        let counted = counters("What does ```x = 2``` do? And why?");
        assert_eq!(
            counted,
            json!({"characters": 34, "words": 8, "questions": 2, "has_code": true})
        );
    }
}
