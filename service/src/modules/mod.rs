//! Modules: code that runs at the hooks of a session's life (DESIGN §8, seed 000).
//!
//! A module is defined once for the deployment ([`ModuleSettings`], `[[modules]]` in
//! `parley.toml`: name, kind, priority, fail-closed, timeout, hooks, config); a tool lists
//! the modules it uses by name and may override their `config`, not their priority. The
//! [`ModuleCatalog`] holds them and answers which run for a session, in priority order
//! (ties by name); [`runner`] runs one hook over them.
//!
//! Built-in kinds: [`pii`] (redacts emails, phone numbers, cards, IBANs and national ids
//! before the model sees them), [`safety`] (blocks messages or answers that match
//! configured categories), [`webhook`] (POSTs the [`HookContext`] to an operator's URL,
//! signed, and reads a [`HookResult`] back) and [`analytics`] (per-message counters).
//! The deployment always has a `pii_redactor`, a `safety_filter` and an `analytics`
//! module with default settings unless `parley.toml` defines one with that name.
//!
//! What goes wrong is typed (`error.rs`: [`ConfigError`] from `check_config`,
//! [`CatalogError`], [`ToolModulesError`], [`ModuleError`]); every kind runs one
//! conformance suite (`conformance.rs`, a harness in each kind's tests).

pub mod analytics;
#[cfg(test)]
mod conformance;
pub mod context;
mod error;
pub mod pii;
pub mod runner;
pub mod safety;
pub mod webhook;

use std::{collections::BTreeMap, fmt, sync::Arc, time::Duration};

use async_trait::async_trait;
use parley_protocol::{
    config::SessionConfig,
    hooks::{Hook, HookContext, HookResult},
};
use secrecy::SecretString;
use serde_json::Value;

use crate::outbound::{Outbound, OutboundPolicy};

pub use error::{
    CatalogError, ConfigError, ModuleError, SettingsError, ToolModulesError, read_settings,
    settings_object,
};

/// What kind of module a configured one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleKind {
    PiiRedactor,
    SafetyFilter,
    Webhook,
    Analytics,
}

impl ModuleKind {
    /// The hooks a module of this kind runs at unless its settings name others.
    fn default_hooks(self) -> Vec<Hook> {
        match self {
            Self::PiiRedactor => vec![Hook::BeforeAi],
            Self::SafetyFilter => vec![Hook::BeforeAi, Hook::AfterAi],
            Self::Webhook => vec![Hook::BeforeAi],
            Self::Analytics => vec![Hook::OnMessage],
        }
    }

    /// What a module of this kind does, and the settings a tool may override, for an
    /// administrator choosing modules.
    pub fn description(self) -> &'static str {
        match self {
            Self::PiiRedactor => {
                "Redacts emails, phone numbers, card numbers, IBANs and national ids from a \
                 message before the model sees it. Settings: `types` (which of them), \
                 `national_ids` (more formats, each a `name` and a `pattern`)."
            }
            Self::SafetyFilter => {
                "Blocks messages and answers that match its categories. Settings: \
                 `categories` (each with its patterns), `response` (what the user is told)."
            }
            Self::Webhook => {
                "Sends the hook's context to the deployment's URL, signed, and applies the \
                 result it answers (continue, block, rewrite)."
            }
            Self::Analytics => {
                "Counts the characters, words, questions and code of each user message, as \
                 the extraction `message_stats`. No settings."
            }
        }
    }

    /// Priority bands of DESIGN §8: safety 1–10, content modifiers 20–40, analytics 90–99.
    fn default_priority(self) -> u8 {
        match self {
            Self::SafetyFilter => 5,
            Self::PiiRedactor => 20,
            Self::Webhook => 50,
            Self::Analytics => 95,
        }
    }
}

/// One module of the deployment, as configured.
#[derive(Clone)]
pub struct ModuleSettings {
    pub name: String,
    pub kind: ModuleKind,
    /// 1–99, lower runs first; default by kind.
    pub priority: Option<u8>,
    /// An error or timeout blocks the message instead of being skipped; default: true for
    /// safety filters, false otherwise.
    pub fail_closed: Option<bool>,
    /// How long one run may take.
    pub timeout: Duration,
    /// The hooks it runs at; default by kind.
    pub hooks: Option<Vec<Hook>>,
    /// The webhook's URL (kind `webhook`).
    pub url: Option<String>,
    /// The webhook's signing key (kind `webhook`): never logged.
    pub secret: Option<SecretString>,
    /// Kind-specific settings, which a tool may override key by key.
    pub config: Value,
}

