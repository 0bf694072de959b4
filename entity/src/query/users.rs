//! Users: created here, read, paged, changed and deleted through
//! [`resource`] with the hooks below; and what a user may do
//! ([`effective_permissions`]).

use std::collections::BTreeSet;

use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, ExprTrait, PaginatorTrait, QueryFilter, Select, Set,
    sea_query::{Expr, Func, LikeExpr},
};
use uuid::Uuid;

use super::resource::{self, Hold, Resource, rows};
use crate::{enums::UserRole, error::Context, users};

/// The permissions every role has by default (DESIGN §9). Admins and teachers get the
/// same defaults as students for now; what sets them apart is their role, not these.
pub const ROLE_DEFAULTS: &[&str] = &[
    "assignments:read:self",
    "chat:write",
    "notes:write:self",
    "sessions:read:self",
    "todos:write:self",
];

/// The permissions a role grants by default.
pub fn role_defaults(role: UserRole) -> &'static [&'static str] {
    match role {
        UserRole::Student | UserRole::Teacher | UserRole::Admin => ROLE_DEFAULTS,
    }
}

/// The user's stored permission entries, as the admin API shows them: grants (`name`)
/// and revocations (`-name`), in a JSON list of strings (anything else counts as none).
pub fn permissions_of(user: &users::Model) -> Vec<String> {
    entries_of(&user.permissions)
}

