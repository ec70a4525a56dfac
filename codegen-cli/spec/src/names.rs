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

/// The name the model sees for the MCP tool `tool` of `server`, before
/// collisions are resolved: `server__tool`, the tool's name sanitised
/// ([`sanitize_tool_name`]), and a name over [`MAX_TOOL_NAME_LEN`] cut to 55
/// characters with `_` and 8 hex digits of a hash (FNV-1a, 32 bits) of the
/// full name. The runtime names MCP tools with it, and the checks of
/// locked MCP tools too.
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    let mut name = String::with_capacity(server.len() + SERVER_SEPARATOR.len() + tool.len());
    name.push_str(server);
    name.push_str(SERVER_SEPARATOR);
    name.push_str(&sanitize_tool_name(tool));
    if name.len() > MAX_TOOL_NAME_LEN {
        let hash = fnv1a(format!("{server}{SERVER_SEPARATOR}{tool}").as_bytes());
        name.truncate(MAX_TOOL_NAME_LEN - 9);
        name.push_str(&format!("_{hash:08x}"));
    }
    name
}

fn fnv1a(bytes: &[u8]) -> u32 {
    let mut hash: u32 = 0x811c_9dc5;
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash
}

/// The longest durable name (the prefix of an agent's Restate service
/// names, `<name>Session` and `<name>Approval`).
pub const MAX_DURABLE_NAME_LEN: usize = 64;

/// Whether `name` can be an agent's durable name: 1 to
/// [`MAX_DURABLE_NAME_LEN`] characters, an ASCII letter first, then ASCII
/// letters, digits, `_`, `.` or `-` (so that `<name>Session` and
/// `<name>Approval` are valid Restate service names). A `const fn`, so that
/// a name written in code is checked at compile time.
///
/// ```
/// use hookwire_spec::is_valid_durable_name;
/// assert!(is_valid_durable_name("Pmo") && is_valid_durable_name("billing.v2-eu"));
/// assert!(!is_valid_durable_name("2fa") && !is_valid_durable_name("a/b") && !is_valid_durable_name(""));
/// ```
pub const fn is_valid_durable_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > MAX_DURABLE_NAME_LEN || !bytes[0].is_ascii_alphabetic() {
        return false;
    }
    let mut i = 1;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-') {
            return false;
        }
        i += 1;
    }
    true
}

/// The one rule for durable names, from either front end
/// (`#[agent(durable_name = "..")]`, a card's `durable_name:`): see
/// [`is_valid_durable_name`].
///
/// ```
/// use hookwire_spec::check_durable_name;
/// assert!(check_durable_name("Pmo").is_ok());
/// let e = check_durable_name("pmo/eu").unwrap_err();
/// assert_eq!(e.message, "durable name `pmo/eu` is not a valid Restate service name: `/` is not an ASCII letter, digit, `_`, `.` or `-`");
/// assert_eq!(e.help, "a durable name starts with an ASCII letter, then has ASCII letters, digits, `_`, `.` and `-` only, for example `PmoEu`");
/// ```
pub fn check_durable_name(name: &str) -> Result<(), InvalidName> {
    if is_valid_durable_name(name) {
        return Ok(());
    }
    let why = match name.chars().next() {
        None => "it is empty".to_owned(),
        Some(first) if !first.is_ascii_alphabetic() => {
            format!(
                "it starts with `{}`, not an ASCII letter",
                first.escape_debug()
            )
        }
        _ => match name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
        {
            Some(bad) => format!(
                "`{}` is not an ASCII letter, digit, `_`, `.` or `-`",
                bad.escape_debug()
            ),
            None => format!(
                "it has {} characters, at most {MAX_DURABLE_NAME_LEN}",
                name.chars().count()
            ),
        },
    };
    Err(InvalidName::new(
        format!(
            "durable name `{}` is not a valid Restate service name: {why}",
            shown(name)
        ),
        format!(
            "a durable name starts with an ASCII letter, then has ASCII letters, digits, `_`, `.` and `-` only, for example `{}`",
            derived_durable_name(name)
        ),
    ))
}

