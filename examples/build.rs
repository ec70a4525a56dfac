//! Compiles the PMO AgentCards in `pmo/cards/` to Rust with `cardgen`'s
//! `Builder`; `src/pmo_cards.rs` includes the result.

fn main() {
    // A card error fails the build, printed as `path:line:col: error: ...`.
    hookwire_codegen::Builder::new("pmo/cards").compile();
}
