//! The standard operations of an admin resource — create, list, get, update, delete, and
//! for groups and classes put, remove and list their members — written once.
//!
//! A resource's module says what is its own: its wire types (the response `Object`,
//! the create and update bodies), how a body becomes the service's input ([`IntoNew`],
//! [`IntoChanges`]: the place to validate what the wire type carries against the
//! deployment) and the documentation of each operation. [`admin_api!`] then declares
//! the operations: poem-openapi needs each operation's path, id and documentation as
//! literals in its `#[OpenApi]` impl, so the macro writes that impl from a table, and
//! every handler in it is one call to the generic function of its operation here, which
//! calls the [`AdminService`](parley_service::AdminService).
//!
//! A view shows the names of the rows its row refers to beside their ids (a tool's
//! `group_name`, a member's `user_name` and `user_email`): flat optional `*_name` fields,
//! read for a whole page at once ([`Resource::refs`], one query per table referred to)
//! and handed to the view with its row ([`FromRow`]).

use parley_entity::query::resource::{
    Membership, Resource,
    names::{Names, UserName},
};
use parley_protocol::error::Result;
use parley_service::admin::{Actor, AdminResource};
use poem_openapi::{
    payload::Json,
    types::{ParseFromJSON, ToJSON},
};
use uuid::Uuid;

use super::Deleted;
use crate::{
    error::Problem,
    identity::Caller,
    pagination::{self, Limit, Page},
    state::AppState,
};

type Model<V> = <<V as AdminView>::Resource as sea_orm::EntityTrait>::Model;
type Refs<V> = <<V as AdminView>::Resource as Resource>::Refs;
type MemberModel<W> = <<W as MemberView>::Membership as sea_orm::EntityTrait>::Model;
type Answer<T> = std::result::Result<T, Box<Problem>>;

/// A view built from a row and the names of what the row refers to (the names of a
/// whole page: the view picks its own).
pub trait FromRow<Row, Names> {
    fn from_row(row: Row, names: &Names) -> Self;
}

/// An admin resource as the API shows it, written by [`admin_api!`]: its rows, its
/// bodies and where it lives. The view is built from a row and the names it refers to
/// ([`FromRow`], each resource's own).
pub trait AdminView: ParseFromJSON + ToJSON + FromRow<Model<Self>, Refs<Self>> {
    type Resource: AdminResource;
    /// The body of a create.
    type Create: IntoNew<Self::Resource>;
    /// The body of an update.
    type Update: IntoChanges<Self::Resource>;
    /// The path of the collection (`/v1/admin/classes`): a new row's `Location` is
    /// below it.
    const COLLECTION: &'static str;

    /// Tells the api's own state about an updated row (nothing, by default).
    fn updated(_state: &AppState, _row: &Model<Self>) {}
}

/// A create body as the service takes it: the place to check what the wire type
/// carries against the deployment.
pub trait IntoNew<R: Resource> {
    fn into_new(self, state: &AppState) -> Result<R::New>;
}

/// An update body as the service takes it.
pub trait IntoChanges<R: Resource> {
    fn into_changes(self, state: &AppState) -> Result<R::Changes>;
}

/// A membership (group member, enrolment) as the API shows it, written by
/// [`admin_api!`]; the body of a put names the role.
pub trait MemberView: ParseFromJSON + ToJSON + FromRow<MemberModel<Self>, Names<UserName>> {
    type Membership: Membership;
    /// The body of a put: the role to give.
    type Put;

    fn role(put: Self::Put) -> <Self::Membership as Membership>::Role;
}

/// The administrator a request acts for, as the service knows them.
pub fn actor(caller: &Caller) -> Actor {
    Actor {
        user_id: caller.user_id,
        token_id: caller.token_id,
    }
}

/// One row as the client sees it, with the names it refers to.
async fn view<V: AdminView>(state: &AppState, row: Model<V>) -> Result<V> {
    let refs = state
        .admin()
        .refs::<V::Resource>(std::slice::from_ref(&row))
        .await?;
    Ok(V::from_row(row, &refs))
}

