use serde_json::{Value, json};
use uuid::Uuid;

use super::*;
use crate::wire::Text;

fn layer(value: Value) -> ConfigOverrides {
    serde_json::from_value(value).expect("a layer")
}

fn texts(items: &[&str]) -> Option<Vec<Text>> {
    Some(items.iter().map(|s| Text::from(*s)).collect())
}

#[test]
fn the_cascade_merges_typed_values_field_by_field() {
    let org = layer(
        json!({"model": "org-model", "constraints": {"topics": ["x"], "no_direct_answers": false}, "max_messages": 30}),
    );
    let team = layer(json!({"guidance": "Be brief.", "skills": false}));
    let tool = ToolDefinition {
        constraints: Some(ToolConstraints {
            topics: None,
            no_direct_answers: Some(true),
        }),
        functions: texts(&["createTodo"]),
        ..ToolDefinition::new("Guide.")
    };
    let assignment = ConfigOverrides {
        constraints: Some(ToolConstraints {
            topics: texts(&["quadratics"]),
            no_direct_answers: None,
        }),
        functions: texts(&[]),
        max_messages: Some(4),
        skills: Some(true),
        ..Default::default()
    };
    let about = SessionAssignment {
        id: Uuid::now_v7(),
        title: "Quiz".into(),
        instructions: "Factor.".into(),
    };
    let config = SessionConfig::resolve(
        [&org, &team, &ConfigOverrides::from(&tool), &assignment],
        Some(about.clone()),
    );
    assert_eq!(config.model.as_deref(), Some("org-model"), "inherited");
    assert_eq!(config.behavior.as_deref(), Some("Guide."));
    assert_eq!(config.guidance.as_deref(), Some("Be brief."));
    assert_eq!(
        config.constraints,
        Some(ToolConstraints {
            topics: texts(&["quadratics"]),
            no_direct_answers: Some(true),
        }),
        "constraints merge field by field"
    );
    assert_eq!(config.functions, texts(&[]), "a list is replaced whole");
    assert_eq!(config.max_messages, Some(4), "the most specific wins");
    assert!(
        config.skills_enabled(),
        "a later layer turns skills back on"
    );
    assert_eq!(config.assignment, Some(about));
    assert_eq!(config.max_iterations, None, "nobody set it");
}

#[test]
fn the_cascade_agrees_with_the_json_merge_it_replaces() {
    // The case of the old `merge_json` test: scalars replaced, objects merged, and a
    // `null` (absent, now) leaving the inherited value.
    let base =
        layer(json!({"model": "a", "constraints": {"topics": ["x"], "no_direct_answers": false}}));
    let second = layer(json!({"constraints": {"no_direct_answers": true}, "max_messages": 5}));
    let third = layer(json!({"model": null, "constraints": {"topics": ["y"]}}));
    let config = SessionConfig::resolve([&base, &second], None);
    assert_eq!(
        serde_json::to_value(&config).unwrap(),
        json!({"model": "a", "constraints": {"topics": ["x"], "no_direct_answers": true}, "max_messages": 5})
    );
    let config = SessionConfig::resolve([&base, &second, &third], None);
    assert_eq!(config.model.as_deref(), Some("a"));
    assert_eq!(
        serde_json::to_value(&config).unwrap()["constraints"],
        json!({"topics": ["y"], "no_direct_answers": true})
    );
}

/// A `sessions.config` as earlier versions stored it: the JSON merge of free-form group
/// settings, the definition and the assignment's config.
#[test]
fn a_session_config_stored_by_earlier_versions_loads() {
    let id = Uuid::now_v7();
    let stored = json!({
        "behavior": "Guide.",
        "model": "m",
        "constraints": {"topics": ["algebra", 3, "geometry"], "no_direct_answers": true, "tone": "kind"},
        "modules": [{"name": "pii_redactor", "config": {"types": ["email"]}}, {"config": {}}, "analytics"],
        "functions": ["createTodo", null],
        "max_messages": 40,
        "max_session_duration_s": "an hour",
        "max_iterations": 3,
        "payload_types": "quiz",
        "suggestions": true,
        "hold_back": "yes",
        "skills": {"enabled": false, "router": "v2"},
        "guidance": "Short sentences.",
        "temperature": 0.2,
        "assignment": {"id": id, "title": "Quiz", "instructions": "Factor."}
    });
    let config: SessionConfig = serde_json::from_value(stored).expect("loads");
    assert_eq!(config.behavior.as_deref(), Some("Guide."));
    assert_eq!(
        config.constraints,
        Some(ToolConstraints {
            topics: texts(&["algebra", "geometry"]),
            no_direct_answers: Some(true),
        }),
        "unknown keys ignored, a list keeps its strings"
    );
    let modules = config.modules.as_deref().unwrap_or_default();
    assert_eq!(modules.len(), 1, "entries without a name are skipped");
    assert_eq!(&*modules[0].name, "pii_redactor");
    assert_eq!(config.functions().collect::<Vec<_>>(), ["createTodo"]);
    assert_eq!(config.max_messages, Some(40));
    assert_eq!(
        config.max_session_duration_s, None,
        "a wrong type is absent"
    );
    assert_eq!(config.payload_types, None);
    assert!(config.wants_suggestions());
    assert!(!config.holds_back(), "\"yes\" is no boolean, as before");
    assert!(
        !config.skills_enabled(),
        "the free-form {{enabled: false}} form"
    );
    assert_eq!(config.guidance.as_deref(), Some("Short sentences."));
    assert_eq!(config.assignment.map(|a| a.id), Some(id));

    let on: SessionConfig = serde_json::from_value(json!({"skills": {"router": "v2"}})).unwrap();
    assert_eq!(on.skills, None, "an object without `enabled` says nothing");
    assert!(on.skills_enabled());
    let empty: SessionConfig = serde_json::from_value(json!({})).unwrap();
    assert_eq!(empty, SessionConfig::default());
}

