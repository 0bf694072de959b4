//! The `[[mock ...]]` directive: fault injection chosen per request.
//!
//! A test puts one directive in the text of the last user message, e.g.
//! `hello [[mock tokens=5 stall_after=2]]`. It is cut out of the text before the reply is
//! derived. Options are `key=value` separated by spaces; a value is bare (up to the next
//! space or `]]`), `"double quoted"` (`\"` and `\\` escapes) or `'single quoted'` (no
//! escapes, handy around JSON). In a bare `reply` or `reasoning` value `_` stands for a space.
//! A key without `=value` means `key=1`. Unknown keys and bad values are errors (the mock
//! answers 400) so that a typo cannot silently turn a fault test into a happy-path test.
//! The full syntax is in the crate's README.md.

use std::time::Duration;

/// One tool call the reply should make: `tool_call=<name>:<json args>` or
/// `tool_call_raw=<name>:<text>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallSpec {
    /// The function name.
    pub name: String,
    /// The arguments, exactly as written in the directive (JSON unless from `tool_call_raw`).
    pub arguments: String,
}

/// The options of one directive; every field is "not given" by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Directive {
    /// `reply=`: the reply text instead of the echo.
    pub reply: Option<String>,
    /// `tokens=N`: a reply of exactly N tokens `t1 t2 … tN`.
    pub tokens: Option<usize>,
    /// `status=S`: answer HTTP S with an OpenAI-style error body instead of a reply.
    pub status: Option<u16>,
    /// `retry_after=SECS`: the `retry-after` header of a 429 (default 1).
    pub retry_after: Option<u64>,
    /// `stall_after=K`: send K tokens, then nothing until the client goes away.
    pub stall_after: Option<usize>,
    /// `cut_after=K`: send K tokens, then drop the connection without `[DONE]`.
    pub cut_after: Option<usize>,
    /// `malformed_after=K`: after K tokens send one chunk that is not valid JSON.
    pub malformed_after: Option<usize>,
    /// `error_after=K` (Anthropic endpoint only): after K tokens an `event: error`
    /// (`overloaded_error`), then the stream ends.
    pub error_after: Option<usize>,
    /// `redacted_thinking=1` (Anthropic endpoint, thinking on): a `redacted_thinking` block
    /// before the thinking block.
    pub redacted_thinking: bool,
    /// `first_token_delay_ms=D`.
    pub first_token_delay: Option<Duration>,
    /// `token_delay_ms=D`.
    pub token_delay: Option<Duration>,
    /// `reasoning=`: reasoning text streamed in `delta.reasoning_content` before the content.
    pub reasoning: Option<String>,
    /// `tool_call=` and `tool_call_raw=` (repeatable: several calls in one reply, in the
    /// order given).
    pub tool_calls: Vec<ToolCallSpec>,
    /// `tool_rounds=N`: make the calls again until N rounds of calls follow the last user
    /// message (default 1).
    pub tool_rounds: Option<usize>,
    /// `split_name=1`: stream each function name in two chunks.
    pub split_name: bool,
    /// `no_usage=1`: no usage chunk even when the request asks for one.
    pub no_usage: bool,
    /// `model=NAME`: the faults (`status`, `stall_after`, `cut_after`, `malformed_after`,
    /// `error_after` and the delays) only apply to requests for model NAME; others get the reply
    /// without them — for fallback tests, where one message goes to several models.
    pub model: Option<String>,
}

/// Finds the first `[[mock ...]]` in `text`. Returns the text with the directive cut out and
/// the directive (`None` when there is none), or a message saying what is wrong with it.
pub fn extract(text: &str) -> Result<(String, Option<Directive>), String> {
    let Some(start) = find_opening(text) else {
        return Ok((text.to_owned(), None));
    };
    let mut rest = &text[start + "[[mock".len()..];
    let mut directive = Directive::default();
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("]]") {
            directive.check()?;
            let end = text.len() - after.len();
            let stripped = format!("{}{}", &text[..start], &text[end..]);
            return Ok((stripped, Some(directive)));
        }
        if rest.is_empty() {
            return Err("unterminated [[mock directive (no closing ]])".into());
        }
        let key_len = rest
            .find(|c: char| c == '=' || c == ']' || c.is_whitespace())
            .unwrap_or(rest.len());
        let key = &rest[..key_len];
        rest = &rest[key_len..];
        let (value, quoted) = if let Some(after_eq) = rest.strip_prefix('=') {
            let (value, quoted, after) = read_value(after_eq)?;
            rest = after;
            (value, quoted)
        } else {
            ("1".to_owned(), false)
        };
        directive.set(key, value, quoted)?;
    }
}