/// Creates a row; answers it with its `Location`.
pub async fn create<V: AdminView>(state: &AppState, body: V::Create) -> Answer<(Json<V>, String)> {
    let new = body.into_new(state)?;
    let row = state.admin().create::<V::Resource>(new).await?;
    let location = format!("{}/{}", V::COLLECTION, V::Resource::id_of(&row));
    Ok((Json(view(state, row).await?), location))
}

pub async fn list<V: AdminView>(
    state: &AppState,
    filter: <V::Resource as Resource>::Filter,
    limit: Option<Limit>,
    cursor: Option<String>,
) -> Answer<Json<Page<V>>> {
    let page = pagination::request(limit, cursor.as_deref())?;
    let rows = state.admin().list::<V::Resource>(filter, page).await?;
    let refs = state.admin().refs::<V::Resource>(&rows.items).await?;
    Ok(Json(Page::from_rows(rows, |row| V::from_row(row, &refs))))
}

pub async fn get<V: AdminView>(state: &AppState, id: Uuid) -> Answer<Json<V>> {
    let row = state.admin().get::<V::Resource>(id).await?;
    Ok(Json(view(state, row).await?))
}

pub async fn update<V: AdminView>(
    state: &AppState,
    caller: &Caller,
    id: Uuid,
    body: V::Update,
) -> Answer<Json<V>> {
    let changes = body.into_changes(state)?;
    let row = state
        .admin()
        .update::<V::Resource>(&actor(caller), id, changes)
        .await?;
    V::updated(state, &row);
    Ok(Json(view(state, row).await?))
}

pub async fn delete<V: AdminView>(state: &AppState, caller: &Caller, id: Uuid) -> Answer<Deleted> {
    state
        .admin()
        .delete::<V::Resource>(&actor(caller), id)
        .await?;
    // A deleted user's tokens leave this process's cache now (ids are UUIDs: no other
    // resource's id names a user).
    state.token_cache.forget_user(id);
    Ok(Deleted::NoContent)
}

pub async fn put_member<W: MemberView>(
    state: &AppState,
    parent_id: Uuid,
    user_id: Uuid,
    put: W::Put,
) -> Answer<Json<W>> {
    let row = state
        .admin()
        .put_member::<W::Membership>(parent_id, user_id, W::role(put))
        .await?;
    let names = state
        .admin()
        .member_names::<W::Membership>(std::slice::from_ref(&row))
        .await?;
    Ok(Json(W::from_row(row, &names)))
}

pub async fn remove_member<W: MemberView>(
    state: &AppState,
    parent_id: Uuid,
    user_id: Uuid,
) -> Answer<Deleted> {
    state
        .admin()
        .remove_member::<W::Membership>(parent_id, user_id)
        .await?;
    Ok(Deleted::NoContent)
}

pub async fn list_members<W: MemberView>(
    state: &AppState,
    parent_id: Uuid,
    limit: Option<Limit>,
    cursor: Option<String>,
) -> Answer<Json<Page<W>>> {
    let page = pagination::request(limit, cursor.as_deref())?;
    let rows = state
        .admin()
        .list_members::<W::Membership>(parent_id, page)
        .await?;
    let names = state
        .admin()
        .member_names::<W::Membership>(&rows.items)
        .await?;
    Ok(Json(Page::from_rows(rows, |row| W::from_row(row, &names))))
}

/// The filter a list handler passes: its filter parameter's value, or `()` for a
/// resource whose list has none.
macro_rules! list_filter {
    () => {
        ()
    };
    ($filter:ident) => {
        $filter.0
    };
}
pub(crate) use list_filter;

