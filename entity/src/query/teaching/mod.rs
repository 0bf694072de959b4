//! What a teacher reads of the classes they teach (DESIGN §7; seed 000: extractions
//! "power teacher dashboards, analytics, intervention triggers"): their classes
//! ([`classes`]), a class's sessions ([`class_sessions`]), and what modules found in
//! them — extractions and blocks ([`signals`]).
//!
//! **Who may read**: a user enrolled in the class with the enrolment role `teacher`
//! ([`taught_class`]), whatever their role across the deployment — the same rule that
//! lets a teacher read a student's session (`sessions::get_readable`). An admin sees
//! the classes they are enrolled in as teacher, like anyone else: the admin API reads
//! everything already. A class the caller does not teach answers as missing (404), as
//! does an assignment of another class or a user not enrolled in it when given as a
//! filter: nothing here tells a caller which classes exist.
//!
//! **What is shown**: sessions opened on the class's assignments (not deleted ones),
//! whoever's they are — the sessions a teacher may already read one by one. Messages
//! as stored (a blocked message is `[blocked]`, a redacted one has placeholders);
//! never `message_audit`'s originals, which stay admin-only.
//!
//! Every list is one statement per page: joins for the names, correlated `COUNT`s for
//! the figures, keyset pagination in the list's order.

pub mod class_sessions;
pub mod classes;
pub mod signals;

use parley_protocol::error::{Error, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, RelationTrait,
    sea_query::{Expr, ExprTrait, JoinType, SelectStatement},
};
use uuid::Uuid;

use crate::{
    assignments, classes as class_rows, enrollments, enums::EnrollmentRole, error::Context,
    query::metrics::Window, sessions,
};

/// The class `class_id` when `teacher` is enrolled in it as a teacher; otherwise (no
/// such class, or not theirs to teach) 404 `class`.
pub async fn taught_class<C: ConnectionTrait>(
    db: &C,
    teacher: Uuid,
    class_id: Uuid,
) -> Result<class_rows::Model> {
    class_rows::Entity::find_by_id(class_id)
        .join(JoinType::InnerJoin, class_rows::Relation::Enrollments.def())
        .filter(enrollments::Column::UserId.eq(teacher))
        .filter(enrollments::Column::Role.eq(EnrollmentRole::Teacher))
        .one(db)
        .await
        .context("reading a class the caller teaches")?
        .ok_or(Error::not_found("class"))
}

/// Which of a class's records a list shows: on one assignment, of one student, in a
/// window (each list says which time the window is on).
#[derive(Debug, Clone, Copy, Default)]
pub struct Scope {
    pub assignment_id: Option<Uuid>,
    pub student_id: Option<Uuid>,
    pub window: Window,
}

/// Checks that the scope's assignment is one of the class's (404 `assignment`) and its
/// student is enrolled in it (404 `student`): a filter naming another class's records
/// answers as missing, not as an empty list.
pub async fn check_scope<C: ConnectionTrait>(db: &C, class_id: Uuid, scope: &Scope) -> Result<()> {
    if let Some(assignment_id) = scope.assignment_id {
        assignments::Entity::find_by_id(assignment_id)
            .filter(assignments::Column::ClassId.eq(class_id))
            .one(db)
            .await
            .context("reading an assignment of a class")?
            .ok_or(Error::not_found("assignment"))?;
    }
    if let Some(student_id) = scope.student_id {
        enrollments::Entity::find()
            .filter(enrollments::Column::ClassId.eq(class_id))
            .filter(enrollments::Column::UserId.eq(student_id))
            .one(db)
            .await
            .context("reading an enrolment")?
            .ok_or(Error::not_found("student"))?;
    }
    Ok(())
}

/// Narrows a statement that joins `sessions` and `assignments` to the class's sessions
/// (not deleted ones) within `scope`'s assignment and student.
fn in_class(query: &mut SelectStatement, class_id: Uuid, scope: &Scope) {
    query
        .and_where(Expr::col((assignments::Entity, assignments::Column::ClassId)).eq(class_id))
        .and_where(Expr::col((sessions::Entity, sessions::Column::DeletedAt)).is_null());
    if let Some(assignment_id) = scope.assignment_id {
        query.and_where(
            Expr::col((sessions::Entity, sessions::Column::AssignmentId)).eq(assignment_id),
        );
    }
    if let Some(student_id) = scope.student_id {
        query.and_where(Expr::col((sessions::Entity, sessions::Column::UserId)).eq(student_id));
    }
}

/// Joins `assignments` (on the session's assignment) and `users` (the session's owner)
/// to a statement that has `sessions`.
fn join_assignment_and_student(query: &mut SelectStatement) {
    query
        .join(
            JoinType::InnerJoin,
            assignments::Entity,
            Expr::col((assignments::Entity, assignments::Column::Id))
                .equals((sessions::Entity, sessions::Column::AssignmentId)),
        )
        .join(
            JoinType::InnerJoin,
            crate::users::Entity,
            Expr::col((crate::users::Entity, crate::users::Column::Id))
                .equals((sessions::Entity, sessions::Column::UserId)),
        );
}

/// Converts a SQL count (never negative) to `u64`.
fn count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
