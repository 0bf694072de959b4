//! The sandbox's child side: `parley extract-text` reads an upload on stdin, writes the
//! text a model gets on stdout, and says how it ended with its exit code.
//!
//! It is the same binary as the server, started for one file, so everything the parser
//! does to it ends with it. Before it reads a byte it limits itself — address space
//! ([`ChildLimits::max_memory_bytes`]), CPU time (a second guard beside the parent's
//! timeout, for a child whose parent died) and no core files — with `setrlimit`, since
//! the parent cannot do it between `fork` and `exec` without `unsafe`. It logs nothing
//! (pdf-extract logs through `log`, up to a record per object) and silences the panic
//! hook (a caught panic needs no message and no backtrace); its stderr is the parent's to
//! discard. The text is clipped here, so a bomb of text never crosses the pipe.
//!
//! The protocol, in one place: the parent appends [`ChildLimits::to_args`] to its
//! command; the exit codes are [`code`]. A signal (the parent's kill at the timeout,
//! SIGXCPU, the abort of a stack overflow or a failed allocation) is an unreadable file
//! too.

use std::{
    ffi::OsString,
    io::{Read, Write},
    process::ExitCode,
};

use rlimit::Resource;

use crate::{FileLimits, FileRefusal, classify_in_process};

/// What the child's exit code says.
pub mod code {
    /// The text is on stdout.
    pub const TEXT: u8 = 0;
    /// A file with no text (a PDF without text, or an image).
    pub const NO_TEXT: u8 = 10;
    /// The parser failed or panicked.
    pub const UNREADABLE: u8 = 11;
    /// Refused before any parser ran (empty, too large, unsupported): the parent sends
    /// only PDFs within the limits, so this is not expected.
    pub const REFUSED: u8 = 12;
    /// The child could not set its limits, read its input or write its output: not the
    /// file's fault.
    pub const SETUP: u8 = 13;
    /// clap's exit code for arguments it cannot parse: a parent and a child that do not
    /// agree on the protocol.
    pub const USAGE: u8 = 2;
}

/// The bounds a child puts on itself, passed by the parent on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildLimits {
    /// Input above this is refused (the parent never sends more).
    pub max_file_bytes: usize,
    /// The most characters of text written out.
    pub max_text_chars: usize,
    /// The child's address space (`RLIMIT_AS`), including the binary and its stack.
    pub max_memory_bytes: u64,
    /// CPU seconds before the kernel ends the child (`RLIMIT_CPU`).
    pub cpu_seconds: u64,
}

impl ChildLimits {
    /// The arguments that say these limits to `parley extract-text` (its flags are
    /// named after the fields; `cli/src/extract_text.rs` checks they parse back).
    pub fn to_args(&self) -> Vec<OsString> {
        [
            ("--max-file-bytes", self.max_file_bytes.to_string()),
            ("--max-text-chars", self.max_text_chars.to_string()),
            ("--max-memory-bytes", self.max_memory_bytes.to_string()),
            ("--cpu-seconds", self.cpu_seconds.to_string()),
        ]
        .into_iter()
        .flat_map(|(flag, value)| [OsString::from(flag), OsString::from(value)])
        .collect()
    }
}

/// The child's whole life: limits, stdin, [`classify_in_process`], stdout, exit code.
pub fn run_child(limits: &ChildLimits) -> ExitCode {
    log::set_max_level(log::LevelFilter::Off);
    std::panic::set_hook(Box::new(|_| {}));
    if limit_self(limits).is_err() {
        return ExitCode::from(code::SETUP);
    }
    let mut data = Vec::new();
    let cap = u64::try_from(limits.max_file_bytes)
        .unwrap_or(u64::MAX)
        .saturating_add(1);
    if std::io::stdin()
        .lock()
        .take(cap)
        .read_to_end(&mut data)
        .is_err()
    {
        return ExitCode::from(code::SETUP);
    }
    let file_limits = FileLimits {
        max_file_bytes: limits.max_file_bytes,
        max_attachments: 0,
        max_text_chars: limits.max_text_chars,
    };
    let text = match classify_in_process(&data, &file_limits) {
        Ok(classified) => classified.text,
        Err(FileRefusal::NoText) => None,
        Err(FileRefusal::Unreadable) => return ExitCode::from(code::UNREADABLE),
        Err(FileRefusal::Empty | FileRefusal::TooLarge(_) | FileRefusal::Unsupported) => {
            return ExitCode::from(code::REFUSED);
        }
    };
    let Some(text) = text else {
        return ExitCode::from(code::NO_TEXT);
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::from(code::TEXT),
        Err(_) => ExitCode::from(code::SETUP),
    }
}

/// Lowers this process's limits (never above the hard limits it already has, which an
/// unprivileged process could not raise).
fn limit_self(limits: &ChildLimits) -> std::io::Result<()> {
    let lower = |resource: Resource, value: u64| -> std::io::Result<()> {
        let (_, hard) = rlimit::getrlimit(resource)?;
        let value = value.min(hard);
        rlimit::setrlimit(resource, value, value)
    };
    lower(Resource::CORE, 0)?;
    lower(Resource::CPU, limits.cpu_seconds.max(1))?;
    lower(Resource::AS, limits.max_memory_bytes)
}
