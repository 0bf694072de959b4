//! Test support: a migrated in-memory SQLite database with a user, their tool and a
//! session, for the conformance suites' harnesses (functions and skills that write rows).

use parley_entity::{enums::UserRole, query, sessions, tools, users};
use parley_migration::{Migrator, MigratorTrait};
use parley_protocol::config::ToolDefinition;
use sea_orm::DatabaseConnection;

/// A user, a tool in a group of its own, and a session of the user's with the tool.
pub struct Seeded {
    pub db: DatabaseConnection,
    pub user: users::Model,
    pub tool: tools::Model,
    pub session: sessions::Model,
}

impl Seeded {
    /// A migrated, empty in-memory SQLite database with one user and one session.
    pub async fn new() -> Self {
        let db = sea_orm::Database::connect("sqlite::memory:")
            .await
            .expect("opening in-memory SQLite");
        Migrator::up(&db, None).await.expect("migrating");
        let user = query::users::create(
            &db,
            query::users::NewUser {
                email: "ada@example.com".into(),
                name: "Ada".into(),
                role: UserRole::Student,
                permissions: Vec::new(),
            },
        )
        .await
        .expect("a user");
        let group = query::groups::create(
            &db,
            query::groups::NewGroup {
                name: "School".into(),
                parent_id: None,
                settings: None,
            },
        )
        .await
        .expect("a group");
        let tool = query::tools::create(
            &db,
            query::tools::NewTool {
                group_id: group.id,
                name: "Tutor".into(),
                kind: "chat".into(),
                definition: ToolDefinition::new("Help."),
            },
        )
        .await
        .expect("a tool");
        let session = open(&db, &user, &tool).await;
        Self {
            db,
            user,
            tool,
            session,
        }
    }

    /// Another session of the user's with the tool.
    pub async fn another_session(&self) -> sessions::Model {
        open(&self.db, &self.user, &self.tool).await
    }
}

async fn open(
    db: &DatabaseConnection,
    user: &users::Model,
    tool: &tools::Model,
) -> sessions::Model {
    let who = query::sessions::Opener {
        user_id: user.id,
        is_admin: true,
    };
    let req = query::sessions::OpenSession {
        tool_id: tool.id,
        assignment_id: None,
        submission_id: None,
        rid: None,
    };
    query::sessions::open(db, who, req, query::now())
        .await
        .expect("a session")
}