impl fmt::Debug for ModuleSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ModuleSettings")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("priority", &self.priority)
            .field("hooks", &self.hooks)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl ModuleSettings {
    /// A module of `kind` named `name` with default settings.
    pub fn builtin(name: &str, kind: ModuleKind) -> Self {
        Self {
            name: name.to_owned(),
            kind,
            priority: None,
            fail_closed: None,
            timeout: DEFAULT_TIMEOUT,
            hooks: None,
            url: None,
            secret: None,
            config: Value::Object(Default::default()),
        }
    }
}

/// How long a module run may take unless configured.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(2);

/// What a module does at a hook.
#[async_trait]
pub trait Module: Send + Sync {
    /// Checks settings (the deployment's, or a tool's override merged into them): `{}`
    /// (the defaults) is accepted; anything else it cannot use is a [`ConfigError`]
    /// naming the key at fault, and [`run`](Self::run) with such settings fails with
    /// [`ModuleError::Config`] instead of acting on them.
    fn check_config(&self, config: &Value) -> Result<(), ConfigError>;

    /// Runs at `ctx.request.hook`; `ctx.config` holds the settings for this tool.
    async fn run(&self, ctx: &HookContext) -> Result<HookResult, ModuleError>;
}

/// A module of the deployment, ready to run.
#[derive(Clone)]
pub struct Registered {
    pub name: String,
    pub kind: ModuleKind,
    pub priority: u8,
    pub fail_closed: bool,
    pub timeout: Duration,
    pub hooks: Vec<Hook>,
    /// The deployment's settings for it.
    pub config: Value,
    pub module: Arc<dyn Module>,
}

impl fmt::Debug for Registered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Registered")
            .field("name", &self.name)
            .field("priority", &self.priority)
            .field("hooks", &self.hooks)
            .finish_non_exhaustive()
    }
}

/// A module as one session runs it: its registration and the tool's settings for it.
#[derive(Debug, Clone)]
pub struct Enabled {
    pub registered: Arc<Registered>,
    pub config: Value,
}

impl Enabled {
    pub fn name(&self) -> &str {
        &self.registered.name
    }

    pub fn runs_at(&self, hook: Hook) -> bool {
        self.registered.hooks.contains(&hook)
    }
}

/// The deployment's modules by name (cheap to clone).
#[derive(Debug, Clone, Default)]
pub struct ModuleCatalog {
    modules: Arc<BTreeMap<String, Arc<Registered>>>,
}

impl ModuleCatalog {
    /// The built-in modules and the configured ones (a configured module replaces a
    /// built-in of the same name). A bad setting is an error that names the module.
    pub fn new(configured: Vec<ModuleSettings>, http: Outbound) -> Result<Self, CatalogError> {
        let mut all: BTreeMap<String, ModuleSettings> = [
            ("pii_redactor", ModuleKind::PiiRedactor),
            ("safety_filter", ModuleKind::SafetyFilter),
            ("analytics", ModuleKind::Analytics),
        ]
        .into_iter()
        .map(|(name, kind)| (name.to_owned(), ModuleSettings::builtin(name, kind)))
        .collect();
        for settings in configured {
            all.insert(settings.name.clone(), settings);
        }
        let mut modules = BTreeMap::new();
        for (name, settings) in all {
            let registered = register(settings, &http).map_err(|problem| CatalogError {
                module: name.clone(),
                problem,
            })?;
            modules.insert(name, Arc::new(registered));
        }
        Ok(Self {
            modules: Arc::new(modules),
        })
    }

    /// The built-in modules with default settings.
    pub fn builtin() -> Self {
        let http = Outbound::new(OutboundPolicy::default()).expect("a default HTTP client builds");
        Self::new(Vec::new(), http).expect("the built-in settings are valid")
    }

    pub fn get(&self, name: &str) -> Option<&Arc<Registered>> {
        self.modules.get(name)
    }

    /// Every module of the deployment, by name.
    pub fn all(&self) -> impl Iterator<Item = &Registered> {
        self.modules.values().map(AsRef::as_ref)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.modules.keys().map(String::as_str)
    }

    /// Checks a tool definition's `modules` list: every name is a module of this
    /// deployment, named once (`unknown_module`), and its override gives usable settings
    /// (`invalid_module_config`). The error says which entry is wrong; its `code` is the
    /// problem's.
    pub fn check_tool(&self, entries: &[(String, Option<Value>)]) -> Result<(), ToolModulesError> {
        let mut seen = std::collections::HashSet::new();
        for (index, (name, config)) in entries.iter().enumerate() {
            let Some(registered) = self.get(name) else {
                return Err(ToolModulesError::Unknown {
                    index,
                    name: name.clone(),
                    known: self.names().collect::<Vec<_>>().join(", "),
                });
            };
            if !seen.insert(name.as_str()) {
                return Err(ToolModulesError::Twice {
                    index,
                    name: name.clone(),
                });
            }
            let merged = merged_config(&registered.config, config.as_ref());
            registered.module.check_config(&merged).map_err(|problem| {
                ToolModulesError::Settings {
                    index,
                    name: name.clone(),
                    problem,
                }
            })?;
        }
        Ok(())
    }

