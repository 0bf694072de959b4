//! A user message's attachments as the model gets them (DESIGN §6 `attachment` blocks):
//! the text of text and PDF files follows the message, each under a header naming the
//! file; images go as image parts to models that accept them (`vision`), and are named
//! as images it cannot see to the others. Only the current message carries its
//! attachments' contents; earlier messages are their text.

use base64::Engine;
use parley_entity::{
    block_meta::AttachmentMeta,
    files::{self, FileKind},
};

use crate::providers::Document;

/// The message text the model gets: the user's words, then each attachment.
pub fn message_text(content: &str, files: &[files::Model], vision: bool) -> String {
    let mut text = content.to_owned();
    for file in files {
        text.push_str(&attachment_text(file, vision));
    }
    text
}

/// What the text of a message says of one attachment: a header naming it, then its text
/// (text and PDF files) or a word on the image.
fn attachment_text(file: &files::Model, vision: bool) -> String {
    let mut text = format!("\n\n[Attachment: {} ({})]", file.name, file.content_type);
    match (file.kind, &file.text) {
        (FileKind::Text | FileKind::Pdf, Some(body)) => {
            text.push('\n');
            text.push_str(body);
        }
        (FileKind::Image, _) if vision => text.push_str(" — the image is attached."),
        (FileKind::Image, _) => text.push_str(" — an image you cannot see; say so if it matters."),
        _ => {}
    }
    text
}

/// The PDFs among `files`, for providers that read documents themselves (their text
/// stays in the message for the others).
pub fn documents(files: &[files::Model]) -> Vec<Document> {
    files
        .iter()
        .filter(|f| f.kind == FileKind::Pdf)
        .map(|f| Document {
            name: f.name.clone(),
            data: base64::engine::general_purpose::STANDARD.encode(&f.data),
            inlined: attachment_text(f, false),
        })
        .collect()
}

/// The images among `files`, as `data:` URLs.
pub fn image_urls(files: &[files::Model]) -> Vec<String> {
    files
        .iter()
        .filter(|f| f.kind == FileKind::Image)
        .map(|f| {
            let data = base64::engine::general_purpose::STANDARD.encode(&f.data);
            format!("data:{};base64,{data}", f.content_type)
        })
        .collect()
}

/// The `attachment` blocks of the user message, in order.
pub fn blocks(files: &[files::Model]) -> Vec<AttachmentMeta> {
    files
        .iter()
        .map(|f| AttachmentMeta {
            file_id: Some(f.id),
            name: f.name.clone(),
            content_type: f.content_type.clone(),
            kind: Some(f.kind),
            size: Some(f.size),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    fn file(kind: FileKind, name: &str, text: Option<&str>) -> files::Model {
        files::Model {
            id: Uuid::now_v7(),
            user_id: Uuid::now_v7(),
            name: name.into(),
            content_type: match kind {
                FileKind::Image => "image/png".into(),
                FileKind::Pdf => "application/pdf".into(),
                FileKind::Text => "text/plain".into(),
            },
            size: 3,
            kind,
            text: text.map(str::to_owned),
            data: vec![1, 2, 3],
            created_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn texts_follow_the_message_and_images_are_parts_for_vision_models() {
        let files = [
            file(FileKind::Text, "notes.txt", Some("line one")),
            file(FileKind::Image, "cat.png", None),
        ];
        let blind = message_text("Look", &files, false);
        assert_eq!(
            blind,
            "Look\n\n[Attachment: notes.txt (text/plain)]\nline one\n\n[Attachment: cat.png (image/png)] — an image you cannot see; say so if it matters."
        );
        assert!(message_text("Look", &files, true).ends_with("— the image is attached."));
        assert_eq!(image_urls(&files), ["data:image/png;base64,AQID"]);
        let blocks = blocks(&files);
        assert_eq!(blocks[1].kind, Some(FileKind::Image));
        assert_eq!(blocks[0].name, "notes.txt");
    }
}
