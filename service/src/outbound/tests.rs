use reqwest::{StatusCode, Url};

use super::*;

const DENY: OutboundPolicy = OutboundPolicy {
    deny_private_addresses: true,
};
const ALLOW: OutboundPolicy = OutboundPolicy {
    deny_private_addresses: false,
};

fn url(s: &str) -> Url {
    Url::parse(s).expect("a URL")
}

#[test]
fn ip_literal_hosts_are_checked_when_private_addresses_are_denied() {
    for refused in [
        "http://127.0.0.1:8080/hook",
        "http://127.1/hook",
        "http://2130706433/hook",
        "http://[::1]/mcp",
        "http://[::ffff:169.254.169.254]/latest/meta-data",
        "https://10.0.0.7/",
        "http://0.0.0.0/",
    ] {
        let err = check_url(DENY, &url(refused)).expect_err(refused);
        assert!(
            matches!(err, OutboundError::NotPublic { .. }),
            "{refused}: {err}"
        );
        assert!(check_url(ALLOW, &url(refused)).is_ok(), "{refused}");
    }
    // Names are the resolver's to judge; public literals pass.
    for allowed in [
        "http://localhost/",
        "https://hooks.example.com/",
        "http://93.184.216.34/",
        "http://[2606:4700::1111]/",
    ] {
        assert!(check_url(DENY, &url(allowed)).is_ok(), "{allowed}");
    }
    assert!(matches!(
        check_url(ALLOW, &url("ftp://example.com/")),
        Err(OutboundError::Scheme { .. })
    ));
}

#[test]
fn redirects_stay_on_their_origin_keep_their_body_and_are_few() {
    let first = url("http://hooks.example.com:8080/hook");
    let judge = |status: u16, next: &str, hops: usize| {
        let previous = vec![first.clone(); hops];
        judge_redirect(
            ALLOW,
            StatusCode::from_u16(status).expect("a status"),
            &url(next),
            &previous,
        )
    };
    assert!(judge(307, "http://hooks.example.com:8080/moved", 1).is_ok());
    assert!(judge(308, "http://hooks.example.com:8080/moved?x=1", 1).is_ok());
    for other in [
        "http://evil.example.com:8080/in?token=secret",
        "http://hooks.example.com:8081/in?token=secret",
        "https://hooks.example.com:8080/in?token=secret",
        "http://127.0.0.1:8080/in?token=secret",
    ] {
        let err = judge(307, other, 1).expect_err(other);
        assert!(
            matches!(err, OutboundError::OtherHost { .. }),
            "{other}: {err}"
        );
        assert!(
            !err.to_string().contains("secret"),
            "the path stays out: {err}"
        );
    }
    for status in [301, 302, 303] {
        let err = judge(status, "http://hooks.example.com:8080/moved", 1).expect_err("a GET");
        assert!(err.to_string().contains(&status.to_string()), "{err}");
    }
    assert!(judge(307, "http://hooks.example.com:8080/again", MAX_REDIRECTS).is_ok());
    assert!(matches!(
        judge(
            307,
            "http://hooks.example.com:8080/again",
            MAX_REDIRECTS + 1
        ),
        Err(OutboundError::TooManyRedirects)
    ));
    // A same-origin hop to a private literal is refused when those are denied.
    let literal = url("http://127.0.0.1:9/a");
    let err = judge_redirect(
        DENY,
        StatusCode::TEMPORARY_REDIRECT,
        &url("http://127.0.0.1:9/b"),
        &[literal],
    );
    assert!(matches!(err, Err(OutboundError::NotPublic { .. })));
}

#[tokio::test]
async fn a_name_of_loopback_is_refused_by_the_resolver_before_any_connection() {
    let outbound = Outbound::new(DENY).expect("a client");
    // Port 9 (discard): nothing need listen; the refusal comes before a connection.
    let err = outbound
        .client()
        .post("http://localhost:9/hook")
        .send()
        .await
        .expect_err("refused");
    let text = describe(&err);
    assert!(
        text.contains("`localhost` resolves only to addresses that are not public"),
        "{text}"
    );
    assert!(text.contains("127.0.0.1"), "{text}");

    let open = Outbound::new(ALLOW).expect("a client");
    let err = open
        .client()
        .post("http://localhost:9/hook")
        .send()
        .await
        .expect_err("nothing listens on port 9");
    assert!(!describe(&err).contains("not public"), "{}", describe(&err));
}