/// The durable name an agent gets when it declares none: its name in
/// UpperCamelCase (`durable-PMO` is `DurablePMO`, `billing_bot` is
/// `BillingBot`), each run of characters other than ASCII letters and
/// digits a word break; `Agent` first when that leaves no letter in front
/// (`3d-viewer` is `Agent3dViewer`). Always valid, at most
/// [`MAX_DURABLE_NAME_LEN`] characters.
///
/// ```
/// use hookwire_spec::{derived_durable_name, is_valid_durable_name};
/// assert_eq!(derived_durable_name("durable-PMO"), "DurablePMO");
/// assert_eq!(derived_durable_name("billing_bot"), "BillingBot");
/// assert_eq!(derived_durable_name("3d-viewer"), "Agent3dViewer");
/// assert_eq!(derived_durable_name("--"), "Agent");
/// assert!(is_valid_durable_name(&derived_durable_name(&"x".repeat(200))));
/// ```
pub fn derived_durable_name(agent: &str) -> String {
    let mut out = String::new();
    for word in agent
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert_str(0, "Agent");
    }
    out.truncate(MAX_DURABLE_NAME_LEN);
    out
}

/// Why a name cannot be a tool or agent name: the message, and help that
/// suggests a name that passes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct InvalidName {
    /// What is wrong (on one line: the name is escaped).
    pub message: String,
    /// How to fix it, with a valid name where one can be made.
    pub help: String,
}

impl InvalidName {
    fn new(message: String, help: String) -> Self {
        Self { message, help }
    }
}

/// The one rule for tool names, from either front end (a card's tool, a
/// `#[tool]` function or its `name = ".."`): what every model API accepts,
/// 1 to [`MAX_TOOL_NAME_LEN`] ASCII letters, digits, `_` or `-`. `what`
/// says what the name is (`tool name`, `agent name`).
///
/// ```
/// use hookwire_spec::check_tool_name;
///
/// assert!(check_tool_name("get_time", "tool name").is_ok());
/// let e = check_tool_name("caf\u{e9}", "tool name").unwrap_err();
/// assert_eq!(e.message, "tool name `café` is not a valid tool name: `é` is not an ASCII letter, digit, `_` or `-`");
/// assert_eq!(e.help, "the model APIs accept tool names of ASCII letters, digits, `_` and `-` only, for example `caf`");
/// ```
pub fn check_tool_name(name: &str, what: &str) -> Result<(), InvalidName> {
    check_name_chars(name, what, MAX_TOOL_NAME_LEN)?;
    let len = name.len();
    if len > MAX_TOOL_NAME_LEN {
        return Err(InvalidName::new(
            format!(
                "{what} `{}` is too long for a tool name: {len} characters, at most {MAX_TOOL_NAME_LEN}",
                shown(name)
            ),
            format!(
                "the model APIs accept tool names of at most {MAX_TOOL_NAME_LEN} characters, for example `{}`",
                suggest_tool_name(name, MAX_TOOL_NAME_LEN)
            ),
        ));
    }
    Ok(())
}

/// The one rule for agent names, from either front end (`#[agent(name =
/// ..)]`, a card's `name:` or file stem): a valid tool name whose tool name
/// as a child, `agent__<name>`, is one too.
///
/// ```
/// use hookwire_spec::check_agent_name;
///
/// assert!(check_agent_name("PMO-orchestrator").is_ok());
/// let e = check_agent_name(&"a".repeat(58)).unwrap_err();
/// assert_eq!(e.help, format!("shorten the name to at most 57 characters, for example `{}`", "a".repeat(57)));
/// assert!(check_agent_name("calc\nfn evil() {}").unwrap_err().help.ends_with("`calc-fn-evil`"));
/// ```
pub fn check_agent_name(name: &str) -> Result<(), InvalidName> {
    let max = MAX_TOOL_NAME_LEN - AGENT_TOOL_PREFIX.len();
    check_name_chars(name, "agent name", max)?;
    let tool = agent_tool_name(name);
    if tool.len() > MAX_TOOL_NAME_LEN {
        return Err(InvalidName::new(
            format!(
                "agent name `{}` is too long: its tool name `agent__{}` has {} characters, the model APIs accept at most {MAX_TOOL_NAME_LEN}",
                shown(name),
                shown(name),
                tool.len()
            ),
            format!(
                "shorten the name to at most {max} characters, for example `{}`",
                suggest_tool_name(name, max)
            ),
        ));
    }
    Ok(())
}

