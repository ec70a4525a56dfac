/// Echoes.
pub fn echo(text: String) -> String { text }
/// Runs a command.
pub fn shell(command: String) -> String { command }
