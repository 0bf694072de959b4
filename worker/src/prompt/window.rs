//! The history window, moved in steps (#45 item 5).
//!
//! Filled newest-first and cut at the oldest message that no longer fits, a window moves
//! by a message every turn of a long conversation, so every request begins differently
//! and no provider's prefix cache hits. Here the window has a start of its own, kept with
//! the session (`session_summaries.through_message_id`): while the history after it fits
//! the budget, every turn sends it from there, so turn after turn the request only
//! grows at its end. When it no longer fits, the window steps: its start moves forward
//! until what is left fills at most the [`LOW_WATER`] share of the budget, and what it
//! steps over is handed to compaction (summarized, with the summary so far). A
//! conversation that fits whole has no start and costs nothing of this.
//!
//! Only the costs of the messages are read here (newest first); the caller reads and
//! writes the start.

/// The share of the budget a step leaves the history: the next steps come that much
/// later (at a window of a few thousand tokens and messages of a hundred, every
/// twenty-odd messages).
pub const LOW_WATER: f64 = 0.5;

/// What goes into the window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The whole history read (it fits, and the window never stepped).
    All,
    /// The `n` newest messages: the window's start holds.
    Keep(usize),
    /// The window steps: the `keep` newest messages go in; those from `keep` up to
    /// `dropped_until` (newest-first indices: the ones after the old start) fall out and
    /// go to compaction; the message at `keep` is the new start.
    Step { keep: usize, dropped_until: usize },
}

/// Chooses the window over the `len` history messages (newest first) within `budget`,
/// from `costs`, the tokens of the newest of them: at least up to the first that takes
/// the sum past the budget, and up to the start (a long history's older messages are
/// never counted), from the stored start (`start`: how many newest messages come after it on
/// this branch; `None` when the window never stepped or its start is not on this branch)
/// and the stored summary's cost. A step keeps `reserve` tokens free for the summary
/// that will head the history.
pub fn choose(
    costs: &[usize],
    len: usize,
    budget: usize,
    start: Option<usize>,
    summary_cost: usize,
    reserve: usize,
) -> Choice {
    let sum = |n: usize| costs[..n.min(costs.len())].iter().sum::<usize>();
    match start {
        None if costs.len() == len && sum(len) <= budget => return Choice::All,
        Some(n) if sum(n) + summary_cost <= budget => return Choice::Keep(n.min(len)),
        _ => {}
    }
    let until = start.unwrap_or(len).min(len);
    let target = ((budget as f64 * LOW_WATER) as usize).saturating_sub(reserve);
    let mut keep = 0;
    let mut used = 0;
    while keep < until && used + costs[keep] <= target {
        used += costs[keep];
        keep += 1;
    }
    if keep == until && until > 0 {
        // Everything after the start fits the low water but not the budget with the
        // summary: step over the oldest of them at least.
        keep = until - 1;
    }
    Choice::Step {
        keep,
        dropped_until: until,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_that_fits_goes_whole_and_the_start_holds_until_it_does_not() {
        let costs = [10; 8];
        assert_eq!(choose(&costs, costs.len(), 100, None, 0, 0), Choice::All);
        // Over the budget: step to half of it.
        assert_eq!(
            choose(&costs, costs.len(), 60, None, 0, 0),
            Choice::Step {
                keep: 3,
                dropped_until: 8
            }
        );
        // The next turns: the start holds while what follows it fits, summary included.
        assert_eq!(
            choose(&costs, costs.len(), 60, Some(3), 20, 0),
            Choice::Keep(3)
        );
        assert_eq!(
            choose(&costs, costs.len(), 60, Some(5), 10, 0),
            Choice::Keep(5)
        );
        // Until it does not: the window steps again, from the old start.
        assert_eq!(
            choose(&costs, costs.len(), 60, Some(6), 10, 0),
            Choice::Step {
                keep: 3,
                dropped_until: 6
            }
        );
    }

    #[test]
    fn a_step_keeps_room_for_the_summary_and_always_drops_something() {
        let costs = [10; 10];
        assert_eq!(
            choose(&costs, costs.len(), 80, None, 0, 20),
            Choice::Step {
                keep: 2,
                dropped_until: 10
            }
        );
        // A start whose followers fit the low water, but not with the summary.
        assert_eq!(
            choose(&costs, costs.len(), 40, Some(2), 25, 0),
            Choice::Step {
                keep: 1,
                dropped_until: 2
            }
        );
        // One message larger than everything: nothing kept.
        assert_eq!(
            choose(&[500], 1, 100, None, 0, 0),
            Choice::Step {
                keep: 0,
                dropped_until: 1
            }
        );
    }
}
