//! The settings table (`hookwire_spec::for_each_setting!`) reaches
//! `AgentConfig` from both front ends: an `#[agent]` expanded from the
//! table and a card written from it (`build.rs`), each giving every setting
//! its example, leave no setting's field at its default, and agree. A row
//! that `#[agent]`, the cards, the emitter or the runtime does not take
//! fails here (the cards' own checks, schema and docs:
//! `codegen-cli/tests/suite/settings.rs`).

use hookwire::agent::{Agent, AgentConfig};

mod card {
    hookwire::include_agents!("settings_agents");
}

macro_rules! every_setting {
    ($( [$key:ident, $kind:ident $(<$param:ty>)?, $doc:literal, $example:literal,
        $field:ident, ($($default:expr)?), $builder:ident, $builder_doc:literal] )*) => {
        /// Every setting, at its example.
        #[hookwire::agent(
            name = "Every-Setting",
            description = "Every setting, at its example.",
            $($key = $example),*
        )]
        struct EverySetting;

        /// The settings whose field in `config` is at its default.
        fn at_default(config: &AgentConfig) -> Vec<&'static str> {
            let default = AgentConfig::new("default");
            let mut out = Vec::new();
            $(
                if config.$field == default.$field {
                    out.push(stringify!($key));
                }
            )*
            out
        }
    };
}

hookwire_spec::for_each_setting!(every_setting);

#[test]
fn every_setting_reaches_agent_config_from_the_macro_and_from_a_card() {
    let from_macro = EverySetting::new();
    let from_card = card::EverySetting::new();
    assert_eq!(at_default(from_macro.config()), Vec::<&str>::new());
    assert_eq!(at_default(from_card.config()), Vec::<&str>::new());
    assert_eq!(from_macro.config(), from_card.config());
}
