//! `TimerSkill` (seed Gesahni): named timers per user — set, pause, resume, cancel and
//! ask how long is left — kept in the `timers` table. The five patterns and the answer
//! texts are the seed's; the default name is `timer` (the seed's was `gesahni`).

use std::sync::LazyLock;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use parley_entity::{
    query::{self, timers as q},
    timers,
};
use parley_protocol::config::SkillName;
use regex::Regex;

use super::{Found, Skill, SkillContext, SkillError};

/// The name of a timer the user did not name.
pub const DEFAULT_NAME: &str = "timer";

/// The longest timer, in seconds (a week); longer asks are not understood.
const MAX_SECONDS: u64 = 7 * 24 * 3600;

const UNIT: &str = r"(?P<unit>seconds?|second|minutes?|minute|mins?|hrs?|hours?)";
const VERB: &str = r"(?:start|set|begin|create)";

/// The seed's patterns, in its order: three ways to set a timer, control, query.
static PATTERNS: LazyLock<[Regex; 5]> = LazyLock::new(|| {
    [
        format!(r"(?i)\b{VERB} (?:(?P<name>[\w\-]+) )?timer for (?P<amount>\d+) {UNIT}\b"),
        format!(
            r"(?i)\b{VERB} (?:a )?timer for (?P<amount>\d+) {UNIT}(?: (?:named|called) (?P<name>[\w\-]+))?\b"
        ),
        format!(
            r"(?i)\b{VERB} (?:a )?timer (?:named|called) (?P<name>[\w\-]+) for (?P<amount>\d+) {UNIT}\b"
        ),
        r"(?i)\b(?:pause|resume|cancel|stop) (?:(?P<cname>[\w\-]+) )?timers?\b".to_owned(),
        r"(?i)\bhow (?:much |long )?left (?:on|for) (?:(?P<qname>[\w\-]+) )?timers?\b".to_owned(),
    ]
    .map(|p| Regex::new(&p).expect("a valid timer pattern"))
});

/// Pattern indexes.
const CONTROL: usize = 3;
const QUERY: usize = 4;

/// Named timers per user.
pub struct TimerSkill;

