use super::*;

fn provider(name: &str) -> ProviderConfig {
    ProviderConfig {
        name: name.into(),
        kind: ProviderKind::Openai,
        base_url: "http://127.0.0.1:9/v1".into(),
        api_key: None,
        connect_timeout: Duration::from_secs(1),
        first_token_timeout: Duration::from_secs(1),
        continue_partial: false,
    }
}

fn model(id: &str, provider: &str) -> ModelConfig {
    ModelConfig {
        id: id.into(),
        upstream: None,
        provider: provider.into(),
        max_context: 8192,
        max_output_tokens: 4096,
        vision: false,
        price: Price::default(),
        fallback: Vec::new(),
        thinking_budget: None,
        prompt_cache: crate::providers::PromptCache::Off,
        structured_outputs: true,
    }
}

#[test]
fn no_provider_means_the_demo_model_only() {
    let catalog = Catalog::new(&[], &[], None).unwrap();
    assert_eq!(catalog.model_ids(), vec![demo::MODEL.to_owned()]);
    assert!(catalog.resolve(None).unwrap().is_demo());
}

#[test]
fn a_real_provider_replaces_the_demo_model() {
    let catalog = Catalog::new(
        &[provider("local")],
        &[model("a", "local"), model("b", "local")],
        Some("b"),
    )
    .unwrap();
    assert_eq!(catalog.model_ids(), vec!["b".to_owned(), "a".to_owned()]);
    assert!(
        catalog.resolve(Some(demo::MODEL)).is_none(),
        "the demo model is never used with a real provider"
    );
    assert_eq!(catalog.resolve(None).unwrap().model, "b");
    assert_eq!(catalog.resolve(Some("a")).unwrap().vendor, "local");
    assert!(catalog.resolve(Some("nope")).is_none());
}

#[test]
fn misconfigurations_are_reported() {
    assert!(matches!(
        Catalog::new(&[provider("x")], &[model("a", "y")], None),
        Err(CatalogError::UnknownProvider { .. })
    ));
    assert!(matches!(
        Catalog::new(&[provider("x")], &[], None),
        Err(CatalogError::NoModels)
    ));
    assert!(matches!(
        Catalog::new(&[provider("x")], &[model("a", "x")], Some("b")),
        Err(CatalogError::UnknownDefault(_))
    ));
    let falling_back = |to: &[&str]| ModelConfig {
        fallback: to.iter().map(|m| (*m).to_owned()).collect(),
        ..model("a", "x")
    };
    assert!(matches!(
        Catalog::new(&[provider("x")], &[falling_back(&["b"])], None),
        Err(CatalogError::UnknownFallback { .. })
    ));
    for chain in [&["a"][..], &["b", "b"]] {
        assert!(matches!(
            Catalog::new(
                &[provider("x")],
                &[falling_back(chain), model("b", "x")],
                None
            ),
            Err(CatalogError::RepeatedFallback { .. })
        ));
    }
}

#[test]
fn a_chain_is_the_model_then_its_fallbacks_in_order() {
    let models = [
        ModelConfig {
            fallback: vec!["c".into(), "b".into()],
            ..model("a", "x")
        },
        ModelConfig {
            fallback: vec!["a".into()],
            ..model("b", "y")
        },
        model("c", "y"),
    ];
    let catalog = Catalog::new(&[provider("x"), provider("y")], &models, None).unwrap();
    let ids = |model| {
        catalog
            .chain(model)
            .unwrap()
            .into_iter()
            .map(|r| r.model)
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(None), ["a", "c", "b"], "the default model's chain");
    assert_eq!(
        ids(Some("b")),
        ["b", "a"],
        "a chain is not followed further"
    );
    assert_eq!(ids(Some("c")), ["c"]);
    assert!(catalog.chain(Some("nope")).is_none());
}

#[test]
fn errors_map_to_protocol_codes() {
    let status = |status| ProviderError::Status {
        status,
        message: String::new(),
    };
    assert_eq!(status(429).code(), ErrorCode::RateLimited);
    assert_eq!(status(500).code(), ErrorCode::UpstreamError);
    assert_eq!(status(404).code(), ErrorCode::UnknownModel);
    assert!(status(503).retryable() && status(429).retryable() && !status(400).retryable());
    assert_eq!(
        ProviderError::Unreachable("refused".into()).code(),
        ErrorCode::UpstreamError
    );
}
