//! The settings table (`hookwire_spec::for_each_setting!`) drives the card
//! front end, the emitter, the declaration's keys, the JSON Schema and the
//! docs: every row is read from a card with its example, reaches its
//! `AgentConfig` builder in the generated code, is a key of every
//! declaration, has its kind's schema, and has its line in CARDS.md. A row
//! added without one of its parts fails here (`#[agent]` and the runtime:
//! `tests/tests/suite/settings.rs`).

use std::path::Path;

use hookwire_codegen::cards;
use hookwire_codegen::emit::{self, EmitOptions};
use hookwire_codegen::spec::{AGENT_FIELDS, SETTINGS, Settings};

#[test]
fn every_setting_is_read_from_a_card_and_reaches_its_builder() {
    for setting in SETTINGS {
        let card = format!("name: a\n{}: {}\n", setting.key, setting.example);
        let spec = cards::check_card(Path::new("a.yaml"), card.as_bytes()).unwrap_or_else(|d| {
            panic!("`{}` is refused: {d:?}", card.trim_end());
        });
        assert_ne!(
            spec.settings,
            Settings::default(),
            "`{}` left the spec's settings at their defaults",
            card.trim_end()
        );
        assert!(spec.validate().is_empty(), "{}", setting.key);
        let opts = EmitOptions::new(syn::parse_quote!(::hookwire));
        let code = emit::format_file(emit::agent(&spec, &opts).unwrap(), "a").unwrap();
        assert!(
            code.contains(&format!(".{}(", setting.builder)),
            "the code generated for `{}` does not call `{}`:\n{code}",
            card.trim_end(),
            setting.builder
        );
    }
}

#[test]
fn every_setting_is_a_key_with_its_kinds_schema_and_its_line_in_cards_md() {
    let schema = cards::schema();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cards_md = std::fs::read_to_string(manifest.join("CARDS.md")).unwrap();
    for setting in SETTINGS {
        assert!(AGENT_FIELDS.contains(&setting.key), "{}", setting.key);
        assert!(cards::FIELDS.contains(&setting.key), "{}", setting.key);
        assert_eq!(
            schema["properties"][setting.key],
            (setting.schema)(),
            "{}",
            setting.key
        );
        assert!(
            cards_md.contains(&format!("\n{}: ", setting.key)),
            "CARDS.md's example card has no `{}:` line",
            setting.key
        );
    }
}

#[test]
fn a_setting_the_runtime_cannot_hold_is_an_error_of_the_spec() {
    let mut spec = hookwire_codegen::spec::AgentSpec::new("a");
    spec.settings.max_display_instances = Some(0);
    let errors = spec.validate();
    assert_eq!(
        errors[0].to_string(),
        "`max_display_instances` must be greater than 0, found 0"
    );
    assert_eq!(errors[0].field.to_string(), "max_display_instances");
}
