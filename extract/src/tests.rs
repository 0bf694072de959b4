//! Classification in process: types from content, limits, and the corpus's valid and
//! broken PDFs (`tests/fixtures/pdf/`).

use super::*;

const PNG: &[u8] = &[
    0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, b'I', b'H', b'D', b'R',
];

/// A file of the crafted corpus.
#[allow(clippy::disallowed_methods, reason = "a test reads its fixture")]
pub(crate) fn corpus(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/pdf")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|err| panic!("reading {}: {err}", path.display()))
}

#[test]
fn the_type_comes_from_the_content() {
    let limits = FileLimits::default();
    let text = classify_in_process("héllo\nwörld".as_bytes(), &limits).unwrap();
    assert_eq!((text.kind, text.content_type), (Kind::Text, "text/plain"));
    assert_eq!(text.text.as_deref(), Some("héllo\nwörld"));
    let image = classify_in_process(PNG, &limits).unwrap();
    assert_eq!(
        (image.kind, image.content_type, image.text),
        (Kind::Image, "image/png", None)
    );
    assert_eq!(
        classify_in_process(&[0, 1, 2, 0xff], &limits),
        Err(FileRefusal::Unsupported)
    );
    // A ZIP is not something a model can read, whatever its name says.
    assert_eq!(
        classify_in_process(b"PK\x03\x04rest", &limits),
        Err(FileRefusal::Unsupported)
    );
    assert_eq!(classify_in_process(b"", &limits), Err(FileRefusal::Empty));
    assert_eq!(
        classify_in_process(b"%PDF-1.4 not really", &limits),
        Err(FileRefusal::Unreadable)
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
        classify_in_process(b"123456789", &limits),
        Err(FileRefusal::TooLarge(8))
    );
    assert_eq!(
        classify_in_process(b"abcdef", &limits)
            .unwrap()
            .text
            .as_deref(),
        Some("abc")
    );
}

#[test]
fn valid_pdfs_give_their_text() {
    let limits = FileLimits::default();
    for (name, expected) in [
        ("valid_simple.pdf", &["Hello from Parley"][..]),
        (
            "valid_two_pages.pdf",
            &[
                "First page: the quick brown fox",
                "Second page: jumps over the lazy dog",
            ][..],
        ),
        (
            "valid_flate_winansi.pdf",
            &["Café crème brûlée", "Naïve résumé"][..],
        ),
        ("valid_tounicode.pdf", &["Parley!☺"][..]),
    ] {
        let classified = classify_in_process(&corpus(name), &limits)
            .unwrap_or_else(|refusal| panic!("{name}: {refusal}"));
        assert_eq!(
            (classified.kind, classified.content_type),
            (Kind::Pdf, "application/pdf")
        );
        let text = classified.text.expect("a PDF's text");
        for part in expected {
            assert!(text.contains(part), "{name}: {part:?} not in {text:?}");
        }
    }
    let short = FileLimits {
        max_text_chars: 5,
        ..limits
    };
    let clipped = classify_in_process(&corpus("valid_simple.pdf"), &short).unwrap();
    assert_eq!(clipped.text.as_deref(), Some("Hello"));
}

#[test]
fn a_parser_panic_or_error_is_unreadable_and_no_text_stays_no_text() {
    let limits = FileLimits::default();
    // pdf-extract panics: unexpected encoding "NoSuchEncoding".
    assert_eq!(
        classify_in_process(&corpus("enc_unknown_name.pdf"), &limits),
        Err(FileRefusal::Unreadable)
    );
    // pdf-extract answers an error: no cross-reference table.
    assert_eq!(
        classify_in_process(&corpus("truncated.pdf"), &limits),
        Err(FileRefusal::Unreadable)
    );
    // Parsed, and nothing to read.
    assert_eq!(
        classify_in_process(&corpus("missing_root.pdf"), &limits),
        Err(FileRefusal::NoText)
    );
}