/// The characters of a tool name (and that it is not empty), with a
/// suggestion of at most `max` characters.
fn check_name_chars(name: &str, what: &str, max: usize) -> Result<(), InvalidName> {
    if name.is_empty() {
        return Err(InvalidName::new(
            format!("{what} cannot be empty"),
            "give a name of ASCII letters, digits, `_` and `-`, for example `assistant`".to_owned(),
        ));
    }
    if let Some(bad) = invalid_tool_name_char(name) {
        return Err(InvalidName::new(
            format!(
                "{what} `{}` is not a valid tool name: `{}` is not an ASCII letter, digit, `_` or `-`",
                shown(name),
                bad.escape_debug()
            ),
            format!(
                "the model APIs accept tool names of ASCII letters, digits, `_` and `-` only, for example `{}`",
                suggest_tool_name(name, max)
            ),
        ));
    }
    Ok(())
}

/// `name` escaped for a one-line message, and cut short when very long.
fn shown(name: &str) -> String {
    const SHOWN: usize = 80;
    let mut out: String = name
        .chars()
        .take(SHOWN)
        .flat_map(char::escape_debug)
        .collect();
    if name.chars().nth(SHOWN).is_some() {
        out.push_str("...");
    }
    out
}

/// A valid name close to `name`: every character a tool name cannot hold
/// as `-`, the ends trimmed, at most `max` characters (`assistant` if
/// nothing is left).
fn suggest_tool_name(name: &str, max: usize) -> String {
    let s: String = name
        .chars()
        .map(|c| if is_tool_name_char(c) { c } else { '-' })
        .collect();
    let s: String = s.trim_matches('-').chars().take(max).collect();
    let s = s.trim_matches('-');
    if s.is_empty() {
        "assistant".to_owned()
    } else {
        s.to_owned()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The name a help suggests (`for example `x``), if any.
    fn suggested(help: &str) -> Option<&str> {
        let rest = help.split("for example `").nth(1)?;
        rest.split('`').next()
    }

    #[test]
    fn bad_names_are_refused_with_a_suggestion_that_passes() {
        let long = "a".repeat(200);
        let bad = [
            "calc\nbot",
            "\u{441}alc",
            "calc\u{202e}bot",
            long.as_str(),
            "caf\u{e9}",
            "a b",
            "",
        ];
        for name in bad {
            let agent = check_agent_name(name).unwrap_err();
            let tool = check_tool_name(name, "tool name");
            assert!(!agent.message.contains('\n') && !agent.help.contains('\n'));
            assert!(!agent.message.contains('\u{202e}'), "{}", agent.message);
            let fix = suggested(&agent.help).unwrap();
            assert!(check_agent_name(fix).is_ok(), "{name:?}: {fix:?}");
            if let Err(tool) = tool {
                let fix = suggested(&tool.help).unwrap();
                assert!(
                    check_tool_name(fix, "tool name").is_ok(),
                    "{name:?}: {fix:?}"
                );
            }
        }
        assert!(check_tool_name(&"a".repeat(64), "tool name").is_ok());
        assert!(check_agent_name(&"a".repeat(57)).is_ok());
        assert!(
            check_tool_name(&long, "tool name")
                .unwrap_err()
                .message
                .len()
                < 200
        );
    }
}