/// `[[mock` followed by a space or `]]`, so that e.g. `[[mockery]]` is plain text.
fn find_opening(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find("[[mock") {
        let at = from + found;
        let after = &text[at + "[[mock".len()..];
        if after.starts_with("]]") || after.starts_with(char::is_whitespace) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Reads one value; returns it, whether it was quoted, and the text after it.
fn read_value(s: &str) -> Result<(String, bool, &str), String> {
    if let Some(body) = s.strip_prefix('\'') {
        let end = body.find('\'').ok_or("unterminated '…' value")?;
        return Ok((body[..end].to_owned(), true, &body[end + 1..]));
    }
    if let Some(body) = s.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = body.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => return Ok((value, true, &body[i + 1..])),
                '\\' => match chars.next() {
                    Some((_, escaped)) => value.push(escaped),
                    None => break,
                },
                c => value.push(c),
            }
        }
        return Err("unterminated \"…\" value".into());
    }
    let end = s
        .find(|c: char| c.is_whitespace())
        .unwrap_or(s.len())
        .min(s.find("]]").unwrap_or(s.len()));
    Ok((s[..end].to_owned(), false, &s[end..]))
}

impl Directive {
    /// The directive as it applies to a request for `model`: without its faults when it
    /// is scoped to another model.
    pub fn for_model(mut self, model: &str) -> Self {
        if self.model.as_deref().is_some_and(|m| m != model) {
            self.status = None;
            self.retry_after = None;
            self.stall_after = None;
            self.cut_after = None;
            self.malformed_after = None;
            self.error_after = None;
            self.first_token_delay = None;
            self.token_delay = None;
        }
        self
    }

    /// Options that only make sense together: a tool-call option without a call would
    /// silently do nothing.
    fn check(&self) -> Result<(), String> {
        if self.tool_calls.is_empty() {
            if self.tool_rounds.is_some() {
                return Err("tool_rounds needs a tool_call or tool_call_raw".into());
            }
            if self.split_name {
                return Err("split_name needs a tool_call or tool_call_raw".into());
            }
        }
        Ok(())
    }

    fn set(&mut self, key: &str, value: String, quoted: bool) -> Result<(), String> {
        let text = |v: String| if quoted { v } else { v.replace('_', " ") };
        match key {
            "reply" => self.reply = Some(text(value)),
            "reasoning" => self.reasoning = Some(text(value)),
            "tokens" => self.tokens = Some(number(key, &value)?),
            "status" => {
                let status = number(key, &value)?;
                if !(400..=599).contains(&status) {
                    return Err(format!(
                        "status={status}: use an HTTP error status (400-599)"
                    ));
                }
                self.status = Some(status);
            }
            "retry_after" => self.retry_after = Some(number(key, &value)?),
            "stall_after" => self.stall_after = Some(number(key, &value)?),
            "cut_after" => self.cut_after = Some(number(key, &value)?),
            "malformed_after" => self.malformed_after = Some(number(key, &value)?),
            "error_after" => self.error_after = Some(number(key, &value)?),
            "redacted_thinking" => self.redacted_thinking = number::<u8>(key, &value)? != 0,
            "first_token_delay_ms" => {
                self.first_token_delay = Some(Duration::from_millis(number(key, &value)?));
            }
            "token_delay_ms" => {
                self.token_delay = Some(Duration::from_millis(number(key, &value)?));
            }
            "no_usage" => self.no_usage = number::<u8>(key, &value)? != 0,
            "model" => self.model = Some(value),
            "tool_call" | "tool_call_raw" => {
                let raw = key == "tool_call_raw";
                let default = if raw { "" } else { "{}" };
                let (name, arguments) = value.split_once(':').unwrap_or((&value, default));
                if name.is_empty() {
                    return Err(format!("{key} needs a name: {key}=<name>:<arguments>"));
                }
                if !raw && let Err(e) = serde_json::from_str::<serde_json::Value>(arguments) {
                    return Err(format!(
                        "tool_call={name}: arguments are not JSON ({e}); \
                         tool_call_raw sends arguments that are not JSON"
                    ));
                }
                self.tool_calls.push(ToolCallSpec {
                    name: name.to_owned(),
                    arguments: arguments.to_owned(),
                });
            }
            "tool_rounds" => {
                let rounds = number(key, &value)?;
                if rounds == 0 {
                    return Err("tool_rounds=0: use 1 or more rounds of tool calls".into());
                }
                self.tool_rounds = Some(rounds);
            }
            "split_name" => self.split_name = number::<u8>(key, &value)? != 0,
            "" => return Err("empty option name in [[mock directive".into()),
            other => return Err(format!("unknown [[mock option `{other}`")),
        }
        Ok(())
    }
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("{key}={value}: not a valid number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_directive_leaves_text_alone() {
        assert_eq!(
            extract("hi [[mockery]]").unwrap(),
            ("hi [[mockery]]".into(), None)
        );
    }

