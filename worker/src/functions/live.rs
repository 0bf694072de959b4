//! The registry of a running process: the snapshot every turn reads, replaced when
//! functions join late (an MCP server that was down at start-up came back, see
//! [`super::mcp::join`]).
//!
//! A turn loads one snapshot ([`LiveRegistry::snapshot`]: an atomic pointer load and two
//! `Arc` clones, no lock) and keeps it to its end, so a join in the middle of a turn
//! changes nothing under it; the next turn sees the new functions. Joins are rare and
//! one at a time; each also publishes the API's catalog ([`SharedCatalog`]), so
//! `GET /v1/functions` and the check of tool definitions see what the workers run.

use std::sync::{Arc, Mutex};

use arc_swap::ArcSwap;
use parley_service::functions::SharedCatalog;

use super::{Function, Registry, RegistryError};

/// The functions of this process, as they are now; cheap to clone.
#[derive(Clone)]
pub struct LiveRegistry {
    current: Arc<ArcSwap<Registry>>,
    catalog: SharedCatalog,
    /// Serializes joins (read, extend, store), so two cannot lose one another's functions.
    joining: Arc<Mutex<()>>,
}

impl LiveRegistry {
    pub fn new(registry: Registry) -> Self {
        Self {
            catalog: SharedCatalog::new(registry.catalog()),
            current: Arc::new(ArcSwap::from_pointee(registry)),
            joining: Arc::default(),
        }
    }

    /// The registry now; a turn takes one and keeps it.
    pub fn snapshot(&self) -> Registry {
        Registry::clone(&self.current.load())
    }

    /// The API's view, kept up to date by [`extend`](Self::extend).
    pub fn catalog(&self) -> SharedCatalog {
        self.catalog.clone()
    }

    /// Adds functions for every turn that starts from now on, and to the API's catalog.
    /// A name already taken or a schema that does not compile is an error, and nothing
    /// is added.
    pub fn extend(
        &self,
        functions: impl IntoIterator<Item = Arc<dyn Function>>,
    ) -> Result<(), RegistryError> {
        let _one_at_a_time = self
            .joining
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut next = self.snapshot();
        next.extend(functions)?;
        let catalog = next.catalog();
        // The workers first: a function the API lists can be called.
        self.current.store(Arc::new(next));
        self.catalog.publish(catalog);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use async_trait::async_trait;
    use parley_service::{FunctionSpec, functions::Mode};
    use serde_json::{Value, json};

    use super::*;
    use crate::functions::{CallContext, FunctionError, Progress};

    struct Named(FunctionSpec);

    #[async_trait]
    impl Function for Named {
        fn spec(&self) -> &FunctionSpec {
            &self.0
        }

        async fn call(
            &self,
            _ctx: &CallContext,
            _args: Value,
            _progress: &Progress,
        ) -> Result<Value, FunctionError> {
            Ok(json!({}))
        }
    }

    fn function(name: &str) -> Arc<dyn Function> {
        Arc::new(Named(FunctionSpec {
            name: name.into(),
            description: "A late one.".into(),
            parameters: json!({"type": "object"}),
            permissions: Vec::new(),
            mode: Mode::Sync,
            timeout: parley_service::functions::DEFAULT_TIMEOUT,
            payload_type: None,
            requires_approval: false,
        }))
    }

    #[test]
    fn functions_that_join_reach_new_snapshots_and_the_catalog_not_old_snapshots() {
        let live = LiveRegistry::new(Registry::builtin());
        let catalog = live.catalog();
        let before = live.snapshot();
        let listed_before = catalog.load();

        live.extend([function("lab_echo"), function("lab_wait")])
            .unwrap();

        assert!(live.snapshot().get("lab_echo").is_some());
        assert!(catalog.load().get("lab_wait").is_some());
        assert!(
            live.snapshot().get("getCurrentTime").is_some(),
            "built-ins stay"
        );
        // What a turn or a request already holds does not change under it.
        assert!(before.get("lab_echo").is_none());
        assert!(listed_before.get("lab_echo").is_none());
    }

    #[test]
    fn a_join_with_a_taken_name_adds_nothing() {
        let live = LiveRegistry::new(Registry::builtin());
        live.extend([function("lab_echo")]).unwrap();
        let err = live
            .extend([function("lab_wait"), function("lab_echo")])
            .unwrap_err();
        assert_eq!(err, RegistryError::Twice("lab_echo".into()));
        assert!(live.snapshot().get("lab_wait").is_none());
        assert!(live.catalog().load().get("lab_wait").is_none());
    }
}
