//! Card diagnostics: `path:line:col: error: ...` with the source line, a
//! caret and a help line.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};

/// One error in a card or in a Rust file a card references.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The file.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
    /// How many characters the caret underlines (at least one).
    pub len: usize,
    /// What is wrong.
    pub message: String,
    /// The source line, if the file could be read.
    pub source_line: Option<String>,
    /// How to fix it.
    pub help: Option<String>,
    /// More context (for example where a duplicate was first declared).
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `line:col` of `path`, whose text is `source` (for the
    /// source line).
    pub fn new(
        path: &Path,
        source: Option<&str>,
        line: usize,
        col: usize,
        len: usize,
        message: impl Into<String>,
    ) -> Self {
        let line = line.max(1);
        let source_line = source.and_then(|s| s.lines().nth(line - 1));
        Self::with_line(path, source_line, line, col, len, message)
    }

    /// [`Diagnostic::new`] with the source line already found.
    pub(crate) fn with_line(
        path: &Path,
        source_line: Option<&str>,
        line: usize,
        col: usize,
        len: usize,
        message: impl Into<String>,
    ) -> Self {
        // The lowering shared with `#[agent]` writes its advice after the
        // message, as rustc shows it (`...\nhelp: ...`): here it is the
        // help line.
        let mut message: String = message.into();
        let help = message.find("\nhelp: ").map(|at| {
            let help = message[at + "\nhelp: ".len()..].to_owned();
            message.truncate(at);
            help
        });
        Self {
            path: path.to_owned(),
            line: line.max(1),
            col: col.max(1),
            len: len.max(1),
            message,
            source_line: source_line.map(str::to_owned),
            help,
            notes: Vec::new(),
        }
    }

    /// Adds a help line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a help line if there is one.
    pub fn maybe_help(mut self, help: Option<String>) -> Self {
        if help.is_some() {
            self.help = help;
        }
        self
    }

    /// Adds a note.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

/// Every user string reaches the terminal through here: the path, the
/// message, the source line, the help and the notes are written with
/// [`escape`], so a name holding a line break cannot forge a second
/// `file:line: error:` line, nor an escape sequence or a text-direction
/// character change what the terminal shows. The caret follows the
/// escaped source line.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}:{}: error: {}",
            escape(&self.path.display().to_string()),
            self.line,
            self.col,
            escape(&self.message)
        )?;
        let gutter = self.line.to_string().len();
        let pad = " ".repeat(gutter);
        if let Some(src) = &self.source_line {
            // Each character's escaped text (a tab shows as one space).
            let shown: Vec<Cow<'_, str>> = src
                .chars()
                .map(|c| match c {
                    '\t' => Cow::Borrowed(" "),
                    c => escape_char(c),
                })
                .collect();
            let width = |chars: &[Cow<'_, str>]| chars.iter().map(|s| s.chars().count()).sum();
            let start = (self.col - 1).min(shown.len());
            let end = (start + self.len).min(shown.len());
            let before: usize = width(&shown[..start]) + (self.col - 1 - start);
            let len: usize = width(&shown[start..end]);
            let line: String = shown.concat();
            writeln!(f, "{pad} |")?;
            writeln!(f, "{} | {}", self.line, line)?;
            writeln!(
                f,
                "{pad} | {}{}",
                " ".repeat(before),
                "^".repeat(len.max(1))
            )?;
        }
        if let Some(help) = &self.help {
            writeln!(f, "{pad} = help: {}", escape(help))?;
        }
        for note in &self.notes {
            writeln!(f, "{pad} = note: {}", escape(note))?;
        }
        Ok(())
    }
}

/// Whether `c` is written as an escape in a diagnostic: control characters
/// (line breaks, tabs, ESC, BEL), other line and paragraph separators,
/// text-direction controls and invisible formatting characters.
fn needs_escape(c: char) -> bool {
    super::text::unsafe_in_comment(c)
        || matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{180E}')
}

