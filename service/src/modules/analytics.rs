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
