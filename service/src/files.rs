//! Attachments (DESIGN §6 `attachment` blocks, seed 001): an upload becomes a row.
//!
//! What the upload is and the text a model gets from it is `parley-extract`'s to say: a
//! crate of its own because a PDF's parser must run in a sandbox (a child process per
//! PDF, see that crate's docs and `docs/decisions.md`), and because it is fuzzed. Its
//! types are re-exported here, so the routes and the worker name one module.

use parley_entity::{files::FileKind, query::files::NewFile};
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
