//! `parley`: the one binary. Its subcommand picks the role — the all-in-one server, the
//! API alone, migrations, admin helpers, or writing the OpenAPI document.

mod admin;
mod alloc;
mod backup;
mod config;
mod db;
mod extract_text;
mod http;
mod serve;
mod telemetry;

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};
use parley_migration::{Migrator, MigratorTrait};

use crate::config::{Overrides, Settings};

/// Parley, a chat runtime: conversations between people and LLMs.
#[derive(Debug, Parser)]
#[command(name = "parley", version, about)]
struct Cli {
    /// The config file (default: parley.toml in the working directory, if present).
    #[arg(long, global = true, env = "PARLEY_CONFIG")]
    config: Option<PathBuf>,
    /// Directory of the embedded database, for every command that opens it (config
    /// `data_dir`, env PARLEY_DATA_DIR; default ./parley-data).
    #[arg(long, global = true)]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// Address to listen on (config `listen`, env PARLEY_LISTEN).
    #[arg(long)]
    listen: Option<String>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run everything in one process (embedded SQLite unless a database URL is set).
    Serve(ServeArgs),
    /// Run the HTTP API only (distributed mode; run `parley migrate up` first).
    Api(ServeArgs),
    /// Run turn workers only (distributed mode; run `parley migrate up` first).
    Worker {
        /// Turns run at the same time (config `worker.concurrency`).
        #[arg(long)]
        concurrency: Option<usize>,
        /// Serve `GET /metrics` and `GET /healthz` on this address (config
        /// `worker.metrics_listen`, env PARLEY_WORKER__METRICS_LISTEN).
        #[arg(long)]
        metrics_listen: Option<std::net::SocketAddr>,
    },
    /// Apply, roll back or list schema migrations.
    Migrate {
        #[command(subcommand)]
        action: MigrateAction,
    },
    /// Manage users.
    User {
        #[command(subcommand)]
        action: UserAction,
    },
    /// Manage API tokens.
    Token {
        #[command(subcommand)]
        action: TokenAction,
    },
    /// Check the configuration.
    Config {
        #[command(subcommand)]
        action: ConfigAction,
    },
    /// Exit 0 when `URL` answers 2xx within 3 s, else 1: the health check of an image
    /// without curl (`parley probe http://127.0.0.1:8080/readyz`).
    Probe {
        /// The URL to GET (http:// only: a probe inside the container).
        url: String,
    },
    /// Copy an embedded deployment's data directory consistently, while it runs (the
    /// database and the job queue, with SQLite's `VACUUM INTO`); prints the files
    /// written. Restore: stop Parley and start it with `--data-dir` the copy.
    Backup {
        /// A new directory for the copy.
        #[arg(long)]
        out: PathBuf,
    },
    /// Print the OpenAPI document (or write it to a file).
    Openapi {
        /// Write here instead of stdout.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The PDF sandbox's child: an upload on stdin, its text on stdout (the server runs
    /// it; see cli/src/extract_text.rs).
    #[command(hide = true)]
    ExtractText(extract_text::ExtractTextArgs),
}

#[derive(Debug, Subcommand)]
enum MigrateAction {
    /// Apply pending migrations.
    Up,
    /// Roll back migrations (one by default).
    Down {
        /// How many to roll back.
        #[arg(long, conflicts_with = "all")]
        steps: Option<u32>,
        /// Roll back every migration.
        #[arg(long)]
        all: bool,
    },
    /// List migrations and whether each is applied.
    Status,
}

#[derive(Debug, Subcommand)]
enum UserAction {
    /// Create a user; prints it as JSON.
    Create {
        #[arg(long)]
        email: String,
        #[arg(long)]
        name: String,
        #[arg(long, value_enum)]
        role: RoleArg,
    },
    /// List users, one per line: id, email, role, name.
    List,
}

#[derive(Debug, Subcommand)]
enum TokenAction {
    /// Create a token for a user; prints only the token.
    Create {
        /// The user's email.
        #[arg(long)]
        user: String,
        /// A name to tell the token apart.
        #[arg(long, default_value = "cli")]
        name: String,
    },
    /// List tokens (never their secrets), one per line: id, prefix, user, name, state.
    List {
        /// Only this user's tokens (their email).
        #[arg(long)]
        user: Option<String>,
    },
    /// Revoke a token, named by its id or its prefix (as `token list` shows them).
    Revoke {
        /// The token's id, or its displayed prefix (`prl_abcdef`).
        token: String,
    },
}

#[derive(Debug, Subcommand)]
enum ConfigAction {
    /// Parse and validate the configuration (file, environment, flags) and print the
    /// effective settings as TOML, secrets masked; exit 1 naming the bad key if invalid.
    Check,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RoleArg {
    Student,
    Teacher,
    Admin,
}

impl From<RoleArg> for parley_entity::enums::UserRole {
    fn from(role: RoleArg) -> Self {
        match role {
            RoleArg::Student => Self::Student,
            RoleArg::Teacher => Self::Teacher,
            RoleArg::Admin => Self::Admin,
        }
    }
}

fn load_settings(config: Option<PathBuf>, overrides: Overrides) -> anyhow::Result<Settings> {
    let required = config.is_some();
    let path = config.unwrap_or_else(|| PathBuf::from("parley.toml"));
    Settings::load(&path, required, overrides)
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // The PDF sandbox's child: before the runtime, the settings and the logs.
    if let Command::ExtractText(args) = &cli.command {
        return args.run();
    }
    // The processes that hold the open feeds (an api, or the one embedded process):
    // their allocator gives the pages the feeds leave untouched back (`alloc`), set when
    // the process starts.
    let feeds = matches!(cli.command, Command::Api(_) | Command::Serve(_));
    if let Some(conf) = alloc::restart_conf(feeds) {
        let err = alloc::restart_with(conf);
        eprintln!("parley: the allocator keeps its defaults (cannot run itself again: {err})");
    }
    // Before any HTTP client (the OpenTelemetry exporter builds its own).
    parley_service::tls::install_crypto_provider();
    // The settings are read before the runtime starts: its size is one of them.
    match prepare(cli) {
        Ok(Prepared::Done) => std::process::ExitCode::SUCCESS,
        Ok(Prepared::Probe(url)) => block_on(None, probe(&url)),
        Ok(Prepared::Run(command, settings)) => {
            block_on(settings.runtime.threads, start(command, *settings))
        }
        Err(err) => fail(err),
    }
}

/// Runs `work` on a new runtime of `threads` threads and reports how it ended.
fn block_on(
    threads: Option<usize>,
    work: impl std::future::Future<Output = anyhow::Result<()>>,
) -> std::process::ExitCode {
    let runtime = match async_runtime(threads) {
        Ok(runtime) => runtime,
        Err(err) => return fail(anyhow::anyhow!(err).context("starting the async runtime")),
    };
    match runtime.block_on(work) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => fail(err),
    }
}

/// Reports a failure as one line on stderr (what it was doing, then why) and exits 1.
fn fail(err: anyhow::Error) -> std::process::ExitCode {
    eprintln!("parley: {err:#}");
    std::process::ExitCode::FAILURE
}

/// The process's runtime: `runtime.threads` threads, else one per CPU it may use.
fn async_runtime(threads: Option<usize>) -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    if let Some(threads) = threads {
        builder.worker_threads(threads);
    }
    builder.build()
}

