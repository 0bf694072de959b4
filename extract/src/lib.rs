//! What an upload is, decided by its content, never its name, and the text a model gets
//! from it (DESIGN §6 `attachment` blocks, seed 001):
//!
//! * text — valid UTF-8 without NUL bytes (`text/plain`): its text goes into the context;
//! * PDF — `%PDF-` (`application/pdf`): the text of its pages (`pdf-extract`) goes into
//!   the context; a PDF without extractable text, or one the parser cannot read, is
//!   refused;
//! * image — PNG, JPEG, GIF or WebP by their magic bytes: sent as an image part to
//!   models whose configuration says they accept images (`vision = true`), else named
//!   in the context as an image the model cannot see.
//!
//! Anything else is refused. Sizes are bounded by [`FileLimits`].
//!
//! Why a crate of its own, without a database or (outside the `sandbox` feature) an async
//! runtime: the PDF parser is not safe to run on untrusted bytes inside the server. On
//! the crafted corpus in `tests/fixtures/pdf/` pdf-extract 0.12 / lopdf 0.42 panic on 26
//! files, hang forever on 4, abort the whole process with a stack overflow on one and
//! take 1.4 GiB for a 1.5 KB flate bomb. So the server parses a PDF in a child process
//! ([`Sandbox::Process`], the parent side in `sandbox`, the child side in [`child`]) that
//! it kills past a timeout and that limits its own memory and CPU time; text and images
//! need no parser and are classified in process. Small and free of the server's
//! dependencies, the crate also builds fast enough to fuzz (`fuzz/`, on
//! [`classify_in_process`]).

pub mod child;
mod pdf;
#[cfg(feature = "sandbox")]
mod sandbox;

#[cfg(feature = "sandbox")]
pub use sandbox::{ClassifyError, Sandbox, SandboxError, classify};

/// Bounds on uploads and on the attachments of one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

/// Why an upload was refused: something about the file, never about the server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileRefusal {
    /// Larger than this many bytes (413).
    #[error("the file is larger than {0} bytes")]
    TooLarge(usize),
    /// Empty (422).
    #[error("the file is empty")]
    Empty,
    /// Not text, a PDF or an image Parley can use (415).
    #[error("the content is not UTF-8 text, a PDF or a PNG, JPEG, GIF or WebP image")]
    Unsupported,
    /// A PDF that was read, with no text in it (422).
    #[error("no text could be read from the PDF")]
    NoText,
    /// A PDF the parser could not read: it failed, panicked, or ran out of time or
    /// memory (422).
    #[error("the file could not be read")]
    Unreadable,
}

/// What a file is, for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Pdf,
    Image,
}

/// An accepted upload: its kind, MIME type and (text, PDF) the text a model gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classified {
    pub kind: Kind,
    pub content_type: &'static str,
    /// At most [`FileLimits::max_text_chars`] characters; None for images.
    pub text: Option<String>,
}

impl Classified {
    fn pdf(text: String) -> Self {
        Self {
            kind: Kind::Pdf,
            content_type: PDF,
            text: Some(text),
        }
    }
}

const PDF: &str = "application/pdf";

/// What an upload is without running a parser: done, or a PDF that still needs one.
enum Triage {
    Done(Classified),
    Pdf,
}

/// Sizes, magic bytes and UTF-8: everything but parsing a PDF, so cheap enough for any
/// thread.
fn triage(data: &[u8], limits: &FileLimits) -> Result<Triage, FileRefusal> {
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
                Ok(Triage::Done(Classified {
                    kind: Kind::Image,
                    content_type: mime,
                    text: None,
                }))
            }
            PDF => Ok(Triage::Pdf),
            _ => Err(FileRefusal::Unsupported),
        };
    }
    match std::str::from_utf8(data) {
        Ok(text) if !text.contains('\0') => Ok(Triage::Done(Classified {
            kind: Kind::Text,
            content_type: "text/plain",
            text: Some(clip(text, limits.max_text_chars)),
        })),
        _ => Err(FileRefusal::Unsupported),
    }
}

/// What a file is, from its bytes, parsing a PDF on this thread: a panic in the parser
/// is caught and refused as [`FileRefusal::Unreadable`], but nothing bounds its time or
/// memory, and a stack overflow aborts the process. For the sandbox's child, the fuzzer
/// and tests; a server uses [`classify`].
pub fn classify_in_process(data: &[u8], limits: &FileLimits) -> Result<Classified, FileRefusal> {
    match triage(data, limits)? {
        Triage::Done(classified) => Ok(classified),
        Triage::Pdf => pdf::text(data, limits.max_text_chars).map(Classified::pdf),
    }
}

/// The first `max_chars` characters of `text`.
fn clip(text: &str, max_chars: usize) -> String {
    text.chars().take(max_chars).collect()
}

#[cfg(test)]
mod tests;
