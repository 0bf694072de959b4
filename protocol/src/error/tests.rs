//! The catalogue: every code round-trips, has a status, and the turn codes fit their column.

use std::collections::HashSet;

use serde_json::json;

use super::*;

#[test]
fn every_code_round_trips_through_its_string_and_serde() {
    let mut seen = HashSet::new();
    for &code in ErrorCode::ALL {
        let s = code.as_str();
        assert!(seen.insert(s), "`{s}` is in the catalogue twice");
        assert!(
            !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "`{s}` is not snake_case"
        );
        assert_eq!(code.to_string(), s);
        assert_eq!(ErrorCode::parse(s), Some(code));
        assert_eq!(serde_json::to_value(code).unwrap(), json!(s));
        let back: ErrorCode = serde_json::from_value(json!(s)).unwrap();
        assert_eq!(back, code);
        assert!(!code.message().is_empty(), "`{s}` has no message");
        assert!(
            (400..600).contains(&code.status()),
            "`{s}`: {} is not an error status",
            code.status()
        );
    }
    assert_eq!(ErrorCode::parse("no_such_code"), None);
    assert!(serde_json::from_value::<ErrorCode>(json!("no_such_code")).is_err());
}

#[test]
fn the_codes_a_turn_ends_with_fit_their_column_and_keep_their_messages() {
    let turn: Vec<ErrorCode> = ErrorCode::ALL
        .iter()
        .copied()
        .filter(|c| c.ends_turn())
        .collect();
    assert_eq!(
        turn,
        [
            ErrorCode::UpstreamError,
            ErrorCode::UpstreamStall,
            ErrorCode::UnknownModel,
            ErrorCode::OutputMismatch,
            ErrorCode::RateLimited,
            ErrorCode::BudgetExceeded,
            ErrorCode::ToolError,
            ErrorCode::Timeout,
            ErrorCode::Unavailable,
            ErrorCode::InternalError,
        ]
    );
    for code in turn {
        // `prompts.error_code` is a varchar(24).
        assert!(code.as_str().len() <= 24, "`{code}` does not fit");
    }
    assert_eq!(
        ErrorCode::UpstreamError.message(),
        "the model provider failed to answer"
    );
    assert_eq!(
        ErrorCode::NotFound.message(),
        "No such resource or route, or it belongs to someone else."
    );
}

#[test]
fn a_status_poem_chose_maps_to_a_code_of_that_status_when_there_is_one() {
    for status in [400, 401, 403, 404, 409, 413, 422, 500, 503] {
        assert_eq!(ErrorCode::for_status(status).status(), status);
    }
    assert_eq!(ErrorCode::for_status(502), ErrorCode::InternalError);
    assert_eq!(ErrorCode::for_status(408), ErrorCode::Error);
}

#[test]
fn the_domain_error_names_its_code() {
    let cases = [
        (Error::not_found("session"), ErrorCode::NotFound),
        (
            Error::conflict(ErrorCode::SessionCompleted, "done"),
            ErrorCode::SessionCompleted,
        ),
        (
            Error::invalid(ErrorCode::ToolMismatch, "no"),
            ErrorCode::ToolMismatch,
        ),
        (Error::Unauthenticated, ErrorCode::Unauthenticated),
        (Error::forbidden("no"), ErrorCode::Forbidden),
        (
            Error::Unavailable {
                what: "database".into(),
            },
            ErrorCode::Unavailable,
        ),
        (
            Error::RateLimited {
                limit: "turns_per_minute",
                message: "slow down".into(),
                retry_after_s: 3,
            },
            ErrorCode::QuotaExceeded,
        ),
        (Error::internal("x", "y"), ErrorCode::InternalError),
    ];
    for (err, code) in cases {
        assert_eq!(err.code(), code, "{err:?}");
    }
}

#[test]
#[should_panic(expected = "not a conflict's code")]
#[cfg(debug_assertions)]
fn a_conflict_takes_a_conflict_code() {
    let _ = Error::conflict(ErrorCode::ToolMismatch, "422, not 409");
}
