//! A teacher's classes ([`taught_by`]) and one class's assignments and people
//! ([`assignments_of`], [`people_of`]), with their counts.

use parley_protocol::error::Result;
use sea_orm::{
    ConnectionTrait, FromQueryResult,
    prelude::DateTimeUtc,
    sea_query::{Alias, Condition, Expr, ExprTrait, JoinType, Order, Query},
};
use uuid::Uuid;

use super::count;
use crate::{
    assignments, classes, enrollments,
    enums::EnrollmentRole,
    error::Context,
    query::page::{Page, PageRequest},
    sessions, tools, users,
};

/// A class its teacher sees in their list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaughtClass {
    pub id: Uuid,
    pub name: String,
    pub students: u64,
    pub assignments: u64,
}

/// The position of a class in the list (by name, then id).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ClassKey {
    pub name: String,
    pub id: Uuid,
}

#[derive(Debug, FromQueryResult)]
struct ClassRow {
    id: Uuid,
    name: String,
    students: i64,
    assignments: i64,
}

/// `SELECT COUNT(*) FROM <table> WHERE <table>.class_id = classes.id [AND …]`.
fn per_class(table: Alias, class_id: Alias, role: Option<EnrollmentRole>) -> Expr {
    let mut count = Query::select()
        .expr(Expr::col(sea_orm::sea_query::Asterisk).count())
        .from_as(table.clone(), Alias::new("counted"))
        .and_where(
            Expr::col((Alias::new("counted"), class_id))
                .equals((classes::Entity, classes::Column::Id)),
        )
        .to_owned();
    if let Some(role) = role {
        count.and_where(Expr::col((Alias::new("counted"), Alias::new("role"))).eq(role));
    }
    Expr::SubQuery(None, Box::new(count.into()))
}

/// The classes `teacher` is enrolled in as a teacher, by name, with how many students
/// and assignments each has.
pub async fn taught_by<C: ConnectionTrait>(
    db: &C,
    teacher: Uuid,
    page: PageRequest<ClassKey>,
) -> Result<Page<TaughtClass, ClassKey>> {
    let mine = Alias::new("mine");
    let mut query = Query::select()
        .columns([
            (classes::Entity, classes::Column::Id),
            (classes::Entity, classes::Column::Name),
        ])
        .expr_as(
            per_class(
                Alias::new("enrollments"),
                Alias::new("class_id"),
                Some(EnrollmentRole::Student),
            ),
            "students",
        )
        .expr_as(
            per_class(Alias::new("assignments"), Alias::new("class_id"), None),
            "assignments",
        )
        .from(classes::Entity)
        .join_as(
            JoinType::InnerJoin,
            enrollments::Entity,
            mine.clone(),
            Condition::all()
                .add(
                    Expr::col((mine.clone(), enrollments::Column::ClassId))
                        .equals((classes::Entity, classes::Column::Id)),
                )
                .add(Expr::col((mine.clone(), enrollments::Column::UserId)).eq(teacher))
                .add(Expr::col((mine, enrollments::Column::Role)).eq(EnrollmentRole::Teacher)),
        )
        .order_by((classes::Entity, classes::Column::Name), Order::Asc)
        .order_by((classes::Entity, classes::Column::Id), Order::Asc)
        .limit(page.limit + 1)
        .to_owned();
    if let Some(key) = page.after {
        let name = Expr::col((classes::Entity, classes::Column::Name));
        query.cond_where(
            Condition::any().add(name.clone().gt(key.name.clone())).add(
                Condition::all()
                    .add(name.eq(key.name))
                    .add(Expr::col((classes::Entity, classes::Column::Id)).gt(key.id)),
            ),
        );
    }
    let backend = db.get_database_backend();
    let rows = ClassRow::find_by_statement(backend.build(&query))
        .all(db)
        .await
        .context("listing the caller's classes")?;
    let rows = rows
        .into_iter()
        .map(|r| TaughtClass {
            id: r.id,
            name: r.name,
            students: count(r.students),
            assignments: count(r.assignments),
        })
        .collect();
    Ok(Page::from_overfetch(rows, page.limit, |c: &TaughtClass| {
        ClassKey {
            name: c.name.clone(),
            id: c.id,
        }
    }))
}