/// What is left to run once the command line and the settings are read.
enum Prepared {
    /// Done already: the OpenAPI document or the effective settings are written.
    Done,
    /// `parley probe`, which reads no settings.
    Probe(String),
    Run(Command, Box<Settings>),
}

/// Reads the settings the command needs, with its flags applied; runs the commands that
/// need no runtime.
fn prepare(cli: Cli) -> anyhow::Result<Prepared> {
    if let Command::Openapi { out } = &cli.command {
        write_openapi(out.as_deref())?;
        return Ok(Prepared::Done);
    }
    if let Command::Probe { url } = cli.command {
        return Ok(Prepared::Probe(url));
    }
    let listen = match &cli.command {
        Command::Serve(args) | Command::Api(args) => args.listen.clone(),
        _ => None,
    };
    let overrides = Overrides {
        listen,
        data_dir: cli.data_dir.clone(),
    };
    let mut settings = load_settings(cli.config, overrides)?;
    if let Command::Worker {
        concurrency,
        metrics_listen,
    } = &cli.command
    {
        if let Some(n) = concurrency {
            anyhow::ensure!(*n > 0, "--concurrency must be at least 1");
            settings.worker.concurrency = *n;
        }
        if metrics_listen.is_some() {
            settings.worker.metrics_listen = *metrics_listen;
        }
    }
    if let Command::Config {
        action: ConfigAction::Check,
    } = &cli.command
    {
        print!("{}", settings.effective_toml()?);
        return Ok(Prepared::Done);
    }
    Ok(Prepared::Run(cli.command, Box::new(settings)))
}

