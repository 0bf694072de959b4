//! What the teaching routes answer: classes, their assignments and people, sessions,
//! extractions and blocks — names beside every id, so a page needs no second read.

use chrono::{DateTime, Utc};
use parley_entity::query::teaching::{
    class_sessions::ClassSession,
    classes::{ClassAssignment, ClassMember, TaughtClass},
    signals::{ClassBlock, ClassExtraction},
};
use parley_service::teaching::ClassView;
use poem_openapi::Object;
use serde_json::Value;
use uuid::Uuid;

use crate::routes::views::{EnrollmentRole, SessionState};

/// A SQL count as a wire number.
fn n(count: i64) -> u64 {
    u64::try_from(count).unwrap_or(0)
}

/// A class the caller teaches, with its size.
#[derive(Debug, Object)]
pub struct TeachingClass {
    pub id: Uuid,
    pub name: String,
    /// People enrolled as students.
    pub students: u64,
    pub assignments: u64,
}

impl From<TaughtClass> for TeachingClass {
    fn from(c: TaughtClass) -> Self {
        Self {
            id: c.id,
            name: c.name,
            students: c.students,
            assignments: c.assignments,
        }
    }
}

/// An assignment of the class.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct TeachingAssignment {
    pub id: Uuid,
    pub title: String,
    /// The chat tool its sessions use.
    pub tool_id: Uuid,
    pub tool_name: String,
    pub available_at: Option<DateTime<Utc>>,
    pub closes_at: Option<DateTime<Utc>>,
    /// Sessions opened on it.
    pub sessions: u64,
}

impl From<ClassAssignment> for TeachingAssignment {
    fn from(a: ClassAssignment) -> Self {
        Self {
            id: a.id,
            title: a.title,
            tool_id: a.tool_id,
            tool_name: a.tool_name,
            available_at: a.available_at,
            closes_at: a.closes_at,
            sessions: n(a.sessions),
        }
    }
}

/// Someone enrolled in the class.
#[derive(Debug, Object)]
pub struct ClassPerson {
    pub id: Uuid,
    pub name: String,
    pub email: String,
    pub role: EnrollmentRole,
    /// Their sessions on the class's assignments.
    pub sessions: u64,
}

impl From<ClassMember> for ClassPerson {
    fn from(m: ClassMember) -> Self {
        Self {
            id: m.id,
            name: m.name,
            email: m.email,
            role: m.role.into(),
            sessions: n(m.sessions),
        }
    }
}

/// A class the caller teaches, with its assignments (in the order they were made) and
/// its people (by name).
#[derive(Debug, Object)]
pub struct TeachingClassDetail {
    pub id: Uuid,
    pub name: String,
    pub assignments: Vec<TeachingAssignment>,
    /// People enrolled as students.
    pub students: Vec<ClassPerson>,
    /// People enrolled as teachers (the caller among them).
    pub teachers: Vec<ClassPerson>,
}

impl From<ClassView> for TeachingClassDetail {
    fn from(v: ClassView) -> Self {
        let (teachers, students): (Vec<_>, Vec<_>) = v
            .people
            .into_iter()
            .map(ClassPerson::from)
            .partition(|p| p.role == EnrollmentRole::Teacher);
        Self {
            id: v.class.id,
            name: v.class.name,
            assignments: v.assignments.into_iter().map(Into::into).collect(),
            students,
            teachers,
        }
    }
}

/// A session opened on one of the class's assignments.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct TeachingSession {
    pub id: Uuid,
    /// Its title, once it has one.
    pub title: Option<String>,
    pub state: SessionState,
    /// Whose session it is.
    pub student_id: Uuid,
    pub student_name: String,
    pub assignment_id: Uuid,
    pub assignment_title: String,
    pub message_count: i32,
    pub started_at: DateTime<Utc>,
    pub last_activity_at: DateTime<Utc>,
    /// Extractions modules recorded in it.
    pub extractions: u64,
    /// Messages or answers a module blocked in it.
    pub blocks: u64,
}

impl From<ClassSession> for TeachingSession {
    fn from(s: ClassSession) -> Self {
        Self {
            id: s.id,
            title: s.title,
            state: s.state.into(),
            student_id: s.student_id,
            student_name: s.student_name,
            assignment_id: s.assignment_id,
            assignment_title: s.assignment_title,
            message_count: s.message_count,
            started_at: s.started_at,
            last_activity_at: s.last_activity_at,
            extractions: s.extractions,
            blocks: s.blocks,
        }
    }
}

/// Structured data a module recorded about a class's session (`pii_detected`,
/// `safety_flag`, a webhook's `struggle_detected`, …), with where to read it: the
/// session and, when the finding is about one, the message.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct TeachingExtraction {
    pub id: Uuid,
    pub session_id: Uuid,
    pub message_id: Option<Uuid>,
    pub module: String,
    #[oai(rename = "type")]
    pub kind: String,
    /// What the module recorded (its own shape per `type`).
    pub data: Value,
    pub created_at: DateTime<Utc>,
    pub student_id: Uuid,
    pub student_name: String,
    pub assignment_id: Uuid,
    pub assignment_title: String,
    pub session_title: Option<String>,
}

impl From<ClassExtraction> for TeachingExtraction {
    fn from(x: ClassExtraction) -> Self {
        Self {
            id: x.id,
            session_id: x.session_id,
            message_id: x.message_id,
            module: x.module,
            kind: x.r#type,
            data: x.data,
            created_at: x.created_at,
            student_id: x.user_id,
            student_name: x.student_name,
            assignment_id: x.assignment_id,
            assignment_title: x.assignment_title,
            session_title: x.session_title,
        }
    }
}

/// A module's block in a class's session: which module, of what (`chat:before_ai`: the
/// student's message, stored as `[blocked]`; `chat:after_ai`: the answer, replaced by
/// the module's response), why — never the blocked text.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct TeachingBlock {
    pub id: Uuid,
    pub session_id: Uuid,
    /// The blocked message (or the answer that replaced a blocked answer).
    pub message_id: Option<Uuid>,
    pub module: String,
    pub hook: String,
    /// The category the module gave (`self_harm`, `policy`, …).
    pub category: Option<String>,
    /// The module's reason, recorded for a blocked message (not for an answer).
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub student_id: Uuid,
    pub student_name: String,
    pub assignment_id: Uuid,
    pub assignment_title: String,
    pub session_title: Option<String>,
}

impl From<ClassBlock> for TeachingBlock {
    fn from(b: ClassBlock) -> Self {
        Self {
            id: b.id,
            session_id: b.session_id,
            message_id: b.message_id,
            module: b.module,
            hook: b.hook,
            category: b.category,
            reason: b.reason,
            created_at: b.created_at,
            student_id: b.user_id,
            student_name: b.student_name,
            assignment_id: b.assignment_id,
            assignment_title: b.assignment_title,
            session_title: b.session_title,
        }
    }
}
