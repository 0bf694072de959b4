//! The built-in functions: real work on real tables, each a small struct with its spec.
//!
//! | function | needs | does |
//! | --- | --- | --- |
//! | `getCurrentTime` | — | the time in an IANA time zone |
//! | `getAssignmentInfo` | `assignments:read:self` | the session's assignment: title, instructions, window |
//! | `createTodo` | `todos:write:self` | a todo of the user's (`GET /v1/todos`) |
//! | `createNote` | `notes:write:self` | a note of the user's (`GET /v1/notes`) |
//! | `searchPriorSessions` | `sessions:read:self` | full-text search over the user's own earlier messages |

mod assignment;
mod records;
mod search;
mod time;

use std::sync::Arc;

use parley_service::{FunctionSpec, functions::Mode};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Function, FunctionError};

/// Every built-in function.
pub fn all() -> Vec<Arc<dyn Function>> {
    vec![
        Arc::new(time::CurrentTime::new()),
        Arc::new(assignment::AssignmentInfo::new()),
        Arc::new(records::CreateTodo::new()),
        Arc::new(records::CreateNote::new()),
        Arc::new(search::SearchPriorSessions::new()),
    ]
}

/// A built-in's arguments, typed. The runner has checked them against the function's
/// schema before the call, so arguments that do not read mean that the schema and the
/// type disagree (a bug the conformance suite's examples catch); the model is told its
/// arguments cannot be used.
fn arguments<T: DeserializeOwned>(args: Value) -> Result<T, FunctionError> {
    serde_json::from_value(args)
        .map_err(|err| FunctionError::Invalid(format!("the arguments do not read: {err}")))
}

/// A synchronous built-in's spec with the default timeout.
fn spec(name: &str, description: &str, parameters: Value, permissions: &[&str]) -> FunctionSpec {
    FunctionSpec {
        name: name.to_owned(),
        description: description.to_owned(),
        parameters,
        permissions: permissions.iter().map(|p| (*p).to_owned()).collect(),
        mode: Mode::Sync,
        timeout: parley_service::functions::DEFAULT_TIMEOUT,
        payload_type: None,
        requires_approval: false,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use parley_entity::{enums::MessageRole, query};
    use parley_protocol::config::SessionAssignment;
    use serde_json::json;
    use uuid::Uuid;

    use super::*;
    use crate::{
        functions::{
            CallContext,
            conformance::{Example, Expect, Harness, conformance_suite},
        },
        testing::Seeded,
    };

    /// The built-ins on a migrated in-memory SQLite database: a user with a session for
    /// an assignment, and an earlier session of theirs to search.
    struct Builtins;

    #[async_trait::async_trait]
    impl Harness for Builtins {
        async fn setup(&self) -> (Vec<Arc<dyn Function>>, CallContext) {
            let seeded = Seeded::new().await;
            let db = &seeded.db;
            let class = query::classes::create(
                db,
                query::classes::NewClass {
                    group_id: seeded.tool.group_id,
                    name: "Biology".into(),
                },
            )
            .await
            .expect("a class");
            let assignment = query::assignments::create(
                db,
                query::assignments::NewAssignment {
                    class_id: class.id,
                    tool_id: seeded.tool.id,
                    title: "Cells".into(),
                    instructions: "Explain photosynthesis.".into(),
                    config: None,
                    available_at: None,
                    closes_at: None,
                },
            )
            .await
            .expect("an assignment");
            let earlier = seeded.another_session().await;
            query::conversation::append_message(
                db,
                query::conversation::NewMessage {
                    session_id: earlier.id,
                    role: MessageRole::User,
                    content: "How does photosynthesis make sugar?".into(),
                    prompt_id: None,
                    is_complete: true,
                },
                query::now(),
            )
            .await
            .expect("a message");
            let mut session_config = seeded.session.config.clone();
            session_config.assignment = Some(SessionAssignment {
                id: assignment.id,
                title: assignment.title.clone().into(),
                instructions: assignment.instructions.clone().into(),
            });
            let context = CallContext {
                db: seeded.db.clone(),
                user_id: seeded.user.id,
                session_id: seeded.session.id,
                prompt_id: Uuid::now_v7(),
                call_id: Uuid::now_v7(),
                session_config,
            };
            (all(), context)
        }

        fn examples(&self) -> Vec<Example> {
            use Expect::*;
            vec![
                Example::new("getCurrentTime", json!({}), Answer),
                Example::new(
                    "getCurrentTime",
                    json!({"time_zone": "Europe/Paris"}),
                    Answer,
                ),
                Example::new(
                    "getCurrentTime",
                    json!({"time_zone": "Mars/Olympus"}),
                    Invalid,
                ),
                Example::new("getCurrentTime", json!({"time_zone": 5}), Refused),
                Example::new("getAssignmentInfo", json!({}), Answer),
                Example::new("getAssignmentInfo", json!({"id": "x"}), Refused),
                Example::new("createTodo", json!({"title": "Revise cells"}), Answer),
                Example::new(
                    "createTodo",
                    json!({"title": "Quiz", "notes": "ch. 3", "due_at": "2026-12-01T09:00:00Z"}),
                    Answer,
                ),
                Example::new(
                    "createTodo",
                    json!({"title": "Quiz", "due_at": "Friday"}),
                    Invalid,
                ),
                Example::new("createTodo", json!({"title": 5}), Refused),
                Example::new("createTodo", json!({}), Refused),
                Example::new(
                    "createNote",
                    json!({"title": "Cells", "content": "Mitochondria."}),
                    Answer,
                ),
                Example::new("createNote", json!({"title": "Cells"}), Refused),
                Example::new(
                    "searchPriorSessions",
                    json!({"query": "photosynthesis"}),
                    Answer,
                ),
                Example::new(
                    "searchPriorSessions",
                    json!({"query": "nothing like it", "limit": 3}),
                    Answer,
                ),
                Example::new(
                    "searchPriorSessions",
                    json!({"query": "x", "limit": 99}),
                    Refused,
                ),
            ]
        }
    }

    conformance_suite!(Builtins);
}
