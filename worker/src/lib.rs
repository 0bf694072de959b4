//! Parley's generation pipeline: one job is one turn (DESIGN §5).
//!
//! The stages are modules named after them, so a reader finds a stage by its name:
//!
//! * [`jobs`] — the `Generate` job in three stages named after the turn: claim the
//!   prompt, run it (user message, the stages below) and finish it (persist the
//!   outcome, emit the terminal event, hand the session on);
//! * [`skills`] — the skill router: built-in skills (timers, math) that answer instead
//!   of the model when a message is clearly theirs;
//! * [`context`] — the system prompt in sections and the token-budgeted history;
//! * [`agent_loop`] — provider calls turned into content blocks and events, and the
//!   tool loop: function calls run, results fed back, the model called again;
//! * [`tools`] — the functions a model may call (built-ins backed by tables) and the
//!   running of one response's calls;
//! * [`providers`] — where tokens come from (OpenAI-compatible endpoints, the offline
//!   demo model);
//! * [`persist`] — the event log, block checkpoints, cancel and lease watching.
//!
//! * [`hooks`] — the modules of the session's tool at `chat:before_ai`,
//!   `chat:on_message` and `chat:after_ai` (run by `parley_service::modules`).

pub mod agent_loop;
pub mod attachments;
pub mod consumer;
pub mod context;
pub mod history;
pub mod hooks;
pub mod jobs;
pub mod persist;
pub mod providers;
pub mod schedule;
pub mod skills;
pub mod tools;
