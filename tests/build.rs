//! Generates, for the tests and benches of this crate:
//! * the agents of `codegen-cli/tests/cards/good` with `hookwire_codegen::Builder`
//!   (included by `tests/cards_e2e.rs` with `hookwire::include_agents!()`);
//! * the agent of `codegen-cli/tests/cards/locked` (an MCP lock and typed
//!   hooks on its tools), into `$OUT_DIR/locked_agents` (for
//!   `tests/suite/mcp_typed_hooks.rs`);
//! * a card that gives every setting (each row of the settings table,
//!   `hookwire_spec::for_each_setting!`) its example, compiled into
//!   `$OUT_DIR/settings_agents` (for `tests/suite/settings.rs`);
//! * three agents with 10, 100 and 1,000 tools, through the same emitter, for
//!   `benches/dispatch.rs` (name dispatch must stay flat).

use std::path::{Path, PathBuf};

use hookwire_codegen::emit::{self, EmitOptions};
use hookwire_codegen::spec::{AgentSpec, HookRef, ToolRef};

fn main() {
    hookwire_codegen::Builder::new("../codegen-cli/tests/cards/good").compile();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    // A card whose MCP server is pinned by a lock, with typed hooks over
    // the locked tools' generated argument types.
    hookwire_codegen::Builder::new("../codegen-cli/tests/cards/locked")
        .out_dir(out.join("locked_agents"))
        .compile();
    every_setting_card(&out);
    for n in [10usize, 100, 1000] {
        let mut spec =
            AgentSpec::new(format!("bench{n}")).with_tool_hook(HookRef::new("crate::Count"));
        for i in 0..n {
            spec = spec.with_function_tool(ToolRef::new(
                format!("crate::BenchTool<{i}>"),
                format!("tool_{i}"),
            ));
        }
        let opts = EmitOptions::new(syn::parse_quote!(::hookwire)).declare_agent_type(true);
        let tokens = match emit::agent(&spec, &opts) {
            Ok(t) => t,
            Err(e) => panic!("emit: {e}"),
        };
        let code = match emit::format_file(tokens, &format!("bench{n}")) {
            Ok(c) => c,
            Err(e) => panic!("format: {e}"),
        };
        if let Err(e) = std::fs::write(out.join(format!("dispatch_{n}.rs")), code) {
            panic!("write: {e}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// The card `Every-Setting`, written from the settings table (every
/// setting with its example), compiled into `out/settings_agents`: a row
/// the cards or the emitter do not take fails the build here.
fn every_setting_card(out: &Path) {
    let dir = out.join("settings_cards");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("create {}: {e}", dir.display());
    }
    let mut card =
        String::from("name: Every-Setting\ndescription: Every setting, at its example.\n");
    for setting in hookwire_codegen::spec::SETTINGS {
        card.push_str(&format!("{}: {}\n", setting.key, setting.example));
    }
    if let Err(e) = std::fs::write(dir.join("Every-Setting.yaml"), card) {
        panic!("write the settings card: {e}");
    }
    hookwire_codegen::Builder::new(&dir)
        .out_dir(out.join("settings_agents"))
        .emit_rerun_if_changed(false)
        .compile();
}
