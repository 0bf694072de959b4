//! `message_feedback`: what a user thought of an answer — a rating, an optional comment
//! and a few tags; one row per (message, user), changed in place by its author, gone with
//! the message.
//!
//! `session_id` is the message's session, kept beside it for the admin reports and the
//! export. The bounds (a comment of at most [`COMMENT_MAX_CHARS`], at most
//! [`MAX_TAGS`] tags of at most [`TAG_MAX_CHARS`] each) are the API's, stated once here.

use sea_orm::{FromJsonQueryResult, entity::prelude::*};
use serde::{Deserialize, Serialize};

use crate::enums::FeedbackRating;

/// The longest comment, in characters.
pub const COMMENT_MAX_CHARS: usize = 2000;
/// The most tags one feedback carries.
pub const MAX_TAGS: usize = 10;
/// The longest tag, in characters.
pub const TAG_MAX_CHARS: usize = 32;

/// The tags of a feedback, stored as a JSON array of strings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, FromJsonQueryResult)]
#[serde(transparent)]
pub struct FeedbackTags(pub Vec<String>);

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "message_feedback")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique_key = "message_user")]
    pub message_id: Uuid,
    pub session_id: Uuid,
    #[sea_orm(unique_key = "message_user")]
    pub user_id: Uuid,
    pub rating: FeedbackRating,
    pub comment: Option<String>,
    #[sea_orm(column_type = "JsonBinary")]
    pub tags: FeedbackTags,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::messages::Entity",
        from = "Column::MessageId",
        to = "super::messages::Column::Id",
        on_delete = "Cascade"
    )]
    Message,
    #[sea_orm(
        belongs_to = "super::sessions::Entity",
        from = "Column::SessionId",
        to = "super::sessions::Column::Id",
        on_delete = "Cascade"
    )]
    Session,
    #[sea_orm(
        belongs_to = "super::users::Entity",
        from = "Column::UserId",
        to = "super::users::Column::Id",
        on_delete = "Cascade"
    )]
    User,
}

impl Related<super::messages::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Message.def()
    }
}

impl Related<super::sessions::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Session.def()
    }
}

impl Related<super::users::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::User.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
