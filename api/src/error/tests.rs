use super::{statuses::ReadOne, *};

#[test]
fn internal_errors_hide_their_context() {
    let err = Error::internal("reading a session", "password=hunter2 connection refused");
    let response = ApiError::<ReadOne>::from(err);
    let problem = response.problem();
    assert_eq!(problem.status, 500);
    assert_eq!(problem.code, "internal_error");
    assert!(
        !problem.detail.contains("hunter2"),
        "internal context leaked: {}",
        problem.detail
    );
}

#[test]
fn domain_errors_map_to_their_status_and_code() {
    let cases = [
        (Error::not_found("session"), 404, "not_found"),
        (
            Error::conflict(ErrorCode::SessionCompleted, "done"),
            409,
            "session_completed",
        ),
        (
            Error::invalid(ErrorCode::ToolMismatch, "no"),
            422,
            "tool_mismatch",
        ),
        (Error::Unauthenticated, 401, "unauthenticated"),
        (Error::forbidden("no"), 403, "forbidden"),
        (
            Error::Unavailable {
                what: "database".into(),
            },
            503,
            "unavailable",
        ),
        (
            Error::RateLimited {
                limit: "turns_per_minute",
                message: "over the user's turns_per_minute".into(),
                retry_after_s: 7,
            },
            429,
            "quota_exceeded",
        ),
    ];
    for (err, status, code) in cases {
        let problem = Problem::from(err);
        assert_eq!((problem.status, problem.code().as_str()), (status, code));
        assert_eq!(
            problem.kind,
            format!("https://parley.dev/problems/{}", code.replace('_', "-"))
        );
    }
}

/// Every code of the catalogue becomes a problem with the code's status, its `type`
/// URI, and a body whose `code` reads back as the same code.
#[test]
fn every_code_of_the_catalogue_maps_to_one_problem() {
    for &code in ErrorCode::ALL {
        let problem = Problem::new(code, "detail");
        assert_eq!(problem.status, code.status(), "{code}");
        assert_eq!(problem.code(), code);
        assert_eq!(
            problem.kind,
            format!(
                "https://parley.dev/problems/{}",
                code.as_str().replace('_', "-")
            )
        );
        let body = problem.to_json().unwrap();
        assert_eq!(body["code"], code.as_str());
        assert_eq!(body["status"], code.status());
        let back = Problem::read_back(problem.status, body["code"].as_str().unwrap(), "d");
        assert_eq!((back.status, back.code()), (problem.status, code));
    }
    // A status poem chose is kept, with the catalogue's code for it.
    let poem = Problem::for_status(StatusCode::BAD_GATEWAY, "upstream");
    assert_eq!((poem.status, poem.code()), (502, ErrorCode::InternalError));
    let unknown = Problem::read_back(418, "not_a_code", "teapot");
    assert_eq!((unknown.status, unknown.code()), (418, ErrorCode::Error));
}

#[test]
fn an_error_type_declares_exactly_its_statuses() {
    let declared: Vec<u16> = ApiError::<ReadOne>::meta()
        .responses
        .iter()
        .filter_map(|r| r.status)
        .collect();
    assert_eq!(declared, [401, 404, 429, 500, 503]);
}
