//! Attachments end to end: `POST /v1/files` (multipart, typed by content, bounded),
//! another user's file answering 404, and a message carrying text, PDF and image
//! attachments — their text in the model's context, the image as an image part for a
//! model that accepts images, a PDF as Claude's `document` block (its text for an
//! OpenAI-compatible fallback), attachment blocks on the user message; and every crafted
//! PDF of `tests/fixtures/pdf/` answered as its README says, by a server that stays up.

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::{CreateMessage, File};
use parley_tests::turns::config_path;
use parley_tests::{ApiResult, Backend, TestApp, both_backends};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::fixtures::api;

/// The smallest PNG header the type sniffer knows.
pub(crate) const PNG: &[u8] = &[
    0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, b'I', b'H', b'D', b'R', 0, 0, 0,
    1, 0, 0, 0, 1, 8, 6, 0, 0, 0,
];

/// A one-page PDF whose page says `text` (Helvetica), with a correct cross-reference table.
fn pdf(text: &str) -> Vec<u8> {
    let stream = format!("BT /F1 12 Tf 72 712 Td ({text}) Tj ET");
    let objects = [
        "<< /Type /Catalog /Pages 2 0 R >>".to_owned(),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>".to_owned(),
        format!("<< /Length {} >>\nstream\n{stream}\nendstream", stream.len()),
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".to_owned(),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n{body}\nendobj\n", i + 1).bytes());
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for offset in offsets {
        out.extend(format!("{offset:010} 00000 n \n").bytes());
    }
    out.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .bytes(),
    );
    out
}

/// A server whose model is the mock (`vision` as given), with small upload bounds.
async fn server(backend: Backend, vision: bool) -> (TestApp, MockLlm, tempfile::NamedTempFile) {
    server_with(
        backend,
        vision,
        "[files]\nmax_file_bytes = 4096\nmax_attachments = 3\n",
        &[],
    )
    .await
}

/// A server whose model is the mock, with `extra` appended to its configuration file and
/// `env` set.
async fn server_with(
    backend: Backend,
    vision: bool,
    extra: &str,
    env: &[(&str, &str)],
) -> (TestApp, MockLlm, tempfile::NamedTempFile) {
    use std::io::Write;
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut config = tempfile::NamedTempFile::new().expect("a temp file");
    write!(
        config,
        "[[providers]]\nname = \"mock\"\nbase_url = \"{}\"\n\n\
         [[models]]\nid = \"mock-model\"\nprovider = \"mock\"\nvision = {vision}\n\n{extra}",
        mock.base_url()
    )
    .expect("writing the config");
    let path = config_path(&config);
    let env: Vec<(&str, &str)> = [("PARLEY_CONFIG", path.as_str())]
        .into_iter()
        .chain(env.iter().copied())
        .collect();
    let app = TestApp::spawn_with_env(backend, &env).await;
    (app, mock, config)
}

