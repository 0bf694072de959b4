//! The content of an input message: its text, images and files (chat completions'
//! `text` / `image_url` / `file` parts, a response input message's `input_text` /
//! `output_text` / `input_image` / `input_file` parts).

use poem_openapi::{Object, Union};

/// A part of a message's content: `text`, `image_url` or `file`. The last message's
/// images and files are its attachments (stored, shown in the session, sent to a model
/// with vision); an earlier message's are left out of the imported history.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatContentPart")]
pub struct ChatContentPart {
    /// `text`, `image_url` or `file` (others — `input_audio` — are refused).
    #[oai(rename = "type")]
    pub kind: String,
    pub text: Option<String>,
    /// `image_url`: the image.
    pub image_url: Option<ChatImageUrl>,
    /// `file`: the file.
    pub file: Option<ChatFileData>,
}

/// An image part's image.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatImageUrl")]
pub struct ChatImageUrl {
    /// A `data:` URL (`data:image/png;base64,…`) or an `http(s)` URL Parley fetches
    /// (within `outbound` address rules and `files.max_file_bytes`).
    pub url: String,
    /// Accepted; the provider's default applies.
    pub detail: Option<String>,
}

/// A file part's file: its data or a file uploaded before.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ChatFileData")]
pub struct ChatFileData {
    /// A `data:` URL, or the file's bytes in base64.
    pub file_data: Option<String>,
    /// A file of the caller's (`POST /v1/files`): its id, or `file-<id>`.
    pub file_id: Option<String>,
    pub filename: Option<String>,
}

/// A message's content: a string or text parts.
#[derive(Debug, Clone, Union)]
#[oai(rename = "ChatContent")]
pub enum ChatContent {
    Text(String),
    Parts(Vec<ChatContentPart>),
}

/// A content part of an input message item.
#[derive(Debug, Clone, Object)]
#[oai(rename = "ResponseInputContentPart")]
pub struct ResponseInputContentPart {
    /// `input_text`, `output_text`, `input_image` or `input_file` (others are refused).
    /// The last message's images and files are its attachments; an earlier message's
    /// are left out of the imported history.
    #[oai(rename = "type")]
    pub kind: String,
    pub text: Option<String>,
    /// `input_image`: a `data:` URL or an `http(s)` URL Parley fetches.
    pub image_url: Option<String>,
    /// `input_image`, `input_file`: a file of the caller's (`POST /v1/files`): its id,
    /// or `file-<id>`.
    pub file_id: Option<String>,
    /// `input_file`: a `data:` URL, or the file's bytes in base64.
    pub file_data: Option<String>,
    /// `input_file`: an `http(s)` URL Parley fetches.
    pub file_url: Option<String>,
    /// `input_file`: its name.
    pub filename: Option<String>,
    /// `input_image`: accepted; the provider's default applies.
    pub detail: Option<String>,
}

/// An input message's content: a string or text parts.
#[derive(Debug, Clone, Union)]
#[oai(rename = "ResponseInputContent")]
pub enum ResponseInputContent {
    Text(String),
    Parts(Vec<ResponseInputContentPart>),
}
