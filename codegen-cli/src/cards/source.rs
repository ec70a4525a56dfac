//! One card's text: its frontmatter split from its body, and positions in
//! it for diagnostics.

use super::*;

/// The text of a card, with where its YAML starts.
pub(crate) struct Source {
    pub path: PathBuf,
    /// The whole file.
    pub text: String,
    /// Where each line of `text` starts (byte offsets).
    pub(super) line_starts: Vec<usize>,
    /// The YAML as written (`${ENV}` references are resolved in the parsed
    /// values, never in the text: `env.rs`).
    pub yaml: String,
    /// The YAML's lines, indexed to locate keys and values.
    pub(super) index: yaml::Index,
    /// Lines before the YAML's first line.
    pub offset: usize,
    /// The instruction from the body of a `.md` card.
    pub body: Option<String>,
    /// The line of the body's first line.
    pub body_line: usize,
}

impl Source {
    pub(super) fn new(
        path: PathBuf,
        text: String,
        yaml: String,
        offset: usize,
        body: Option<String>,
        body_line: usize,
    ) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self {
            index: yaml::Index::new(&yaml),
            path,
            text,
            line_starts,
            yaml,
            offset,
            body,
            body_line,
        }
    }

    /// The text of line `line` (1-based) of the file, without its line break.
    pub(super) fn source_line(&self, line: usize) -> Option<&str> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |next| next - 1);
        let l = self.text.get(start..end)?;
        Some(l.strip_suffix('\r').unwrap_or(l))
    }

    /// A diagnostic at the key (or the value) at `path` in the YAML.
    pub fn at(&self, path: &[Seg<'_>], value: bool, message: impl Into<String>) -> Diagnostic {
        let loc = self.index.locate(path);
        let (col, len) = if value {
            loc.value_or_key()
        } else {
            (loc.key_col, loc.key_len)
        };
        let line = if path.is_empty() {
            self.offset.max(1)
        } else {
            loc.line + self.offset
        };
        self.line(line, col, len, message)
    }

    /// A diagnostic at a line of the whole file.
    pub fn line(
        &self,
        line: usize,
        col: usize,
        len: usize,
        message: impl Into<String>,
    ) -> Diagnostic {
        let line = line.max(1);
        Diagnostic::with_line(&self.path, self.source_line(line), line, col, len, message)
    }
}

pub(super) fn parse_card(
    display: &Path,
    bytes: &[u8],
    env: EnvLookup<'_>,
) -> Result<fields::Parsed, Vec<Diagnostic>> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t.to_owned(),
        Err(e) => {
            let (line, col) = line_col(bytes, e.valid_up_to());
            let lossy = String::from_utf8_lossy(bytes);
            return Err(vec![
                Diagnostic::new(
                    display,
                    Some(&lossy),
                    line,
                    col,
                    1,
                    "card is not valid UTF-8",
                )
                .help("save the card as UTF-8"),
            ]);
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_owned();
    let (raw_yaml, offset, body, body_line) = if is_md(display) {
        split_frontmatter(display, &text)?
    } else {
        (text.clone(), 0, None, 0)
    };
    let src = Source::new(display.to_owned(), text, raw_yaml, offset, body, body_line);
    let value = match yaml::parse(&src.yaml) {
        Ok(v) => env::expand(&src, v, env)?,
        Err(e) => {
            // An error at the end of the input points at the last YAML line,
            // not at the closing `---`.
            let yaml_lines = src.yaml.lines().count().max(1);
            let (line, col) = if e.line > yaml_lines {
                let last = src.yaml.lines().last().unwrap_or("");
                (yaml_lines, last.chars().count() + 1)
            } else {
                (e.line, e.col)
            };
            let help = if let Some(help) = &e.help {
                help.as_str()
            } else if e.message.starts_with("control characters") {
                "remove the control character, or write it as an escape in double quotes (`\"\\e\"`)"
            } else {
                src.source_line(line + offset)
                    .and_then(env::syntax_help)
                    .unwrap_or("check the indentation and the `key: value` syntax near this line")
            };
            return Err(vec![
                src.line(
                    line + offset,
                    col,
                    1,
                    format!("invalid YAML: {}", e.message),
                )
                .help(help),
            ]);
        }
    };
    fields::parse_fields(src, value)
}

pub(super) fn split_frontmatter(
    display: &Path,
    text: &str,
) -> Result<(String, usize, Option<String>, usize), Vec<Diagnostic>> {
    let lines: Vec<&str> = text.split('\n').collect();
    let is_fence = |l: &str| l.trim_end() == "---";
    if !lines.first().is_some_and(|l| is_fence(l)) {
        return Err(vec![
            Diagnostic::new(
                display,
                Some(text),
                1,
                1,
                3,
                "missing frontmatter: a `.md` card starts with a `---` line",
            )
            .help("start the card with `---`, the YAML fields, then `---` and the instruction"),
        ]);
    }
    let Some(close) = lines
        .iter()
        .skip(1)
        .position(|l| is_fence(l))
        .map(|i| i + 1)
    else {
        return Err(vec![
            Diagnostic::new(
                display,
                Some(text),
                1,
                1,
                3,
                "unclosed frontmatter: no closing `---` line",
            )
            .help("end the YAML fields with a line containing only `---`"),
        ]);
    };
    let yaml = lines[1..close].join("\n");
    let mut body_lines = &lines[close + 1..];
    let mut body_line = close + 2;
    while body_lines.first().is_some_and(|l| l.trim().is_empty()) {
        body_lines = &body_lines[1..];
        body_line += 1;
    }
    if body_lines
        .first()
        .is_some_and(|l| l.trim_end() == "---SYSTEM")
    {
        body_lines = &body_lines[1..];
        body_line += 1;
    }
    let body = body_lines.join("\n").trim().to_owned();
    Ok((yaml, 1, (!body.is_empty()).then_some(body), body_line))
}
