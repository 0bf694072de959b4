use super::*;

fn bound(fixed: Option<f64>, min: Option<f64>, max: Option<f64>) -> Bound {
    Bound { fixed, min, max }
}

fn asked(temperature: Option<f64>, max_output_tokens: Option<u32>) -> Sampling {
    Sampling {
        temperature,
        max_output_tokens,
        ..Sampling::default()
    }
}

#[test]
fn openai_ranges_are_checked_and_name_the_parameter() {
    assert_eq!(Sampling::default().check(), Ok(()));
    assert_eq!(asked(Some(2.0), Some(1)).check(), Ok(()));
    let refused = asked(Some(2.5), None).check().unwrap_err();
    assert_eq!(refused.param, "temperature");
    assert!(refused.reason.contains("between 0 and 2"), "{refused}");
    let refused = Sampling {
        top_p: Some(-0.1),
        ..Sampling::default()
    }
    .check()
    .unwrap_err();
    assert_eq!(refused.param, "top_p");
    let refused = Sampling {
        frequency_penalty: Some(2.1),
        ..Sampling::default()
    }
    .check()
    .unwrap_err();
    assert_eq!(refused.param, "frequency_penalty");
    assert_eq!(
        asked(None, Some(0)).check().unwrap_err().param,
        "max_output_tokens"
    );
    let stops = |n: usize| Sampling {
        stop: vec!["x".into(); n],
        ..Sampling::default()
    };
    assert_eq!(stops(4).check(), Ok(()));
    assert_eq!(stops(5).check().unwrap_err().param, "stop");
    let empty = Sampling {
        stop: vec![String::new()],
        ..Sampling::default()
    };
    assert_eq!(empty.check().unwrap_err().param, "stop");
}

#[test]
fn a_fixed_value_replaces_what_is_asked_or_refuses_a_different_one() {
    let bounds = SamplingBounds {
        temperature: Some(bound(Some(0.3), None, None)),
        ..SamplingBounds::default()
    };
    for asked_for in [None, Some(0.3), Some(1.5)] {
        let out = bounds
            .apply(&asked(asked_for, None), OutOfBounds::Clamp)
            .unwrap();
        assert_eq!(out.temperature, Some(0.3), "asked {asked_for:?}");
    }
    assert_eq!(
        bounds
            .apply(&asked(Some(0.3), None), OutOfBounds::Refuse)
            .unwrap()
            .temperature,
        Some(0.3)
    );
    let refused = bounds
        .apply(&asked(Some(1.5), None), OutOfBounds::Refuse)
        .unwrap_err();
    assert_eq!(refused.param, "temperature");
    assert!(refused.reason.contains("fixes it at 0.3"), "{refused}");
}

#[test]
fn a_range_clamps_to_its_nearest_end_or_refuses() {
    let bounds = SamplingBounds {
        temperature: Some(bound(None, Some(0.2), Some(0.8))),
        ..SamplingBounds::default()
    };
    let clamp = |t: f64| {
        bounds
            .apply(&asked(Some(t), None), OutOfBounds::Clamp)
            .unwrap()
            .temperature
    };
    assert_eq!(clamp(0.0), Some(0.2));
    assert_eq!(clamp(0.5), Some(0.5));
    assert_eq!(clamp(1.9), Some(0.8));
    // Nothing asked: the provider's default (a range fixes nothing).
    assert_eq!(
        bounds
            .apply(&Sampling::default(), OutOfBounds::Refuse)
            .unwrap(),
        Sampling::default()
    );
    let refused = bounds
        .apply(&asked(Some(1.9), None), OutOfBounds::Refuse)
        .unwrap_err();
    assert!(refused.reason.contains("0.2 to 0.8"), "{refused}");
    assert_eq!(
        bounds
            .apply(&asked(Some(0.8), None), OutOfBounds::Refuse)
            .unwrap()
            .temperature,
        Some(0.8)
    );
}

#[test]
fn a_token_cap_bounds_the_answer_whether_asked_or_not() {
    let bounds = SamplingBounds {
        max_output_tokens: Some(100),
        ..SamplingBounds::default()
    };
    let tokens = |asked_for, mode| {
        bounds
            .apply(&asked(None, asked_for), mode)
            .map(|s| s.max_output_tokens)
    };
    assert_eq!(tokens(None, OutOfBounds::Refuse), Ok(Some(100)));
    assert_eq!(tokens(Some(50), OutOfBounds::Refuse), Ok(Some(50)));
    assert_eq!(tokens(Some(500), OutOfBounds::Clamp), Ok(Some(100)));
    let refused = tokens(Some(500), OutOfBounds::Refuse).unwrap_err();
    assert_eq!(refused.param, "max_output_tokens");
}

#[test]
fn applying_twice_changes_nothing_more() {
    let bounds = SamplingBounds {
        temperature: Some(bound(None, None, Some(1.0))),
        top_p: Some(bound(Some(0.9), None, None)),
        max_output_tokens: Some(64),
        ..SamplingBounds::default()
    };
    let first = bounds
        .apply(&asked(Some(1.7), Some(1000)), OutOfBounds::Clamp)
        .unwrap();
    assert_eq!(first.temperature, Some(1.0));
    assert_eq!(first.top_p, Some(0.9));
    assert_eq!(first.max_output_tokens, Some(64));
    // What the api recorded passes the worker's application unchanged, even refusing.
    assert_eq!(bounds.apply(&first, OutOfBounds::Refuse), Ok(first.clone()));
}

#[test]
fn bounds_that_cannot_hold_are_named() {
    let problem = |b: Bound| {
        SamplingBounds {
            top_p: Some(b),
            ..SamplingBounds::default()
        }
        .problem()
    };
    assert_eq!(problem(bound(None, Some(0.1), Some(0.9))), None);
    assert_eq!(problem(bound(Some(0.5), None, None)), None);
    for bad in [
        bound(Some(1.5), None, None),
        bound(Some(0.5), Some(0.1), None),
        bound(None, Some(0.9), Some(0.1)),
    ] {
        let refused = problem(bad).expect("a problem");
        assert_eq!(refused.param, "top_p");
    }
}

#[test]
fn sampling_round_trips_and_rejects_unknown_fields() {
    let sampling = Sampling {
        temperature: Some(0.25),
        stop: vec!["END".into()],
        seed: Some(7),
        ..Sampling::default()
    };
    let json = serde_json::to_value(&sampling).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"temperature": 0.25, "stop": ["END"], "seed": 7})
    );
    assert_eq!(serde_json::from_value::<Sampling>(json).unwrap(), sampling);
    assert!(serde_json::from_value::<Sampling>(serde_json::json!({"temp": 1})).is_err());
}
