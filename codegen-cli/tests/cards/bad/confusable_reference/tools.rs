/// Echoes.
pub fn echo(text: String) -> String { text }
