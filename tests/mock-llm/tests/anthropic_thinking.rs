//! Extended thinking on the Anthropic endpoint: signed `thinking` blocks, `redacted_thinking`,
//! and the rule that the current turn's assistant messages come back starting with them,
//! unaltered.

mod common;

use common::anthropic::{ask, body, last, refused, results, thinking};
use parley_mock_llm::{MockConfig, MockLlm};
use serde_json::{Value, json};

#[tokio::test]
async fn thinking_is_signed_and_must_come_back_unaltered() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let user = json!({ "role": "user", "content": "weather? [[mock tool_call=get_time]]" });
    for stream in [true, false] {
        let ask_with = |messages: Vec<Value>| thinking(body(json!(messages), stream));
        let first = ask(&mock, &ask_with(vec![user.clone()])).await;
        let content = first["content"].as_array().expect("content").clone();
        assert_eq!(content[0]["type"], "thinking");
        assert_eq!(content[0]["thinking"], "Thinking about: weather?");
        assert_eq!(content[1]["type"], "tool_use");
        let follow_up = |assistant: Vec<Value>| {
            let said = json!({ "role": "assistant", "content": assistant });
            ask_with(vec![user.clone(), said.clone(), results(&said, "12:00")])
        };

        let (status, message) = refused(&mock, &follow_up(content[1..].to_vec())).await;
        assert_eq!(status, 400);
        assert_eq!(
            message,
            "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found \
             `tool_use`. When `thinking` is enabled, a final `assistant` message must start with \
             a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` \
             blocks). We recommend you include thinking blocks from previous turns. To avoid \
             this requirement, disable `thinking`. Please consult our documentation at \
             https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
        );
        let mut altered = content.clone();
        altered[0]["thinking"] = "Thinking about: something else".into();
        let (_, message) = refused(&mock, &follow_up(altered)).await;
        assert_eq!(
            message,
            "messages.1.content.0: Invalid `signature` in `thinking` block"
        );
        let mut reordered = content.clone();
        reordered.swap(0, 1);
        let (_, message) = refused(&mock, &follow_up(reordered)).await;
        assert!(message.contains("but found `tool_use`"), "{message}");

        let answer = ask(&mock, &follow_up(content.clone())).await;
        assert_eq!(answer["content"][0]["thinking"], "Thinking about: weather?");
        assert_eq!(answer["content"][1]["text"], "Tool result: 12:00");
        let logged = last(&mock).await;
        assert_eq!(
            logged.messages[1].reasoning_content.as_deref(),
            Some("Thinking about: weather?")
        );

        // Earlier turns' thinking is not checked (Anthropic drops it).
        let mut earlier = content.clone();
        earlier[0]["signature"] = "forged".into();
        let said = json!({ "role": "assistant", "content": earlier });
        let next = ask_with(vec![
            user.clone(),
            said.clone(),
            results(&said, "12:00"),
            json!({ "role": "assistant", "content": "It is noon." }),
            json!({ "role": "user", "content": "thanks" }),
        ]);
        assert_eq!(
            ask(&mock, &next).await["content"][1]["text"],
            "Echo: thanks"
        );
    }
}

#[tokio::test]
async fn redacted_thinking_comes_first_and_is_bound_to_the_thinking_after_it() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let user =
        json!({ "role": "user", "content": "[[mock tool_call=f redacted_thinking reasoning=hm]]" });
    let request = |messages: Vec<Value>| thinking(body(json!(messages), true));
    let first = ask(&mock, &request(vec![user.clone()])).await;
    let content = first["content"].as_array().expect("content").clone();
    let kinds: Vec<&str> = content.iter().filter_map(|b| b["type"].as_str()).collect();
    assert_eq!(kinds, ["redacted_thinking", "thinking", "tool_use"]);
    assert!(!content[0]["data"].as_str().expect("data").is_empty());
    assert_eq!(content[1]["thinking"], "hm");
    let follow_up = |assistant: Vec<Value>| {
        let said = json!({ "role": "assistant", "content": assistant });
        request(vec![user.clone(), said.clone(), results(&said, "ok")])
    };
    let (_, message) = refused(&mock, &follow_up(content[1..].to_vec())).await;
    assert_eq!(
        message,
        "messages.1.content.0: Invalid `signature` in `thinking` block"
    );
    let mut forged = content.clone();
    forged[0]["data"] = "bm90IGlzc3VlZA==".into();
    let (_, message) = refused(&mock, &follow_up(forged)).await;
    assert_eq!(
        message,
        "messages.1.content.0: Invalid `data` in `redacted_thinking` block"
    );
    let answer = ask(&mock, &follow_up(content)).await;
    assert_eq!(answer["content"][2]["text"], "Tool result: ok");
}

#[tokio::test]
async fn without_thinking_there_is_no_thinking_block_and_no_final_one_may_be_sent() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let user = json!({ "role": "user", "content": "q [[mock reasoning=hidden tool_call=f]]" });
    let first = ask(&mock, &body(json!([user]), true)).await;
    let kinds: Vec<&str> = first["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|b| b["type"].as_str())
        .collect();
    assert_eq!(kinds, ["tool_use"], "reasoning= needs thinking on");
    // A tool loop that carries thinking blocks is fine; a final assistant message is not.
    let thought = json!({ "type": "thinking", "thinking": "x", "signature": "y" });
    let tool_use = &first["content"][0];
    let said = json!({ "role": "assistant", "content": [thought, tool_use] });
    ask(&mock, &body(json!([user, said, results(&said, "r")]), true)).await;
    let prefill =
        json!({ "role": "assistant", "content": [thought, { "type": "text", "text": "So" }] });
    let (_, message) = refused(
        &mock,
        &body(json!([user, said, results(&said, "r"), prefill]), true),
    )
    .await;
    assert_eq!(
        message,
        "messages.3.content.0: When thinking is disabled, an `assistant` message in the final \
         position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your \
         request."
    );
}
