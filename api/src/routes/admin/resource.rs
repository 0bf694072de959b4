//! The standard operations of an admin resource — create, list, get, update, delete, and
//! for groups and classes put, remove and list their members — written once.
//!
//! A resource's module says what is its own: its wire types (the response `Object`,
//! the create and update bodies), how a body becomes the service's input
//! ([`AdminView`], [`MemberView`]: the place to validate what the wire type carries
//! against the deployment) and the documentation of each operation. [`admin_api!`]
//! then declares the operations: poem-openapi needs each operation's path, id and
//! documentation as literals in its `#[OpenApi]` impl, so the macro writes that impl
//! from a table, and every handler in it is one call to the generic function of its
//! operation here, which calls the [`AdminService`](parley_service::AdminService).

use parley_entity::{
    error::Result,
    query::{
        page,
        resource::{Membership, Resource},
    },
};
use parley_service::admin::{Actor, AdminResource};
use poem_openapi::{
    payload::Json,
    types::{ParseFromJSON, ToJSON},
};
use uuid::Uuid;

use super::Deleted;
use crate::{
    auth::Caller,
    error::Problem,
    pagination::{self, Limit, Page},
    state::AppState,
};

type Model<V> = <<V as AdminView>::Resource as sea_orm::EntityTrait>::Model;
type Answer<T> = std::result::Result<T, Box<Problem>>;

/// An admin resource as the API shows it.
pub trait AdminView: ParseFromJSON + ToJSON {
    type Resource: AdminResource;
    /// The body of a create.
    type Create;
    /// The body of an update.
    type Update;
    /// The path of the collection (`/v1/admin/classes`): a new row's `Location` is
    /// below it.
    const COLLECTION: &'static str;

    /// The row as the client sees it.
    fn view(row: Model<Self>) -> Result<Self>;

    /// A create body as the service takes it.
    fn new_row(state: &AppState, body: Self::Create) -> Result<<Self::Resource as Resource>::New>;

    /// An update body as the service takes it.
    fn changes(
        state: &AppState,
        body: Self::Update,
    ) -> Result<<Self::Resource as Resource>::Changes>;

    /// Tells the api's own state about an updated row (nothing, by default).
    fn updated(_state: &AppState, _row: &Model<Self>) {}
}

/// A membership (group member, enrolment) as the API shows it.
pub trait MemberView:
    ParseFromJSON + ToJSON + From<<Self::Membership as sea_orm::EntityTrait>::Model>
{
    type Membership: Membership;
    /// The body of a put: the role to give.
    type Put;

    fn role(put: Self::Put) -> <Self::Membership as Membership>::Role;
}

fn actor(caller: &Caller) -> Actor {
    Actor {
        user_id: caller.user_id,
        token_id: caller.token_id,
    }
}

/// Creates a row; answers it with its `Location`.
pub async fn create<V: AdminView>(state: &AppState, body: V::Create) -> Answer<(Json<V>, String)> {
    let new = V::new_row(state, body)?;
    let row = state.admin.create::<V::Resource>(new).await?;
    let location = format!("{}/{}", V::COLLECTION, V::Resource::id_of(&row));
    Ok((Json(V::view(row)?), location))
}

pub async fn list<V: AdminView>(
    state: &AppState,
    filter: <V::Resource as Resource>::Filter,
    limit: Option<Limit>,
    cursor: Option<String>,
) -> Answer<Json<Page<V>>> {
    let page = pagination::request(limit, cursor.as_deref())?;
    let rows = state.admin.list::<V::Resource>(filter, page).await?;
    let items = rows
        .items
        .into_iter()
        .map(V::view)
        .collect::<Result<Vec<_>>>()?;
    let rows = page::Page {
        items,
        next: rows.next,
    };
    Ok(Json(Page::from_rows(rows, |view| view)))
}

pub async fn get<V: AdminView>(state: &AppState, id: Uuid) -> Answer<Json<V>> {
    let row = state.admin.get::<V::Resource>(id).await?;
    Ok(Json(V::view(row)?))
}

