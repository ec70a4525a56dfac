/// Echoes.
pub fn echo(text: String) -> String { text }
/// Runs a command.
#[hookwire::tool(meta(risk = "high", kind = "exec"))]
pub fn shell(command: String) -> String { command }
