/// Echo.
pub fn echo(text: String) -> Vec<u8> { text.into_bytes() }
