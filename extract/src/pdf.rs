//! A PDF's text, on the calling thread: pdf-extract with its panics caught.
//!
//! pdf-extract (on lopdf) answers a crafted file with a panic far more often than with an
//! error (`unwrap`s, indexing, `assert!`s, `todo!`s: 26 files of `tests/fixtures/pdf/`),
//! so a panic here means "this file cannot be read", not "Parley has a bug", and becomes
//! [`FileRefusal::Unreadable`] like an error does. What `catch_unwind` cannot contain —
//! a stack overflow aborts, a loop never returns, a bomb takes all the memory — is the
//! sandbox's job (`crate::sandbox`, `crate::child`).

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::{FileRefusal, clip};

/// The PDF's text, trimmed and clipped to `max_chars`; [`FileRefusal::NoText`] when it
/// has none, [`FileRefusal::Unreadable`] when the parser fails or panics.
pub(crate) fn text(data: &[u8], max_chars: usize) -> Result<String, FileRefusal> {
    // Nothing outlives the call but its result: no state a panic could leave half-built
    // is seen again.
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        pdf_extract::extract_text_from_mem(data)
    }));
    let text = match parsed {
        Ok(Ok(text)) => text,
        Ok(Err(_)) | Err(_) => return Err(FileRefusal::Unreadable),
    };
    let text = text.trim();
    if text.is_empty() {
        return Err(FileRefusal::NoText);
    }
    Ok(clip(text, max_chars))
}
