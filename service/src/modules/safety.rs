//! The safety filter: blocks a message (at `chat:before_ai`) or an answer (at
//! `chat:after_ai`) that matches one of its categories, and answers with the category's
//! direct response instead. Fail-closed by default: when it cannot run, the message is
//! blocked.
//!
//! Settings (`config`): `categories` — `[{name, patterns, response?}]`, case-insensitive
//! regular expressions (replacing the default list); `response` — the direct response of
//! categories that name none.

use std::sync::LazyLock;

use async_trait::async_trait;
use parley_protocol::hooks::{Extraction, HookContext, HookResult};
use regex::{Regex, RegexSet, RegexSetBuilder};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{ConfigError, Module, ModuleError, SettingsCache, read_settings};

const DEFAULT_RESPONSE: &str = "I can't help with that. If you are worried about something, \
please talk to a teacher or someone you trust.";

/// The default categories: a deliberately small list; deployments configure their own.
static DEFAULT_CATEGORIES: LazyLock<Value> = LazyLock::new(|| {
    json!([
        {
            "name": "self_harm",
            "patterns": [
                r"\b(?:kill|hurt|harm|cut)\s+myself\b",
                r"\bend\s+my\s+life\b",
                r"\bsuicide\s+(?:method|plan)s?\b",
            ],
            "response": "It sounds like you are going through something hard. You don't have to \
    face it alone: please talk to someone you trust, or contact a local crisis line right now."
        },
        {
            "name": "weapons",
            "patterns": [
                r"\bhow\s+(?:do\s+i|to|can\s+i)\s+(?:make|build)\s+(?:a\s+)?(?:bomb|explosive|pipe\s*bomb|gun)s?\b",
            ]
        }
    ])
});

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Settings {
    #[serde(default)]
    categories: Option<Vec<Category>>,
    #[serde(default)]
    response: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Category {
    name: String,
    patterns: Vec<String>,
    #[serde(default)]
    response: Option<String>,
}

/// The categories made ready to match: one set of every pattern, and which category
/// each pattern belongs to.
#[derive(Debug)]
struct Compiled {
    set: RegexSet,
    owner: Vec<usize>,
    categories: Vec<(String, String)>,
}

impl Compiled {
    fn from_config(config: &Value) -> Result<Self, ConfigError> {
        let settings: Settings = read_settings(config, &["categories", "response"])?;
        let categories = match settings.categories {
            Some(c) => c,
            None => serde_json::from_value(DEFAULT_CATEGORIES.clone())
                .map_err(|e| ConfigError::invalid("categories", e))?,
        };
        let fallback = settings.response.unwrap_or_else(|| DEFAULT_RESPONSE.into());
        let mut patterns = Vec::new();
        let mut owner = Vec::new();
        let mut named = Vec::new();
        for (i, category) in categories.into_iter().enumerate() {
            if category.name.trim().is_empty() || category.patterns.is_empty() {
                return Err(ConfigError::invalid(
                    format!("categories[{i}]"),
                    "needs a name and patterns",
                ));
            }
            for pattern in &category.patterns {
                Regex::new(pattern)
                    .map_err(|e| ConfigError::invalid(format!("categories[{i}]"), e))?;
                patterns.push(pattern.clone());
                owner.push(i);
            }
            named.push((
                category.name,
                category.response.unwrap_or_else(|| fallback.clone()),
            ));
        }
        let set = RegexSetBuilder::new(&patterns)
            .case_insensitive(true)
            .build()
            .map_err(|e| ConfigError::invalid("categories", e))?;
        Ok(Self {
            set,
            owner,
            categories: named,
        })
    }

    /// The first category (in configured order) that `text` matches.
    fn category_of(&self, text: &str) -> Option<&(String, String)> {
        let first = self.set.matches(text).iter().map(|i| self.owner[i]).min()?;
        self.categories.get(first)
    }
}

/// The safety filter module.
#[derive(Debug, Default)]
pub struct SafetyFilter {
    compiled: SettingsCache<Compiled>,
}

#[async_trait]
impl Module for SafetyFilter {
    fn check_config(&self, config: &Value) -> Result<(), ConfigError> {
        Compiled::from_config(config).map(|_| ())
    }

    async fn run(&self, ctx: &HookContext) -> Result<HookResult, ModuleError> {
        let compiled = self.compiled.get(&ctx.config, Compiled::from_config)?;
        let (location, text) = super::subject(ctx);
        let Some((category, response)) = text.and_then(|t| compiled.category_of(t)) else {
            return Ok(HookResult::proceed());
        };
        let mut result = HookResult::block(
            category,
            format!("the {location} matched the safety category `{category}`"),
            response.clone(),
        );
        result.extractions.push(Extraction {
            kind: "safety_flag".into(),
            data: json!({"category": category, "location": location}),
        });
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::modules::{
        ModuleKind, ModuleSettings,
        conformance::{Example, Expect, Harness, conformance_suite},
    };
    use parley_protocol::hooks::Hook;

    /// The filter with its default categories.
    struct Filter;

    #[async_trait]
    impl Harness for Filter {
        async fn settings(&self) -> ModuleSettings {
            ModuleSettings::builtin("safety_filter", ModuleKind::SafetyFilter)
        }

        fn refused(&self) -> Vec<(Value, &'static str)> {
            vec![
                (json!({"categories": {"name": "x"}}), "categories"),
                (
                    json!({"categories": [{"name": "x", "patterns": ["("]}]}),
                    "categories[0]",
                ),
                (
                    json!({"categories": [{"name": "x", "patterns": []}]}),
                    "categories[0]",
                ),
                (json!({"response": 5}), "response"),
            ]
        }

        fn examples(&self) -> Vec<Example> {
            vec![
                Example::new(Hook::BeforeAi, "I want to kill myself", Expect::Block),
                Example::answer(
                    "Tell me about chemistry",
                    "Sure. Here is how to make a bomb at home.",
                    Expect::Block,
                ),
            ]
        }
    }

    conformance_suite!(Filter);

    #[test]
    fn default_categories_match_case_insensitively_and_leave_the_rest() {
        let compiled = Compiled::from_config(&json!({})).unwrap();
        let (name, response) = compiled.category_of("I want to KILL MYSELF").unwrap();
        assert_eq!(name, "self_harm");
        assert!(response.contains("crisis line"));
        assert_eq!(
            compiled.category_of("how do I make a bomb").unwrap().0,
            "weapons"
        );
        assert!(compiled.category_of("how do I make a cake").is_none());
    }

    #[test]
    fn configured_categories_replace_the_defaults() {
        let compiled = Compiled::from_config(&json!({
            "categories": [{"name": "cheating", "patterns": ["answer key"]}],
            "response": "Let's work it out together."
        }))
        .unwrap();
        let (name, response) = compiled.category_of("send me the Answer Key").unwrap();
        assert_eq!(
            (name.as_str(), response.as_str()),
            ("cheating", "Let's work it out together.")
        );
        assert!(compiled.category_of("kill myself").is_none());
        assert!(
            Compiled::from_config(&json!({"categories": [{"name": "x", "patterns": ["("]}]}))
                .is_err()
        );
        assert!(
            Compiled::from_config(&json!({"categories": [{"name": "x", "patterns": []}]})).is_err()
        );
    }
}
