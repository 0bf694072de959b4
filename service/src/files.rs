//! Attachments (DESIGN §6 `attachment` blocks, seed 001): an upload becomes a row.
//!
//! What the upload is and the text a model gets from it is `parley-extract`'s to say: a
//! crate of its own because a PDF's parser must run in a sandbox (a child process per
//! PDF, see that crate's docs and `docs/decisions.md`), and because it is fuzzed. Its
//! types are re-exported here, so the routes and the worker name one module.
//!
//! The api uploads and reads files through [`FileService`]: an upload is classified
//! ([`ingest`]) and stored as the uploader's row.

use parley_entity::{
    files::{self, FileKind},
    query::{
        self,
        files::{self as q, NewFile},
    },
};
use parley_protocol::error::{Error, Result};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

pub use parley_extract::{
    Classified, ClassifyError, FileLimits, FileRefusal, Kind, Sandbox, SandboxError,
};

/// The row of an upload of `user_id`, or why it is refused; a PDF is parsed in
/// `sandbox`.
pub async fn ingest(
    user_id: Uuid,
    name: &str,
    data: Vec<u8>,
    limits: &FileLimits,
    sandbox: &Sandbox,
) -> Result<NewFile, ClassifyError> {
    let classified = parley_extract::classify(&data, limits, sandbox).await?;
    let name: String = name.trim().chars().take(255).collect();
    Ok(NewFile {
        user_id,
        name: if name.is_empty() {
            "upload".into()
        } else {
            name
        },
        content_type: classified.content_type.to_owned(),
        kind: match classified.kind {
            Kind::Text => FileKind::Text,
            Kind::Pdf => FileKind::Pdf,
            Kind::Image => FileKind::Image,
        },
        text: classified.text,
        data,
    })
}

/// Why an upload was not stored.
#[derive(Debug)]
pub enum UploadError {
    /// The file itself: too large, of a type Parley cannot use, or unreadable.
    Refused(FileRefusal),
    /// The server's (a PDF's sandbox that failed: internal) or the database's.
    Failed(Error),
}

impl From<Error> for UploadError {
    fn from(err: Error) -> Self {
        Self::Failed(err)
    }
}

/// The application layer of uploads; cheap to clone.
#[derive(Clone)]
pub struct FileService {
    db: DatabaseConnection,
    limits: FileLimits,
    sandbox: Sandbox,
}

impl FileService {
    pub fn new(db: DatabaseConnection, limits: FileLimits, sandbox: Sandbox) -> Self {
        Self {
            db,
            limits,
            sandbox,
        }
    }

    /// The bounds an upload must keep.
    pub fn limits(&self) -> &FileLimits {
        &self.limits
    }

    /// Classifies an upload of `user_id` (a PDF's text extracted in the sandbox) and
    /// stores it as theirs.
    pub async fn upload(
        &self,
        user_id: Uuid,
        name: &str,
        data: Vec<u8>,
    ) -> Result<files::Model, UploadError> {
        let new = ingest(user_id, name, data, &self.limits, &self.sandbox)
            .await
            .map_err(|err| match err {
                ClassifyError::Refused(refusal) => UploadError::Refused(refusal),
                // The server's fault (500, logged), not the file's.
                ClassifyError::Sandbox(err) => {
                    UploadError::Failed(Error::internal("extracting a PDF's text", err))
                }
            })?;
        Ok(q::create(&self.db, new, query::now()).await?)
    }

    /// One of the user's files (404 for anyone else's).
    pub async fn get(&self, user_id: Uuid, id: Uuid) -> Result<files::Model> {
        q::get_owned(&self.db, user_id, id).await
    }
}
