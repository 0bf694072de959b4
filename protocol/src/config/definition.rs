//! [`ToolDefinition`]: what a chat tool says, and the parts every layer of the cascade
//! shares ([`ToolConstraints`], [`ToolModule`]).

use serde::{Deserialize, Serialize};

use super::stored;
use crate::events::shared_enum;
use crate::sampling::SamplingBounds;
use crate::wire::{JsonObject, Text};

/// What a chat tool is: its behavior, model, constraints, modules and functions.
///
/// Absent options are not stored, so the organisation's settings stay in force for them
/// when a session's configuration is resolved (org → tool → assignment).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "db", derive(sea_orm::FromJsonQueryResult))]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(
    feature = "openapi",
    oai(deny_unknown_fields, skip_serializing_if_is_none)
)]
pub struct ToolDefinition {
    /// The core behavior: the "Core Behavior" section of the system prompt.
    #[cfg_attr(feature = "openapi", oai(validator(max_length = 50000)))]
    pub behavior: Text,
    /// The model to use; absent means the deployment's default model.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", oai(validator(min_length = 1, max_length = 200)))]
    pub model: Option<Text>,
    /// What the tool must stay within.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraints: Option<ToolConstraints>,
    /// Modules (hooks) enabled for this tool, with their settings.
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modules: Option<Vec<ToolModule>>,
    /// Names of the functions the model may call.
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub functions: Option<Vec<Text>>,
    /// Functions whose calls wait for the session's owner to approve them (each must be
    /// one of `functions`), besides those that always need approval (`GET
    /// /v1/functions`: `requires_approval`). A waiting call suspends the turn until it is
    /// approved (it runs), denied or expires (the model is told it was denied).
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval_required: Option<Vec<Text>>,
    /// The most messages a session may hold.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        oai(validator(minimum(value = "1"), maximum(value = "100000")))
    )]
    pub max_messages: Option<u32>,
    /// The longest a session may last, in seconds (at most a year).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        oai(validator(minimum(value = "1"), maximum(value = "31536000")))
    )]
    pub max_session_duration_s: Option<u32>,
    /// Model calls per turn at most, function calls in between (default 5).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        oai(validator(minimum(value = "1"), maximum(value = "20")))
    )]
    pub max_iterations: Option<u32>,
    /// Payload types the model may write into its answers (source `llm`, see `GET
    /// /v1/payload-types`); their instructions join the system prompt.
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_types: Option<Vec<Text>>,
    /// Ask the model for suggested values and actions (parsed out of its answer into
    /// `complete.payload`); default false.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<bool>,
    /// Hold the answer back until the tool's `chat:after_ai` modules passed it: readers
    /// get its events only then (or the replacement, if a module replaced it); default
    /// false.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hold_back: Option<bool>,
    /// Let the built-in skills (timers, math) answer messages that are clearly theirs
    /// instead of the model; default true.
    #[serde(default, deserialize_with = "stored::skills")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<bool>,
    /// Which built-in skills may answer, by name; absent: all of them (`timer`,
    /// `math`). Whatever is listed, a skill whose answer would break the tool's
    /// constraints does not answer — with `constraints.no_direct_answers`, `math` (which
    /// hands out the result) never does: the model answers, told the constraint.
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled_skills: Option<Vec<SkillName>>,
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
}

/// How a tool's long conversations keep their history (`ToolDefinition::history`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(
    feature = "openapi",
    oai(deny_unknown_fields, skip_serializing_if_is_none)
)]
pub struct HistorySettings {
    /// `off` (the default): what falls out of the window is gone for the model;
    /// `summarize`: it is summarized, and the summary heads the history.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<Compaction>,
    /// The model that writes the summary (one the deployment serves); absent: the
    /// turn's own model.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", oai(validator(min_length = 1, max_length = 200)))]
    pub summary_model: Option<Text>,
}

shared_enum! {
    /// What a conversation keeps of the history that falls out of the model's window.
    pub enum Compaction {
        /// Nothing: it is gone for the model (the stored messages stay).
        Off = "off",
        /// A summary by a model call, kept at the head of the history.
        Summarize = "summarize",
    }
}

impl HistorySettings {
    /// Whether what falls out of the window is summarized.
    pub fn summarizes(&self) -> bool {
        self.compaction == Some(Compaction::Summarize)
    }
}

shared_enum! {
    /// A built-in skill (DESIGN §5.3).
    pub enum SkillName {
        /// Named timers: set, pause, resume, cancel, and how long is left.
        Timer = "timer",
        /// Arithmetic, evaluated exactly.
        Math = "math",
    }
}

impl ToolDefinition {
    /// A definition with this behavior and no other option.
    pub fn new(behavior: impl Into<String>) -> Self {
        Self {
            behavior: Text(behavior.into()),
            model: None,
            constraints: None,
            modules: None,
            functions: None,
            approval_required: None,
            max_messages: None,
            max_session_duration_s: None,
            max_iterations: None,
            payload_types: None,
            suggestions: None,
            hold_back: None,
            skills: None,
            enabled_skills: None,
            history: None,
            sampling: None,
        }
    }
}

/// Limits on what a tool talks about and how it answers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(
    feature = "openapi",
    oai(deny_unknown_fields, skip_serializing_if_is_none)
)]
pub struct ToolConstraints {
    /// Topics the tool sticks to (empty: any).
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topics: Option<Vec<Text>>,
    /// Guide the learner instead of giving the answer away.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_direct_answers: Option<bool>,
}

impl ToolConstraints {
    /// `layer`'s constraints over these, field by field (absent ones inherit).
    pub fn overlay(&mut self, layer: &ToolConstraints) {
        stored::over(&mut self.topics, &layer.topics);
        stored::over(&mut self.no_direct_answers, &layer.no_direct_answers);
    }
}

/// A module enabled for a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(
    feature = "openapi",
    oai(deny_unknown_fields, skip_serializing_if_is_none)
)]
pub struct ToolModule {
    /// The module's name (e.g. `pii_redactor`, `safety_filter`, `analytics`, or one
    /// defined in the deployment's configuration).
    #[cfg_attr(feature = "openapi", oai(validator(min_length = 1, max_length = 100)))]
    pub name: Text,
    /// Settings for this tool, merged key by key over the deployment's settings of the
    /// module (its priority cannot be changed here).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<JsonObject>,
}