async fn start(command: Command, settings: Settings) -> anyhow::Result<()> {
    let service = match &command {
        Command::Serve(_) => Some("parley"),
        Command::Api(_) => Some("parley-api"),
        Command::Worker { .. } => Some("parley-worker"),
        _ => None,
    };
    let telemetry = telemetry::init(&settings.log, &settings.telemetry, service);
    let result = run(command, settings).await;
    // The last spans go out before the process ends (a blocking flush).
    let _ = tokio::task::spawn_blocking(move || telemetry.shutdown()).await;
    result
}

async fn run(command: Command, settings: Settings) -> anyhow::Result<()> {
    match command {
        Command::Serve(_) => serve::run(settings, serve::Role::AllInOne).await,
        Command::Api(_) => serve::run(settings, serve::Role::Api).await,
        Command::Worker { .. } => serve::run(settings, serve::Role::Worker).await,
        Command::Migrate { action } => migrate(&settings, action).await,
        Command::User { action } => {
            let db = db::open_existing(&settings).await?;
            match action {
                UserAction::Create { email, name, role } => {
                    admin::create_user(&db, email, name, role.into()).await
                }
                UserAction::List => admin::list_users(&db).await,
            }
        }
        Command::Token { action } => {
            let db = db::open_existing(&settings).await?;
            match action {
                TokenAction::Create { user, name } => admin::create_token(&db, &user, name).await,
                TokenAction::List { user } => admin::list_tokens(&db, user.as_deref()).await,
                TokenAction::Revoke { token } => admin::revoke_token(&db, &token).await,
            }
        }
        Command::Backup { out } => {
            for file in backup::run(&settings, &out).await? {
                println!("{}", file.display());
            }
            Ok(())
        }
        Command::Openapi { .. }
        | Command::Probe { .. }
        | Command::Config { .. }
        | Command::ExtractText(_) => {
            unreachable!("handled before the commands that use the database")
        }
    }
}

async fn migrate(settings: &Settings, action: MigrateAction) -> anyhow::Result<()> {
    let db = db::connect(settings).await?;
    match action {
        MigrateAction::Up => db::migrate_up(&db).await,
        MigrateAction::Down { steps, all } => {
            let steps = if all { None } else { Some(steps.unwrap_or(1)) };
            Migrator::down(&db, steps)
                .await
                .context("rolling back migrations")
        }
        MigrateAction::Status => {
            for migration in Migrator::get_migration_with_status(&db)
                .await
                .context("reading migration status")?
            {
                println!("{}\t{}", migration.status(), migration.name());
            }
            Ok(())
        }
    }
}

async fn probe(url: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        url.starts_with("http://"),
        "probe: {url} is not an http:// URL"
    );
    let client = parley_service::tls::http_client()
        .timeout(std::time::Duration::from_secs(3))
        .build()
        .context("building the HTTP client")?;
    let response = client
        .get(url)
        .send()
        .await
        .with_context(|| format!("probe: {url}"))?;
    anyhow::ensure!(
        response.status().is_success(),
        "probe: {url} answered {}",
        response.status()
    );
    Ok(())
}

#[allow(
    clippy::disallowed_methods,
    reason = "a command that writes one file and exits; no turn waits on its thread"
)]
fn write_openapi(out: Option<&std::path::Path>) -> anyhow::Result<()> {
    let spec = parley_api::spec() + "\n";
    match out {
        Some(path) => {
            std::fs::write(path, spec).with_context(|| format!("writing {}", path.display()))
        }
        None => {
            print!("{spec}");
            Ok(())
        }
    }
}
