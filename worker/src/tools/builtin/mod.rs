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
use serde_json::Value;

use super::Function;

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
    }
}
