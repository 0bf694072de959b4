//! A teacher's view of their classes (DESIGN §7): each operation checks that the caller
//! teaches the class (404 otherwise) and that the filters name the class's own
//! assignment and student (404 otherwise), then reads — nothing here writes. The rule
//! and the queries are `parley_entity::query::teaching`. The api reaches it through
//! [`TeachingService`], built over the primary database.

use parley_entity::{
    classes,
    query::{
        page::{Page, PageRequest},
        teaching::{
            self as q, Scope,
            class_sessions::{ClassSession, ClassSessionKey},
            classes::{ClassAssignment, ClassKey, ClassMember, TaughtClass},
            signals::{BlockFilter, ClassBlock, ClassExtraction, ExtractionFilter},
        },
    },
};
use parley_protocol::error::Result;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

/// The application layer of a teacher's view; cheap to clone.
#[derive(Clone)]
pub struct TeachingService {
    db: DatabaseConnection,
}

/// A class with its assignments and everyone enrolled in it.
#[derive(Debug, Clone)]
pub struct ClassView {
    pub class: classes::Model,
    pub assignments: Vec<ClassAssignment>,
    pub people: Vec<ClassMember>,
}

impl TeachingService {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// The classes `teacher` teaches, by name.
    pub async fn classes(
        &self,
        teacher: Uuid,
        page: PageRequest<ClassKey>,
    ) -> Result<Page<TaughtClass, ClassKey>> {
        q::classes::taught_by(&self.db, teacher, page).await
    }

    /// A class `teacher` teaches, with its assignments and people.
    pub async fn class(&self, teacher: Uuid, class_id: Uuid) -> Result<ClassView> {
        let class = q::taught_class(&self.db, teacher, class_id).await?;
        let assignments = q::classes::assignments_of(&self.db, class.id).await?;
        let people = q::classes::people_of(&self.db, class.id).await?;
        Ok(ClassView {
            class,
            assignments,
            people,
        })
    }

    /// A page of the sessions of a class `teacher` teaches.
    pub async fn sessions(
        &self,
        teacher: Uuid,
        class_id: Uuid,
        scope: Scope,
        page: PageRequest<ClassSessionKey>,
    ) -> Result<Page<ClassSession, ClassSessionKey>> {
        let class = q::taught_class(&self.db, teacher, class_id).await?;
        q::check_scope(&self.db, class.id, &scope).await?;
        q::class_sessions::sessions_of(&self.db, class.id, &scope, page).await
    }

    /// A page of the extractions in the sessions of a class `teacher` teaches.
    pub async fn extractions(
        &self,
        teacher: Uuid,
        class_id: Uuid,
        filter: ExtractionFilter,
        page: PageRequest<Uuid>,
    ) -> Result<Page<ClassExtraction, Uuid>> {
        let class = q::taught_class(&self.db, teacher, class_id).await?;
        q::check_scope(&self.db, class.id, &filter.scope).await?;
        q::signals::extractions_of(&self.db, class.id, &filter, page).await
    }

    /// A page of the blocks in the sessions of a class `teacher` teaches.
    pub async fn blocks(
        &self,
        teacher: Uuid,
        class_id: Uuid,
        filter: BlockFilter,
        page: PageRequest<Uuid>,
    ) -> Result<Page<ClassBlock, Uuid>> {
        let class = q::taught_class(&self.db, teacher, class_id).await?;
        q::check_scope(&self.db, class.id, &filter.scope).await?;
        q::signals::blocks_of(&self.db, class.id, &filter, page).await
    }
}