/// Short names for the handlers [`admin_api!`] writes, so that each fits on a line.
pub mod handler {
    pub(crate) use super::list_filter;
    pub use super::{
        AdminView, FromRow, MemberView, create, delete, get, list, list_members, put_member,
        remove_member, update,
    };
    pub use crate::{
        auth::AdminAuth as Admin,
        error::{ApiResult, statuses},
        pagination::{Limit, Page},
        routes::admin::Deleted,
        state::AppState,
    };
    pub use parley_entity::query::resource::Membership;
    pub use parley_protocol::error::Result;
    pub use poem::web::Data;
    // Path parameters are written `Path<Uuid>` where they are used, not through an
    // alias: poem-openapi tells a path parameter by that name.
    pub use poem_openapi::{OpenApi, param::Path, payload::Json};
    pub use sea_orm::EntityTrait;
    pub use uuid::Uuid;

    /// The `limit` of a list.
    pub type PageSize = poem_openapi::param::Query<Option<Limit>>;
    /// The `cursor` of a list.
    pub type Cursor = poem_openapi::param::Query<Option<String>>;
    /// A filter of a list.
    pub type Filter<T> = poem_openapi::param::Query<T>;
}

/// Declares an admin resource's standard operations (its `#[OpenApi]` impl) and its
/// views ([`AdminView`], [`MemberView`]); see the module note. The first line names the
/// `OpenApi` struct, the view with the rows it shows, the collection's path, and what
/// the api does after an update (`then f`). Each operation is one line — what it is,
/// its path, its operation id (and the body of a create or an update; a create's
/// response, with the description of its 201) — under its documentation (summary, then
/// description), in the order create, list, get, update, delete, and for a resource with
/// members (`members View(rows), PutBody`) put, remove and list them. `list … filter
/// name: Type` adds a query parameter that narrows the list (its doc comment and
/// `#[oai(…)]` attributes above its name).
macro_rules! admin_api {
    (
        $api:ident for $view:ident($rows:ty) at $collection:tt $(then $updated:path)?;
        $(#[doc = $create_doc:tt])* create $create_path:tt $create_id:tt $create:ident
            => $created:ident $created_doc:tt;
        $(#[doc = $list_doc:tt])* list $list_path:tt $list_id:tt
            $(filter $(#[$filter_attr:meta])* $filter:ident: $filter_ty:ty)?;
        $(#[doc = $get_doc:tt])* get $get_path:tt $get_id:tt;
        $(#[doc = $update_doc:tt])* update $update_path:tt $update_id:tt $update:ident;
        $(#[doc = $delete_doc:tt])* delete $delete_path:tt $delete_id:tt;
        $(
            members $member:ident($members:ty), $put:ident;
            $(#[doc = $put_doc:tt])* put $put_path:tt $put_id:tt;
            $(#[doc = $remove_doc:tt])* remove $remove_path:tt $remove_id:tt;
            $(#[doc = $members_doc:tt])* list $members_path:tt $members_id:tt;
        )?
    ) => {
        use $crate::routes::admin::resource::handler as h;

        impl h::AdminView for $view {
            type Resource = $rows;
            type Create = $create;
            type Update = $update;
            const COLLECTION: &'static str = $collection;

            $(
                fn updated(state: &h::AppState, row: &<$rows as h::EntityTrait>::Model) {
                    $updated(state, row)
                }
            )?
        }

        $(
            impl h::MemberView for $member {
                type Membership = $members;
                type Put = $put;

                fn role(put: $put) -> <$members as h::Membership>::Role {
                    put.role.into()
                }
            }
        )?

        #[derive(poem_openapi::ApiResponse)]
        pub enum $created {
            #[doc = $created_doc]
            #[oai(status = 201)]
            Created(h::Json<$view>, #[oai(header = "Location")] String),
        }

        pub struct $api;

        #[h::OpenApi(prefix_path = "/v1/admin", tag = "crate::routes::ApiTags::Admin")]
        impl $api {
            $(#[doc = $create_doc])*
            #[oai(path = $create_path, method = "post", operation_id = $create_id)]
            async fn create(&self, _auth: h::Admin, state: h::Data<&h::AppState>, body: h::Json<<$view as h::AdminView>::Create>) -> h::ApiResult<$created, h::statuses::AdminCreate> {
                let (view, location) = h::create::<$view>(&state, body.0).await?;
                Ok($created::Created(view, location))
            }

            $(#[doc = $list_doc])*
            #[oai(path = $list_path, method = "get", operation_id = $list_id)]
            async fn list(
                &self, _auth: h::Admin, state: h::Data<&h::AppState>,
                $($(#[$filter_attr])* $filter: h::Filter<$filter_ty>,)?
                /// Page size.
                limit: h::PageSize,
                /// `next_cursor` of the previous page.
                cursor: h::Cursor,
            ) -> h::ApiResult<h::Json<h::Page<$view>>, h::statuses::AdminList> {
                let filter = h::list_filter!($($filter)?);
                Ok(h::list::<$view>(&state, filter, limit.0, cursor.0).await?)
            }

            $(#[doc = $get_doc])*
            #[oai(path = $get_path, method = "get", operation_id = $get_id)]
            async fn get(&self, _auth: h::Admin, state: h::Data<&h::AppState>, id: h::Path<h::Uuid>) -> h::ApiResult<h::Json<$view>, h::statuses::AdminRead> {
                Ok(h::get::<$view>(&state, id.0).await?)
            }

            $(#[doc = $update_doc])*
            #[oai(path = $update_path, method = "patch", operation_id = $update_id)]
            async fn update(&self, auth: h::Admin, state: h::Data<&h::AppState>, id: h::Path<h::Uuid>, body: h::Json<<$view as h::AdminView>::Update>) -> h::ApiResult<h::Json<$view>, h::statuses::AdminWrite> {
                Ok(h::update::<$view>(&state, &auth.0, id.0, body.0).await?)
            }

            $(#[doc = $delete_doc])*
            #[oai(path = $delete_path, method = "delete", operation_id = $delete_id)]
            async fn delete(&self, auth: h::Admin, state: h::Data<&h::AppState>, id: h::Path<h::Uuid>) -> h::ApiResult<h::Deleted, h::statuses::AdminDelete> {
                Ok(h::delete::<$view>(&state, &auth.0, id.0).await?)
            }

            $(
                $(#[doc = $put_doc])*
                #[oai(path = $put_path, method = "put", operation_id = $put_id)]
                async fn put_member(&self, _auth: h::Admin, state: h::Data<&h::AppState>, id: h::Path<h::Uuid>, user_id: h::Path<h::Uuid>, body: h::Json<<$member as h::MemberView>::Put>) -> h::ApiResult<h::Json<$member>, h::statuses::AdminWrite> {
                    Ok(h::put_member::<$member>(&state, id.0, user_id.0, body.0).await?)
                }

                $(#[doc = $remove_doc])*
                #[oai(path = $remove_path, method = "delete", operation_id = $remove_id)]
                async fn remove_member(&self, _auth: h::Admin, state: h::Data<&h::AppState>, id: h::Path<h::Uuid>, user_id: h::Path<h::Uuid>) -> h::ApiResult<h::Deleted, h::statuses::AdminDelete> {
                    Ok(h::remove_member::<$member>(&state, id.0, user_id.0).await?)
                }

                $(#[doc = $members_doc])*
                #[oai(path = $members_path, method = "get", operation_id = $members_id)]
                async fn list_members(
                    &self, _auth: h::Admin, state: h::Data<&h::AppState>, id: h::Path<h::Uuid>,
                    /// Page size.
                    limit: h::PageSize,
                    /// `next_cursor` of the previous page.
                    cursor: h::Cursor,
                ) -> h::ApiResult<h::Json<h::Page<$member>>, h::statuses::AdminListOf> {
                    Ok(h::list_members::<$member>(&state, id.0, limit.0, cursor.0).await?)
                }
            )?
        }
    };
}
pub(crate) use admin_api;