/// `c` as a diagnostic shows it: `\n`, `\r`, `\t`, `\u{1b}`, or itself.
fn escape_char(c: char) -> Cow<'static, str> {
    match c {
        '\n' => Cow::Borrowed("\\n"),
        '\r' => Cow::Borrowed("\\r"),
        '\t' => Cow::Borrowed("\\t"),
        c if needs_escape(c) => Cow::Owned(c.escape_unicode().to_string()),
        c => {
            let mut s = String::with_capacity(4);
            s.push(c);
            Cow::Owned(s)
        }
    }
}

/// `text` safe to print on one line of a terminal: line breaks, control
/// characters, text-direction and invisible formatting characters written
/// as escapes (`\n`, `\u{1b}`, `\u{202e}`); everything else as it is.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(escape_char).collect())
}

pub use crate::spec::did_you_mean;

/// How many names a note lists before "and N more".
const LISTED: usize = 20;

/// `names` joined with `, `: the first twenty, then how many more there
/// are (a note stays short when thousands of names are known).
pub(crate) fn listing(names: &[&str]) -> String {
    let mut out = names
        .iter()
        .take(LISTED)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > LISTED {
        out.push_str(&format!(" and {} more", names.len() - LISTED));
    }
    out
}

/// [`did_you_mean`] within a budget of comparisons for one load: with
/// thousands of unknown references among thousands of names, comparing
/// each with each would take quadratic time, so past the budget the
/// remaining errors come without a suggestion.
#[derive(Debug)]
pub(crate) struct Suggester {
    /// Comparisons left.
    budget: usize,
}

impl Default for Suggester {
    fn default() -> Self {
        Self { budget: 100_000 }
    }
}

impl Suggester {
    /// [`did_you_mean`], if the budget still covers every candidate.
    pub(crate) fn did_you_mean<'a>(
        &mut self,
        word: &str,
        candidates: &[&'a str],
    ) -> Option<&'a str> {
        self.budget = self.budget.checked_sub(candidates.len())?;
        did_you_mean(word, candidates.iter().copied())
    }
}

/// The 1-based line and column of byte offset `at` in `bytes` (columns count
/// characters of the valid prefix).
pub fn line_col(bytes: &[u8], at: usize) -> (usize, usize) {
    let before = &bytes[..at.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, col)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_rustc() {
        let d = Diagnostic::new(
            Path::new("cards/a.md"),
            Some("---\nnmae: x\n"),
            2,
            1,
            4,
            "unknown field `nmae`",
        )
        .help("did you mean `name`?");
        assert_eq!(
            d.to_string(),
            "cards/a.md:2:1: error: unknown field `nmae`\n  |\n2 | nmae: x\n  | ^^^^\n  = help: did you mean `name`?\n"
        );
    }

    #[test]
    fn user_text_is_escaped_and_the_caret_follows_it() {
        let d = Diagnostic::new(
            Path::new("cards/a\nb.md"),
            Some("name: \u{1b}[31m\u{202e}x\tbad\n"),
            1,
            7,
            7,
            "agent name `\u{1b}[31m\u{202e}x` is bad\ncards/z.md:1:1: error: forged",
        )
        .help("not `\u{7}`")
        .note("a\rb");
        assert_eq!(
            d.to_string(),
            "cards/a\\nb.md:1:7: error: agent name `\\u{1b}[31m\\u{202e}x` is bad\\ncards/z.md:1:1: error: forged\n\
             \x20 |\n\
             1 | name: \\u{1b}[31m\\u{202e}x bad\n\
             \x20 |       ^^^^^^^^^^^^^^^^^^^\n\
             \x20 = help: not `\\u{7}`\n\
             \x20 = note: a\\rb\n"
        );
        assert_eq!(escape("plain `text` é"), "plain `text` é");
    }

    #[test]
    fn suggestions() {
        let fields = ["name", "instruction", "max_parallel", "tool_hooks"];
        assert_eq!(did_you_mean("nmae", fields), Some("name"));
        assert_eq!(did_you_mean("max_paralel", fields), Some("max_parallel"));
        assert_eq!(did_you_mean("toolhooks", fields), Some("tool_hooks"));
        assert_eq!(did_you_mean("zzzzzz", fields), None);
        assert_eq!(line_col(b"ab\ncd\xffe", 5), (2, 3));
    }
}
