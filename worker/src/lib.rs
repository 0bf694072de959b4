//! Parley's generation pipeline: one job is one turn (DESIGN §5).
//!
//! The stages will live here as modules named after them — `context`, `hooks`, `skills`,
//! `providers`, `tools`, `agent_loop`, `persist`, `jobs` — so a reader finds a stage by
//! its name. The streaming path (issue #3) brings the first of them; until then this
//! crate holds no code, and `parley` has no `worker` role.
