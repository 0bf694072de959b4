use super::*;

#[test]
fn a_result_with_an_error_key_is_a_result_and_a_failure_is_a_variant() {
    let answered = json!({"error": "none found", "matches": 0});
    let (state, output) = settle("search", Ok(Ok(answered.clone())));
    assert_eq!(state, ToolCallState::Success);
    assert_eq!(output, CallOutput::Result(answered.clone()));
    assert_eq!(output.error(), None, "a key is not a failure");
    assert_eq!(output.to_value(), answered);

    let failed = settle("search", Ok(Err(FunctionError::Failed("no data".into()))));
    assert_eq!(failed.0, ToolCallState::Error);
    assert_eq!(failed.1.error(), Some("no data"));
    assert_eq!(failed.1.to_value(), json!({"error": "no data"}));
}