/// An assignment of a class, with its tool's name and how many sessions it has.
#[derive(Debug, Clone, PartialEq, Eq, FromQueryResult)]
pub struct ClassAssignment {
    pub id: Uuid,
    pub title: String,
    pub tool_id: Uuid,
    pub tool_name: String,
    pub available_at: Option<DateTimeUtc>,
    pub closes_at: Option<DateTimeUtc>,
    pub sessions: i64,
}

/// The class's assignments in the order they were made, each with its tool's name and
/// its sessions (not deleted ones) counted.
pub async fn assignments_of<C: ConnectionTrait>(
    db: &C,
    class_id: Uuid,
) -> Result<Vec<ClassAssignment>> {
    use assignments::Column as A;
    let sessions_of = Query::select()
        .expr(Expr::col(sea_orm::sea_query::Asterisk).count())
        .from(sessions::Entity)
        .and_where(
            Expr::col((sessions::Entity, sessions::Column::AssignmentId))
                .equals((assignments::Entity, A::Id)),
        )
        .and_where(Expr::col((sessions::Entity, sessions::Column::DeletedAt)).is_null())
        .to_owned();
    let query = Query::select()
        .columns([
            (assignments::Entity, A::Id),
            (assignments::Entity, A::Title),
            (assignments::Entity, A::ToolId),
            (assignments::Entity, A::AvailableAt),
            (assignments::Entity, A::ClosesAt),
        ])
        .expr_as(Expr::col((tools::Entity, tools::Column::Name)), "tool_name")
        .expr_as(
            Expr::SubQuery(None, Box::new(sessions_of.into())),
            "sessions",
        )
        .from(assignments::Entity)
        .join(
            JoinType::InnerJoin,
            tools::Entity,
            Expr::col((tools::Entity, tools::Column::Id)).equals((assignments::Entity, A::ToolId)),
        )
        .and_where(Expr::col((assignments::Entity, A::ClassId)).eq(class_id))
        .order_by((assignments::Entity, A::CreatedAt), Order::Asc)
        .order_by((assignments::Entity, A::Id), Order::Asc)
        .to_owned();
    let backend = db.get_database_backend();
    ClassAssignment::find_by_statement(backend.build(&query))
        .all(db)
        .await
        .context("listing a class's assignments")
}

/// A person enrolled in a class, with how many sessions they have on its assignments.
#[derive(Debug, Clone, PartialEq, Eq, FromQueryResult)]
pub struct ClassMember {
    pub id: Uuid,
    pub name: String,
    pub email: String,
    pub role: EnrollmentRole,
    pub sessions: i64,
}

/// Everyone enrolled in the class, by name, each with their sessions (not deleted ones)
/// on the class's assignments counted.
pub async fn people_of<C: ConnectionTrait>(db: &C, class_id: Uuid) -> Result<Vec<ClassMember>> {
    let sessions_of = Query::select()
        .expr(Expr::col(sea_orm::sea_query::Asterisk).count())
        .from(sessions::Entity)
        .join(
            JoinType::InnerJoin,
            assignments::Entity,
            Expr::col((assignments::Entity, assignments::Column::Id))
                .equals((sessions::Entity, sessions::Column::AssignmentId)),
        )
        .and_where(
            Expr::col((sessions::Entity, sessions::Column::UserId))
                .equals((users::Entity, users::Column::Id)),
        )
        .and_where(Expr::col((assignments::Entity, assignments::Column::ClassId)).eq(class_id))
        .and_where(Expr::col((sessions::Entity, sessions::Column::DeletedAt)).is_null())
        .to_owned();
    let query = Query::select()
        .columns([
            (users::Entity, users::Column::Id),
            (users::Entity, users::Column::Name),
            (users::Entity, users::Column::Email),
        ])
        .column((enrollments::Entity, enrollments::Column::Role))
        .expr_as(
            Expr::SubQuery(None, Box::new(sessions_of.into())),
            "sessions",
        )
        .from(enrollments::Entity)
        .join(
            JoinType::InnerJoin,
            users::Entity,
            Expr::col((users::Entity, users::Column::Id))
                .equals((enrollments::Entity, enrollments::Column::UserId)),
        )
        .and_where(Expr::col((enrollments::Entity, enrollments::Column::ClassId)).eq(class_id))
        .order_by((users::Entity, users::Column::Name), Order::Asc)
        .order_by((users::Entity, users::Column::Id), Order::Asc)
        .to_owned();
    let backend = db.get_database_backend();
    ClassMember::find_by_statement(backend.build(&query))
        .all(db)
        .await
        .context("listing a class's people")
}
