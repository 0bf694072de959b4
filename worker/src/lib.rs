//! Parley's generation pipeline: one job is one turn (DESIGN §5).
//!
//! [`turn`] is the pipeline a reader follows top to bottom — claim, context,
//! before-hooks, skill routing, generation, after-hooks, persistence, finish — one
//! module per stage under it and one short orchestrating function. The stages are built
//! from the modules below, each named after what it does:
//!
//! * [`jobs`] — the `PromptJob` job: a turn, or one asynchronous function call;
//! * [`skills`] — the skill router: built-in skills (timers, math) that answer instead
//!   of the model when a message is clearly theirs;
//! * [`prompt`] — what is sent to the model: the system prompt in sections and the
//!   token-budgeted history window;
//! * [`agent_loop`] — provider calls turned into content blocks and events, and the
//!   tool loop: function calls run, results fed back, the model called again;
//! * [`functions`] — the functions a model may call (built-ins backed by tables) and the
//!   running of one response's calls;
//! * [`providers`] — where tokens come from (OpenAI-compatible endpoints, the offline
//!   demo model);
//! * [`sink`] — what a streaming turn writes: the event log, block checkpoints, hold-back,
//!   and the cancel and lease watching beside them;
//! * [`timers`] — the pass that fires due timers (a notice in the session, an event on
//!   the user's feed), run by [`schedule`];
//! * [`approvals`] — the pass that denies function calls whose approval expired and
//!   resumes their turns, run by [`schedule`].
//!
//! * [`deps`] and [`error`] — what every stage is built from and fails with (they
//!   import no stage, so no stage imports the orchestrator or another's parent);
//! * [`hooks`] — the modules of the session's tool at `chat:before_ai`,
//!   `chat:on_message` and `chat:after_ai` (run by `parley_service::modules`).

pub mod agent_loop;
pub mod approvals;
pub mod attachments;
pub mod compaction;
pub mod consumer;
pub mod deps;
pub mod error;
pub mod functions;
pub mod history;
pub mod hooks;
pub mod jobs;
pub mod prompt;
pub mod providers;
pub mod schedule;
pub mod side_call;
pub mod sink;
pub mod skills;
pub mod timers;
pub mod titles;
pub mod turn;

#[cfg(test)]
mod layering;
#[cfg(test)]
mod testing;

/// The how-tos of `docs/howto/` that build on this crate: their examples are compiled and
/// run as this crate's doctests, so a how-to that no longer matches the code fails.
#[cfg(doctest)]
mod howto {
    #[doc = include_str!("../../docs/howto/add-a-provider.md")]
    struct AddAProvider;

    #[doc = include_str!("../../docs/howto/add-a-skill.md")]
    struct AddASkill;

    #[doc = include_str!("../../docs/howto/add-a-function.md")]
    struct AddAFunction;

    #[doc = include_str!("../../docs/howto/add-a-module.md")]
    struct AddAModule;

    #[doc = include_str!("../../docs/howto/add-a-hook-point.md")]
    struct AddAHookPoint;
}