pub async fn update<V: AdminView>(
    state: &AppState,
    caller: &Caller,
    id: Uuid,
    body: V::Update,
) -> Answer<Json<V>> {
    let changes = V::changes(state, body)?;
    let row = state
        .admin
        .update::<V::Resource>(&actor(caller), id, changes)
        .await?;
    V::updated(state, &row);
    Ok(Json(V::view(row)?))
}

pub async fn delete<V: AdminView>(state: &AppState, caller: &Caller, id: Uuid) -> Answer<Deleted> {
    state
        .admin
        .delete::<V::Resource>(&actor(caller), id)
        .await?;
    Ok(Deleted::NoContent)
}

pub async fn put_member<W: MemberView>(
    state: &AppState,
    parent_id: Uuid,
    user_id: Uuid,
    put: W::Put,
) -> Answer<Json<W>> {
    let row = state
        .admin
        .put_member::<W::Membership>(parent_id, user_id, W::role(put))
        .await?;
    Ok(Json(row.into()))
}

pub async fn remove_member<W: MemberView>(
    state: &AppState,
    parent_id: Uuid,
    user_id: Uuid,
) -> Answer<Deleted> {
    state
        .admin
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
        .admin
        .list_members::<W::Membership>(parent_id, page)
        .await?;
    Ok(Json(Page::from_rows(rows, W::from)))
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

/// Declares the `#[OpenApi]` impl of an admin resource's standard operations; see the
/// module note. Each operation is one line — what it is, its path, its operation id —
/// under its documentation (summary, then description), in the order create, list,
/// get, update, delete, and for a resource with members put, remove and list them.
/// `list … filter name: Type` adds a query parameter that narrows the list.
macro_rules! admin_api {
    (
        $api:ident for $view:ident;
        $(#[doc = $create_doc:tt])* create $create_path:tt $create_id:tt => $created:ident;
        $(#[doc = $list_doc:tt])* list $list_path:tt $list_id:tt
            $(filter $(#[doc = $filter_doc:tt])* $filter:ident: $filter_ty:ty)?;
        $(#[doc = $get_doc:tt])* get $get_path:tt $get_id:tt;
        $(#[doc = $update_doc:tt])* update $update_path:tt $update_id:tt;
        $(#[doc = $delete_doc:tt])* delete $delete_path:tt $delete_id:tt;
        $(
            members $member:ident;
            $(#[doc = $put_doc:tt])* put $put_path:tt $put_id:tt;
            $(#[doc = $remove_doc:tt])* remove $remove_path:tt $remove_id:tt;
            $(#[doc = $members_doc:tt])* list $members_path:tt $members_id:tt;
        )?
    ) => {
        pub struct $api;

        #[poem_openapi::OpenApi(prefix_path = "/v1/admin", tag = "crate::routes::ApiTags::Admin")]
        impl $api {
            $(#[doc = $create_doc])*
            #[oai(path = $create_path, method = "post", operation_id = $create_id)]
            async fn create(
                &self,
                _auth: $crate::auth::AdminAuth,
                state: poem::web::Data<&$crate::state::AppState>,
                body: poem_openapi::payload::Json<<$view as $crate::routes::admin::resource::AdminView>::Create>,
            ) -> $crate::error::ApiResult<$created, $crate::error::statuses::AdminCreate> {
                let (view, location) = $crate::routes::admin::resource::create::<$view>(&state, body.0).await?;
                Ok($created::Created(view, location))
            }

            $(#[doc = $list_doc])*
            #[oai(path = $list_path, method = "get", operation_id = $list_id)]
            async fn list(
                &self,
                _auth: $crate::auth::AdminAuth,
                state: poem::web::Data<&$crate::state::AppState>,
                $($(#[doc = $filter_doc])* $filter: poem_openapi::param::Query<$filter_ty>,)?
                /// Page size.
                limit: poem_openapi::param::Query<Option<$crate::pagination::Limit>>,
                /// `next_cursor` of the previous page.
                cursor: poem_openapi::param::Query<Option<String>>,
            ) -> $crate::error::ApiResult<
                poem_openapi::payload::Json<$crate::pagination::Page<$view>>,
                $crate::error::statuses::AdminList,
            > {
                let filter = $crate::routes::admin::resource::list_filter!($($filter)?);
                Ok($crate::routes::admin::resource::list::<$view>(&state, filter, limit.0, cursor.0).await?)
            }

            $(#[doc = $get_doc])*
            #[oai(path = $get_path, method = "get", operation_id = $get_id)]
            async fn get(
                &self,
                _auth: $crate::auth::AdminAuth,
                state: poem::web::Data<&$crate::state::AppState>,
                id: poem_openapi::param::Path<uuid::Uuid>,
            ) -> $crate::error::ApiResult<poem_openapi::payload::Json<$view>, $crate::error::statuses::AdminRead> {
                Ok($crate::routes::admin::resource::get::<$view>(&state, id.0).await?)
            }

            $(#[doc = $update_doc])*
            #[oai(path = $update_path, method = "patch", operation_id = $update_id)]
            async fn update(
                &self,
                auth: $crate::auth::AdminAuth,
                state: poem::web::Data<&$crate::state::AppState>,
                id: poem_openapi::param::Path<uuid::Uuid>,
                body: poem_openapi::payload::Json<<$view as $crate::routes::admin::resource::AdminView>::Update>,
            ) -> $crate::error::ApiResult<poem_openapi::payload::Json<$view>, $crate::error::statuses::AdminWrite> {
                Ok($crate::routes::admin::resource::update::<$view>(&state, &auth.0, id.0, body.0).await?)
            }

            $(#[doc = $delete_doc])*
            #[oai(path = $delete_path, method = "delete", operation_id = $delete_id)]
            async fn delete(
                &self,
                auth: $crate::auth::AdminAuth,
                state: poem::web::Data<&$crate::state::AppState>,
                id: poem_openapi::param::Path<uuid::Uuid>,
            ) -> $crate::error::ApiResult<$crate::routes::admin::Deleted, $crate::error::statuses::AdminDelete> {
                Ok($crate::routes::admin::resource::delete::<$view>(&state, &auth.0, id.0).await?)
            }

            $(
                $(#[doc = $put_doc])*
                #[oai(path = $put_path, method = "put", operation_id = $put_id)]
                async fn put_member(
                    &self,
                    _auth: $crate::auth::AdminAuth,
                    state: poem::web::Data<&$crate::state::AppState>,
                    id: poem_openapi::param::Path<uuid::Uuid>,
                    user_id: poem_openapi::param::Path<uuid::Uuid>,
                    body: poem_openapi::payload::Json<<$member as $crate::routes::admin::resource::MemberView>::Put>,
                ) -> $crate::error::ApiResult<poem_openapi::payload::Json<$member>, $crate::error::statuses::AdminWrite> {
                    Ok($crate::routes::admin::resource::put_member::<$member>(&state, id.0, user_id.0, body.0).await?)
                }

                $(#[doc = $remove_doc])*
                #[oai(path = $remove_path, method = "delete", operation_id = $remove_id)]
                async fn remove_member(
                    &self,
                    _auth: $crate::auth::AdminAuth,
                    state: poem::web::Data<&$crate::state::AppState>,
                    id: poem_openapi::param::Path<uuid::Uuid>,
                    user_id: poem_openapi::param::Path<uuid::Uuid>,
                ) -> $crate::error::ApiResult<$crate::routes::admin::Deleted, $crate::error::statuses::AdminDelete> {
                    Ok($crate::routes::admin::resource::remove_member::<$member>(&state, id.0, user_id.0).await?)
                }

                $(#[doc = $members_doc])*
                #[oai(path = $members_path, method = "get", operation_id = $members_id)]
                async fn list_members(
                    &self,
                    _auth: $crate::auth::AdminAuth,
                    state: poem::web::Data<&$crate::state::AppState>,
                    id: poem_openapi::param::Path<uuid::Uuid>,
                    /// Page size.
                    limit: poem_openapi::param::Query<Option<$crate::pagination::Limit>>,
                    /// `next_cursor` of the previous page.
                    cursor: poem_openapi::param::Query<Option<String>>,
                ) -> $crate::error::ApiResult<
                    poem_openapi::payload::Json<$crate::pagination::Page<$member>>,
                    $crate::error::statuses::AdminListOf,
                > {
                    Ok($crate::routes::admin::resource::list_members::<$member>(&state, id.0, limit.0, cursor.0).await?)
                }
            )?
        }
    };
}
pub(crate) use admin_api;
