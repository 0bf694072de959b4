//! Functions the model can call (DESIGN §9) and the running of a model's calls.
//!
//! A [`Function`] is a spec (name, description, JSON-schema input, permissions, mode,
//! timeout, payload type: `parley_service::FunctionSpec`) and an executor that may report
//! progress. The [`Registry`] holds every function of the deployment; the process builds
//! the API's catalog from it (`Registry::catalog`), so what `GET /v1/functions` lists is
//! what the worker runs. A running process holds it as a [`live::LiveRegistry`]: each
//! turn reads one snapshot, and functions that join late (an MCP server that came back)
//! reach the next turns and the API's catalog. [`runner`] runs one model response's
//! calls for the agent loop: arguments checked against the schema, permissions checked,
//! calls run concurrently with their timeouts, each recorded in `tool_calls` (a retried
//! turn reuses finished calls), progress and results as events.
//!
//! Every implementation runs one conformance suite (`conformance.rs`, the `Builtins`
//! harness in [`builtin`] and the test server's in [`mcp`]).

pub mod builtin;
#[cfg(test)]
mod conformance;
pub mod live;
pub mod mcp;
pub mod runner;

use std::{collections::BTreeMap, sync::Arc};

use async_trait::async_trait;
use parley_protocol::{config::SessionConfig, events::CustomPayload};
use parley_service::{
    FunctionCatalog, FunctionSpec,
    payloads::{PayloadMismatch, PayloadRegistry, PayloadSource, schema_problems},
};
use sea_orm::DatabaseConnection;
use serde_json::Value;
use tokio::sync::mpsc;
use uuid::Uuid;

use crate::providers::FunctionOffer;

/// What a call runs in: whose turn it is, and a handle on the system of record.
#[derive(Clone)]
pub struct CallContext {
    pub db: DatabaseConnection,
    pub user_id: Uuid,
    pub session_id: Uuid,
    pub prompt_id: Uuid,
    /// The call's `tool_calls` row: a key for writes that must happen once.
    pub call_id: Uuid,
    /// The session's resolved configuration (org → tool → assignment).
    pub session_config: SessionConfig,
}

/// Why a call did not return a result. The message is what the model is told: it must
/// make sense to the model and never carry secrets or backend detail.
#[derive(Debug, thiserror::Error)]
pub enum FunctionError {
    /// The arguments fit the schema but cannot be used (an unknown time zone).
    #[error("{0}")]
    Invalid(String),
    /// The function could not do what was asked (no assignment in this session).
    #[error("{0}")]
    Failed(String),
    /// Storage failed; logged with its context, the model hears a stable message.
    #[error("the function could not reach its data")]
    Storage(#[from] parley_protocol::error::Error),
}

/// One progress report of a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressUpdate {
    /// The call's `[[tool:N]]` index.
    pub index: u32,
    pub stage: String,
    pub message: String,
    /// From 0 to 1.
    pub progress: f64,
    pub data: Option<Value>,
}

/// Where a running call reports its progress (as `tool_progress` events).
#[derive(Clone)]
pub struct Progress {
    index: u32,
    tx: mpsc::UnboundedSender<ProgressUpdate>,
}

impl Progress {
    pub(crate) fn new(index: u32, tx: mpsc::UnboundedSender<ProgressUpdate>) -> Self {
        Self { index, tx }
    }

    /// A progress handle whose reports go nowhere (tests, replays).
    pub fn discard() -> Self {
        let (tx, _) = mpsc::unbounded_channel();
        Self { index: 0, tx }
    }

    pub fn report(
        &self,
        stage: &str,
        message: impl Into<String>,
        progress: f64,
        data: Option<Value>,
    ) {
        let _ = self.tx.send(ProgressUpdate {
            index: self.index,
            stage: stage.to_owned(),
            message: message.into(),
            progress: progress.clamp(0.0, 1.0),
            data,
        });
    }
}

/// Something the model can call.
#[async_trait]
pub trait Function: Send + Sync {
    fn spec(&self) -> &FunctionSpec;

    /// Runs one call with arguments that fit the schema; returns its result.
    async fn call(
        &self,
        ctx: &CallContext,
        args: Value,
        progress: &Progress,
    ) -> Result<Value, FunctionError>;
}

/// Why functions cannot join a [`Registry`]; each names the function.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("two functions are named `{0}`")]
    Twice(String),
    #[error("the argument schema of `{function}` does not compile: {reason}")]
    Schema { function: String, reason: String },
    #[error("`{function}` names the payload type `{payload_type}`, which is not registered")]
    UnknownPayloadType {
        function: String,
        payload_type: String,
    },
    #[error(
        "`{function}` names the payload type `{payload_type}`, which the model writes (source llm), not a function"
    )]
    PayloadTypeOfTheModel {
        function: String,
        payload_type: String,
    },
}

