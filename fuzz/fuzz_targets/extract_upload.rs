//! Upload classification, in process, on arbitrary bytes (see ../README.md).
//!
//! `classify_in_process` is what the `parley extract-text` sandbox child runs. A panic it
//! catches is a refusal, not a finding, so the panic hook is silenced (libfuzzer-sys's own
//! hook aborts on every panic, caught or not); set PARLEY_FUZZ_PANICS=1 to keep it and
//! report every panic inside pdf-extract/lopdf instead. What remains a finding: a panic
//! that escapes, an abort (stack overflow), a timeout (`-timeout`) and memory over
//! `-rss_limit_mb` / `-malloc_limit_mb` — the things the sandbox must contain.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parley_extract::{FileLimits, classify_in_process};

fuzz_target!(
    init: {
        if std::env::var_os("PARLEY_FUZZ_PANICS").is_none() {
            std::panic::set_hook(Box::new(|_| {}));
        }
    },
    |data: &[u8]| {
        let _ = classify_in_process(data, &FileLimits::default());
    }
);
