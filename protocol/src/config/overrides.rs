//! [`ConfigOverrides`]: what a group's settings and an assignment's config put over the
//! tool definitions below them in the cascade.

use serde::{Deserialize, Serialize};

use super::{HistorySettings, SkillName, ToolConstraints, ToolDefinition, ToolModule, stored};
use crate::sampling::SamplingBounds;
use crate::wire::Text;

/// Options over the tool's definition: a group's `settings` (for the tools of the group
/// and its sub-groups) or an assignment's `config` (for its sessions). Every option is
/// optional — an absent one leaves what the layer below says in force — and means what
/// it means in a tool definition; `guidance` is set here only.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "db", derive(sea_orm::FromJsonQueryResult))]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(
    feature = "openapi",
    oai(deny_unknown_fields, skip_serializing_if_is_none)
)]
pub struct ConfigOverrides {
    /// The core behavior (the "Core Behavior" section of the system prompt).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", oai(validator(max_length = 50000)))]
    pub behavior: Option<Text>,
    /// The model to use.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", oai(validator(min_length = 1, max_length = 200)))]
    pub model: Option<Text>,
    /// What the tool must stay within, merged field by field.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constraints: Option<ToolConstraints>,
    /// Modules (hooks) enabled, with their settings (replaces the list below).
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modules: Option<Vec<ToolModule>>,
    /// Names of the functions the model may call (replaces the list below).
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub functions: Option<Vec<Text>>,
    /// Functions whose calls wait for the session's owner to approve them (replaces the list
    /// below), besides those that always need approval (`GET
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
    /// Model calls per turn at most, function calls in between.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "openapi",
        oai(validator(minimum(value = "1"), maximum(value = "20")))
    )]
    pub max_iterations: Option<u32>,
    /// Payload types the model may write into its answers (replaces the list below).
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload_types: Option<Vec<Text>>,
    /// Ask the model for suggested values and actions.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<bool>,
    /// Hold the answer back until the `chat:after_ai` modules passed it.
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hold_back: Option<bool>,
    /// Let the built-in skills (timers, math) answer messages that are clearly theirs.
    #[serde(default, deserialize_with = "stored::skills")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<bool>,
    /// Which built-in skills may answer (replaces the list below; see the tool
    /// definition's `enabled_skills`).
    #[serde(default, deserialize_with = "stored::list")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled_skills: Option<Vec<SkillName>>,
    /// Text for the "Additional Guidance" section of the system prompt (before what
    /// modules add).
    #[serde(default, deserialize_with = "stored::lenient")]
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", oai(validator(max_length = 50000)))]
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
}

impl From<&ToolDefinition> for ConfigOverrides {
    fn from(d: &ToolDefinition) -> Self {
        Self {
            behavior: Some(d.behavior.clone()),
            model: d.model.clone(),
            constraints: d.constraints.clone(),
            modules: d.modules.clone(),
            functions: d.functions.clone(),
            max_messages: d.max_messages,
            max_session_duration_s: d.max_session_duration_s,
            max_iterations: d.max_iterations,
            payload_types: d.payload_types.clone(),
            suggestions: d.suggestions,
            hold_back: d.hold_back,
            skills: d.skills,
            enabled_skills: d.enabled_skills.clone(),
            approval_required: d.approval_required.clone(),
            guidance: None,
            history: d.history.clone(),
            sampling: d.sampling,
        }
    }
}
