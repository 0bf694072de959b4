//! Quotas (issue #11): turns per minute and tokens per day, for each user and for each
//! group's users together, from the configuration, with overrides per group.
//!
//! A turn counts against its user and against a group: the tool's group, or — when the
//! configuration overrides the limits of the tool's group or of one of its ancestors —
//! the deepest such group on the tool group's path, whose limits then apply (a group's
//! override covers its subgroups, and all of them share its counters). Turns per minute
//! are counted when a turn is admitted (fixed one-minute windows); tokens per day are
//! added by the worker when a turn ends (UTC days) and checked when the next turn
//! arrives, so a turn that starts under the limit may end above it. The counters live
//! in the quota store (`parley_runtime::quota`): Redis in distributed mode, so every api
//! process enforces the same limits, else this process.
//!
//! A store that does not answer lets turns through (logged): a quota is not worth
//! refusing service over, and in distributed mode the queue shares that Redis anyway.

use std::{collections::HashMap, sync::Arc};

use chrono::{DateTime, Utc};
use parley_entity::query::quotas::ToolScope;
use parley_protocol::error::Error;
use parley_runtime::quota::{Decision, QuotaStore, Window};
use uuid::Uuid;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 86_400_000;

/// The limits of one subject; `None`: unlimited.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    pub turns_per_minute: Option<u64>,
    pub tokens_per_day: Option<u64>,
}

impl Limits {
    fn any(&self) -> bool {
        self.turns_per_minute.is_some() || self.tokens_per_day.is_some()
    }
}

/// The limits of a group's turns: each user's, and the group's users' together.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GroupLimits {
    pub user: Limits,
    pub group: Limits,
}

/// The deployment's limits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QuotaPolicy {
    /// Where no override applies.
    pub defaults: GroupLimits,
    /// By group id: the limits of turns on tools of that group and its subgroups.
    pub overrides: HashMap<Uuid, GroupLimits>,
}

impl QuotaPolicy {
    /// Whether any limit is set anywhere (else quotas cost nothing: no query, no store).
    pub fn is_enabled(&self) -> bool {
        self.defaults.user.any()
            || self.defaults.group.any()
            || self
                .overrides
                .values()
                .any(|o| o.user.any() || o.group.any())
    }

    /// The limits of a turn on a tool of `scope`'s group, and the group it counts in.
    pub fn resolve(&self, scope: &ToolScope) -> (Uuid, GroupLimits) {
        scope
            .group_path
            .split('/')
            .filter_map(|id| id.parse::<Uuid>().ok())
            .filter_map(|id| self.overrides.get(&id).map(|limits| (id, *limits)))
            .next_back()
            .unwrap_or((scope.group_id, self.defaults))
    }
}

/// Which limit refused a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    TurnsPerMinute,
    TokensPerDay,
}

impl LimitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TurnsPerMinute => "turns_per_minute",
            Self::TokensPerDay => "tokens_per_day",
        }
    }
}

/// Whose limit refused a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    User,
    Group,
}

/// A turn over a limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub kind: LimitKind,
    pub subject: Subject,
    pub limit: u64,
    /// Seconds until the window ends (at least 1).
    pub retry_after_s: u64,
}

impl Refused {
    /// The 429 the caller gets.
    pub fn error(&self) -> Error {
        let whose = match self.subject {
            Subject::User => "your",
            Subject::Group => "your group's",
        };
        let what = match self.kind {
            LimitKind::TurnsPerMinute => format!("{} turns per minute", self.limit),
            LimitKind::TokensPerDay => format!("{} tokens per day", self.limit),
        };
        Error::RateLimited {
            limit: self.kind.as_str(),
            message: format!(
                "over {whose} quota of {what}; try again in {} s",
                self.retry_after_s
            ),
            retry_after_s: self.retry_after_s,
        }
    }
}

/// The turn of one user in one group, as the quotas see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    pub user_id: Uuid,
    pub group_id: Uuid,
    pub limits: GroupLimits,
}

/// The policy and the counters.
#[derive(Clone)]
pub struct Quotas {
    policy: Arc<QuotaPolicy>,
    store: Arc<dyn QuotaStore>,
}

impl std::fmt::Debug for Quotas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Quotas")
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

/// One window of a turn, and what it stands for.
struct Slot {
    window: Window,
    kind: LimitKind,
    subject: Subject,
}

