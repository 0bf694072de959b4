//! A user's list of their sessions: keyset pages in the list order (pinned first, then
//! active before completed, then the most recent).

use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, Order, QueryFilter, QueryOrder,
    QuerySelect,
    prelude::DateTimeUtc,
    sea_query::{Expr, ExprTrait},
};
use uuid::Uuid;

use parley_protocol::error::Result;

use crate::{
    enums::SessionState,
    error::Context,
    query::page::{Page, PageRequest},
    sessions,
};

/// The position of a session in the list order.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SessionKey {
    /// Pinned sessions come first (a cursor of an earlier version has none: unpinned).
    #[serde(default)]
    pub pinned: bool,
    pub state: SessionState,
    pub last_activity_at: DateTimeUtc,
    pub id: Uuid,
}

impl From<&sessions::Model> for SessionKey {
    fn from(s: &sessions::Model) -> Self {
        Self {
            pinned: s.pinned_at.is_some(),
            state: s.state,
            last_activity_at: s.last_activity_at,
            id: s.id,
        }
    }
}

/// Which of a user's sessions a list shows.
#[derive(Debug, Clone, Default)]
pub struct SessionFilter {
    pub tool_id: Option<Uuid>,
    pub state: Option<SessionState>,
    /// Archived sessions only (`true`), or only those not archived (`false`, the default).
    pub archived: bool,
    /// Only pinned (`true`) or only unpinned (`false`) sessions; both when `None`.
    pub pinned: Option<bool>,
}

/// The user's sessions (never deleted ones): pinned before unpinned, active before
/// completed ("active" sorts before "completed"), then the most recently active first.
pub async fn list_for_user<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    filter: SessionFilter,
    page: PageRequest<SessionKey>,
) -> Result<Page<sessions::Model, SessionKey>> {
    use sessions::Column as C;
    let unpinned = || Expr::col(C::PinnedAt).is_null();
    let mut query = sessions::Entity::find()
        .filter(C::UserId.eq(user_id))
        .filter(C::DeletedAt.is_null())
        .filter(if filter.archived {
            C::ArchivedAt.is_not_null()
        } else {
            C::ArchivedAt.is_null()
        })
        .order_by(unpinned(), Order::Asc)
        .order_by_asc(C::State)
        .order_by_desc(C::LastActivityAt)
        .order_by_desc(C::Id);
    if let Some(tool_id) = filter.tool_id {
        query = query.filter(C::ToolId.eq(tool_id));
    }
    if let Some(state) = filter.state {
        query = query.filter(C::State.eq(state));
    }
    if let Some(pinned) = filter.pinned {
        query = query.filter(if pinned {
            C::PinnedAt.is_not_null()
        } else {
            C::PinnedAt.is_null()
        });
    }
    if let Some(key) = page.after {
        // Within the key's pinned group: after it in (state, activity, id); then the
        // unpinned group when the key is pinned.
        let same_group = if key.pinned {
            Expr::col(C::PinnedAt).is_not_null()
        } else {
            unpinned()
        };
        let later_group = if key.pinned {
            unpinned()
        } else {
            Expr::val(false)
        };
        query = query.filter(
            Condition::any().add(later_group).add(
                Condition::all().add(same_group).add(
                    Condition::any().add(C::State.gt(key.state)).add(
                        Condition::all().add(C::State.eq(key.state)).add(
                            Condition::any()
                                .add(C::LastActivityAt.lt(key.last_activity_at))
                                .add(
                                    Condition::all()
                                        .add(C::LastActivityAt.eq(key.last_activity_at))
                                        .add(C::Id.lt(key.id)),
                                ),
                        ),
                    ),
                ),
            ),
        );
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing sessions")?;
    Ok(Page::from_overfetch(rows, page.limit, |s| {
        SessionKey::from(s)
    }))
}