/// `POST /v1/files` with one file part.
async fn upload(app: &TestApp, token: &str, name: &str, bytes: Vec<u8>) -> (u16, Value) {
    let part = reqwest::multipart::Part::bytes(bytes)
        .file_name(name.to_owned())
        .mime_str("application/octet-stream")
        .expect("a MIME type");
    let form = reqwest::multipart::Form::new().part("file", part);
    let response = app
        .client
        .post(app.url("/v1/files"))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .unwrap_or_else(|err| panic!("uploading {name}: {err}"));
    let status = response.status().as_u16();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

async fn uploaded(app: &TestApp, token: &str, name: &str, bytes: Vec<u8>) -> File {
    let (status, body) = upload(app, token, name, bytes).await;
    assert_eq!(status, 201, "{body}");
    serde_json::from_value(body).expect("a File")
}

both_backends!(
    uploads_are_typed_by_content_bounded_and_private,
    |backend: Backend| async move {
        let (app, _mock, _config) = server(backend, false).await;
        let (_, alice) = app.create_user("alice@example.com", "student").await;
        let (_, bob) = app.create_user("bob@example.com", "student").await;

        // The name says PDF, the content is text: it is text.
        let text = uploaded(&app, &alice, "notes.pdf", "first line\nsecond".into()).await;
        assert_eq!(text.content_type, "text/plain");
        assert_eq!(text.kind.to_string(), "text");
        assert_eq!(
            (text.name.as_str(), text.size, text.text_chars),
            ("notes.pdf", 17, 17)
        );
        let image = uploaded(&app, &alice, "photo.txt", PNG.to_vec()).await;
        assert_eq!(image.content_type, "image/png");
        assert_eq!(image.text_chars, 0);
        let doc = uploaded(&app, &alice, "paper.pdf", pdf("Photosynthesis makes sugar")).await;
        assert_eq!(doc.content_type, "application/pdf");
        assert!(doc.text_chars > 10, "{doc:?}");

        let (status, body) = upload(&app, &alice, "x.bin", vec![0, 159, 146, 150, 0]).await;
        assert_eq!(
            (status, &body["code"]),
            (415, &json!("unsupported_file_type")),
            "{body}"
        );
        let (status, body) = upload(&app, &alice, "empty.txt", Vec::new()).await;
        assert_eq!(
            (status, &body["code"]),
            (422, &json!("unreadable_file")),
            "{body}"
        );
        let (status, body) = upload(&app, &alice, "big.txt", vec![b'a'; 5000]).await;
        assert_eq!(status, 413, "{body}");
        // The document's body has one property, `file`, required: another part, or none,
        // is refused (the fuzzer's negative cases cannot say so for a multipart body:
        // scripts/fuzz-accepted.toml).
        let file = || reqwest::multipart::Part::bytes(b"text".to_vec()).file_name("a.txt");
        let forms = [
            reqwest::multipart::Form::new()
                .part("file", file())
                .text("note", "not in the document"),
            reqwest::multipart::Form::new().part("attachment", file()),
        ];
        for form in forms {
            let response = app
                .client
                .post(app.url("/v1/files"))
                .bearer_auth(&alice)
                .multipart(form)
                .send()
                .await
                .expect("uploading");
            let (status, kind) = (
                response.status().as_u16(),
                response.headers()[reqwest::header::CONTENT_TYPE].clone(),
            );
            assert_eq!(status, 400, "a body the document does not allow");
            assert_eq!(kind, "application/problem+json");
        }

        // Only the owner sees a file.
        let mine = app.client_as(&alice).get_file().id(text.id).send().await;
        assert_eq!(mine.assert_status(200).into_inner(), text);
        let theirs = app.client_as(&bob).get_file().id(text.id).send().await;
        assert_eq!(theirs.assert_problem(404), "not_found");

        // Nor can anyone else attach it.
        let student = api::student_with_tool(&app, "carol@example.com").await;
        let client = app.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await;
        let send = |attachments: Vec<Uuid>| {
            client
                .send_message()
                .id(session.id)
                .background(true)
                .body(CreateMessage {
                    content: "see attached".into(),
                    model: None,
                    attachments: Some(attachments),
                    parent_message_id: None,
                    response_format: None,
                    client_functions: None,
                })
                .send()
        };
        assert_eq!(send(vec![text.id]).await.assert_problem(404), "not_found");
        let own: Vec<Uuid> = {
            let mut ids = Vec::new();
            for i in 0..4 {
                ids.push(
                    uploaded(&app, &student.token, &format!("{i}.txt"), "x".into())
                        .await
                        .id,
                );
            }
            ids
        };
        assert_eq!(
            send(own.clone()).await.assert_problem(422),
            "too_many_attachments"
        );
        assert_eq!(
            send(vec![own[0], own[0]]).await.assert_problem(422),
            "duplicate_attachment"
        );
    }
);

/// Sends a message with attachments and waits for its end; returns the user message.
async fn turn_with(
    app: &TestApp,
    token: &str,
    session: Uuid,
    attachments: Vec<Uuid>,
) -> parley_tests::client::types::Message {
    let client = app.client_as(token);
    let accepted = parley_tests::typed::accepted(
        client
            .send_message()
            .id(session)
            .background(true)
            .body(CreateMessage {
                content: "what do these say?".into(),
                model: None,
                attachments: Some(attachments),
                parent_message_id: None,
                response_format: None,
                client_functions: None,
            })
            .send()
            .await,
    )
    .await;
    let mut feed = app
        .prompt_events(token, &accepted.prompt_id.to_string(), None)
        .await;
    let events = feed
        .until_terminal(std::time::Duration::from_secs(20))
        .await;
    assert_eq!(
        events.last().expect("events").event,
        "complete",
        "{events:?}"
    );
    let messages = parley_tests::typed::messages(&client, session).await;
    messages
        .into_iter()
        .find(|m| m.role.to_string() == "user")
        .expect("the user message")
}

both_backends!(
    attachments_reach_the_model_and_stay_on_the_message,
    |backend: Backend| async move {
        for vision in [true, false] {
            let (app, mock, _config) = server(backend, vision).await;
            let student = api::student_with_tool(&app, "dora@example.com").await;
            let client = app.client_as(&student.token);
            let session = api::session(&client, student.tool.id).await;
            let token = &student.token;
            let notes = uploaded(
                &app,
                token,
                "notes.txt",
                "Mitochondria: the powerhouse".into(),
            )
            .await;
            let paper = uploaded(&app, token, "paper.pdf", pdf("Chlorophyll is green")).await;
            let photo = uploaded(&app, token, "leaf.png", PNG.to_vec()).await;
            let user = turn_with(&app, token, session.id, vec![notes.id, paper.id, photo.id]).await;

            let names: Vec<&str> = user.attachments.iter().map(|a| a.name.as_str()).collect();
            assert_eq!(names, ["notes.txt", "paper.pdf", "leaf.png"]);
            assert_eq!(user.attachments[2].file_id, photo.id);
            assert_eq!(user.attachments[2].content_type, "image/png");
            assert_eq!(
                user.content, "what do these say?",
                "the message is the user's words"
            );

            let requests = mock.requests();
            let sent = &requests.last().unwrap().body["messages"];
            let last = sent.as_array().unwrap().last().unwrap();
            let text = match &last["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts[0]["text"].as_str().unwrap().to_owned(),
                other => panic!("content {other}"),
            };
            assert!(
                text.contains("[Attachment: notes.txt (text/plain)]\nMitochondria: the powerhouse"),
                "{text}"
            );
            assert!(
                text.contains("Chlorophyll is green"),
                "the PDF's text: {text}"
            );
            if vision {
                let parts = last["content"]
                    .as_array()
                    .expect("parts for a vision model");
                assert_eq!(parts.len(), 2, "{parts:?}");
                let url = parts[1]["image_url"]["url"].as_str().unwrap();
                assert!(
                    url.starts_with("data:image/png;base64,iVBORw0KGgo"),
                    "{url}"
                );
            } else {
                assert!(
                    last["content"].is_string(),
                    "no parts for a model without vision"
                );
                assert!(
                    text.contains("leaf.png (image/png)] — an image you cannot see"),
                    "{text}"
                );
            }
        }
    }
);

both_backends!(
    claude_reads_a_pdf_as_a_document_and_an_openai_fallback_its_text,
    |backend: Backend| async move {
        // Claude through the native provider (vision on), with an OpenAI-compatible model
        // of the same mock as its fallback.
        let mock = MockLlm::start(MockConfig {
            models: vec!["mock-model".into(), "backup".into()],
            ..MockConfig::default()
        })
        .await;
        let mut config = tempfile::NamedTempFile::new().expect("a temp file");
        std::io::Write::write_all(
            &mut config,
            format!(
                "[[providers]]\nname = \"claude\"\nkind = \"anthropic\"\nbase_url = \"{}\"\n\
                 api_key = \"sk-ant-test\"\n\n\
                 [[providers]]\nname = \"openai\"\nbase_url = \"{}\"\n\n\
                 [[models]]\nid = \"mock-model\"\nprovider = \"claude\"\nvision = true\n\
                 fallback = [\"backup\"]\n\n\
                 [[models]]\nid = \"backup\"\nprovider = \"openai\"\n\n\
                 [files]\nmax_file_bytes = 4096\n",
                mock.anthropic_base_url(),
                mock.base_url()
            )
            .as_bytes(),
        )
        .expect("writing the config");
        let path = config_path(&config);
        let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &path)]).await;
        let student = api::student_with_tool(&app, "claude-pdf@example.com").await;
        let client = app.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await;
        let token = &student.token;
        let bytes = pdf("Chlorophyll is green");
        let paper = uploaded(&app, token, "paper.pdf", bytes.clone()).await;
        let photo = uploaded(&app, token, "leaf.png", PNG.to_vec()).await;
        turn_with(&app, token, session.id, vec![paper.id, photo.id]).await;

        let request = mock.requests().pop().expect("a request");
        let blocks = request.body["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_array())
            .cloned()
            .expect("the user message's blocks");
        let kinds: Vec<&str> = blocks.iter().filter_map(|b| b["type"].as_str()).collect();
        assert_eq!(kinds, ["document", "text", "image"], "{blocks:?}");
        let source = &blocks[0]["source"];
        assert_eq!(source["media_type"], "application/pdf");
        use base64::Engine;
        let sent = base64::engine::general_purpose::STANDARD
            .decode(source["data"].as_str().unwrap_or_default())
            .expect("base64");
        assert_eq!(sent, bytes, "the PDF as uploaded");
        assert_eq!(blocks[0]["title"], "paper.pdf");
        let text = blocks[1]["text"].as_str().unwrap_or_default();
        assert!(
            text.contains("[Attachment: paper.pdf (application/pdf)] — the document is attached."),
            "{text}"
        );
        assert!(
            !text.contains("Chlorophyll is green"),
            "its text is not sent twice: {text}"
        );

        // Claude failing before its first token: the fallback reads the PDF's text.
        let second = uploaded(&app, token, "again.pdf", pdf("Stomata let air in")).await;
        let client = app.client_as(token);
        let accepted = parley_tests::typed::accepted(
            client
                .send_message()
                .id(session.id)
                .background(true)
                .body(CreateMessage {
                    content: "[[mock status=500 model=mock-model]] and this one?".into(),
                    model: None,
                    attachments: Some(vec![second.id]),
                    parent_message_id: None,
                    response_format: None,
                    client_functions: None,
                })
                .send()
                .await,
        )
        .await;
        let mut feed = app
            .prompt_events(token, &accepted.prompt_id.to_string(), None)
            .await;
        let events = feed
            .until_terminal(std::time::Duration::from_secs(20))
            .await;
        assert_eq!(
            events.last().map(|e| e.event.as_str()),
            Some("complete"),
            "{events:?}"
        );
        let answered = mock.requests().pop().expect("the fallback's request");
        assert_eq!(answered.model, "backup");
        let last = answered.messages.last().expect("a message");
        assert!(
            last.content
                .contains("[Attachment: again.pdf (application/pdf)]\nStomata let air in"),
            "{}",
            last.content
        );
    }
);

