//! Images and files on the OpenAI surface (#46 item 4): a chat message's `image_url` and
//! `file` parts, a response input message's `input_image` and `input_file` parts. The
//! last message's are the turn's attachments, stored as an upload to `POST /v1/files`
//! is (sniffed, validated, `files.max_file_bytes`), so the session shows them and a
//! model with vision is sent its images; an earlier message's are not imported (the
//! history is its text). Their bytes come from a `data:` URL (or bare base64 for a
//! file), a file of the caller's by id, or an `http(s)` URL fetched through the
//! outbound client (its address rules; at most the file limit, read as it streams).

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures::StreamExt;
use parley_protocol::error::ErrorCode;
use parley_service::files::{FileRefusal, UploadError};
use reqwest::Url;
use uuid::Uuid;

use super::types::{ChatContent, ChatContentPart, ResponseInputContent};
use crate::{error::Problem, identity::Caller, state::AppState};

/// How long a fetched image or file may take, connection to last byte.
const FETCH_TIMEOUT: Duration = Duration::from_secs(20);

/// Where a part's bytes are.
#[derive(Debug, Clone)]
pub enum Source {
    /// Decoded from the request.
    Inline(Vec<u8>),
    /// A file of the caller's.
    File(Uuid),
    /// Fetched.
    Url(Url),
}

/// An image or file of the request's last message.
#[derive(Debug, Clone)]
pub struct Media {
    /// Where it is in the request (`messages[2].content[1].image_url.url`).
    pub param: String,
    pub name: String,
    pub source: Source,
    /// An image part (what a model without vision cannot read).
    pub image: bool,
}

fn invalid(param: impl Into<String>, detail: impl Into<String>) -> Box<Problem> {
    Box::new(Problem::new(ErrorCode::InvalidParameter, detail).param(param))
}

/// The bytes of a `data:` URL (base64 only), or of bare base64 when `bare` allows it.
fn decoded(text: &str, param: &str, bare: bool) -> Result<Vec<u8>, Box<Problem>> {
    let data = match text.strip_prefix("data:") {
        Some(rest) => {
            let (meta, data) = rest
                .split_once(',')
                .ok_or_else(|| invalid(param, "a `data:` URL has a `,` before its data"))?;
            if !meta.ends_with(";base64") {
                return Err(invalid(
                    param,
                    "a `data:` URL's data is base64 (`;base64,`)",
                ));
            }
            data
        }
        None if bare => text,
        None => return Err(invalid(param, "not a `data:` URL")),
    };
    STANDARD
        .decode(data.trim())
        .map_err(|_| invalid(param, "the data is not valid base64"))
}

/// A `data:` URL's bytes or an `http(s)` URL to fetch.
fn url_source(url: &str, param: &str) -> Result<Source, Box<Problem>> {
    if url.starts_with("data:") {
        return decoded(url, param, false).map(Source::Inline);
    }
    match Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") => Ok(Source::Url(parsed)),
        _ => Err(invalid(
            param,
            "an image is a `data:` URL or an `http(s)` URL",
        )),
    }
}

/// A file id as a client sends it: Parley's id, or OpenAI's `file-<id>`.
fn file_id(id: &str, param: &str) -> Result<Source, Box<Problem>> {
    let bare = id.strip_prefix("file-").unwrap_or(id);
    Uuid::parse_str(bare)
        .map(Source::File)
        .map_err(|_| invalid(param, "not the id of a file of yours (`POST /v1/files`)"))
}

/// The media of a chat message's content; `at` is its `content`'s param.
pub fn of_chat(content: Option<&ChatContent>, at: &str) -> Result<Vec<Media>, Box<Problem>> {
    let Some(ChatContent::Parts(parts)) = content else {
        return Ok(Vec::new());
    };
    let mut media = Vec::new();
    for (j, part) in parts.iter().enumerate() {
        let at = format!("{at}[{j}]");
        if let Some(found) = chat_part(part, &at)? {
            media.push(found);
        }
    }
    Ok(media)
}

fn chat_part(part: &ChatContentPart, at: &str) -> Result<Option<Media>, Box<Problem>> {
    match part.kind.as_str() {
        "image_url" => {
            let param = format!("{at}.image_url.url");
            let url = part.image_url.as_ref().ok_or_else(|| {
                invalid(
                    format!("{at}.image_url"),
                    "an `image_url` part has an `image_url`",
                )
            })?;
            Ok(Some(Media {
                source: url_source(&url.url, &param)?,
                param,
                name: "image".into(),
                image: true,
            }))
        }
        "file" => {
            let file = part
                .file
                .as_ref()
                .ok_or_else(|| invalid(format!("{at}.file"), "a `file` part has a `file`"))?;
            let source = match (&file.file_data, &file.file_id) {
                (Some(data), _) => {
                    Source::Inline(decoded(data, &format!("{at}.file.file_data"), true)?)
                }
                (None, Some(id)) => file_id(id, &format!("{at}.file.file_id"))?,
                (None, None) => {
                    return Err(invalid(
                        format!("{at}.file"),
                        "a file has its `file_data` or a `file_id`",
                    ));
                }
            };
            Ok(Some(Media {
                param: format!("{at}.file"),
                name: file.filename.clone().unwrap_or_else(|| "file".into()),
                source,
                image: false,
            }))
        }
        _ => Ok(None),
    }
}