impl Quotas {
    pub fn new(policy: QuotaPolicy, store: Arc<dyn QuotaStore>) -> Self {
        Self {
            policy: Arc::new(policy),
            store,
        }
    }

    /// No limits: every check passes without a query.
    pub fn unlimited() -> Self {
        Self::new(
            QuotaPolicy::default(),
            Arc::new(parley_runtime::quota::memory::MemoryQuotas::new()),
        )
    }

    pub fn is_enabled(&self) -> bool {
        self.policy.is_enabled()
    }

    /// The turn of `user_id` on a tool of `scope`.
    pub fn counted(&self, user_id: Uuid, scope: &ToolScope) -> Counted {
        let (group_id, limits) = self.policy.resolve(scope);
        Counted {
            user_id,
            group_id,
            limits,
        }
    }

    /// Admits one turn, counting it in the minute's windows; or says which limit
    /// refuses it.
    pub async fn admit(&self, turn: &Counted, now: DateTime<Utc>) -> Result<(), Refused> {
        let slots = slots(turn, now.timestamp_millis());
        if slots.is_empty() {
            return Ok(());
        }
        let windows: Vec<Window> = slots.iter().map(|s| s.window.clone()).collect();
        match self.store.admit(&windows).await {
            Ok(Decision::Admitted) => Ok(()),
            Ok(Decision::Refused { window }) => {
                let slot = &slots[window];
                let left_ms = slot.window.ends_at_ms - now.timestamp_millis();
                Err(Refused {
                    kind: slot.kind,
                    subject: slot.subject,
                    limit: slot.window.limit,
                    retry_after_s: u64::try_from((left_ms + 999) / 1000).unwrap_or(1).max(1),
                })
            }
            Err(err) => {
                tracing::warn!(error = %err, "quotas are not checked: the store does not answer");
                Ok(())
            }
        }
    }

    /// Takes back an admitted turn that was not recorded after all.
    pub async fn refund(&self, turn: &Counted, now: DateTime<Utc>) {
        let windows = windows_of(turn, now.timestamp_millis(), LimitKind::TurnsPerMinute);
        if let Err(err) = self.store.add(&windows, -1).await {
            tracing::warn!(error = %err, "cannot take back a turn from its quota");
        }
    }

    /// Adds the tokens a turn used to its day.
    pub async fn charge_tokens(&self, turn: &Counted, tokens: u64, at: DateTime<Utc>) {
        let windows = windows_of(turn, at.timestamp_millis(), LimitKind::TokensPerDay);
        if windows.is_empty() || tokens == 0 {
            return;
        }
        let tokens = i64::try_from(tokens).unwrap_or(i64::MAX);
        if let Err(err) = self.store.add(&windows, tokens).await {
            tracing::warn!(error = %err, "cannot count a turn's tokens against its quota");
        }
    }
}

fn windows_of(turn: &Counted, now_ms: i64, kind: LimitKind) -> Vec<Window> {
    slots(turn, now_ms)
        .into_iter()
        .filter(|s| s.kind == kind)
        .map(|s| s.window)
        .collect()
}

