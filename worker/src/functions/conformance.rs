//! The function conformance suite: what the registry, the runner ([`super::runner`]) and
//! the model rely on from every [`Function`], run against each implementation through
//! its [`Harness`] (the built-ins on a migrated in-memory SQLite database, the MCP
//! functions against the in-tree test server `tests/mcp-server`, in-process over HTTP).
//! A new implementation adds a harness and `conformance_suite!(its_harness)` beside its
//! tests.
//!
//! Every function:
//! * has a spec providers and clients can use: a name providers accept (`[A-Za-z0-9_-]`,
//!   1–64), a description, an argument schema that compiles and describes a JSON object,
//!   a timeout, permissions that are words; a payload type, when it names one, that the
//!   registry knows as a function's;
//! * joins a registry with the others of its implementation: names are unique;
//! * is refused before it runs when its arguments do not fit its schema (a non-object,
//!   and the harness's examples): the registry's check, which the runner makes;
//! * answers each valid example within its timeout with a JSON object that fits its
//!   payload type and has no `error` text (the runner reads that as the failure);
//! * answers arguments that fit its schema but that it cannot use with a
//!   [`FunctionError`] the model can read (`Invalid`, or `Failed` when the harness says
//!   so), not a panic;
//! * when the check is bypassed, answers arguments outside its schema with an error or a
//!   result, not a panic.

use std::{collections::BTreeSet, sync::Arc};

use parley_service::payloads::PayloadRegistry;
use serde_json::{Value, json};
use uuid::Uuid;

use super::{CallContext, Function, FunctionError, Progress, Registry};

/// What a call of an [`Example`] must give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A result.
    Answer,
    /// The arguments fit the schema, but the function cannot use them.
    Invalid,
    /// The function could not do what was asked.
    Failed,
    /// The arguments do not fit the schema: the registry refuses them before a call.
    Refused,
}

/// One call the suite makes.
#[derive(Debug, Clone)]
pub struct Example {
    pub function: &'static str,
    pub arguments: Value,
    pub expect: Expect,
}

impl Example {
    pub fn new(function: &'static str, arguments: Value, expect: Expect) -> Self {
        Self {
            function,
            arguments,
            expect,
        }
    }
}

/// How the suite reaches one implementation.
#[async_trait::async_trait]
pub trait Harness: Send + Sync {
    /// Every function of the implementation, and the context their calls run in (the
    /// suite gives each call its own `call_id`).
    async fn setup(&self) -> (Vec<Arc<dyn Function>>, CallContext);

    /// The calls to make: every function is called (an example that is not
    /// [`Expect::Refused`]), and answers at least once unless it cannot (a tool that
    /// always fails).
    fn examples(&self) -> Vec<Example>;

    /// The payload types the deployment has.
    fn payloads(&self) -> PayloadRegistry {
        PayloadRegistry::builtin()
    }
}

/// The functions in a registry with the harness's payload types (which checks names,
/// schemas and payload types), and the context.
async fn registry(harness: &dyn Harness) -> (Vec<Arc<dyn Function>>, Registry, CallContext) {
    let (functions, context) = harness.setup().await;
    assert!(!functions.is_empty(), "the harness has functions");
    let mut registry = Registry::default()
        .with_payloads(harness.payloads())
        .expect("no function yet");
    registry
        .extend(functions.iter().cloned())
        .unwrap_or_else(|err| panic!("the functions join a registry: {err}"));
    (functions, registry, context)
}

/// The function named by `example`, from `functions`.
fn function<'a>(functions: &'a [Arc<dyn Function>], example: &Example) -> &'a dyn Function {
    functions
        .iter()
        .find(|f| f.spec().name == example.function)
        .unwrap_or_else(|| panic!("an example names `{}`, not a function", example.function))
        .as_ref()
}

/// Calls `function` in `context` with a call id of its own, within its timeout.
async fn call(
    function: &dyn Function,
    context: &CallContext,
    arguments: Value,
) -> Result<Value, FunctionError> {
    let context = CallContext {
        call_id: Uuid::now_v7(),
        ..context.clone()
    };
    let spec = function.spec();
    tokio::time::timeout(
        spec.timeout,
        function.call(&context, arguments, &Progress::discard()),
    )
    .await
    .unwrap_or_else(|_| panic!("`{}` answers within {:?}", spec.name, spec.timeout))
}

pub async fn specs_are_ones_providers_and_clients_can_use(harness: &dyn Harness) {
    let (functions, _context) = harness.setup().await;
    for function in &functions {
        let spec = function.spec();
        let name = &spec.name;
        assert!(
            (1..=64).contains(&name.len())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'),
            "`{name}` is a name providers accept"
        );
        assert!(
            !spec.description.trim().is_empty(),
            "`{name}` has a description"
        );
        assert_eq!(
            spec.parameters["type"], "object",
            "`{name}`'s arguments are an object: {}",
            spec.parameters
        );
        if let Some(properties) = spec.parameters.get("properties") {
            assert!(properties.is_object(), "`{name}`: {properties}");
        }
        jsonschema::validator_for(&spec.parameters)
            .unwrap_or_else(|err| panic!("`{name}`'s schema compiles: {err}"));
        assert!(!spec.timeout.is_zero(), "`{name}` has a timeout");
        for permission in &spec.permissions {
            assert!(
                !permission.is_empty() && !permission.contains(char::is_whitespace),
                "`{name}`'s permission {permission:?} is a word"
            );
        }
    }
}