    /// The modules a session runs, in priority order (ties by name), from its resolved
    /// config's `modules` list. Names this deployment does not have (a module removed
    /// after the tool was saved) are skipped with a warning.
    pub fn enabled(&self, session_config: &SessionConfig) -> Vec<Enabled> {
        let mut enabled: Vec<Enabled> = session_config
            .modules
            .iter()
            .flatten()
            .filter_map(|entry| {
                let name = &*entry.name;
                let Some(registered) = self.get(name) else {
                    tracing::warn!(module = name, "a tool names a module this deployment lacks");
                    return None;
                };
                let config = entry.config.clone().map(Value::from);
                Some(Enabled {
                    registered: registered.clone(),
                    config: merged_config(&registered.config, config.as_ref()),
                })
            })
            .collect();
        enabled.sort_by(|a, b| {
            (a.registered.priority, a.name()).cmp(&(b.registered.priority, b.name()))
        });
        enabled
    }
}

/// What a content module looks at in this hook, and where that is (for its findings):
/// the model's answer at `chat:after_ai`, the user's message otherwise.
pub fn subject(ctx: &HookContext) -> (&'static str, Option<&str>) {
    match ctx.request.hook {
        Hook::AfterAi => ("response", ctx.response.as_deref()),
        _ => (
            "user_message",
            ctx.conversation
                .current_message
                .as_ref()
                .map(|m| m.content.as_str()),
        ),
    }
}

/// The deployment's settings of a module with a tool's override merged in (objects key
/// by key; anything else replaces).
pub fn merged_config(base: &Value, overlay: Option<&Value>) -> Value {
    let mut merged = base.clone();
    if let Some(overlay) = overlay {
        parley_entity::query::access::merge_json(&mut merged, overlay);
    }
    merged
}

fn register(settings: ModuleSettings, http: &Outbound) -> Result<Registered, SettingsError> {
    let priority = settings
        .priority
        .unwrap_or_else(|| settings.kind.default_priority());
    if !(1..=99).contains(&priority) {
        return Err(SettingsError::Priority);
    }
    if settings.timeout.is_zero() {
        return Err(SettingsError::Timeout);
    }
    let module: Arc<dyn Module> = match settings.kind {
        ModuleKind::PiiRedactor => Arc::new(pii::PiiRedactor::default()),
        ModuleKind::SafetyFilter => Arc::new(safety::SafetyFilter::default()),
        ModuleKind::Analytics => Arc::new(analytics::Analytics),
        ModuleKind::Webhook => Arc::new(webhook::Webhook::new(
            settings.url.clone().ok_or(SettingsError::Missing("url"))?,
            settings
                .secret
                .clone()
                .ok_or(SettingsError::Missing("secret"))?,
            http.clone(),
        )?),
    };
    module.check_config(&settings.config)?;
    Ok(Registered {
        hooks: settings
            .hooks
            .clone()
            .unwrap_or_else(|| settings.kind.default_hooks()),
        fail_closed: settings
            .fail_closed
            .unwrap_or(settings.kind == ModuleKind::SafetyFilter),
        name: settings.name,
        kind: settings.kind,
        priority,
        timeout: settings.timeout,
        config: settings.config,
        module,
    })
}

/// Settings made ready to use (compiled patterns), by their JSON text: a module's
/// settings differ only between tools that override them, so this stays small.
#[derive(Debug)]
pub struct SettingsCache<T> {
    ready: std::sync::Mutex<std::collections::HashMap<String, Arc<T>>>,
}

impl<T> Default for SettingsCache<T> {
    fn default() -> Self {
        Self {
            ready: Default::default(),
        }
    }
}

impl<T> SettingsCache<T> {
    /// The settings of `config`, prepared by `prepare` the first time they are seen.
    pub fn get(
        &self,
        config: &Value,
        prepare: impl FnOnce(&Value) -> Result<T, ConfigError>,
    ) -> Result<Arc<T>, ModuleError> {
        let key = config.to_string();
        let mut ready = self.ready.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = ready.get(&key) {
            return Ok(found.clone());
        }
        let prepared = Arc::new(prepare(config)?);
        if ready.len() >= 256 {
            ready.clear();
        }
        ready.insert(key, prepared.clone());
        Ok(prepared)
    }
}

#[cfg(test)]
mod tests;
