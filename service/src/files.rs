//! Attachments (DESIGN §6 `attachment` blocks, seed 001): what an upload is, decided by
//! its content, never its name, and the text a model gets from it.
//!
//! * text — valid UTF-8 without NUL bytes (`text/plain`): its text goes into the context;
//! * PDF — `%PDF-` (`application/pdf`): the text of its pages (`pdf-extract`) goes into
//!   the context; a PDF without extractable text is refused;
//! * image — PNG, JPEG, GIF or WebP by their magic bytes: sent as an image part to
//!   models whose configuration says they accept images (`vision = true`), else named
//!   in the context as an image the model cannot see.
//!
//! Anything else is refused. Sizes and counts are bounded by [`FileLimits`].

use parley_entity::{files::FileKind, query::files::NewFile};
use uuid::Uuid;

/// Bounds on uploads and on the attachments of one message.
#[derive(Debug, Clone, Copy)]
pub struct FileLimits {
    /// The largest upload, in bytes.
    pub max_file_bytes: usize,
    /// The most attachments one message may carry.
    pub max_attachments: usize,
    /// The most characters of a file's text that go into the context.
    pub max_text_chars: usize,
}

impl Default for FileLimits {
    fn default() -> Self {
        Self {
            max_file_bytes: 10 * 1024 * 1024,
            max_attachments: 5,
            max_text_chars: 100_000,
        }
    }
}

/// Why an upload was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRefusal {
    /// Larger than this many bytes (413).
    TooLarge(usize),
    /// Empty (422).
    Empty,
    /// Not text, a PDF or an image Parley can use (415).
    Unsupported,
    /// A PDF with no text to read (422).
    NoText,
}

impl std::fmt::Display for FileRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooLarge(max) => write!(f, "the file is larger than {max} bytes"),
            Self::Empty => f.write_str("the file is empty"),
            Self::Unsupported => f.write_str(
                "the content is not UTF-8 text, a PDF or a PNG, JPEG, GIF or WebP image",
            ),
            Self::NoText => f.write_str("no text could be read from the PDF"),
        }
    }
}

/// What a file is, from its bytes: its kind, MIME type and (text, PDF) its text.
pub fn classify(
    data: &[u8],
    limits: &FileLimits,
) -> Result<(FileKind, String, Option<String>), FileRefusal> {
    if data.is_empty() {
        return Err(FileRefusal::Empty);
    }
    if data.len() > limits.max_file_bytes {
        return Err(FileRefusal::TooLarge(limits.max_file_bytes));
    }
    if let Some(kind) = infer::get(data) {
        let mime = kind.mime_type();
        return match mime {
            "image/png" | "image/jpeg" | "image/gif" | "image/webp" => {
                Ok((FileKind::Image, mime.to_owned(), None))
            }
            "application/pdf" => {
                let text =
                    pdf_extract::extract_text_from_mem(data).map_err(|_| FileRefusal::NoText)?;
                let text = text.trim();
                if text.is_empty() {
                    return Err(FileRefusal::NoText);
                }
                Ok((FileKind::Pdf, mime.to_owned(), Some(clip(text, limits))))
            }
            _ => Err(FileRefusal::Unsupported),
        };
    }
    match std::str::from_utf8(data) {
        Ok(text) if !text.contains('\0') => Ok((
            FileKind::Text,
            "text/plain".to_owned(),
            Some(clip(text, limits)),
        )),
        _ => Err(FileRefusal::Unsupported),
    }
}

fn clip(text: &str, limits: &FileLimits) -> String {
    text.chars().take(limits.max_text_chars).collect()
}

/// The row of an upload of `user_id`, or why it is refused.
pub fn ingest(
    user_id: Uuid,
    name: &str,
    data: Vec<u8>,
    limits: &FileLimits,
) -> Result<NewFile, FileRefusal> {
    let (kind, content_type, text) = classify(&data, limits)?;
    let name: String = name.trim().chars().take(255).collect();
    Ok(NewFile {
        user_id,
        name: if name.is_empty() {
            "upload".into()
        } else {
            name
        },
        content_type,
        kind,
        text,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &[u8] = &[
        0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, b'I', b'H', b'D', b'R',
    ];

    #[test]
    fn the_type_comes_from_the_content() {
        let limits = FileLimits::default();
        let (kind, mime, text) = classify("héllo\nwörld".as_bytes(), &limits).unwrap();
        assert_eq!((kind, mime.as_str()), (FileKind::Text, "text/plain"));
        assert_eq!(text.as_deref(), Some("héllo\nwörld"));
        let (kind, mime, text) = classify(PNG, &limits).unwrap();
        assert_eq!(
            (kind, mime.as_str(), text),
            (FileKind::Image, "image/png", None)
        );
        assert_eq!(
            classify(&[0, 1, 2, 0xff], &limits),
            Err(FileRefusal::Unsupported)
        );
        // A ZIP is not something a model can read, whatever its name says.
        assert_eq!(
            classify(b"PK\x03\x04rest", &limits),
            Err(FileRefusal::Unsupported)
        );
        assert_eq!(classify(b"", &limits), Err(FileRefusal::Empty));
        assert_eq!(
            classify(b"%PDF-1.4 not really", &limits),
            Err(FileRefusal::NoText)
        );
    }

    #[test]
    fn limits_bound_size_and_text() {
        let limits = FileLimits {
            max_file_bytes: 8,
            max_attachments: 1,
            max_text_chars: 3,
        };
        assert_eq!(
            classify(b"123456789", &limits),
            Err(FileRefusal::TooLarge(8))
        );
        assert_eq!(
            classify(b"abcdef", &limits).unwrap().2.as_deref(),
            Some("abc")
        );
    }
}