pub async fn names_are_unique_and_join_a_registry(harness: &dyn Harness) {
    let (functions, registry, _context) = registry(harness).await;
    let names: BTreeSet<&str> = functions.iter().map(|f| f.spec().name.as_str()).collect();
    assert_eq!(names.len(), functions.len(), "one function per name");
    let listed: BTreeSet<String> = registry.catalog().all().map(|s| s.name.clone()).collect();
    assert_eq!(
        listed,
        names.iter().map(|n| (*n).to_owned()).collect(),
        "the catalog lists them"
    );
    assert_eq!(registry.offers(names.iter().copied()).len(), names.len());
    for example in harness.examples() {
        function(&functions, &example);
    }
    for name in &names {
        assert!(
            harness
                .examples()
                .iter()
                .any(|e| e.function == *name && e.expect != Expect::Refused),
            "the harness calls `{name}`"
        );
    }
}

pub async fn arguments_outside_the_schema_are_refused_before_a_call(harness: &dyn Harness) {
    let (functions, registry, _context) = registry(harness).await;
    for function in &functions {
        let name = &function.spec().name;
        for not_an_object in [json!("text"), json!([1, 2]), json!(7), Value::Null] {
            let refused = registry.check_arguments(name, &not_an_object);
            assert!(
                refused.is_some_and(|why| !why.is_empty()),
                "`{name}` refuses {not_an_object} and says why"
            );
        }
    }
    for example in harness.examples() {
        let fits = registry
            .check_arguments(example.function, &example.arguments)
            .is_none();
        assert_eq!(
            fits,
            example.expect != Expect::Refused,
            "the schema of `{}` and {example:?}",
            example.function
        );
    }
}

pub async fn valid_calls_answer_an_object_that_fits_the_payload_type(harness: &dyn Harness) {
    let (functions, registry, context) = registry(harness).await;
    for example in harness.examples() {
        if example.expect != Expect::Answer {
            continue;
        }
        let function = function(&functions, &example);
        let output = call(function, &context, example.arguments.clone())
            .await
            .unwrap_or_else(|err| panic!("{example:?} answers: {err}"));
        assert!(
            output.is_object(),
            "{example:?} answers an object: {output}"
        );
        match registry.payload_of(example.function, &output) {
            None => assert!(function.spec().payload_type.is_none()),
            Some(payload) => {
                let payload =
                    payload.unwrap_or_else(|err| panic!("{example:?} answered {output}: {err}"));
                assert_eq!(Some(&payload.kind), function.spec().payload_type.as_ref());
            }
        }
    }
}

pub async fn unusable_arguments_are_a_function_error_for_the_model(harness: &dyn Harness) {
    let (functions, _registry, context) = registry(harness).await;
    for example in harness.examples() {
        let function = function(&functions, &example);
        let err = match example.expect {
            Expect::Answer | Expect::Refused => continue,
            Expect::Invalid | Expect::Failed => call(function, &context, example.arguments.clone())
                .await
                .err()
                .unwrap_or_else(|| panic!("{example:?} is an error")),
        };
        match (&err, example.expect) {
            (FunctionError::Invalid(_), Expect::Invalid)
            | (FunctionError::Failed(_), Expect::Failed) => {}
            _ => panic!("{example:?} gave {err:?}"),
        }
        assert!(
            !err.to_string().trim().is_empty(),
            "{example:?}: the model is told why"
        );
    }
}

pub async fn a_bypassed_check_is_an_error_or_a_result_not_a_panic(harness: &dyn Harness) {
    let (functions, _registry, context) = registry(harness).await;
    let mut outside: Vec<(String, Value)> = harness
        .examples()
        .into_iter()
        .filter(|e| e.expect == Expect::Refused)
        .map(|e| (e.function.to_owned(), e.arguments))
        .collect();
    for function in &functions {
        outside.push((function.spec().name.clone(), json!("not an object")));
    }
    for (name, arguments) in outside {
        let function = functions
            .iter()
            .find(|f| f.spec().name == name)
            .expect("a function");
        if let Err(err) = call(function.as_ref(), &context, arguments).await {
            assert!(!err.to_string().trim().is_empty(), "`{name}`: {err:?}");
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
            use $crate::functions::conformance as suite;

            #[tokio::test]
            async fn specs_are_ones_providers_and_clients_can_use() {
                suite::specs_are_ones_providers_and_clients_can_use(&$harness).await;
            }

            #[tokio::test]
            async fn names_are_unique_and_join_a_registry() {
                suite::names_are_unique_and_join_a_registry(&$harness).await;
            }

            #[tokio::test]
            async fn arguments_outside_the_schema_are_refused_before_a_call() {
                suite::arguments_outside_the_schema_are_refused_before_a_call(&$harness).await;
            }

            #[tokio::test]
            async fn valid_calls_answer_an_object_that_fits_the_payload_type() {
                suite::valid_calls_answer_an_object_that_fits_the_payload_type(&$harness).await;
            }

            #[tokio::test]
            async fn unusable_arguments_are_a_function_error_for_the_model() {
                suite::unusable_arguments_are_a_function_error_for_the_model(&$harness).await;
            }

            #[tokio::test]
            async fn a_bypassed_check_is_an_error_or_a_result_not_a_panic() {
                suite::a_bypassed_check_is_an_error_or_a_result_not_a_panic(&$harness).await;
            }
        }
    };
}

pub(crate) use conformance_suite;
