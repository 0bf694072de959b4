//! The process's Prometheus metrics (DESIGN §11).
//!
//! One [`Metrics`] per process ([`metrics()`]): the api and the workers record into it
//! where things happen, and `GET /metrics` (the api) or the worker's metrics listener
//! renders it in Prometheus's text format. Gauges that describe shared state — prompts
//! by state, the oldest prompt still running, the queue's depth, the providers'
//! breakers — are read when a scrape asks ([`Metrics::set_prompts`] and friends), not
//! kept up to date on every change.
//!
//! Names and labels follow Prometheus's conventions: base units (seconds), `_total` on
//! counters (the encoder adds it), snake_case. Every label takes its values from a
//! bounded set — states, codes, hooks, or names from the deployment's configuration
//! (modules, models, providers, functions, skills) — never a user, session or prompt id,
//! so a series count does not grow with traffic. A name that may come from outside the
//! configuration (a function the model made up) is recorded as `other`.

mod labels;
pub mod process;

use std::sync::LazyLock;

pub use labels::*;
use parley_protocol::error::ErrorCode;
use prometheus_client::{
    metrics::{
        counter::Counter,
        family::Family,
        gauge::Gauge,
        histogram::{Histogram, linear_buckets},
    },
    registry::{Registry, Unit},
};

/// The content type of [`Metrics::render`]'s output.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// The label value of a name outside the configured set.
pub const OTHER: &str = "other";

/// This process's metrics.
pub fn metrics() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

type HistogramFamily<S> = Family<S, Histogram, fn() -> Histogram>;

/// Every metric Parley records, registered in one registry.
pub struct Metrics {
    registry: Registry,
    pub sessions_created: Counter,
    /// Events the user feed could not store (`user_feed::Publisher`).
    pub feed_publish_failures: Counter,
    /// Timers fired (their notice posted and their feed event published).
    pub timers_fired: Counter,
    pub turns: Family<TurnLabels, Counter>,
    pub turn_duration: HistogramFamily<StateLabels>,
    pub ttft: HistogramFamily<ModelLabels>,
    pub tokens: Family<TokenLabels, Counter>,
    pub provider_calls: Family<ProviderCallLabels, Counter>,
    pub breaker_state: Family<BreakerLabels, Gauge>,
    pub hook_duration: HistogramFamily<HookLabels>,
    pub hook_runs: Family<HookRunLabels, Counter>,
    pub cancellations: Family<CancelLabels, Counter>,
    pub compactions: Family<CompactionLabels, Counter>,
    pub skill_confidence: HistogramFamily<SkillLabels>,
    pub skill_hits: Family<SkillLabels, Counter>,
    pub function_calls: Family<FunctionLabels, Counter>,
    pub prompts: Family<StateLabels, Gauge>,
    pub oldest_active_prompt: Gauge,
    pub queue_depth: Gauge,
    pub rate_limited: Family<LimitLabels, Counter>,
    pub budget_refusals: Family<BudgetLabels, Counter>,
    pub auth_failures: Family<AuthFailureLabels, Counter>,
    pub http_requests: Family<HttpLabels, Counter>,
    pub http_duration: HistogramFamily<HttpRouteLabels>,
    pub feedback: Family<FeedbackLabels, Counter>,
}

fn seconds_buckets() -> Histogram {
    Histogram::new([
        0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
    ])
}

fn ttft_buckets() -> Histogram {
    Histogram::new([0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0])
}

fn fast_buckets() -> Histogram {
    Histogram::new([
        0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
    ])
}

fn share_buckets() -> Histogram {
    Histogram::new(linear_buckets(0.1, 0.1, 10))
}

