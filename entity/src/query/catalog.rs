//! What a caller may use: the chat tools reachable through their groups.

use parley_protocol::error::Result;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use uuid::Uuid;

use super::{
    access,
    page::{Page, PageRequest},
    sessions::Opener,
};
use crate::{error::Context, tools};

/// Tools the caller may open sessions with, oldest first. Admins see all.
pub async fn usable_tools<C: ConnectionTrait>(
    db: &C,
    who: Opener,
    page: PageRequest<Uuid>,
) -> Result<Page<tools::Model, Uuid>> {
    let mut query = tools::Entity::find().order_by_asc(tools::Column::Id);
    if !who.is_admin {
        let groups: Vec<Uuid> = access::reachable_groups(db, who.user_id)
            .await?
            .into_iter()
            .collect();
        query = query.filter(tools::Column::GroupId.is_in(groups));
    }
    if let Some(after) = page.after {
        query = query.filter(tools::Column::Id.gt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing usable tools")?;
    Ok(Page::from_overfetch(rows, page.limit, |t| t.id))
}
