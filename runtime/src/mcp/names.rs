//! The names MCP tools get: `server__tool`, at most 64 characters.
//!
//! The rule, applied in order:
//!
//! 1. The name is `{server}__{tool}`. Characters other than ASCII letters,
//!    digits, `_` and `-` in the tool's name become `_` (model APIs accept
//!    only these).
//! 2. A name longer than [`MAX_NAME_LEN`] (64) characters is cut to 55
//!    characters and gets `_` and 8 hex digits of a hash of the full,
//!    uncut name: `{first 55}_{hash:08x}`. The hash (FNV-1a, 32 bits) is
//!    stable across runs and platforms.
//! 3. **Collisions.** Tools are named in a fixed order: servers in the order
//!    they are declared, each server's tools in the order its `tools/list`
//!    returns them. A name that is already taken (by an earlier MCP tool,
//!    or by a reserved name such as a static tool's) is not reused: the
//!    later tool gets the suffix `_2` (then `_3`, ...), cutting the name
//!    first if needed to stay within 64 characters. The first tool keeps
//!    its name; no tool is dropped.

use std::collections::HashSet;

/// The longest tool name model APIs accept.
pub const MAX_NAME_LEN: usize = hookwire_spec::MAX_TOOL_NAME_LEN;

/// The separator between the server's name and the tool's.
pub const SEPARATOR: &str = hookwire_spec::SERVER_SEPARATOR;

/// The name the model sees for `tool` on `server`, before collisions are
/// resolved (steps 1 and 2 of the [module rule](self)).
///
/// ```
/// use hookwire::mcp::exposed_name;
///
/// assert_eq!(exposed_name("time", "get_current_time"), "time__get_current_time");
/// assert_eq!(exposed_name("fs", "read.file"), "fs__read_file");
/// let long = exposed_name("everything", &"x".repeat(80));
/// assert_eq!(long.len(), 64);
/// assert!(long.starts_with("everything__xxx"));
/// ```
pub fn exposed_name(server: &str, tool: &str) -> String {
    hookwire_spec::mcp_tool_name(server, tool)
}

/// Gives out unique names under the [module rule](self).
#[derive(Debug, Default, Clone)]
pub struct NameAllocator {
    taken: HashSet<String>,
}

impl NameAllocator {
    /// An allocator where `reserved` names (for example the static tools'
    /// names) are already taken.
    pub fn new(reserved: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            taken: reserved.into_iter().map(Into::into).collect(),
        }
    }

    /// A unique name for `tool` on `server`.
    pub fn allocate(&mut self, server: &str, tool: &str) -> String {
        let base = exposed_name(server, tool);
        if self.taken.insert(base.clone()) {
            return base;
        }
        let mut n = 2u32;
        loop {
            let suffix = format!("_{n}");
            let mut candidate = base.clone();
            candidate.truncate(MAX_NAME_LEN - suffix.len());
            candidate.push_str(&suffix);
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_and_hashed_deterministically() {
        let a = exposed_name("srv", &"a".repeat(70));
        let b = exposed_name("srv", &format!("{}b", "a".repeat(69)));
        assert_eq!(a.len(), MAX_NAME_LEN);
        assert_eq!(b.len(), MAX_NAME_LEN);
        assert_eq!(a[..MAX_NAME_LEN - 9], b[..MAX_NAME_LEN - 9]);
        assert_ne!(
            a, b,
            "the hash tells apart names that share a 55-char prefix"
        );
        assert_eq!(a, exposed_name("srv", &"a".repeat(70)));
    }

    #[test]
    fn exactly_64_is_kept() {
        let tool = "t".repeat(MAX_NAME_LEN - "s__".len());
        assert_eq!(exposed_name("s", &tool), format!("s__{tool}"));
    }

    #[test]
    fn collisions_get_numbered_suffixes_in_order() {
        let mut names = NameAllocator::new(["fs__read"]);
        // `read.file` and `read_file` sanitize to the same name.
        assert_eq!(names.allocate("fs", "read_file"), "fs__read_file");
        assert_eq!(names.allocate("fs", "read.file"), "fs__read_file_2");
        assert_eq!(names.allocate("fs", "read file"), "fs__read_file_3");
        // A reserved (static) name is never given to an MCP tool.
        assert_eq!(names.allocate("fs", "read"), "fs__read_2");
        // A suffix on a 64-char name cuts the name to stay within 64.
        let long = "z".repeat(61);
        let first = names.allocate("s", &long);
        let second = names.allocate("s", &long);
        assert_eq!(first.len(), 64);
        assert_eq!(second.len(), 64);
        assert!(second.ends_with("_2"), "{second}");
    }
}
