//! Parley's generation pipeline: one job is one turn (DESIGN §5).
//!
//! The stages are modules named after them, so a reader finds a stage by its name:
//! [`providers`] (where tokens come from). The context, agent loop, persistence and job
//! stages arrive with the rest of the streaming path; hooks, skills and tools slot in as
//! stages between them.

pub mod context;
pub mod providers;
