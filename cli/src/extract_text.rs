//! `parley extract-text` (hidden): the child side of the PDF sandbox. The server starts
//! this very binary once per uploaded PDF (`parley_extract::Sandbox::Process`, built in
//! `serve.rs`), writes the file on its stdin and reads the text on its stdout; the
//! limits come on the command line from the parent (`ChildLimits::to_args`), never from
//! the configuration. `main` runs it before anything else — no async runtime, no
//! settings, no logging — so nothing but the text reaches stdout and the address-space
//! limit is not spent on threads it does not need.

use parley_extract::child::ChildLimits;

/// The limits the parent passes (flags named as `ChildLimits::to_args` writes them).
#[derive(Debug, clap::Args)]
pub struct ExtractTextArgs {
    /// Input above this many bytes is refused.
    #[arg(long)]
    max_file_bytes: usize,
    /// The most characters of text written to stdout.
    #[arg(long)]
    max_text_chars: usize,
    /// The process's address space (RLIMIT_AS).
    #[arg(long)]
    max_memory_bytes: u64,
    /// The process's CPU time (RLIMIT_CPU).
    #[arg(long)]
    cpu_seconds: u64,
}

impl ExtractTextArgs {
    /// Reads stdin, writes the text, and exits with the code that says how it ended.
    pub fn run(&self) -> std::process::ExitCode {
        parley_extract::child::run_child(&ChildLimits {
            max_file_bytes: self.max_file_bytes,
            max_text_chars: self.max_text_chars,
            max_memory_bytes: self.max_memory_bytes,
            cpu_seconds: self.cpu_seconds,
        })
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use crate::{Cli, Command};

    #[test]
    fn the_parents_arguments_parse_back() {
        let limits = parley_extract::child::ChildLimits {
            max_file_bytes: 10,
            max_text_chars: 20,
            max_memory_bytes: 30,
            cpu_seconds: 40,
        };
        let argv = ["parley".into(), "extract-text".into()]
            .into_iter()
            .chain(limits.to_args());
        let Command::ExtractText(args) = Cli::try_parse_from(argv).unwrap().command else {
            panic!("not extract-text");
        };
        assert_eq!(
            (
                args.max_file_bytes,
                args.max_text_chars,
                args.max_memory_bytes,
                args.cpu_seconds
            ),
            (10, 20, 30, 40)
        );
    }
}
