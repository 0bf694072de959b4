//! `/v1/files`: uploads to attach to messages (`attachments: [file_id]`). A file is its
//! uploader's; anyone else's id answers 404.

use chrono::{DateTime, Utc};
use parley_entity::files;
use parley_protocol::error::ErrorCode;
use parley_service::files::{FileRefusal, UploadError};
use poem::web::Data;
use poem_openapi::{
    ApiResponse, Multipart, Object, OpenApi, param::Path, payload::Json, types::multipart::Upload,
};
use uuid::Uuid;

use super::ApiTags;
use crate::{
    auth::BearerAuth,
    error::{ApiResult, Problem, statuses},
    state::AppState,
};

/// What a file is, for the model.
#[derive(Debug, Clone, Copy, poem_openapi::Enum)]
#[oai(rename_all = "snake_case")]
pub enum FileKind {
    /// UTF-8 text: its text goes into the context.
    Text,
    /// A PDF: its extracted text goes into the context.
    Pdf,
    /// A PNG, JPEG, GIF or WebP image: sent to models that accept images.
    Image,
}

impl From<files::FileKind> for FileKind {
    fn from(kind: files::FileKind) -> Self {
        match kind {
            files::FileKind::Text => Self::Text,
            files::FileKind::Pdf => Self::Pdf,
            files::FileKind::Image => Self::Image,
        }
    }
}

/// An uploaded file (without its bytes).
#[derive(Debug, Object)]
pub struct File {
    pub id: Uuid,
    /// The name it was uploaded with.
    pub name: String,
    /// Found from the content, not from the name.
    pub content_type: String,
    pub kind: FileKind,
    /// Bytes.
    pub size: u64,
    /// Characters of text the model gets from it (0 for images).
    pub text_chars: u64,
    pub created_at: DateTime<Utc>,
}

impl From<files::Model> for File {
    fn from(f: files::Model) -> Self {
        Self {
            id: f.id,
            text_chars: f.text.as_deref().map_or(0, |t| t.chars().count() as u64),
            name: f.name,
            content_type: f.content_type,
            kind: f.kind.into(),
            size: f.size.max(0) as u64,
            created_at: f.created_at,
        }
    }
}

/// The upload: one file (a part with any other name is refused).
#[derive(Debug, Multipart)]
#[oai(deny_unknown_fields)]
pub struct UploadFile {
    /// Text (UTF-8), a PDF with text, or a PNG, JPEG, GIF or WebP image.
    pub file: Upload,
}

#[derive(ApiResponse)]
pub enum Uploaded {
    /// The file is stored; attach it with its `id`.
    #[oai(status = 201)]
    Created(Json<File>, #[oai(header = "Location")] String),
}

pub struct FilesApi;

#[OpenApi(prefix_path = "/v1/files", tag = "ApiTags::Data")]
impl FilesApi {
    /// Upload a file
    ///
    /// Stores a file to attach to messages (`attachments` of `POST
    /// /v1/sessions/{id}/messages`). Its type is read from its content: UTF-8 text, a PDF
    /// (its text is extracted) or a PNG, JPEG, GIF or WebP image; anything else is 415.
    /// 413 above the deployment's size limit (`files.max_file_bytes`), 422
    /// `unreadable_file` for an empty file, a PDF without text or one that cannot be read.
    #[oai(path = "/", method = "post", operation_id = "upload_file")]
    async fn upload(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        body: UploadFile,
    ) -> ApiResult<Uploaded, statuses::Upload> {
        let files = state.files();
        let name = body.file.file_name().unwrap_or("upload").to_owned();
        let max_file_bytes = files.limits().max_file_bytes;
        if body.file.size() > max_file_bytes {
            return Err(refused(&FileRefusal::TooLarge(max_file_bytes)).into());
        }
        let data = body
            .file
            .into_vec()
            .await
            .map_err(|err| Problem::new(ErrorCode::UnreadableBody, err.to_string()))?;
        let file = files
            .upload(auth.0.user_id, &name, data)
            .await
            .map_err(|err| match err {
                UploadError::Refused(refusal) => refused(&refusal),
                UploadError::Failed(err) => err.into(),
            })?;
        let location = format!("/v1/files/{}", file.id);
        Ok(Uploaded::Created(Json(file.into()), location))
    }

    /// Get a file
    ///
    /// One of the caller's files (without its bytes).
    #[oai(path = "/:id", method = "get", operation_id = "get_file")]
    async fn get(
        &self,
        auth: BearerAuth,
        state: Data<&AppState>,
        id: Path<Uuid>,
    ) -> ApiResult<Json<File>, statuses::ReadOne> {
        Ok(Json(state.files().get(auth.0.user_id, id.0).await?.into()))
    }
}

/// The problem of a refused upload.
pub(crate) fn refused(refusal: &FileRefusal) -> Problem {
    let code = match refusal {
        FileRefusal::TooLarge(_) => ErrorCode::PayloadTooLarge,
        FileRefusal::Unsupported => ErrorCode::UnsupportedFileType,
        FileRefusal::Empty | FileRefusal::NoText | FileRefusal::Unreadable => {
            ErrorCode::UnreadableFile
        }
    };
    Problem::new(code, refusal.to_string())
}
