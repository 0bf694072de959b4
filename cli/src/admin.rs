//! Admin helpers: the first-admin bootstrap of an empty database, and the `parley user`
//! and `parley token` commands (create, list, revoke). Tokens are printed in full only
//! when created; lists show their prefixes.

use anyhow::Context;
use parley_api::auth;
use parley_entity::{
    enums::UserRole,
    query::{resource, tokens, users},
};
use parley_protocol::config::{ToolConstraints, ToolDefinition};
use parley_protocol::error::Error;
use sea_orm::DatabaseConnection;
use secrecy::{ExposeSecret, SecretString};

/// The email of the administrator created on an empty database.
pub const BOOTSTRAP_ADMIN_EMAIL: &str = "admin@parley.local";

/// On a database without users, creates the first administrator and a token for them.
/// The token is `configured` when given (automation), else random and printed once on
/// stdout — never logged. Several processes starting together create one admin.
///
/// `data_dir` is the embedded database's directory (None: a configured database), for
/// the hint on how to mint another token, printed on every later start too.
pub async fn bootstrap(
    db: &DatabaseConnection,
    configured: Option<&SecretString>,
    data_dir: Option<&std::path::Path>,
) -> anyhow::Result<()> {
    if users::count(db).await.context("counting users")? > 0 {
        println!(
            "admin tokens are printed on the first start only; another one: {}",
            token_hint(data_dir)
        );
        return Ok(());
    }
    let minted = match configured {
        Some(secret) => auth::from_secret(secret.expose_secret().to_owned()),
        None => auth::mint_token(),
    };
    let txn = parley_entity::query::begin_write(db, "starting the bootstrap transaction")
        .await
        .map_err(|err| anyhow::anyhow!("{err}"))?;
    let new = users::NewUser {
        email: BOOTSTRAP_ADMIN_EMAIL.into(),
        name: "Administrator".into(),
        role: UserRole::Admin,
        permissions: vec![],
    };
    let admin = match users::create(&txn, new).await {
        Ok(admin) => admin,
        // Another process bootstrapped at the same moment.
        Err(Error::Conflict { .. }) => return Ok(()),
        Err(err) => return Err(err).context("creating the first administrator"),
    };
    let row = tokens::NewTokenRow {
        user_id: admin.id,
        name: "bootstrap".into(),
        token_hash: minted.hash,
        prefix: minted.display_prefix,
        expires_at: None,
    };
    tokens::insert(&txn, row)
        .await
        .context("storing the first administrator's token")?;
    create_demo_tool(&txn, admin.id)
        .await
        .context("creating the demo tool")?;
    txn.commit().await.context("committing the bootstrap")?;
    tracing::info!(
        email = BOOTSTRAP_ADMIN_EMAIL,
        "created the first administrator"
    );
    if configured.is_none() {
        println!("first administrator: {BOOTSTRAP_ADMIN_EMAIL}");
        println!("admin token (shown once, store it now): {}", minted.secret);
        println!("  export TOKEN={}", minted.secret);
        println!("another one later: {}", token_hint(data_dir));
    }
    Ok(())
}

/// The command that mints another admin token for this deployment.
pub fn token_hint(data_dir: Option<&std::path::Path>) -> String {
    let dir = data_dir
        .map(|dir| {
            let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
            format!(" --data-dir {}", dir.display())
        })
        .unwrap_or_default();
    format!("parley token create --user {BOOTSTRAP_ADMIN_EMAIL}{dir}")
}

/// The name of the chat tool a fresh deployment starts with.
const DEMO_TOOL: &str = "Demo tutor";

/// A group with the first admin in it and a demo chat tool, so a newcomer can open a
/// session and see a whole turn (answered by the offline demo model until a provider is
/// configured). It offers `getCurrentTime` (asked the time, the demo model calls it) and
/// `createTodo`, which waits for the user's approval (asked to "remind me to …", the demo
/// model calls it), and asks for suggestions (the demo model offers two and a button).
async fn create_demo_tool<C: sea_orm::ConnectionTrait>(
    db: &C,
    admin_id: uuid::Uuid,
) -> parley_protocol::error::Result<()> {
    use parley_entity::{enums::MemberRole, query};
    let group = query::groups::create(
        db,
        query::groups::NewGroup {
            name: "Demo".into(),
            parent_id: None,
            settings: None,
        },
    )
    .await?;
    query::resource::put_member::<parley_entity::group_members::Entity, _>(
        db,
        group.id,
        admin_id,
        MemberRole::Manager,
    )
    .await?;
    query::tools::create(
        db,
        query::tools::NewTool {
            group_id: group.id,
            name: DEMO_TOOL.into(),
            kind: "chat".into(),
            definition: ToolDefinition {
                constraints: Some(ToolConstraints {
                    topics: None,
                    no_direct_answers: Some(true),
                }),
                functions: Some(vec!["getCurrentTime".into(), "createTodo".into()]),
                // Asked to "remind me to …", the demo model calls createTodo: the page
                // shows the approval card before it runs.
                approval_required: Some(vec!["createTodo".into()]),
                suggestions: Some(true),
                ..ToolDefinition::new(
                    "You are a friendly, patient tutor. Explain step by step and check understanding.",
                )
            },
        },
    )
    .await?;
    Ok(())
}