impl Metrics {
    /// A registry with every metric, none recorded yet.
    pub fn new() -> Self {
        // The process metrics keep the standard unprefixed names (`process_*`); Parley's
        // own are `parley_*`.
        let mut root = Registry::default();
        root.register_collector(Box::new(process::ProcessCollector));
        let registry = root.sub_registry_with_prefix("parley");
        let build_info = Family::<process::BuildLabels, Gauge>::default();
        build_info
            .get_or_create(&process::BuildLabels {
                version: process::VERSION,
                revision: process::REVISION,
            })
            .set(1);
        registry.register(
            "build_info",
            "1, labelled with the version and source revision of the build that answers",
            build_info,
        );
        let sessions_created = Counter::default();
        registry.register(
            "sessions_created",
            "Chat sessions opened",
            sessions_created.clone(),
        );
        let feed_publish_failures = Counter::default();
        registry.register(
            "feed_publish_failures",
            "Events the user feed could not store (lost: readers refetch the session list)",
            feed_publish_failures.clone(),
        );
        let timers_fired = Counter::default();
        registry.register("timers_fired", "Timers fired", timers_fired.clone());
        let turns = Family::default();
        registry.register(
            "turns",
            "Turns ended, by terminal state and error code",
            turns.clone(),
        );
        let turn_duration = HistogramFamily::new_with_constructor(seconds_buckets as fn() -> _);
        registry.register_with_unit(
            "turn_duration",
            "Turn latency from the message's arrival to the turn's end, by terminal state",
            Unit::Seconds,
            turn_duration.clone(),
        );
        let ttft = HistogramFamily::new_with_constructor(ttft_buckets as fn() -> _);
        registry.register_with_unit(
            "llm_time_to_first_token",
            "Time from an LLM call's start to its first token, by model",
            Unit::Seconds,
            ttft.clone(),
        );
        let tokens = Family::default();
        registry.register(
            "llm_tokens",
            "Tokens sent to and received from models, by model and kind (input and output: every token; cached_input, cache_write: the parts of input read from and written to a prompt cache; reasoning: the part of output spent thinking)",
            tokens.clone(),
        );
        let provider_calls = Family::default();
        registry.register(
            "provider_calls",
            "LLM calls by provider and outcome (ok, cancelled, breaker_open, or the failure)",
            provider_calls.clone(),
        );
        let breaker_state = Family::default();
        registry.register(
            "provider_breaker_state",
            "1 for each provider's current circuit-breaker state, 0 for the others",
            breaker_state.clone(),
        );
        let hook_duration = HistogramFamily::new_with_constructor(fast_buckets as fn() -> _);
        registry.register_with_unit(
            "hook_duration",
            "How long a module took at a hook",
            Unit::Seconds,
            hook_duration.clone(),
        );
        let hook_runs = Family::default();
        registry.register(
            "hook_runs",
            "Module runs at a hook, by outcome (block: the module stopped the turn)",
            hook_runs.clone(),
        );
        let cancellations = Family::default();
        registry.register(
            "stream_cancellations",
            "Turns cancelled, by stage (queued: before a worker ran it; running)",
            cancellations.clone(),
        );
        let compactions = Family::default();
        registry.register(
            "compactions",
            "Steps of long conversations' history windows, by outcome (summarized, stepped: not summarized, failed: the summary call failed)",
            compactions.clone(),
        );
        let skill_confidence = HistogramFamily::new_with_constructor(share_buckets as fn() -> _);
        registry.register(
            "skill_confidence",
            "The skill router's confidence per routed message, by the skill that answered (none: the model did)",
            skill_confidence.clone(),
        );
        let skill_hits = Family::default();
        registry.register(
            "skill_hits",
            "Messages a skill answered instead of the model",
            skill_hits.clone(),
        );
        let function_calls = Family::default();
        registry.register(
            "function_calls",
            "Function calls by function and end state (success, error, canceled)",
            function_calls.clone(),
        );
        let prompts = Family::default();
        registry.register(
            "prompts",
            "Prompts not yet ended, by state, when scraped",
            prompts.clone(),
        );
        let oldest_active_prompt = Gauge::default();
        registry.register_with_unit(
            "oldest_active_prompt_age",
            "Age of the oldest prompt not yet ended, when scraped (0: none)",
            Unit::Seconds,
            oldest_active_prompt.clone(),
        );
        let queue_depth = Gauge::default();
        registry.register(
            "queue_depth",
            "Jobs waiting in the queue for a worker, when scraped",
            queue_depth.clone(),
        );
        let rate_limited = Family::default();
        registry.register(
            "rate_limited",
            "Turns refused by a quota, by limit",
            rate_limited.clone(),
        );
        let budget_refusals = Family::default();
        registry.register(
            "budget_refusals",
            "Turns and model calls refused by a spending budget, by subject and period",
            budget_refusals.clone(),
        );
        let auth_failures = Family::default();
        registry.register(
            "auth_failures",
            "Requests with wrong credentials (refused) and from client addresses over their limit of them (throttled)",
            auth_failures.clone(),
        );
        let http_requests = Family::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by method, route and status",
            http_requests.clone(),
        );
        let http_duration = HistogramFamily::new_with_constructor(fast_buckets as fn() -> _);
        registry.register_with_unit(
            "http_request_duration",
            "Time to an HTTP response's head, by method and route",
            Unit::Seconds,
            http_duration.clone(),
        );
        let feedback = Family::default();
        registry.register(
            "feedback",
            "Ratings users gave answers (a new rating, or a changed one), by chat tool, model and rating",
            feedback.clone(),
        );
        Self {
            registry: root,
            sessions_created,
            feed_publish_failures,
            timers_fired,
            turns,
            turn_duration,
            ttft,
            tokens,
            provider_calls,
            breaker_state,
            hook_duration,
            hook_runs,
            cancellations,
            compactions,
            skill_confidence,
            skill_hits,
            function_calls,
            prompts,
            oldest_active_prompt,
            queue_depth,
            rate_limited,
            budget_refusals,
            auth_failures,
            http_requests,
            http_duration,
            feedback,
        }
    }

    /// Everything recorded, in Prometheus's text format ([`CONTENT_TYPE`]).
    pub fn render(&self) -> String {
        let mut out = String::with_capacity(16 * 1024);
        // Writing to a String cannot fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry);
        out
    }

    /// A turn ended in `state` (with `code` when it did not complete), `elapsed` after
    /// its message arrived.
    pub fn turn_ended(&self, state: &'static str, code: Option<ErrorCode>, elapsed: f64) {
        self.turns
            .get_or_create(&TurnLabels {
                state,
                code: code.map_or("none", ErrorCode::as_str),
            })
            .inc();
        self.turn_duration
            .get_or_create(&StateLabels { state })
            .observe(elapsed.max(0.0));
    }

    /// One LLM call: its provider's outcome, the model's tokens and time to first token.
    pub fn llm_call(&self, call: LlmCall<'_>) {
        self.provider_calls
            .get_or_create(&ProviderCallLabels {
                provider: call.provider.to_owned(),
                outcome: call.outcome,
            })
            .inc();
        let t = call.tokens;
        for (kind, n) in [
            ("input", t.input_tokens),
            ("output", t.output_tokens),
            ("cached_input", t.cached_input_tokens),
            ("cache_write", t.cache_write_tokens),
            ("reasoning", t.reasoning_tokens),
        ] {
            self.tokens
                .get_or_create(&TokenLabels {
                    model: call.model.to_owned(),
                    kind,
                })
                .inc_by(n);
        }
        if let Some(ttft) = call.ttft_seconds {
            self.ttft
                .get_or_create(&ModelLabels {
                    model: call.model.to_owned(),
                })
                .observe(ttft);
        }
    }

    /// A module ran at `hook`.
    pub fn hook_ran(&self, module: &str, hook: &'static str, outcome: &'static str, secs: f64) {
        self.hook_duration
            .get_or_create(&HookLabels {
                module: module.to_owned(),
                hook,
            })
            .observe(secs);
        self.hook_runs
            .get_or_create(&HookRunLabels {
                module: module.to_owned(),
                hook,
                outcome,
            })
            .inc();
    }

    /// The skill router looked at a message: `skill` answered it (`none`: no skill
    /// did), with `confidence`.
    pub fn skill_routed(&self, skill: &str, confidence: f64, answered: bool) {
        let labels = SkillLabels {
            skill: skill.to_owned(),
        };
        self.skill_confidence
            .get_or_create(&labels)
            .observe(confidence);
        if answered {
            self.skill_hits.get_or_create(&labels).inc();
        }
    }

    pub fn function_called(&self, function: &str, state: &'static str) {
        self.function_calls
            .get_or_create(&FunctionLabels {
                function: function.to_owned(),
                state,
            })
            .inc();
    }

    /// A step of a conversation's history window (`outcome`: [`CompactionLabels`]).
    pub fn compacted(&self, outcome: &'static str) {
        self.compactions
            .get_or_create(&CompactionLabels { outcome })
            .inc();
    }

    pub fn cancelled(&self, stage: &'static str) {
        self.cancellations
            .get_or_create(&CancelLabels { stage })
            .inc();
    }

    /// The prompts not yet ended, by state (every state in `states` is set, 0 when
    /// absent from `counts`), and the age of the oldest.
    pub fn set_prompts(&self, states: &[&'static str], counts: &[(&str, i64)], oldest: f64) {
        for &state in states {
            let n = counts
                .iter()
                .filter(|(s, _)| *s == state)
                .map(|(_, n)| *n)
                .sum();
            self.prompts.get_or_create(&StateLabels { state }).set(n);
        }
        // Whole seconds: the alert's threshold is minutes.
        self.oldest_active_prompt.set(oldest.max(0.0) as i64);
    }

    /// The providers' breakers: `states` pairs each provider with its state's name.
    pub fn set_breakers<'a>(&self, states: impl IntoIterator<Item = (&'a str, &'static str)>) {
        const ALL: [&str; 4] = ["closed", "half_open", "open", "unknown"];
        for (provider, current) in states {
            for state in ALL {
                self.breaker_state
                    .get_or_create(&BreakerLabels {
                        provider: provider.to_owned(),
                        state,
                    })
                    .set(i64::from(state == current));
            }
        }
    }

    /// Sets `parley_queue_depth` from `queue` (at most 2 s; a queue that does not answer
    /// keeps the last reading, logged).
    pub async fn read_queue_depth(&self, queue: &dyn crate::queue::JobQueue) {
        match tokio::time::timeout(std::time::Duration::from_secs(2), queue.depth()).await {
            Ok(Ok(depth)) => {
                self.queue_depth
                    .set(i64::try_from(depth).unwrap_or(i64::MAX));
            }
            Ok(Err(err)) => tracing::warn!(error = %err, "metrics: cannot read the queue depth"),
            Err(_) => tracing::warn!("metrics: reading the queue depth timed out"),
        }
    }

    /// A user rated an answer of `tool`'s written by `model` (`None`: not recorded) with
    /// `rating` (`up`, `down`): a first rating or a changed one.
    pub fn feedback_given(&self, tool: &str, model: Option<&str>, rating: &'static str) {
        self.feedback
            .get_or_create(&FeedbackLabels {
                tool: tool.to_owned(),
                model: model.unwrap_or("none").to_owned(),
                rating,
            })
            .inc();
    }

    pub fn http_request(&self, method: &str, route: &str, status: u16, secs: f64) {
        self.http_requests
            .get_or_create(&HttpLabels {
                method: method.to_owned(),
                route: route.to_owned(),
                status,
            })
            .inc();
        self.http_duration
            .get_or_create(&HttpRouteLabels {
                method: method.to_owned(),
                route: route.to_owned(),
            })
            .observe(secs);
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// What [`Metrics::llm_call`] records of one call.
#[derive(Debug, Clone, Copy)]
pub struct LlmCall<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub outcome: &'static str,
    /// The call's tokens by kind.
    pub tokens: parley_protocol::events::Usage,
    pub ttft_seconds: Option<f64>,
}

#[cfg(test)]
mod tests;
