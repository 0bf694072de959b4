//! What goes wrong at the module seam, typed: settings a module refuses
//! ([`ConfigError`], from [`Module::check_config`](super::Module::check_config)), a
//! deployment's module that cannot be built ([`CatalogError`]), a tool definition whose
//! `modules` list does not fit the deployment ([`ToolModulesError`]), and a run that gave
//! no result ([`ModuleError`]).
//!
//! The messages are the ones operators and API clients read (a tool definition's problem
//! detail, a start-up error); [`ToolModulesError::code`] is the problem's code in the catalogue.

use parley_protocol::error::ErrorCode;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Why a module refuses settings (the deployment's, or a tool's override merged into
/// them). Each names what is wrong: the key, or the settings' type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// The settings are not a JSON object.
    #[error("the settings must be an object, not {found}")]
    NotAnObject { found: &'static str },
    /// A key the module does not read.
    #[error("unknown setting `{key}` (known: {known})")]
    UnknownKey { key: String, known: String },
    /// A key whose value the module cannot use (the wrong type, a pattern that does not
    /// compile, a name it does not know).
    #[error("`{key}`: {reason}")]
    Invalid { key: String, reason: String },
}

impl ConfigError {
    /// The problem code of a tool definition whose module settings are refused.
    pub fn code(&self) -> ErrorCode {
        ErrorCode::InvalidModuleConfig
    }

    /// `key`'s value is not usable, because of `reason`.
    pub fn invalid(key: impl Into<String>, reason: impl ToString) -> Self {
        Self::Invalid {
            key: key.into(),
            reason: reason.to_string(),
        }
    }
}

/// What kind of JSON value `value` is, for people (`an array`).
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `config` as an object, or [`ConfigError::NotAnObject`].
pub fn settings_object(config: &Value) -> Result<&serde_json::Map<String, Value>, ConfigError> {
    config.as_object().ok_or(ConfigError::NotAnObject {
        found: json_type(config),
    })
}

/// A module's settings read as `T`: an object whose keys are among `known`, each of the
/// type `T` reads. `T`'s fields must all be optional (a key's error is found by reading
/// that key alone), so the error names the key at fault (`config` when no one key is).
pub fn read_settings<T: DeserializeOwned>(
    config: &Value,
    known: &[&str],
) -> Result<T, ConfigError> {
    let map = settings_object(config)?;
    if let Some(key) = map.keys().find(|key| !known.contains(&key.as_str())) {
        return Err(ConfigError::UnknownKey {
            key: key.clone(),
            known: if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            },
        });
    }
    serde_json::from_value(config.clone()).map_err(|err| {
        let key = map
            .iter()
            .find(|(key, value)| {
                let alone =
                    Value::Object([((*key).clone(), (*value).clone())].into_iter().collect());
                serde_json::from_value::<T>(alone).is_err()
            })
            .map_or_else(|| "config".to_owned(), |(key, _)| key.clone());
        ConfigError::invalid(key, err)
    })
}

/// Why a configured module cannot be part of the deployment.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("priority must be from 1 to 99")]
    Priority,
    #[error("timeout_ms must be at least 1")]
    Timeout,
    /// A webhook without its `url` or `secret`.
    #[error("a webhook needs `{0}`")]
    Missing(&'static str),
    #[error(transparent)]
    Webhook(#[from] super::webhook::WebhookError),
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// A module of `parley.toml` that cannot be built, by name.
#[derive(Debug, thiserror::Error)]
#[error("`{module}`: {problem}")]
pub struct CatalogError {
    pub module: String,
    #[source]
    pub problem: SettingsError,
}

/// Why a tool definition's `modules` list does not fit the deployment; each names the
/// entry (`modules[2]`).
#[derive(Debug, thiserror::Error)]
pub enum ToolModulesError {
    #[error("modules[{index}]: no module named `{name}` (known: {known})")]
    Unknown {
        index: usize,
        name: String,
        known: String,
    },
    #[error("modules[{index}]: `{name}` is listed twice")]
    Twice { index: usize, name: String },
    #[error("modules[{index}] (`{name}`): {problem}")]
    Settings {
        index: usize,
        name: String,
        #[source]
        problem: ConfigError,
    },
}

impl ToolModulesError {
    /// The problem's stable code: `unknown_module` (a name the deployment lacks, or one
    /// listed twice) or `invalid_module_config`.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::Unknown { .. } | Self::Twice { .. } => ErrorCode::UnknownModule,
            Self::Settings { problem, .. } => problem.code(),
        }
    }
}

/// Why a module run produced no result.
#[derive(Debug, thiserror::Error)]
pub enum ModuleError {
    /// The module's settings (after the tool's override) are not usable.
    #[error("invalid settings: {0}")]
    Config(#[from] ConfigError),
    /// The module failed (a webhook that did not answer well, …).
    #[error("{0}")]
    Failed(String),
}
