//! The function catalog: what the model may call, as the API and the permission check
//! see it (DESIGN §9).
//!
//! A *function* is something a model can call (a *tool* is the configured assistant a
//! session talks to; its definition lists the functions it offers). The catalog holds
//! each function's [`FunctionSpec`] — name, description, JSON-schema input, the
//! permissions a caller needs, sync or async, timeout, payload type. The worker runs the
//! executors behind the names; the api lists the catalog (`GET /v1/functions`) and checks
//! tool definitions against it. The process that starts both builds the catalog from
//! the worker's registry, so the two cannot disagree; when functions join later (an MCP
//! server that was down at start-up came back), the registry publishes a new catalog to
//! the [`SharedCatalog`] the API reads, so it lists them at once.

use std::{collections::BTreeMap, sync::Arc, time::Duration};

use arc_swap::ArcSwap;
use parley_protocol::error::{Error, ErrorCode, Result};

use serde_json::Value;

/// The timeout of a call when its function names none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How a function answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The call runs inside the turn; its result is fed back to the model.
    Sync,
    /// The model gets an acknowledgement at once; the work runs as a job of its own.
    Async,
}

/// What a function is.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionSpec {
    /// The name the model calls it by (`getCurrentTime`).
    pub name: String,
    /// What it does, for the model and for people.
    pub description: String,
    /// The JSON schema of its arguments (an object schema).
    pub parameters: Value,
    /// Every permission a caller needs (`todos:write:self`).
    pub permissions: Vec<String>,
    pub mode: Mode,
    pub timeout: Duration,
    /// The payload type its results carry, from the payload registry.
    pub payload_type: Option<String>,
    /// Every call waits for the session's owner to approve it (a tool can ask the same
    /// of any function it offers: its definition's `approval_required`).
    pub requires_approval: bool,
}

impl FunctionSpec {
    /// Whether a caller with `permissions` may call it.
    pub fn allowed(&self, permissions: &[String]) -> bool {
        self.permissions.iter().all(|p| permissions.contains(p))
    }

    /// The permissions a caller with `permissions` lacks.
    pub fn missing(&self, permissions: &[String]) -> Vec<String> {
        self.permissions
            .iter()
            .filter(|p| !permissions.contains(p))
            .cloned()
            .collect()
    }
}

/// Every function of the deployment, by name.
#[derive(Debug, Clone, Default)]
pub struct FunctionCatalog {
    specs: BTreeMap<String, FunctionSpec>,
}

impl FunctionCatalog {
    pub fn new(specs: impl IntoIterator<Item = FunctionSpec>) -> Self {
        Self {
            specs: specs.into_iter().map(|s| (s.name.clone(), s)).collect(),
        }
    }

    pub fn get(&self, name: &str) -> Option<&FunctionSpec> {
        self.specs.get(name)
    }

    /// Every function, by name.
    pub fn all(&self) -> impl Iterator<Item = &FunctionSpec> {
        self.specs.values()
    }

    /// The functions a caller with `permissions` may call, by name.
    pub fn allowed(&self, permissions: &[String]) -> impl Iterator<Item = &FunctionSpec> {
        self.specs.values().filter(move |s| s.allowed(permissions))
    }

    /// Checks that every name is a function of the catalog (a tool definition's list):
    /// 422 `unknown_function` naming the first that is not.
    pub fn check_names<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Result<()> {
        match names.into_iter().find(|n| !self.specs.contains_key(*n)) {
            None => Ok(()),
            Some(name) => Err(Error::invalid(
                ErrorCode::UnknownFunction,
                format!("`{name}` is not a function of this deployment; see GET /v1/functions"),
            )),
        }
    }
}

/// The catalog as it is now, shared by the API's handlers and the registry that
/// publishes it; cheap to clone. A reader loads one snapshot without a lock.
#[derive(Debug, Clone, Default)]
pub struct SharedCatalog {
    current: Arc<ArcSwap<FunctionCatalog>>,
}

impl SharedCatalog {
    pub fn new(catalog: FunctionCatalog) -> Self {
        Self {
            current: Arc::new(ArcSwap::from_pointee(catalog)),
        }
    }

    /// The catalog now (a request reads one and keeps it).
    pub fn load(&self) -> Arc<FunctionCatalog> {
        self.current.load_full()
    }

    /// Replaces the catalog for every reader.
    pub fn publish(&self, catalog: FunctionCatalog) {
        self.current.store(Arc::new(catalog));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn spec(name: &str, permissions: &[&str]) -> FunctionSpec {
        FunctionSpec {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
            permissions: permissions.iter().map(|p| (*p).to_owned()).collect(),
            mode: Mode::Sync,
            timeout: DEFAULT_TIMEOUT,
            payload_type: None,
            requires_approval: false,
        }
    }

    #[test]
    fn permissions_gate_functions() {
        let catalog = FunctionCatalog::new([spec("a", &[]), spec("b", &["x:write", "y:read"])]);
        let has = |perms: &[&str]| -> Vec<String> {
            let perms: Vec<String> = perms.iter().map(|p| (*p).to_owned()).collect();
            catalog.allowed(&perms).map(|s| s.name.clone()).collect()
        };
        assert_eq!(has(&[]), ["a"]);
        assert_eq!(has(&["x:write"]), ["a"]);
        assert_eq!(has(&["y:read", "x:write"]), ["a", "b"]);
        let b = catalog.get("b").unwrap();
        assert_eq!(b.missing(&["x:write".into()]), ["y:read"]);
    }

    #[test]
    fn unknown_names_are_named() {
        let catalog = FunctionCatalog::new([spec("a", &[])]);
        assert!(catalog.check_names(["a"]).is_ok());
        let err = catalog.check_names(["a", "nope", "also"]).unwrap_err();
        assert!(err.to_string().contains("`nope`"), "{err}");
    }
}