/// A successful result that does not fit its function's payload type (the call fails
/// instead, and the model is told this).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the result does not fit its payload type `{payload_type}`: {problem}")]
pub struct ResultMismatch {
    pub payload_type: String,
    #[source]
    pub problem: PayloadMismatch,
}

/// A function with its argument schema compiled once.
struct Entry {
    function: Arc<dyn Function>,
    validator: jsonschema::Validator,
}

/// Every function of the deployment, by name, and the payload types their results are
/// checked against. Cheap to clone (every turn holds one: a snapshot of the process's
/// [`live::LiveRegistry`]).
#[derive(Clone, Default)]
pub struct Registry {
    entries: Arc<BTreeMap<String, Arc<Entry>>>,
    payloads: PayloadRegistry,
}

/// Whether `spec`'s payload type is one a function may produce.
fn check_payload_type(
    spec: &FunctionSpec,
    payloads: &PayloadRegistry,
) -> Result<(), RegistryError> {
    let Some(name) = &spec.payload_type else {
        return Ok(());
    };
    match payloads.get(name) {
        Some(kind) if kind.source == PayloadSource::Tool => Ok(()),
        Some(_) => Err(RegistryError::PayloadTypeOfTheModel {
            function: spec.name.clone(),
            payload_type: name.clone(),
        }),
        None => Err(RegistryError::UnknownPayloadType {
            function: spec.name.clone(),
            payload_type: name.clone(),
        }),
    }
}

impl Registry {
    /// The registry of `functions`; panics on a schema that does not compile (a bug in
    /// the function's definition, caught by the registry's tests).
    pub fn new(functions: impl IntoIterator<Item = Arc<dyn Function>>) -> Self {
        let entries = functions
            .into_iter()
            .map(|function| {
                let spec = function.spec();
                let validator = jsonschema::validator_for(&spec.parameters).unwrap_or_else(|err| {
                    panic!(
                        "the argument schema of `{}` does not compile: {err}",
                        spec.name
                    )
                });
                (
                    spec.name.clone(),
                    Arc::new(Entry {
                        function,
                        validator,
                    }),
                )
            })
            .collect();
        Self {
            entries: Arc::new(entries),
            payloads: PayloadRegistry::default(),
        }
    }

    /// The built-in functions, with the built-in payload types.
    pub fn builtin() -> Self {
        Self::new(builtin::all())
            .with_payloads(PayloadRegistry::builtin())
            .expect("the built-in functions name built-in payload types")
    }

    /// Checks results against `payloads` from now on: every function's payload type must
    /// be one of them, of source `tool`.
    pub fn with_payloads(mut self, payloads: PayloadRegistry) -> Result<Self, RegistryError> {
        for entry in self.entries.values() {
            check_payload_type(entry.function.spec(), &payloads)?;
        }
        self.payloads = payloads;
        Ok(self)
    }

    /// The payload types.
    pub fn payloads(&self) -> &PayloadRegistry {
        &self.payloads
    }

    /// A recorded call as the loop sees it: its row's result, with its payload when it
    /// succeeded and its function declares a payload type.
    pub fn result_of_row(
        &self,
        row: parley_entity::tool_calls::Model,
    ) -> crate::agent_loop::CallResult {
        let output = crate::agent_loop::CallOutput::of_row(&row);
        let payload = match (&output, row.state) {
            (
                crate::agent_loop::CallOutput::Result(value),
                parley_protocol::events::ToolCallState::Success,
            ) => self.payload_of(&row.tool_name, value).and_then(Result::ok),
            _ => None,
        };
        let record = crate::agent_loop::CallRecord::of_row(row.provider_state.as_ref());
        crate::agent_loop::CallResult {
            arguments: record.arguments_for(&row.tool_args),
            record,
            id: row.api_tool_call_id,
            name: row.tool_name,
            input: row.tool_args,
            state: row.state,
            output,
            payload,
            duration_ms: row.duration_ms.unwrap_or(0).max(0) as u64,
        }
    }

    /// The payload of a successful result of function `name`: `None` when the function
    /// declares no payload type, else the result as a payload or why it does not fit.
    pub fn payload_of(
        &self,
        name: &str,
        output: &Value,
    ) -> Option<Result<CustomPayload, ResultMismatch>> {
        let kind = self
            .entries
            .get(name)?
            .function
            .spec()
            .payload_type
            .as_deref()?;
        Some(
            self.payloads
                .payload(kind, output.clone())
                .map_err(|problem| ResultMismatch {
                    payload_type: kind.to_owned(),
                    problem,
                }),
        )
    }

