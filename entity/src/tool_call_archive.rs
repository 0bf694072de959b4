//! `tool_call_archive`: the arguments and result of a function call older than the
//! payload retention, moved out of `tool_calls` (whose `archived_at` is set and whose
//! payload columns are emptied). Read back when a feed is rebuilt; an operator may
//! export or drop rows here on their own schedule.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "tool_call_archive")]
pub struct Model {
    /// The call's id (`tool_calls.id`).
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(column_type = "JsonBinary")]
    pub tool_args: Json,
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub tool_result: Option<Json>,
    pub archived_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
