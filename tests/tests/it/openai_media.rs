//! Images and files on the OpenAI surface (#46 item 4): a chat message's `image_url`
//! (a `data:` URL, or an `http(s)` URL Parley fetches) and `file` parts, a response's
//! `input_image` and `input_file` parts, are the turn's attachments — stored, on the
//! session's user message, an image sent to a model with vision as an image part, a
//! file's text inlined. A model without vision refuses an image 400 naming it; bad
//! data, an unreachable URL, a type Parley does not read and another user's file are
//! each refused by name, and a refused request leaves no conversation behind.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::{Backend, both_backends};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::attachments::PNG;
use crate::openai_surface::Surface;

async fn surface(backend: Backend, vision: bool) -> Surface {
    use std::io::Write;
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut config = tempfile::NamedTempFile::new().expect("a temp file");
    write!(
        config,
        "[[providers]]\nname = \"mock\"\nbase_url = \"{}\"\n\n\
         [[models]]\nid = \"mock-model\"\nprovider = \"mock\"\nvision = {vision}\n\n\
         [files]\nmax_file_bytes = 4096\n",
        mock.base_url()
    )
    .expect("writing the config");
    Surface::start(backend, mock, config, "seer@example.com").await
}

fn png_url() -> String {
    format!("data:image/png;base64,{}", STANDARD.encode(PNG))
}

fn looking(image_url: &str) -> Value {
    json!({
        "model": "auto",
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": "what is on this leaf?"},
            {"type": "image_url", "image_url": {"url": image_url}},
        ]}],
    })
}

/// The user message of the session a reply's prompt (`location`) belongs to.
async fn user_message(s: &Surface, location: &str) -> Value {
    let prompt = s.app.get(location, Some(&s.token)).await;
    prompt.assert_status(200);
    let session = prompt.body["session_id"]
        .as_str()
        .expect("a session")
        .to_owned();
    let messages = s
        .app
        .get(&format!("/v1/sessions/{session}/messages"), Some(&s.token))
        .await;
    messages.assert_status(200);
    crate::fixtures::items(&messages)
        .into_iter()
        .find(|m| m["role"] == "user")
        .expect("the user message")
}

async fn sessions(s: &Surface) -> usize {
    let listed = s.app.get("/v1/sessions?limit=100", Some(&s.token)).await;
    crate::fixtures::items(&listed).len()
}

/// The last user message the model got, as sent.
fn last_user(s: &Surface) -> Value {
    let sent = s.last_sent();
    sent["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .cloned()
        .expect("a user message")
}

/// A one-shot HTTP server on loopback: `/leaf.png` is the PNG, anything else 404.
async fn image_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let mut request = vec![0; 4096];
            let n = socket.read(&mut request).await.unwrap_or(0);
            let request = String::from_utf8_lossy(&request[..n]).to_string();
            let response = if request.starts_with("GET /leaf.png ") {
                let mut ok = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: image/png\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    PNG.len()
                )
                .into_bytes();
                ok.extend_from_slice(PNG);
                ok
            } else {
                b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_vec()
            };
            let _ = socket.write_all(&response).await;
        }
    });
    format!("http://{addr}")
}

both_backends!(
    an_image_part_is_an_attachment_and_reaches_a_model_with_vision,
    |backend: Backend| async move {
        let s = surface(backend, true).await;
        let asked = s
            .post("/openai/v1/chat/completions", &looking(&png_url()))
            .await;
        asked.assert_status(200);
        let user = last_user(&s);
        let parts = user["content"]
            .as_array()
            .expect("parts for a vision model");
        let url = parts
            .iter()
            .find_map(|p| p["image_url"]["url"].as_str())
            .expect("the image part");
        assert!(
            url.starts_with("data:image/png;base64,iVBORw0KGgo"),
            "{url}"
        );
        let stored = user_message(&s, asked.header("location").unwrap()).await;
        assert_eq!(stored["content"], "what is on this leaf?", "{stored}");
        assert_eq!(stored["attachments"][0]["content_type"], "image/png");

        // Fetched from a URL, on the Responses API.
        let server = image_server().await;
        let body = json!({
            "model": "auto",
            "input": [{"role": "user", "content": [
                {"type": "input_text", "text": "and this one?"},
                {"type": "input_image", "image_url": format!("{server}/leaf.png")},
            ]}],
        });
        let fetched = s.post("/openai/v1/responses", &body).await;
        fetched.assert_status(200);
        let user = last_user(&s);
        assert!(
            user["content"].to_string().contains("iVBORw0KGgo"),
            "{user}"
        );

        let mut missing = body.clone();
        missing["input"][0]["content"][1]["image_url"] = json!(format!("{server}/nothing.png"));
        let refused = s.post("/openai/v1/responses", &missing).await;
        refused.assert_status(400);
        assert_eq!(
            refused.body["error"]["param"], "input[0].content[1].image_url",
            "{refused}"
        );
        assert!(refused.text.contains("404"), "{refused}");
    }
);

