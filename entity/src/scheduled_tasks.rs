//! `scheduled_tasks`: one row per background task. A worker runs a task only when it
//! takes the task's slot ([`crate::query::schedule::take_slot`]), so one worker among
//! many runs each period; the row tells operators when the task last ran and how.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "scheduled_tasks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub name: String,
    /// The worker that took the last slot.
    pub runner: Option<String>,
    pub last_started_at: Option<DateTimeUtc>,
    pub last_finished_at: Option<DateTimeUtc>,
    /// How the last run ended, for people (`ok: …` or the error).
    #[sea_orm(column_type = "Text", nullable)]
    pub last_outcome: Option<String>,
    /// How many runs finished.
    pub runs: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