/// What the corpus README says a crafted PDF must end in.
#[derive(Debug)]
enum Outcome {
    /// 201, with these snippets (the README's backticked ones) in its text.
    Text(Vec<String>),
    /// 422 `unreadable_file` (no text, or a parser that failed, panicked, hung, crashed or
    /// ran out of memory).
    Refused,
    /// Either of the above.
    Either,
}

/// Every file of `tests/fixtures/pdf/` with its expected outcome, read from the
/// README's table (its third column), so the table is the one list of expectations.
fn pdf_corpus() -> Vec<(String, Vec<u8>, Outcome)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pdf");
    let readme = std::fs::read_to_string(dir.join("README.md")).expect("the corpus README");
    let mut corpus = Vec::new();
    for line in readme.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (name, expected) = (cells[1].trim_matches('`'), cells[3]);
        let outcome = if expected.starts_with("text or refused") || expected.contains("(or text") {
            Outcome::Either
        } else if expected.starts_with("refused") {
            Outcome::Refused
        } else {
            assert!(expected.starts_with("text"), "{name}: {expected}");
            Outcome::Text(
                expected
                    .split('`')
                    .skip(1)
                    .step_by(2)
                    .map(Into::into)
                    .collect(),
            )
        };
        let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|err| panic!("{name}: {err}"));
        corpus.push((name.to_owned(), bytes, outcome));
    }
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("the corpus")
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.ends_with(".pdf"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = corpus.iter().map(|(name, ..)| name.clone()).collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "every PDF of the corpus has a row in its README"
    );
    corpus
}

