//! The tool-name rules: what a model API accepts as a tool name, the names
//! child agents (`agent__<name>`) and MCP tools (`server__tool`) get, and
//! the name a request-start injection calls. The runtime, the emitter, the
//! macro and `cardgen` all use these, so a name is spelled one way.

/// The longest tool name the model APIs accept (OpenAI, Anthropic:
/// `^[a-zA-Z0-9_-]{1,64}$`).
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// The prefix of the tool name of an agent called by another one.
pub const AGENT_TOOL_PREFIX: &str = "agent__";

/// The separator between an MCP server's name and its tool's:
/// `server__tool`.
pub const SERVER_SEPARATOR: &str = "__";

/// Whether the model APIs accept `c` in a tool name: an ASCII letter, a
/// digit, `_` or `-`.
pub const fn is_tool_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// The first character of `name` that a tool name cannot hold, if any.
pub fn invalid_tool_name_char(name: &str) -> Option<char> {
    name.chars().find(|c| !is_tool_name_char(*c))
}

/// Whether every model API accepts `name` as a tool name: 1 to
/// [`MAX_TOOL_NAME_LEN`] ASCII letters, digits, `_` or `-`.
///
/// ```
/// use hookwire_spec::is_valid_tool_name;
///
/// assert!(is_valid_tool_name("get_time"));
/// assert!(!is_valid_tool_name("get time") && !is_valid_tool_name(""));
/// assert!(!is_valid_tool_name(&"x".repeat(65)));
/// ```
pub fn is_valid_tool_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_TOOL_NAME_LEN && invalid_tool_name_char(name).is_none()
}

/// Replaces every character that a tool name cannot hold with `_`, as
/// DIAL's `sanitize_toolname` does.
///
/// ```
/// assert_eq!(hookwire_spec::sanitize_tool_name("memory server.get"), "memory_server_get");
/// ```
pub fn sanitize_tool_name(name: &str) -> String {
    name.chars()
        .map(|c| if is_tool_name_char(c) { c } else { '_' })
        .collect()
}

/// The tool name of the agent `agent` as a child of another:
/// `agent__<agent>`.
///
/// ```
/// assert_eq!(hookwire_spec::agent_tool_name("NY"), "agent__NY");
/// ```
pub fn agent_tool_name(agent: &str) -> String {
    format!("{AGENT_TOOL_PREFIX}{agent}")
}

/// The names a request-start injection of `tool` from `toolset` may call,
/// in the order the runtime tries them: the MCP name `toolset__tool` first,
/// then DIAL's sanitized `toolset_tool`. Without a toolset, the tool name
/// verbatim.
///
/// ```
/// use hookwire_spec::injection_tool_names;
///
/// assert_eq!(injection_tool_names(Some("memory"), "get"), ["memory__get", "memory_get"]);
/// assert_eq!(injection_tool_names(None, "get.all"), ["get.all"]);
/// ```
pub fn injection_tool_names(toolset: Option<&str>, tool: &str) -> Vec<String> {
    match toolset {
        None => vec![tool.to_owned()],
        Some(toolset) => vec![
            format!("{toolset}{SERVER_SEPARATOR}{tool}"),
            sanitize_tool_name(&format!("{toolset}_{tool}")),
        ],
    }
}
