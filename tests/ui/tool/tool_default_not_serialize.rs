/// How to search.
#[hookwire::args]
#[derive(Clone, Copy)]
pub enum Mode {
    /// Quickly.
    Fast,
    /// Thoroughly.
    Deep,
}

/// Searches.
#[hookwire::tool]
fn search(query: String, #[default(Mode::Fast)] mode: Mode) -> String {
    let _ = mode;
    query
}

fn main() {}
