//! The one rule for names, and the names the generated code gives a card.
//!
//! An agent's name reaches a model API as the tool name `agent__<name>`,
//! and the generated code as a type, a module and a file name, so every
//! agent name (given with `name:` or taken from the file stem) is checked
//! here, once: ASCII letters, digits, `_` and `-`, and short enough that
//! `agent__<name>` is at most [`MAX_TOOL_NAME`] characters. A name that
//! passes holds no line break, quote or path separator, so it is safe in
//! comments, file names and diagnostics alike.

use crate::spec::{
    check_agent_name as check_spec_agent_name, check_tool_name as check_spec_tool_name,
};

/// Why `name` cannot be a tool name, as (message, help): the spec's rule
/// (`hookwire_spec::check_tool_name`), the `#[tool]` macro's too.
pub(crate) fn check_tool_name(name: &str, what: &str) -> Result<(), (String, String)> {
    check_spec_tool_name(name, what).map_err(|e| (e.message, e.help))
}

/// Why `name` cannot name an agent, as (message, help): the spec's rule
/// (`hookwire_spec::check_agent_name`), the `#[agent]` macro's too, and a
/// name the generated code can make a Rust type of.
pub(crate) fn check_agent_name(name: &str) -> Result<(), (String, String)> {
    check_spec_agent_name(name).map_err(|e| (e.message, e.help))?;
    if Generated::for_agent(name).is_none() {
        return Err((
            format!(
                "agent name `{name}` has no ASCII letters or digits to make a Rust type name from"
            ),
            "use a name with a letter, for example `assistant`".to_owned(),
        ));
    }
    Ok(())
}

/// The names the generated code gives an agent: all of them share the
/// type namespace of the generated `mod.rs`, which declares the module and
/// re-exports the two types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Generated {
    /// The agent type: `PMO-orchestrator` -> `PmoOrchestrator`.
    pub type_name: String,
    /// Its tool-set type: `PmoOrchestratorTools`.
    pub tools_type: String,
    /// The module (and file stem): `pmo_orchestrator`.
    pub module: String,
}

impl Generated {
    /// The names for the agent `name`; `None` if it gives no type name.
    pub fn for_agent(name: &str) -> Option<Self> {
        let type_name = crate::emit::type_name_for(name)?;
        let module = snake(&type_name);
        Some(Self {
            tools_type: format!("{type_name}Tools"),
            type_name,
            module,
        })
    }

    /// Each name with what it is, for messages.
    pub fn all(&self) -> [(&str, &'static str); 3] {
        [
            (&self.type_name, "agent type"),
            (&self.tools_type, "tool-set type"),
            (&self.module, "module"),
        ]
    }
}

/// Words reserved in edition 2024 that `syn` parses as identifiers.
const RESERVED: &[&str] = &["gen"];

/// `PmoOrchestrator` -> `pmo_orchestrator` (a keyword gets `_agent`).
pub(crate) fn snake(pascal: &str) -> String {
    let mut out = crate::emit::snake_case(pascal);
    // `gen` is reserved in edition 2024, which `syn` still reads as an
    // identifier.
    if syn::parse_str::<syn::Ident>(&out).is_err() || RESERVED.contains(&out.as_str()) {
        out.push_str("_agent");
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn agent_names_are_tool_names_that_give_rust_names() {
        assert!(check_agent_name("PMO-orchestrator").is_ok());
        assert!(check_agent_name(&"a".repeat(57)).is_ok());
        for bad in ["a b", "a/b", "a\nb", "a\rb", "caf\u{e9}", "--", ""] {
            assert!(check_agent_name(bad).is_err(), "{bad:?}");
        }
        let (message, help) = check_agent_name(&"a".repeat(58)).unwrap_err();
        assert!(message.contains("65 characters"), "{message}");
        assert_eq!(
            help,
            format!(
                "shorten the name to at most 57 characters, for example `{}`",
                "a".repeat(57)
            )
        );
        let (message, help) = check_agent_name("calc\nfn evil() {}").unwrap_err();
        assert!(!message.contains('\n') && !help.contains('\n'), "{message}");
        assert!(help.ends_with("`calc-fn-evil`"), "{help}");
    }

    #[test]
    fn generated_names() {
        let g = Generated::for_agent("calc-tools").unwrap();
        assert_eq!(
            (
                g.type_name.as_str(),
                g.tools_type.as_str(),
                g.module.as_str()
            ),
            ("CalcTools", "CalcToolsTools", "calc_tools")
        );
        assert_eq!(Generated::for_agent("self").unwrap().module, "self_agent");
        for reserved in ["gen", "try", "async", "dyn", "abstract"] {
            assert_eq!(
                Generated::for_agent(reserved).unwrap().module,
                format!("{reserved}_agent")
            );
        }
    }
}
