//! The configuration of a chat tool, typed once for every crate that reads it.
//!
//! Three kinds of value meet in a session's configuration (DESIGN §5.6):
//!
//! * [`ToolDefinition`] — what a tool says (`tools.definition`): its behavior, model,
//!   constraints, modules, functions, limits and switches.
//! * [`ConfigOverrides`] — what a group's `settings` and an assignment's `config` put
//!   over the definitions below them: the same options, every one optional, and the
//!   `guidance` a tool cannot set itself.
//! * [`SessionConfig`] — the cascade resolved when a session opens (group settings from
//!   the root down to the tool's group → the tool's definition → the assignment's config,
//!   then the assignment itself), merged field by field by [`SessionConfig::overlay`],
//!   frozen on the session (`sessions.config`), carried in the job, and read by field by
//!   the worker, the modules and the turn service.
//!
//! One struct gives both forms of each: serde (what is stored and carried) and, behind
//! the `openapi` feature, poem-openapi's `Object` (the API document and the parse of a
//! request). The two readers differ on purpose:
//!
//! * **A client's request** is parsed by poem-openapi, strictly: unknown fields are
//!   refused (`deny_unknown_fields`, at every level) and the validators hold, so a
//!   misspelt key is a 422 that names it, and nothing unchecked is stored.
//! * **A stored value** is read by serde, tolerantly ([`stored`]): group settings and
//!   assignment configs were free-form JSON before these types existed, and session
//!   configs froze whatever the cascade merged. An unknown key is ignored, a value of
//!   the wrong type reads as absent (a list keeps its items of the right type), and the
//!   `{"enabled": false}` form of `skills` reads as `false` — what the string reads of
//!   earlier versions made of the same rows, so they load and behave as before.

mod definition;
mod overrides;
mod session;
pub mod stored;

pub use definition::{
    Compaction, HistorySettings, SkillName, ToolConstraints, ToolDefinition, ToolModule,
};
pub use overrides::ConfigOverrides;
pub use session::{SessionAssignment, SessionConfig};

#[cfg(test)]
mod tests;