/// The text of the last message the model was sent (a model without vision).
fn last_prompt_text(mock: &MockLlm) -> String {
    let requests = mock.requests();
    let sent = &requests.last().expect("a model call").body["messages"];
    let last = sent.as_array().and_then(|m| m.last()).expect("messages");
    last["content"].as_str().expect("text content").to_owned()
}

both_backends!(
    crafted_pdfs_are_refused_or_read_and_the_server_stays_up,
    |backend: Backend| async move {
        use futures::StreamExt;
        // Hangs are cut at 3 s (default 10 s) and uploads go 6 at a time: the corpus takes
        // seconds, not 70 timeouts.
        let (app, mock, _config) = server_with(
            backend,
            false,
            "",
            &[("PARLEY_FILES__EXTRACT_TIMEOUT_MS", "3000")],
        )
        .await;
        let student = api::student_with_tool(&app, "erin@example.com").await;
        let token = student.token.as_str();
        let corpus = pdf_corpus();
        assert_eq!(corpus.len(), 70);

        let started = std::time::Instant::now();
        let answers: Vec<(u16, Value)> = futures::stream::iter(&corpus)
            .map(|(name, bytes, _)| upload(&app, token, name, bytes.clone()))
            .buffered(6)
            .collect()
            .await;
        let took = started.elapsed();

        let mut wrong = Vec::new();
        let mut read = Vec::new();
        for ((name, _, outcome), (status, body)) in corpus.iter().zip(&answers) {
            let accepted = *status == 201 && body["kind"] == "pdf" && body["text_chars"] != 0;
            let refused = *status == 422 && body["code"] == "unreadable_file";
            let fine = match outcome {
                Outcome::Text(_) => accepted,
                Outcome::Refused => refused,
                Outcome::Either => accepted || refused,
            };
            if !fine {
                wrong.push(format!("{name}: expected {outcome:?}, got {status} {body}"));
            }
            if let (Outcome::Text(snippets), true) = (outcome, accepted) {
                let id: Uuid = serde_json::from_value(body["id"].clone()).expect("an id");
                read.push((name, id, snippets));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        assert!(
            took < std::time::Duration::from_secs(90),
            "the corpus took {took:?}"
        );

        // Still up, still serving: a fresh upload, and the valid files' text reaches the
        // model.
        let health = app.client.get(app.url("/healthz")).send().await;
        assert_eq!(health.expect("healthz").status().as_u16(), 200);
        let simple = &corpus
            .iter()
            .find(|(n, ..)| n == "valid_simple.pdf")
            .expect("it")
            .1;
        let again = uploaded(&app, token, "again.pdf", simple.clone()).await;
        assert_eq!(again.text_chars, "Hello from Parley".len() as u64);
        let client = app.client_as(token);
        let session = api::session(&client, student.tool.id).await;
        let ids = read.iter().map(|(_, id, _)| *id).collect();
        turn_with(&app, token, session.id, ids).await;
        let text = last_prompt_text(&mock);
        for (name, _, snippets) in &read {
            for snippet in snippets.iter() {
                assert!(
                    text.contains(snippet.as_str()),
                    "{name}: {snippet:?} in {text}"
                );
            }
        }
    }
);