fn entries_of(permissions: &serde_json::Value) -> Vec<String> {
    permissions
        .as_array()
        .map(|list| {
            list.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// [`effective_permissions`] from a user's role and stored entries as the database
/// keeps them (the role's name, the entries' JSON text), as a claim returns them; `None`
/// when either does not read.
pub fn effective_permissions_of(role: &str, entries: &str) -> Option<Vec<String>> {
    let role = <UserRole as sea_orm::ActiveEnum>::try_from_value(&role.to_owned()).ok()?;
    let entries: serde_json::Value = serde_json::from_str(entries).ok()?;
    Some(resolve_permissions(
        role_defaults(role),
        &entries_of(&entries),
    ))
}

/// What the user may do (DESIGN §9): their role's defaults, plus the stored entries that
/// grant (`name`), minus those the stored entries revoke (`-name`). A revocation wins
/// over a default and over a grant in the same list, so an admin can deny one function to
/// one user. Sorted, without duplicates; empty names are ignored.
pub fn effective_permissions(user: &users::Model) -> Vec<String> {
    resolve_permissions(role_defaults(user.role), &permissions_of(user))
}

/// The rule of [`effective_permissions`], over a role's defaults and stored entries.
fn resolve_permissions(defaults: &[&str], entries: &[String]) -> Vec<String> {
    let mut granted: BTreeSet<&str> = defaults.iter().copied().collect();
    let mut revoked = BTreeSet::new();
    for entry in entries {
        match entry.strip_prefix('-') {
            Some(name) => revoked.insert(name),
            None => granted.insert(entry.as_str()),
        };
    }
    granted
        .into_iter()
        .filter(|name| !name.is_empty() && !revoked.contains(name))
        .map(str::to_owned)
        .collect()
}

pub struct NewUser {
    pub email: String,
    pub name: String,
    pub role: UserRole,
    pub permissions: Vec<String>,
}

/// Creates a user; 409 `email_taken` when another user has the email (compared in
/// lower case).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewUser) -> Result<users::Model> {
    let row = users::ActiveModel {
        email: Set(new.email.trim().to_lowercase()),
        name: Set(new.name),
        role: Set(new.role),
        permissions: Set(serde_json::json!(new.permissions)),
        disabled_at: Set(None),
        ..Default::default()
    };
    let email_taken = || {
        Error::conflict(
            ErrorCode::EmailTaken,
            "a user with this email already exists",
        )
    };
    resource::insert::<users::Entity, C>(db, row, Some(email_taken)).await
}

/// A user by id (404 when missing): the read authentication, the worker and the
/// memberships all do, so it keeps its name here.
pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<users::Model> {
    resource::get::<users::Entity, C>(db, id).await
}

pub async fn find_by_email<C: ConnectionTrait>(
    db: &C,
    email: &str,
) -> Result<Option<users::Model>> {
    users::Entity::find()
        .filter(users::Column::Email.eq(email.trim().to_lowercase()))
        .one(db)
        .await
        .context("looking up a user by email")
}

pub async fn count<C: ConnectionTrait>(db: &C) -> Result<u64> {
    users::Entity::find()
        .count(db)
        .await
        .context("counting users")
}

/// Fields an update may change; `None` leaves a field as it is.
#[derive(Default)]
pub struct UserChanges {
    pub name: Option<String>,
    pub role: Option<UserRole>,
    pub permissions: Option<Vec<String>>,
    /// `Some(true)` disables the user (from now), `Some(false)` enables them again.
    pub disabled: Option<bool>,
}

/// A search of the user list: a piece of an email or a name (`None`: every user).
pub type UserSearch = Option<String>;

/// The `LIKE` pattern of rows containing `search` in lower case, its own `%`, `_` and `\\`
/// taken literally; `None` for a blank search.
fn contains_pattern(search: &str) -> Option<String> {
    let search = search.trim().to_lowercase();
    if search.is_empty() {
        return None;
    }
    let mut pattern = String::from("%");
    for c in search.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    Some(pattern)
}

impl Resource for users::Entity {
    rows! { users: "user" / "a user" / "users", NewUser, UserChanges, UserSearch }

    /// A user refers to nothing an admin view names.
    type Refs = ();

    async fn refs<C: ConnectionTrait>(_db: &C, _rows: &[users::Model]) -> Result<()> {
        Ok(())
    }

    /// The users whose email or name contains the search, ignoring case.
    fn narrow(query: Select<Self>, search: UserSearch) -> Select<Self> {
        match search.as_deref().and_then(contains_pattern) {
            Some(pattern) => query.filter(
                // Emails are stored in lower case; names are compared in lower case.
                Expr::col(users::Column::Email)
                    .like(LikeExpr::new(pattern.clone()).escape('\\'))
                    .or(Expr::expr(Func::lower(Expr::col(users::Column::Name)))
                        .like(LikeExpr::new(pattern).escape('\\'))),
            ),
            None => query,
        }
    }

    fn apply(changes: UserChanges, row: &mut users::ActiveModel) -> Result<()> {
        resource::set(&mut row.name, changes.name);
        resource::set(&mut row.role, changes.role);
        let permissions = changes
            .permissions
            .map(|entries| serde_json::json!(entries));
        resource::set(&mut row.permissions, permissions);
        // Disabling a disabled user keeps the first time.
        match changes.disabled {
            Some(true) if row.disabled_at.as_ref().is_none() => {
                row.disabled_at = Set(Some(super::now()))
            }
            Some(false) => row.disabled_at = Set(None),
            _ => {}
        }
        Ok(())
    }

    /// A user is deleted with their tokens and memberships; one who has sessions is kept
    /// (their conversations are records): the database refuses, and that answers 409
    /// `user_has_sessions`.
    fn hold(_id: Uuid) -> Option<Hold> {
        let message =
            "the user has sessions or other records that must be kept; revoke their tokens instead";
        Some(Hold::new(ErrorCode::UserHasSessions, message, Vec::new()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(role: UserRole, permissions: serde_json::Value) -> users::Model {
        let now = chrono::Utc::now();
        users::Model {
            id: Uuid::now_v7(),
            email: "a@example.com".into(),
            name: "A".into(),
            role,
            permissions,
            created_at: now,
            updated_at: now,
            disabled_at: None,
        }
    }

    fn defaults() -> Vec<String> {
        ROLE_DEFAULTS.iter().map(|p| (*p).to_owned()).collect()
    }

    /// What a claim returns (the role's name, the entries' JSON text) resolves as the
    /// row does; text that does not read resolves to nothing (the turn reads the row).
    #[test]
    fn permissions_from_a_claims_text_resolve_as_the_rows_do() {
        let entries = serde_json::json!(["-todos:write:self", "reports:read"]);
        for role in [UserRole::Student, UserRole::Teacher, UserRole::Admin] {
            let name = sea_orm::ActiveEnum::to_value(&role);
            assert_eq!(
                effective_permissions_of(&name, &entries.to_string()),
                Some(effective_permissions(&user(role, entries.clone()))),
                "{role:?}"
            );
        }
        assert_eq!(effective_permissions_of("nobody", "[]"), None);
        assert_eq!(effective_permissions_of("student", "not json"), None);
    }

    #[test]
    fn every_role_gets_the_defaults_sorted() {
        for role in [UserRole::Student, UserRole::Teacher, UserRole::Admin] {
            assert_eq!(
                effective_permissions(&user(role, serde_json::json!([]))),
                defaults(),
                "{role:?}"
            );
        }
        let mut sorted = defaults();
        sorted.sort();
        assert_eq!(sorted, defaults(), "ROLE_DEFAULTS is kept sorted");
    }

    #[test]
    fn grants_add_and_revocations_remove() {
        let u = user(
            UserRole::Student,
            serde_json::json!([
                "reports:read:class",
                "-todos:write:self",
                "reports:read:class"
            ]),
        );
        assert_eq!(
            effective_permissions(&u),
            [
                "assignments:read:self",
                "chat:write",
                "notes:write:self",
                "reports:read:class",
                "sessions:read:self",
            ]
        );
        // The stored list itself is what the admin API shows.
        assert_eq!(
            permissions_of(&u),
            [
                "reports:read:class",
                "-todos:write:self",
                "reports:read:class"
            ]
        );
    }

    #[test]
    fn a_revocation_wins_over_a_grant_in_any_order() {
        for entries in [
            serde_json::json!(["x:write:self", "-x:write:self"]),
            serde_json::json!(["-x:write:self", "x:write:self"]),
        ] {
            let got = effective_permissions(&user(UserRole::Admin, entries.clone()));
            assert_eq!(got, defaults(), "{entries}");
        }
    }

    #[test]
    fn odd_entries_change_nothing() {
        for stored in [
            serde_json::json!(null),
            serde_json::json!({"todos:write:self": false}),
            serde_json::json!([1, true, null, ""]),
            serde_json::json!(["-", "-unknown:perm", "--todos:write:self"]),
        ] {
            assert_eq!(
                effective_permissions(&user(UserRole::Teacher, stored.clone())),
                defaults(),
                "{stored}"
            );
        }
    }

    #[test]
    fn every_default_can_be_revoked() {
        let all: Vec<String> = ROLE_DEFAULTS.iter().map(|p| format!("-{p}")).collect();
        let u = user(UserRole::Student, serde_json::json!(all));
        assert!(effective_permissions(&u).is_empty());
    }

    #[test]
    fn a_search_is_a_lower_case_contains_pattern_with_wildcards_taken_literally() {
        assert_eq!(contains_pattern("  Ada "), Some("%ada%".to_owned()));
        assert_eq!(
            contains_pattern("50%_a\\b"),
            Some("%50\\%\\_a\\\\b%".to_owned())
        );
        assert_eq!(contains_pattern("   "), None);
    }
}
