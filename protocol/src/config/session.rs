//! [`SessionConfig`]: the cascade resolved for one session, and the merge that resolves
//! it.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{ConfigOverrides, HistorySettings, SkillName, ToolConstraints, ToolModule, stored};
use crate::sampling::SamplingBounds;
use crate::wire::Text;

/// A session's configuration: group settings (root first) → the tool's definition → the
/// assignment's config, merged field by field when the session opened and frozen on it
/// (a tool changed later does not change open sessions). Absent options take the
/// deployment's defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "db", derive(sea_orm::FromJsonQueryResult))]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
pub struct SessionConfig {
    /// The core behavior (the "Core Behavior" section of the system prompt).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behavior: Option<Text>,
    /// The model of turns that name none (when this deployment serves it).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<Text>,
    /// What the tool must stay within.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraints: Option<ToolConstraints>,
    /// Modules (hooks) enabled, with their settings for this tool.
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modules: Option<Vec<ToolModule>>,
    /// Names of the functions the model may call.
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub functions: Option<Vec<Text>>,
    /// Functions whose calls wait for the owner's approval (besides the functions the
    /// deployment's configuration makes always wait).
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_required: Option<Vec<Text>>,
    /// The most messages the session may hold.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_messages: Option<u32>,
    /// The longest the session may last, in seconds.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_session_duration_s: Option<u32>,
    /// Model calls per turn at most (default 5).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u32>,
    /// Payload types the model may write into its answers.
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_types: Option<Vec<Text>>,
    /// Ask the model for suggested values and actions (default false).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<bool>,
    /// Hold the answer back until the `chat:after_ai` modules passed it (default false).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hold_back: Option<bool>,
    /// Let the built-in skills answer (default true).
    #[serde(default, deserialize_with = "stored::skills")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<bool>,
    /// Which built-in skills may answer (absent: all; constraints still rule some out:
    /// under `no_direct_answers`, a skill that hands out results does not answer).
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled_skills: Option<Vec<SkillName>>,
    /// The "Additional Guidance" section of the system prompt (before what modules add).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<Text>,
    /// What a long conversation keeps of what falls out of the model's window: the
    /// window moves in steps (the same history prefix turn after turn, so providers'
    /// prompt caches hit), and with `compaction: summarize` what a step drops is
    /// summarized by a model call and kept at the head of the history.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<HistorySettings>,
    /// Bounds on the sampling a request may ask for (`temperature`, `top_p`, the
    /// penalties: fixed or a range; `max_output_tokens`: a cap), and whether a value
    /// outside them is clamped (the default) or refused 400.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingBounds>,
    /// The assignment the session was opened for.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assignment: Option<SessionAssignment>,
}

/// The assignment of a session, as its configuration carries it (the "Assignment
/// Context" section of the system prompt, `getAssignmentInfo`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct SessionAssignment {
    pub id: Uuid,
    #[serde(default)]
    pub title: Text,
    #[serde(default)]
    pub instructions: Text,
}

impl SessionConfig {
    /// The JSON keys of the options the turn's SQL reads where it takes an idle session
    /// in one statement (`entity/src/query/prompts/turn.rs`): the model and the limits.
    /// A test checks that they are the names these fields are stored under.
    pub const MODEL_KEY: &'static str = "model";
    pub const MAX_MESSAGES_KEY: &'static str = "max_messages";
    pub const MAX_SESSION_DURATION_S_KEY: &'static str = "max_session_duration_s";

    /// Resolves the cascade: `layers` in order, the most general first, each over the
    /// ones before it, then the assignment (if any).
    pub fn resolve<'a>(
        layers: impl IntoIterator<Item = &'a ConfigOverrides>,
        assignment: Option<SessionAssignment>,
    ) -> Self {
        let mut config = Self::default();
        for layer in layers {
            config.overlay(layer);
        }
        config.assignment = assignment;
        config
    }

    /// `layer` over this configuration, field by field: an option the layer sets
    /// replaces the one below (a list as a whole), one it leaves absent is inherited, and
    /// `constraints` merge field by field.
    pub fn overlay(&mut self, layer: &ConfigOverrides) {
        use stored::over;
        over(&mut self.behavior, &layer.behavior);
        over(&mut self.model, &layer.model);
        match (&mut self.constraints, &layer.constraints) {
            (Some(below), Some(above)) => below.overlay(above),
            (below, above @ Some(_)) => below.clone_from(above),
            (_, None) => {}
        }
        over(&mut self.modules, &layer.modules);
        over(&mut self.functions, &layer.functions);
        over(&mut self.approval_required, &layer.approval_required);
        over(&mut self.max_messages, &layer.max_messages);
        over(
            &mut self.max_session_duration_s,
            &layer.max_session_duration_s,
        );
        over(&mut self.max_iterations, &layer.max_iterations);
        over(&mut self.payload_types, &layer.payload_types);
        over(&mut self.suggestions, &layer.suggestions);
        over(&mut self.hold_back, &layer.hold_back);
        over(&mut self.skills, &layer.skills);
        over(&mut self.enabled_skills, &layer.enabled_skills);
        over(&mut self.guidance, &layer.guidance);
        over(&mut self.history, &layer.history);
        over(&mut self.sampling, &layer.sampling);
    }

    /// The functions the model may call (none when absent).
    pub fn functions(&self) -> impl Iterator<Item = &str> {
        self.functions.iter().flatten().map(|name| &**name)
    }

    /// Whether a call of `function` waits for approval in this session: its tool (or a
    /// layer of the cascade) says so; a function that always needs approval says so
    /// itself (the caller checks its spec too).
    pub fn needs_approval(&self, function: &str) -> bool {
        self.approval_required
            .iter()
            .flatten()
            .any(|name| &**name == function)
    }

    /// The LLM payload types the model may write (none when absent).
    pub fn payload_types(&self) -> impl Iterator<Item = &str> {
        self.payload_types.iter().flatten().map(|name| &**name)
    }

    /// Whether the skill router runs (absent: yes).
    pub fn skills_enabled(&self) -> bool {
        self.skills.unwrap_or(true)
    }

    /// Whether skill `name` may answer: the router runs, the tool lists it (or lists
    /// none), and its answers keep the constraints — one that `gives_answers` (hands out
    /// a result) does not under `no_direct_answers`.
    /// A skill without a name (not a built-in) runs only when the tool lists none.
    pub fn skill_allowed(&self, name: Option<SkillName>, gives_answers: bool) -> bool {
        let listed = self
            .enabled_skills
            .as_ref()
            .is_none_or(|names| name.is_some_and(|name| names.contains(&name)));
        let no_direct_answers = self
            .constraints
            .as_ref()
            .and_then(|c| c.no_direct_answers)
            .unwrap_or(false);
        self.skills_enabled() && listed && !(gives_answers && no_direct_answers)
    }

    /// Whether the answer is held back for the `chat:after_ai` modules (absent: no).
    pub fn holds_back(&self) -> bool {
        self.hold_back.unwrap_or(false)
    }

    /// The bounds on the turns' sampling (absent: none).
    pub fn sampling_bounds(&self) -> crate::sampling::SamplingBounds {
        self.sampling.unwrap_or_default()
    }

    /// Whether the model is asked for suggestions (absent: no).
    pub fn wants_suggestions(&self) -> bool {
        self.suggestions.unwrap_or(false)
    }
}