    #[test]
    fn parses_options_and_strips_the_directive() {
        let (text, d) =
            extract("hello [[mock tokens=3 stall_after=2 reply=a_b no_usage]] world").unwrap();
        let d = d.unwrap();
        assert_eq!(text, "hello  world");
        assert_eq!(d.tokens, Some(3));
        assert_eq!(d.stall_after, Some(2));
        assert_eq!(d.reply.as_deref(), Some("a b"));
        assert!(d.no_usage);
    }

    #[test]
    fn a_directive_scoped_to_a_model_keeps_its_faults_for_that_model_only() {
        let (_, d) =
            extract("[[mock status=500 stall_after=1 error_after=2 tokens=2 model=a]]").unwrap();
        let d = d.unwrap();
        let for_a = d.clone().for_model("a");
        assert_eq!(
            (for_a.status, for_a.stall_after, for_a.error_after),
            (Some(500), Some(1), Some(2))
        );
        let for_b = d.for_model("b");
        assert_eq!(
            (
                for_b.status,
                for_b.stall_after,
                for_b.error_after,
                for_b.tokens
            ),
            (None, None, None, Some(2)),
            "the reply stays, the faults go"
        );
    }

    #[test]
    fn quoted_values() {
        let (_, d) = extract(
            r#"[[mock reply="say \"hi\" ]] ok" tool_call='get_weather:{"city": "Paris", "days": [1, [2]]}']]"#,
        )
        .unwrap();
        let d = d.unwrap();
        assert_eq!(d.reply.as_deref(), Some(r#"say "hi" ]] ok"#));
        assert_eq!(
            d.tool_calls,
            vec![ToolCallSpec {
                name: "get_weather".into(),
                arguments: r#"{"city": "Paris", "days": [1, [2]]}"#.into(),
            }]
        );
    }

    #[test]
    fn bare_tool_call_keeps_underscores_and_defaults_args() {
        let (_, d) = extract(r#"[[mock tool_call=get_time tool_call=add:{"a":1}]]"#).unwrap();
        let calls = d.unwrap().tool_calls;
        assert_eq!(calls[0].name, "get_time");
        assert_eq!(calls[0].arguments, "{}");
        assert_eq!(calls[1].arguments, r#"{"a":1}"#);
    }

    #[test]
    fn raw_tool_calls_mix_with_json_ones_in_order() {
        let (_, d) = extract(
            r#"[[mock tool_call_raw='bad:{"city": "Par' tool_call=ok tool_call_raw=empty tool_rounds=3 split_name]]"#,
        )
        .unwrap();
        let d = d.unwrap();
        let calls: Vec<(&str, &str)> = d
            .tool_calls
            .iter()
            .map(|c| (c.name.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(
            calls,
            [("bad", r#"{"city": "Par"#), ("ok", "{}"), ("empty", "")]
        );
        assert_eq!(d.tool_rounds, Some(3));
        assert!(d.split_name);
    }

    #[test]
    fn errors_are_reported() {
        assert!(extract("[[mock tokenz=3]]").unwrap_err().contains("tokenz"));
        assert!(extract("[[mock tokens=x]]").is_err());
        assert!(extract("[[mock status=200]]").is_err());
        assert!(extract("[[mock tokens=3").is_err());
        assert!(extract("[[mock tool_call=f:{nope}]]").is_err());
        assert!(extract("[[mock tool_call_raw=:x]]").is_err());
        assert!(extract("[[mock tool_call=f tool_rounds=0]]").is_err());
        assert!(extract("[[mock tool_rounds=2]]").is_err());
        assert!(extract("[[mock split_name=1]]").is_err());
    }
}