/// The media of a response input message's content; `at` is its `content`'s param.
pub fn of_response(content: &ResponseInputContent, at: &str) -> Result<Vec<Media>, Box<Problem>> {
    let ResponseInputContent::Parts(parts) = content else {
        return Ok(Vec::new());
    };
    let mut media = Vec::new();
    for (j, part) in parts.iter().enumerate() {
        let at = format!("{at}[{j}]");
        let (param, name, source) = match part.kind.as_str() {
            "input_image" => match (&part.image_url, &part.file_id) {
                (Some(url), _) => {
                    let param = format!("{at}.image_url");
                    (param.clone(), "image".to_owned(), url_source(url, &param)?)
                }
                (None, Some(id)) => {
                    let param = format!("{at}.file_id");
                    (param.clone(), "image".to_owned(), file_id(id, &param)?)
                }
                (None, None) => {
                    return Err(invalid(
                        at,
                        "an `input_image` has an `image_url` or a `file_id`",
                    ));
                }
            },
            "input_file" => {
                let name = part.filename.clone().unwrap_or_else(|| "file".into());
                match (&part.file_data, &part.file_id, &part.file_url) {
                    (Some(data), _, _) => {
                        let param = format!("{at}.file_data");
                        let bytes = decoded(data, &param, true)?;
                        (param, name, Source::Inline(bytes))
                    }
                    (None, Some(id), _) => {
                        let param = format!("{at}.file_id");
                        (param.clone(), name, file_id(id, &param)?)
                    }
                    (None, None, Some(url)) => {
                        let param = format!("{at}.file_url");
                        (param.clone(), name, url_source(url, &param)?)
                    }
                    (None, None, None) => {
                        return Err(invalid(
                            at,
                            "an `input_file` has its `file_data`, a `file_id` or a `file_url`",
                        ));
                    }
                }
            }
            _ => continue,
        };
        media.push(Media {
            image: part.kind == "input_image",
            param,
            name,
            source,
        });
    }
    Ok(media)
}

/// The problem of a refused part (as `POST /v1/files` refuses an upload), naming it.
fn refused(refusal: &FileRefusal, param: &str) -> Box<Problem> {
    Box::new(crate::routes::files::refused(refusal).param(param))
}

/// Fetches `url` through the outbound client: at most `most` bytes (413 above).
async fn fetch(
    state: &AppState,
    url: Url,
    param: &str,
    most: usize,
) -> Result<Vec<u8>, Box<Problem>> {
    let unreachable = |why: String| {
        Box::new(
            Problem::new(
                ErrorCode::InvalidParameter,
                format!("fetching the URL: {why}"),
            )
            .param(param),
        )
    };
    state
        .outbound
        .check_url(&url)
        .map_err(|err| unreachable(err.to_string()))?;
    let response = state
        .outbound
        .client()
        .get(url)
        .timeout(FETCH_TIMEOUT)
        .send()
        .await
        .map_err(|err| unreachable(parley_service::outbound::describe(&err)))?;
    if !response.status().is_success() {
        return Err(unreachable(format!("it answered {}", response.status())));
    }
    let mut bytes = Vec::new();
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|err| unreachable(parley_service::outbound::describe(&err)))?;
        if bytes.len() + chunk.len() > most {
            return Err(refused(&FileRefusal::TooLarge(most), param));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Stores the parts that are not files of the caller's already, in order: the ids of
/// the turn's attachments.
pub async fn attach(
    state: &AppState,
    caller: &Caller,
    media: Vec<Media>,
) -> Result<Vec<Uuid>, Box<Problem>> {
    let files = state.files();
    let most = files.limits().max_file_bytes;
    let mut ids = Vec::with_capacity(media.len());
    for part in media {
        let bytes = match part.source {
            Source::File(id) => {
                ids.push(id);
                continue;
            }
            Source::Inline(bytes) => bytes,
            Source::Url(url) => fetch(state, url, &part.param, most).await?,
        };
        // The upload refuses a file over the limit (413) as `POST /v1/files` does.
        let file = files
            .upload(caller.user_id, &part.name, bytes)
            .await
            .map_err(|err| match err {
                UploadError::Refused(refusal) => refused(&refusal, &part.param),
                UploadError::Failed(err) => Box::new(Problem::from(err)),
            })?;
        ids.push(file.id);
    }
    Ok(ids)
}

/// The first image part's param (what a model without vision cannot read).
pub fn first_image(media: &[Media]) -> Option<&str> {
    media.iter().find(|m| m.image).map(|m| m.param.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_urls_decode_and_bare_base64_is_for_files_only() {
        assert_eq!(
            decoded("data:text/plain;base64,aGk=", "p", false).unwrap(),
            b"hi"
        );
        assert_eq!(decoded("aGk=", "p", true).unwrap(), b"hi");
        let bare = decoded("aGk=", "p", false).unwrap_err();
        assert_eq!(bare.param.as_deref(), Some("p"));
        assert!(
            decoded("data:text/plain,hi", "p", false).is_err(),
            "not base64"
        );
        assert!(
            decoded("data:text/plain;base64", "p", false).is_err(),
            "no data"
        );
        assert!(decoded("data:;base64,%%", "p", false).is_err());
    }

    #[test]
    fn urls_are_data_or_http_and_file_ids_take_openais_prefix() {
        assert!(matches!(
            url_source("https://example.com/a.png", "p"),
            Ok(Source::Url(_))
        ));
        assert!(matches!(
            url_source("data:image/png;base64,aGk=", "p"),
            Ok(Source::Inline(_))
        ));
        assert!(url_source("file:///etc/passwd", "p").is_err());
        let id = Uuid::now_v7();
        for spelled in [id.to_string(), format!("file-{id}")] {
            assert!(matches!(file_id(&spelled, "p"), Ok(Source::File(f)) if f == id));
        }
        assert!(file_id("file-abc", "p").is_err());
    }
}
