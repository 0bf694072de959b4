//! The label sets of the metrics: each field's values come from a bounded set (module
//! docs of `metrics`).

use prometheus_client::encoding::EncodeLabelSet;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TurnLabels {
    /// The prompt's terminal state (`completed`, `failed`, `error`, `canceled`).
    pub state: &'static str,
    /// The error code of a turn that did not complete (an `ErrorCode` of the catalogue,
    /// `parley_protocol::error`); `none` otherwise.
    pub code: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StateLabels {
    pub state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelLabels {
    pub model: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TokenLabels {
    pub model: String,
    /// `input` or `output`.
    pub kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ProviderCallLabels {
    pub provider: String,
    /// `ok`, `cancelled`, `breaker_open`, or how the call failed (`server_error`, …).
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BreakerLabels {
    pub provider: String,
    /// `closed`, `half_open`, `open` or `unknown` (the shared store did not answer).
    pub state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HookLabels {
    pub module: String,
    pub hook: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HookRunLabels {
    pub module: String,
    pub hook: &'static str,
    /// `continue`, `modify`, `block`, `error`, `timeout`, …
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CancelLabels {
    /// `queued` (ended before a worker ran it) or `running` (a worker stopped it).
    pub stage: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CompactionLabels {
    /// `summarized` (the window stepped and what it left out was summarized), `stepped`
    /// (it stepped, the tool does not summarize) or `failed` (the summary call failed:
    /// the turn ran with the stepped window and the summary so far).
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SkillLabels {
    pub skill: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FunctionLabels {
    pub function: String,
    /// The call's end: `success`, `error` or `canceled`.
    pub state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct BudgetLabels {
    /// Whose budget refused the turn: `user` or `group`.
    pub subject: &'static str,
    /// Its period: `day` or `month`.
    pub period: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LimitLabels {
    /// Which limit refused the turn: `turns_per_minute` or `tokens_per_day`.
    pub limit: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct AuthFailureLabels {
    /// `refused`: wrong credentials (answered 401); `throttled`: a client address over
    /// its failures per minute (answered 429 without looking at the credentials).
    pub outcome: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HttpLabels {
    pub method: String,
    /// The operation's path template (`/v1/sessions/{id}`), `unmatched` for others.
    pub route: String,
    pub status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HttpRouteLabels {
    pub method: String,
    pub route: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct FeedbackLabels {
    /// The name of the session's chat tool (tools are the deployment's, made by its
    /// administrators).
    pub tool: String,
    /// The model that wrote the answer (`none`: not recorded).
    pub model: String,
    /// `up` or `down`.
    pub rating: &'static str,
}