/// `parley user create`: prints the new user as JSON.
pub async fn create_user(
    db: &DatabaseConnection,
    email: String,
    name: String,
    role: UserRole,
) -> anyhow::Result<()> {
    let user = users::create(
        db,
        users::NewUser {
            email,
            name,
            role,
            permissions: vec![],
        },
    )
    .await
    .map_err(|err| anyhow::anyhow!("{err}"))?;
    let json = serde_json::json!({"id": user.id, "email": user.email, "name": user.name, "role": user.role});
    println!("{json}");
    Ok(())
}

/// `parley token create`: prints only the new token, for scripts to capture.
pub async fn create_token(
    db: &DatabaseConnection,
    email: &str,
    name: String,
) -> anyhow::Result<()> {
    let user = users::find_by_email(db, email)
        .await
        .map_err(|err| anyhow::anyhow!("{err}"))?
        .with_context(|| format!("no user with email {email}"))?;
    let minted = auth::mint_token();
    let row = tokens::NewTokenRow {
        user_id: user.id,
        name,
        token_hash: minted.hash,
        prefix: minted.display_prefix,
        expires_at: None,
    };
    tokens::insert(db, row)
        .await
        .map_err(|err| anyhow::anyhow!("{err}"))?;
    println!("{}", minted.secret);
    Ok(())
}

/// `parley user list`: one line per user, tab-separated: id, email, role, name.
pub async fn list_users(db: &DatabaseConnection) -> anyhow::Result<()> {
    let mut after = None;
    loop {
        let page = parley_entity::query::page::PageRequest { limit: 500, after };
        let rows = resource::list::<parley_entity::users::Entity, _>(db, None, page)
            .await
            .map_err(|err| anyhow::anyhow!("{err}"))?;
        for user in &rows.items {
            println!(
                "{}\t{}\t{}\t{}",
                user.id,
                user.email,
                role_name(user.role),
                user.name
            );
        }
        match rows.next {
            Some(next) => after = Some(next),
            None => return Ok(()),
        }
    }
}

/// `parley token list`: one line per token, tab-separated: id, prefix, user, name,
/// state (`active`, `revoked <time>` or `expires <time>`), last use. Never the secret.
pub async fn list_tokens(db: &DatabaseConnection, email: Option<&str>) -> anyhow::Result<()> {
    let rows = tokens::list_with_owners(db, email)
        .await
        .map_err(|err| anyhow::anyhow!("{err}"))?;
    for (token, owner) in rows {
        let state = match (token.revoked_at, token.expires_at) {
            (Some(at), _) => format!("revoked {}", at.to_rfc3339()),
            (None, Some(at)) => format!("expires {}", at.to_rfc3339()),
            (None, None) => "active".to_owned(),
        };
        let used = token.last_used_at.map_or_else(
            || "never used".to_owned(),
            |at| format!("used {}", at.to_rfc3339()),
        );
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}",
            token.id, token.prefix, owner, token.name, state, used
        );
    }
    Ok(())
}

/// `parley token revoke ID|PREFIX`: revokes one token; a prefix shared by several
/// tokens is refused (name it by id).
pub async fn revoke_token(db: &DatabaseConnection, which: &str) -> anyhow::Result<()> {
    let id = match uuid::Uuid::parse_str(which) {
        Ok(id) => id,
        Err(_) => {
            let found = tokens::find_by_prefix(db, which)
                .await
                .map_err(|err| anyhow::anyhow!("{err}"))?;
            match found.as_slice() {
                [one] => one.id,
                [] => anyhow::bail!("no token with id or prefix {which}"),
                _ => anyhow::bail!(
                    "{} tokens have the prefix {which}: name one by its id (`parley token list`)",
                    found.len()
                ),
            }
        }
    };
    let token = tokens::revoke(db, id).await.map_err(|err| match err {
        Error::NotFound { .. } => anyhow::anyhow!("no token with id {id}"),
        other => anyhow::anyhow!("{other}"),
    })?;
    let at = token
        .revoked_at
        .map(|at| at.to_rfc3339())
        .unwrap_or_default();
    println!("revoked {} ({}) at {at}", token.id, token.prefix);
    Ok(())
}

fn role_name(role: UserRole) -> &'static str {
    match role {
        UserRole::Student => "student",
        UserRole::Teacher => "teacher",
        UserRole::Admin => "admin",
    }
}