#[test]
fn free_form_group_settings_of_earlier_versions_load_as_overrides() {
    let settings = json!({"model": "org-model", "max_messages": -1, "theme": "dark", "skills": {"enabled": false}});
    let layer = layer(settings);
    assert_eq!(layer.model.as_deref(), Some("org-model"));
    assert_eq!(layer.max_messages, None, "not a count of messages");
    assert_eq!(layer.skills, Some(false));
}

#[test]
fn stored_forms_leave_absent_options_out_and_read_back() {
    let config = SessionConfig {
        model: Some("m".into()),
        constraints: Some(ToolConstraints::default()),
        ..Default::default()
    };
    let stored = serde_json::to_value(&config).unwrap();
    assert_eq!(stored, json!({"model": "m", "constraints": {}}));
    assert_eq!(
        serde_json::from_value::<SessionConfig>(stored).unwrap(),
        config
    );

    let definition = ToolDefinition {
        modules: Some(vec![ToolModule {
            name: "pii_redactor".into(),
            config: None,
        }]),
        ..ToolDefinition::new("Be kind.")
    };
    let stored = serde_json::to_value(&definition).unwrap();
    assert_eq!(
        stored,
        json!({"behavior": "Be kind.", "modules": [{"name": "pii_redactor"}]})
    );
    assert_eq!(
        serde_json::from_value::<ToolDefinition>(stored.clone()).unwrap(),
        definition
    );
    assert_eq!(
        layer(stored),
        ConfigOverrides::from(&definition),
        "a stored definition reads as the layer it is"
    );
}

#[test]
fn the_keys_the_sql_reads_are_the_stored_names() {
    let config = SessionConfig {
        model: Some("m".into()),
        max_messages: Some(1),
        max_session_duration_s: Some(2),
        ..Default::default()
    };
    let stored = serde_json::to_value(&config).unwrap();
    let keys: Vec<&str> = stored
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected = [
        SessionConfig::MODEL_KEY,
        SessionConfig::MAX_MESSAGES_KEY,
        SessionConfig::MAX_SESSION_DURATION_S_KEY,
    ];
    expected.sort_unstable();
    let mut keys = keys;
    keys.sort_unstable();
    assert_eq!(keys, expected);
}

#[test]
fn a_skill_answers_when_listed_and_within_the_constraints() {
    use SkillName::{Math, Timer};
    let of = |stored: Value| -> SessionConfig { serde_json::from_value(stored).unwrap() };
    // Absent: every skill; a listed set: those; `skills: false`: none.
    let all = of(json!({}));
    assert!(all.skill_allowed(Some(Math), true) && all.skill_allowed(Some(Timer), false));
    assert!(
        all.skill_allowed(None, false),
        "a skill without a name, when none are listed"
    );
    let timers = of(json!({"enabled_skills": ["timer"]}));
    assert!(timers.skill_allowed(Some(Timer), false));
    assert!(!timers.skill_allowed(Some(Math), true));
    assert!(!timers.skill_allowed(None, false));
    let off = of(json!({"skills": false, "enabled_skills": ["timer"]}));
    assert!(!off.skill_allowed(Some(Timer), false));
    // A tutor that gives no direct answers: not a skill that hands out the result, even
    // one it lists.
    let tutor = of(json!({
        "enabled_skills": ["timer", "math"],
        "constraints": {"no_direct_answers": true}
    }));
    assert!(!tutor.skill_allowed(Some(Math), true));
    assert!(tutor.skill_allowed(Some(Timer), false));
    // Stored lists keep the names they can read (an unknown one is dropped).
    let stored = of(json!({"enabled_skills": ["math", "weather", 3]}));
    assert_eq!(stored.enabled_skills, Some(vec![Math]));
    // The cascade: a layer's list replaces the one below.
    let mut config = of(json!({"enabled_skills": ["math"]}));
    config.overlay(&serde_json::from_value(json!({"enabled_skills": ["timer"]})).unwrap());
    assert_eq!(config.enabled_skills, Some(vec![Timer]));
}
