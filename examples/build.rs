//! Compiles the PMO AgentCards in `pmo/cards/` to Rust with `cardgen`'s
//! `Builder`; `src/pmo_cards.rs` includes the result.

fn main() {
    if let Err(error) = hookwire_codegen::Builder::new("pmo/cards").compile() {
        // A card error is a build error, printed as `path:line:col: error: ...`.
        eprintln!("{error}");
        std::process::exit(1);
    }
}