both_backends!(
    a_file_part_is_stored_and_its_text_reaches_the_model,
    |backend: Backend| async move {
        let s = surface(backend, false).await;
        let notes = STANDARD.encode("Mitochondria: the powerhouse");
        let body = json!({
            "model": "auto",
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "summarise my notes"},
                {"type": "file", "file": {
                    "filename": "notes.txt",
                    "file_data": format!("data:text/plain;base64,{notes}"),
                }},
            ]}],
        });
        let asked = s.post("/openai/v1/chat/completions", &body).await;
        asked.assert_status(200);
        let user = last_user(&s);
        assert!(
            user["content"]
                .to_string()
                .contains("[Attachment: notes.txt (text/plain)]"),
            "{user}"
        );
        let stored = user_message(&s, asked.header("location").unwrap()).await;
        let file_id = stored["attachments"][0]["file_id"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(stored["attachments"][0]["name"], "notes.txt");

        // The same file by id, on the Responses API (OpenAI's `file-` prefix too).
        let again = json!({
            "model": "auto",
            "input": [{"role": "user", "content": [
                {"type": "input_text", "text": "again"},
                {"type": "input_file", "file_id": format!("file-{file_id}")},
            ]}],
        });
        s.post("/openai/v1/responses", &again)
            .await
            .assert_status(200);
        assert!(last_user(&s)["content"].to_string().contains("powerhouse"));

        // Another user's file is none of this caller's.
        let (other_id, other) = s.app.create_user("other@example.com", "student").await;
        crate::fixtures::add_member(&s.app, &s.group, &other_id).await;
        let request = s
            .app
            .request(reqwest::Method::POST, "/openai/v1/responses", Some(&other))
            .json(&again);
        let theirs = s.app.send(request).await;
        assert_eq!(theirs.status, 404, "{theirs}");
    }
);

both_backends!(
    images_a_model_cannot_see_and_unreadable_parts_are_refused_by_name,
    |backend: Backend| async move {
        let s = surface(backend, false).await;
        let refused = s
            .post("/openai/v1/chat/completions", &looking(&png_url()))
            .await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["code"], "unsupported_content");
        assert_eq!(
            refused.body["error"]["param"], "messages[0].content[1].image_url.url",
            "{refused}"
        );
        assert!(refused.text.contains("mock-model"), "{refused}");

        for (url, param) in [
            ("data:image/png,raw", "messages[0].content[1].image_url.url"),
            (
                "data:image/png;base64,%%%",
                "messages[0].content[1].image_url.url",
            ),
            (
                "ftp://example.com/leaf.png",
                "messages[0].content[1].image_url.url",
            ),
        ] {
            let refused = s.post("/openai/v1/chat/completions", &looking(url)).await;
            refused.assert_status(400);
            assert_eq!(refused.body["error"]["param"], param, "{url}: {refused}");
        }
        let zip = format!(
            "data:application/zip;base64,{}",
            STANDARD.encode(b"PK\x03\x04zip")
        );
        let body = json!({
            "model": "auto",
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "open it"},
                {"type": "file", "file": {"filename": "a.zip", "file_data": zip}},
            ]}],
        });
        let refused = s.post("/openai/v1/chat/completions", &body).await;
        refused.assert_status(415);
        assert_eq!(
            refused.body["error"]["param"],
            "messages[0].content[1].file"
        );
        let big = format!(
            "data:text/plain;base64,{}",
            STANDARD.encode("a".repeat(5000))
        );
        let mut body = body.clone();
        body["messages"][0]["content"][1]["file"]["file_data"] = json!(big);
        let refused = s.post("/openai/v1/chat/completions", &body).await;
        refused.assert_status(413);
        let audio = json!({
            "model": "auto",
            "messages": [{"role": "user", "content": [
                {"type": "input_audio", "input_audio": {"data": "", "format": "wav"}},
            ]}],
        });
        let refused = s.post("/openai/v1/chat/completions", &audio).await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["code"], "unsupported_content");
        assert_eq!(
            sessions(&s).await,
            0,
            "a refused request leaves no conversation"
        );
        assert!(s.mock.requests().is_empty(), "nothing was asked");
    }
);