    /// Adds functions from elsewhere (an MCP server): a name already taken or a schema
    /// that does not compile is an error naming the function, and nothing is added.
    pub fn extend(
        &mut self,
        functions: impl IntoIterator<Item = Arc<dyn Function>>,
    ) -> Result<(), RegistryError> {
        let mut added = BTreeMap::new();
        for function in functions {
            let spec = function.spec();
            if self.entries.contains_key(&spec.name) || added.contains_key(&spec.name) {
                return Err(RegistryError::Twice(spec.name.clone()));
            }
            check_payload_type(spec, &self.payloads)?;
            let validator = jsonschema::validator_for(&spec.parameters).map_err(|err| {
                RegistryError::Schema {
                    function: spec.name.clone(),
                    reason: err.to_string(),
                }
            })?;
            added.insert(
                spec.name.clone(),
                Arc::new(Entry {
                    function,
                    validator,
                }),
            );
        }
        Arc::make_mut(&mut self.entries).extend(added);
        Ok(())
    }

    /// The API's view of the functions.
    pub fn catalog(&self) -> FunctionCatalog {
        FunctionCatalog::new(self.entries.values().map(|e| e.function.spec().clone()))
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Function>> {
        self.entries.get(name).map(|e| &e.function)
    }

    /// What is wrong with `args` for function `name` (`None`: they fit its schema).
    pub fn check_arguments(&self, name: &str, args: &Value) -> Option<String> {
        schema_problems(&self.entries.get(name)?.validator, args)
    }

    /// The offers of the functions named (those that exist), for the model.
    pub fn offers<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Vec<FunctionOffer> {
        names
            .into_iter()
            .filter_map(|name| self.entries.get(name))
            .map(|entry| {
                let spec = entry.function.spec();
                FunctionOffer {
                    name: spec.name.clone(),
                    description: spec.description.clone(),
                    parameters: spec.parameters.clone(),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_builtin_registry_compiles_and_checks_arguments() {
        let registry = Registry::builtin();
        let names: Vec<String> = registry.catalog().all().map(|s| s.name.clone()).collect();
        for name in [
            "createNote",
            "createTodo",
            "getAssignmentInfo",
            "getCurrentTime",
            "searchPriorSessions",
        ] {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
        }
        assert_eq!(
            registry.check_arguments("createTodo", &json!({"title": "x"})),
            None
        );
        let wrong = registry.check_arguments("createTodo", &json!({"title": 5, "extra": 1}));
        assert!(
            wrong.is_some_and(|w| w.contains("title")),
            "type errors name the field"
        );
        assert!(registry.check_arguments("createTodo", &json!({})).is_some());
        let offers = registry.offers(["getCurrentTime", "nope"]);
        assert_eq!(offers.len(), 1);
        assert_eq!(offers[0].parameters["type"], "object");
    }

    #[test]
    fn a_functions_payload_type_must_be_a_registered_tool_type() {
        use parley_service::payloads::{PayloadRegistry, PayloadType};
        let missing = Registry::new(builtin::all()).with_payloads(PayloadRegistry::default());
        let err = missing
            .err()
            .expect("createTodo names `todo`, which is missing");
        assert!(
            matches!(err, RegistryError::UnknownPayloadType { .. }),
            "{err}"
        );
        assert!(err.to_string().contains("not registered"), "{err}");
        let written_by_the_model = PayloadRegistry::new(
            PayloadRegistry::builtin()
                .all()
                .map(|t| PayloadType {
                    source: if t.name == "todo" {
                        PayloadSource::Llm
                    } else {
                        t.source
                    },
                    ..t.clone()
                })
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let err = Registry::new(builtin::all())
            .with_payloads(written_by_the_model)
            .err()
            .expect("an llm type is not a function's");
        assert!(
            matches!(err, RegistryError::PayloadTypeOfTheModel { .. }),
            "{err}"
        );
        assert!(err.to_string().contains("source llm"), "{err}");
        // Results are checked against the type.
        let registry = Registry::builtin();
        assert!(matches!(
            registry.payload_of("createTodo", &json!({"todo_id": "x", "title": "t"})),
            Some(Ok(_))
        ));
        assert!(matches!(
            registry.payload_of("createTodo", &json!({"title": 5})),
            Some(Err(_))
        ));
        assert!(registry.payload_of("getCurrentTime", &json!({})).is_none());
    }
}
