//! `files`: uploads attached to messages; owned by a user. The bytes are in `data`; the
//! type is found from the content (`content_type`, `kind`), never from the name.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

/// What a file is, for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, EnumIter, DeriveActiveEnum, Serialize, Deserialize)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::N(24))")]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// UTF-8 text: its text goes into the context.
    #[sea_orm(string_value = "text")]
    Text,
    /// A PDF: its extracted text goes into the context.
    #[sea_orm(string_value = "pdf")]
    Pdf,
    /// An image: sent as an image part to models that accept images.
    #[sea_orm(string_value = "image")]
    Image,
}

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "files")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub user_id: Uuid,
    /// The name it was uploaded with (for people; never used to decide its type).
    pub name: String,
    pub content_type: String,
    pub size: i64,
    pub kind: FileKind,
    /// The text for the model (text and PDF files).
    #[sea_orm(column_type = "Text", nullable)]
    pub text: Option<String>,
    #[serde(skip)]
    #[sea_orm(column_type = "Blob")]
    pub data: Vec<u8>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::users::Entity",
        from = "Column::UserId",
        to = "super::users::Column::Id",
        on_delete = "Cascade"
    )]
    User,
}

impl Related<super::users::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::User.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