/// The windows a turn at `now_ms` counts in or is capped by, user's first.
fn slots(turn: &Counted, now_ms: i64) -> Vec<Slot> {
    let subjects = [
        (Subject::User, "u", turn.user_id, turn.limits.user),
        (Subject::Group, "g", turn.group_id, turn.limits.group),
    ];
    let mut slots = Vec::new();
    for (subject, tag, id, limits) in subjects {
        let measures = [
            (
                LimitKind::TurnsPerMinute,
                "turns",
                limits.turns_per_minute,
                MINUTE_MS,
                true,
            ),
            (
                LimitKind::TokensPerDay,
                "tokens",
                limits.tokens_per_day,
                DAY_MS,
                false,
            ),
        ];
        for (kind, measure, limit, period_ms, counts_turns) in measures {
            let Some(limit) = limit else { continue };
            let window = now_ms.div_euclid(period_ms);
            slots.push(Slot {
                window: Window {
                    key: format!("{measure}:{tag}:{id}:{window}"),
                    limit,
                    ends_at_ms: (window + 1) * period_ms,
                    counts_turns,
                },
                kind,
                subject,
            });
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use parley_runtime::quota::memory::MemoryQuotas;

    use super::*;

    fn scope(path: &[Uuid]) -> ToolScope {
        let group_path = path.iter().map(|id| format!("/{id}")).collect::<String>() + "/";
        ToolScope {
            tool_id: Uuid::now_v7(),
            group_id: *path.last().expect("a group"),
            group_path,
        }
    }

    fn limits(turns: Option<u64>, tokens: Option<u64>) -> Limits {
        Limits {
            turns_per_minute: turns,
            tokens_per_day: tokens,
        }
    }

    #[test]
    fn the_deepest_override_on_the_path_wins_and_names_the_counted_group() {
        let (root, school, class) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        let strict = GroupLimits {
            user: limits(Some(1), None),
            group: limits(None, None),
        };
        let loose = GroupLimits {
            user: limits(Some(50), None),
            group: limits(Some(500), None),
        };
        let policy = QuotaPolicy {
            defaults: GroupLimits {
                user: limits(Some(10), Some(1000)),
                group: Limits::default(),
            },
            overrides: HashMap::from([(root, strict), (school, loose)]),
        };
        assert_eq!(
            policy.resolve(&scope(&[root, school, class])),
            (school, loose)
        );
        assert_eq!(policy.resolve(&scope(&[root])), (root, strict));
        let other = Uuid::now_v7();
        assert_eq!(
            policy.resolve(&scope(&[other])),
            (other, policy.defaults),
            "no override: the tool's own group with the defaults"
        );
    }

    #[tokio::test]
    async fn a_minute_admits_its_limit_then_refuses_until_it_ends() {
        let quotas = Quotas::new(
            QuotaPolicy {
                defaults: GroupLimits {
                    user: limits(Some(2), None),
                    group: Limits::default(),
                },
                overrides: HashMap::new(),
            },
            Arc::new(MemoryQuotas::new()),
        );
        let turn = quotas.counted(Uuid::now_v7(), &scope(&[Uuid::now_v7()]));
        let at = Utc
            .with_ymd_and_hms(2099, 1, 1, 12, 0, 15)
            .single()
            .expect("a time");
        assert_eq!(quotas.admit(&turn, at).await, Ok(()));
        assert_eq!(quotas.admit(&turn, at).await, Ok(()));
        let refused = quotas.admit(&turn, at).await.expect_err("the third");
        assert_eq!(refused.kind, LimitKind::TurnsPerMinute);
        assert_eq!(refused.subject, Subject::User);
        assert_eq!(refused.retry_after_s, 45, "the minute ends at :00");
        quotas.refund(&turn, at).await;
        assert_eq!(
            quotas.admit(&turn, at).await,
            Ok(()),
            "a refund frees a place"
        );
        let next_minute = at + chrono::Duration::seconds(45);
        assert_eq!(quotas.admit(&turn, next_minute).await, Ok(()));
    }

    #[tokio::test]
    async fn tokens_charged_today_refuse_the_next_turn_until_midnight() {
        let quotas = Quotas::new(
            QuotaPolicy {
                defaults: GroupLimits {
                    user: Limits::default(),
                    group: limits(None, Some(100)),
                },
                overrides: HashMap::new(),
            },
            Arc::new(MemoryQuotas::new()),
        );
        let group = scope(&[Uuid::now_v7()]);
        let (alice, bob) = (
            quotas.counted(Uuid::now_v7(), &group),
            quotas.counted(Uuid::now_v7(), &group),
        );
        let at = Utc
            .with_ymd_and_hms(2099, 1, 1, 23, 0, 0)
            .single()
            .expect("a time");
        assert_eq!(quotas.admit(&alice, at).await, Ok(()));
        quotas.charge_tokens(&alice, 100, at).await;
        let refused = quotas
            .admit(&bob, at)
            .await
            .expect_err("the group's day is spent");
        assert_eq!(
            (refused.kind, refused.subject, refused.retry_after_s),
            (LimitKind::TokensPerDay, Subject::Group, 3600)
        );
        let error = refused.error();
        assert!(
            matches!(
                &error,
                Error::RateLimited {
                    limit: "tokens_per_day",
                    retry_after_s: 3600,
                    ..
                }
            ),
            "{error:?}"
        );
        assert_eq!(
            quotas.admit(&bob, at + chrono::Duration::hours(1)).await,
            Ok(()),
            "a new day"
        );
    }

    #[test]
    fn without_limits_quotas_are_off() {
        assert!(!Quotas::unlimited().is_enabled());
        let mut policy = QuotaPolicy::default();
        policy.overrides.insert(
            Uuid::now_v7(),
            GroupLimits {
                user: Limits::default(),
                group: limits(Some(1), None),
            },
        );
        assert!(policy.is_enabled());
    }
}