#[async_trait]
impl Skill for TimerSkill {
    fn name(&self) -> &'static str {
        "TimerSkill"
    }

    fn key(&self) -> Option<SkillName> {
        Some(SkillName::Timer)
    }

    /// The seed's patterns in order, except that an article or "my" is not a name
    /// (`set a timer`, `cancel the timer`), and a later pattern that matches more named
    /// groups wins: `create a timer for 10 minutes named pasta` is pattern 2's, which
    /// the seed's first pattern (taking "a" for a name) would always shadow.
    fn find<'t>(&self, text: &'t str) -> Option<Found<'t>> {
        let mut best: Option<Found<'t>> = None;
        for (pattern, regex) in PATTERNS.iter().enumerate() {
            let Some(mut found) = Found::of(pattern, regex, text) else {
                continue;
            };
            for group in ["name", "cname", "qname"] {
                if found.get(group).is_some_and(is_article) {
                    found.forget(group);
                }
            }
            if best.as_ref().is_none_or(|b| found.matched() > b.matched()) {
                best = Some(found);
            }
        }
        best
    }

    fn intent(&self, found: &Found<'_>) -> &'static str {
        match (found.pattern, action(found)) {
            (QUERY, _) => "timer_remaining",
            (CONTROL, Some(Action::Pause)) => "timer_pause",
            (CONTROL, Some(Action::Resume)) => "timer_resume",
            (CONTROL, _) => "timer_cancel",
            _ => "timer_set",
        }
    }

    async fn run(
        &self,
        context: &SkillContext,
        _text: &str,
        found: &Found<'_>,
    ) -> Result<String, SkillError> {
        let now = query::now();
        match found.pattern {
            QUERY => remaining(context, &clean_name(found.get("qname")), now).await,
            CONTROL => {
                let name = clean_name(found.get("cname"));
                match action(found) {
                    Some(action) => control(context, &name, action, now).await,
                    None => Ok("Could not parse timer command.".to_owned()),
                }
            }
            _ => set(context, found, now).await,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Pause,
    Resume,
    Cancel,
}

/// The control word a match of the control pattern starts with.
fn action(found: &Found<'_>) -> Option<Action> {
    let word = found.text.split_whitespace().next()?.to_lowercase();
    match word.as_str() {
        "pause" => Some(Action::Pause),
        "resume" => Some(Action::Resume),
        "cancel" | "stop" => Some(Action::Cancel),
        _ => None,
    }
}

/// Words the patterns capture where a name would be that are not names.
fn is_article(word: &str) -> bool {
    ["the", "my", "a", "an"]
        .iter()
        .any(|a| a.eq_ignore_ascii_case(word))
}

/// The seed's `_clean_name`: lower case, without a leading article or "my", without a
/// plural `s`, spaces as underscores; nothing (or only an article, which the seed kept
/// as a name) is the default name.
pub fn clean_name(name: Option<&str>) -> String {
    static LEADING: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^(?:the|my|a|an)\s+").expect("a valid regex"));
    static SPACES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\s+").expect("a valid regex"));
    let lower = name.unwrap_or_default().trim().to_lowercase();
    if is_article(&lower) {
        return DEFAULT_NAME.to_owned();
    }
    let mut cleaned = LEADING.replace(&lower, "").into_owned();
    if cleaned.ends_with('s') {
        cleaned.pop();
    }
    let cleaned = SPACES.replace_all(&cleaned, "_").into_owned();
    if cleaned.is_empty() {
        DEFAULT_NAME.to_owned()
    } else {
        cleaned
    }
}

/// How answers name a timer: `tea timer`, or `timer` for the default one.
fn called(name: &str) -> String {
    if name == DEFAULT_NAME {
        "timer".to_owned()
    } else {
        format!("{name} timer")
    }
}

/// The notice a timer posts in its session when it fires: `⏰ The tea timer is done`.
pub fn notice(name: &str) -> String {
    format!("⏰ The {} is done", called(name))
}

/// The same at the start of a sentence (`Timer paused.`, `tea timer paused.`).
fn called_first(name: &str) -> String {
    if name == DEFAULT_NAME {
        "Timer".to_owned()
    } else {
        called(name)
    }
}

/// A duration's seconds from an amount and a unit; `None` when it is not understood or
/// longer than a week.
pub fn seconds(amount: &str, unit: &str) -> Option<u64> {
    let amount: u64 = amount.parse().ok()?;
    let per = match unit.to_lowercase().as_str() {
        "second" | "seconds" => 1,
        "minute" | "minutes" | "min" | "mins" => 60,
        "hour" | "hours" | "hr" | "hrs" => 3600,
        _ => return None,
    };
    amount
        .checked_mul(per)
        .filter(|s| (1..=MAX_SECONDS).contains(s))
}

async fn set(
    context: &SkillContext,
    found: &Found<'_>,
    now: DateTime<Utc>,
) -> Result<String, SkillError> {
    let (Some(amount), Some(unit)) = (found.get("amount"), found.get("unit")) else {
        return Ok("Could not parse timer command.".to_owned());
    };
    let Some(duration_s) = seconds(amount, unit) else {
        return Ok("Could not parse duration.".to_owned());
    };
    let name = clean_name(found.get("name"));
    let new = q::NewTimer {
        user_id: context.user_id,
        session_id: Some(context.session_id),
        label: name.clone(),
        duration_s: duration_s as i64,
    };
    q::start(&context.db, new, now).await?;
    Ok(format!(
        "Timer '{name}' set for {amount} {}.",
        unit.to_lowercase()
    ))
}

async fn live(
    context: &SkillContext,
    name: &str,
    now: DateTime<Utc>,
) -> Result<Option<timers::Model>, SkillError> {
    Ok(q::live(&context.db, context.user_id, name, now).await?)
}

fn not_running(name: &str) -> String {
    format!("No {} is running.", called(name))
}

/// Pauses, resumes or cancels the user's running timer `name`.
async fn control(
    context: &SkillContext,
    name: &str,
    action: Action,
    now: DateTime<Utc>,
) -> Result<String, SkillError> {
    let Some(timer) = live(context, name, now).await? else {
        return Ok(not_running(name));
    };
    let first = called_first(name);
    let done = match action {
        Action::Pause if timer.paused_at.is_some() => {
            return Ok(format!("{first} is already paused."));
        }
        Action::Resume if timer.paused_at.is_none() => {
            return Ok(format!("{first} is not paused."));
        }
        Action::Pause => q::pause(&context.db, timer.id, now)
            .await?
            .then_some("paused"),
        Action::Resume => q::resume(&context.db, &timer, now)
            .await?
            .map(|_| "resumed"),
        Action::Cancel => q::cancel(&context.db, timer.id, now)
            .await?
            .then_some("cancelled"),
    };
    Ok(match done {
        Some(word) => format!("{first} {word}."),
        None => not_running(name),
    })
}

async fn remaining(
    context: &SkillContext,
    name: &str,
    now: DateTime<Utc>,
) -> Result<String, SkillError> {
    let Some(timer) = live(context, name, now).await? else {
        return Ok(format!("{} is not active.", called_first(name)));
    };
    let until = timer.paused_at.unwrap_or(now);
    let left = human_duration(timer.fires_at - until);
    Ok(match timer.paused_at {
        Some(_) => format!("{left} remaining on {} (paused).", called(name)),
        None => format!("{left} remaining on {}.", called(name)),
    })
}

/// A duration for people: "1 hour 5 minutes", "4 minutes 30 seconds", rounded up to
/// the second (a timer just set for 5 minutes has "5 minutes" left).
pub fn human_duration(left: chrono::Duration) -> String {
    let millis = left.num_milliseconds().max(0);
    let total = (millis + 999) / 1000;
    if total == 0 {
        return "less than a second".to_owned();
    }
    let parts = [
        (total / 3600, "hour"),
        (total % 3600 / 60, "minute"),
        (total % 60, "second"),
    ];
    parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n} {unit}{}", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        skills::conformance::{Harness, conformance_suite},
        testing::Seeded,
    };

    /// The timer skill, writing to a migrated in-memory SQLite database.
    struct Timers;

    #[async_trait]
    impl Harness for Timers {
        fn skill(&self) -> Box<dyn Skill> {
            Box::new(TimerSkill)
        }

        fn claims(&self) -> Vec<(&'static str, &'static str)> {
            vec![
                ("set tea timer for 5 minutes", "timer_set"),
                ("please set a timer for 30 seconds", "timer_set"),
                ("pause tea timer", "timer_pause"),
                ("resume tea timer", "timer_resume"),
                ("how long left on tea timer", "timer_remaining"),
                ("cancel tea timer", "timer_cancel"),
                ("how much left for timer", "timer_remaining"),
            ]
        }

        fn near_misses(&self) -> Vec<&'static str> {
            vec![
                "what is a timer?",
                "pause the timer and tell me a story",
                "Write a story in which a chef must set a timer for 5 minutes before the guests arrive.",
            ]
        }

        async fn context(&self) -> SkillContext {
            let seeded = Seeded::new().await;
            SkillContext {
                db: seeded.db,
                user_id: seeded.user.id,
                session_id: seeded.session.id,
            }
        }
    }

    conformance_suite!(Timers);
}
