//! Where a value sits in YAML text: [`locate`] and [`Index`] read block
//! style exactly and fall back to the nearest enclosing key for flow style.

use super::{Yaml, parse};

/// One step of a path into a YAML document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg<'a> {
    /// A mapping key.
    Key(&'a str),
    /// A sequence index.
    Index(usize),
}

/// Where something is in the text (1-based lines and columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Loc {
    /// The line.
    pub line: usize,
    /// The column of the key (or list item).
    pub key_col: usize,
    /// The length of the key.
    pub key_len: usize,
    /// The column of the value on the same line, if any.
    pub value_col: usize,
    /// The length of that value (0 if the value is on later lines).
    pub value_len: usize,
}

impl Loc {
    /// The value's column and length if it is on this line, else the key's.
    pub fn value_or_key(&self) -> (usize, usize) {
        if self.value_len > 0 {
            (self.value_col, self.value_len)
        } else {
            (self.key_col, self.key_len.max(1))
        }
    }
}

#[derive(Debug, Clone)]
struct Line {
    no: usize,
    indent: usize,
    /// The text, with `- ` of list items already consumed replaced by spaces.
    text: String,
}

fn lines_of(text: &str) -> Vec<Line> {
    text.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            let trimmed = l.trim_start_matches(' ');
            if trimmed.trim().is_empty() || trimmed.starts_with('#') {
                return None;
            }
            Some(Line {
                no: i + 1,
                indent: l.len() - trimmed.len(),
                text: l.to_owned(),
            })
        })
        .collect()
}

/// The length of a scalar value written at the start of `s`: up to a
/// ` #` comment, trailing spaces trimmed.
fn scalar_len(s: &str) -> usize {
    let end = s.find(" #").unwrap_or(s.len());
    s[..end].trim_end().chars().count()
}

/// Finds where the value at `path` is written in `text` (see
/// [`Index::locate`]). To locate many paths in one text, build an
/// [`Index`] once.
pub fn locate(text: &str, path: &[Seg<'_>]) -> Loc {
    Index::new(text).locate(path)
}

/// The lines of a YAML text, indexed once so that locating a path costs
/// about the same whatever the size of the text: a card with thousands of
/// errors is reported in linear time.
#[derive(Debug)]
pub struct Index {
    /// The lines that hold YAML (not blank, not only a comment).
    lines: Vec<Line>,
    /// For each line, the index of the first later line that is not
    /// indented deeper (where its block ends).
    block_end: Vec<usize>,
    /// The keys and items of the regions looked into so far, by range.
    regions: std::cell::RefCell<std::collections::HashMap<(usize, usize), std::rc::Rc<Region>>>,
}

/// The top level of a range of lines: its indentation, where each key and
/// each list item is.
#[derive(Debug, Default)]
struct Region {
    indent: Option<usize>,
    /// Key (as written, and unquoted) -> its first line.
    keys: std::collections::HashMap<String, usize>,
    /// The lines of its `- ` items, in order.
    items: Vec<usize>,
}

/// The lines a path step looks into: a range of [`Index::lines`], after
/// an optional first line of its own (the rest of a `- key: value` line).
struct Scope {
    first: Option<Line>,
    start: usize,
    end: usize,
}

impl Region {
    fn of<'a>(lines: impl Iterator<Item = (usize, &'a Line)> + Clone) -> Self {
        let indent = lines.clone().map(|(_, l)| l.indent).min();
        let mut region = Region {
            indent,
            ..Region::default()
        };
        for (i, l) in lines.filter(|(_, l)| Some(l.indent) == indent) {
            let rest = &l.text[l.indent..];
            if rest == "-" || rest.starts_with("- ") {
                region.items.push(i);
            }
            for (colon, _) in rest.match_indices(':') {
                for key in key_forms(&rest[..colon]) {
                    region.keys.entry(key).or_insert(i);
                }
            }
        }
        region
    }
}

/// The keys `written` (the text before a `:`) may stand for: as written,
/// and unquoted (a double-quoted key with escapes decoded, so that a key
/// holding a line break is found on its line).
fn key_forms(written: &str) -> Vec<String> {
    let key = written.trim_end_matches(' ');
    if key.is_empty() {
        return Vec::new();
    }
    let mut forms = vec![key.to_owned()];
    let single = key.strip_prefix('\'').and_then(|k| k.strip_suffix('\''));
    if let Some(k) = single {
        forms.push(k.replace("''", "'"));
    } else if key.starts_with('"') && key.ends_with('"') && key.len() > 1 {
        let inner = &key[1..key.len() - 1];
        match inner.contains('\\').then(|| parse(key)) {
            Some(Ok(Yaml::Str(k))) => forms.push(k),
            _ => forms.push(inner.to_owned()),
        }
    }
    forms
}

/// The byte offset of the `:` that ends the key `key` at the start of
/// `rest` (the first `:` whose text before it stands for `key`).
fn key_colon(rest: &str, key: &str) -> Option<usize> {
    rest.match_indices(':')
        .map(|(colon, _)| colon)
        .find(|&colon| key_forms(&rest[..colon]).iter().any(|k| k == key))
}

impl Index {
    /// Indexes the lines of `text`.
    pub fn new(text: &str) -> Self {
        let lines = lines_of(text);
        let mut block_end = vec![lines.len(); lines.len()];
        let mut open: Vec<usize> = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            while let Some(&j) = open.last() {
                if lines[j].indent >= l.indent {
                    block_end[j] = i;
                    open.pop();
                } else {
                    break;
                }
            }
            open.push(i);
        }
        Self {
            lines,
            block_end,
            regions: Default::default(),
        }
    }

    /// The line at `k` of `scope` (0 is its own first line, if any).
    fn line<'a>(&'a self, scope: &'a Scope, k: usize) -> Option<&'a Line> {
        match (&scope.first, k) {
            (Some(first), 0) => Some(first),
            (Some(_), k) => self.lines.get(scope.start + k - 1),
            (None, k) => self.lines.get(scope.start + k),
        }
    }

    /// The keys and items of `scope`, by position in it.
    fn region(&self, scope: &Scope) -> std::rc::Rc<Region> {
        let real = (scope.start..scope.end).map(|i| (i, &self.lines[i]));
        match &scope.first {
            Some(first) => {
                let start = scope.start;
                std::rc::Rc::new(Region::of(
                    std::iter::once((0, first)).chain(real.map(move |(i, l)| (i - start + 1, l))),
                ))
            }
            None => {
                let key = (scope.start, scope.end);
                if let Some(r) = self.regions.borrow().get(&key) {
                    return r.clone();
                }
                let r = std::rc::Rc::new(Region::of(real.map(|(i, l)| (i - scope.start, l))));
                self.regions.borrow_mut().insert(key, r.clone());
                r
            }
        }
    }

    /// The lines indented deeper than `indent` (that of the line at `k` of
    /// `scope`) after it: for a line of the text, up to where its block
    /// ends (known in advance); for the scope's own first line, found.
    fn children(&self, scope: &Scope, k: usize, indent: usize) -> Scope {
        let real = match (&scope.first, k) {
            (Some(_), 0) => None,
            (Some(_), k) => Some(scope.start + k - 1),
            (None, k) => Some(scope.start + k),
        };
        let (start, end) = match real {
            Some(i) => (i + 1, self.block_end[i].min(scope.end)),
            None => {
                let end = (scope.start..scope.end)
                    .find(|&i| self.lines[i].indent <= indent)
                    .unwrap_or(scope.end);
                (scope.start, end)
            }
        };
        Scope {
            first: None,
            start,
            end,
        }
    }

    /// Finds where the value at `path` is written: exactly for block style;
    /// for flow style (`[a, b]`, `{k: v}`) the items of a flat flow list
    /// are found, otherwise the nearest enclosing key is returned. The empty
    /// path is line 1.
    pub fn locate(&self, path: &[Seg<'_>]) -> Loc {
        let mut scope = Scope {
            first: None,
            start: 0,
            end: self.lines.len(),
        };
        let mut cur = Loc {
            line: self.lines.first().map_or(1, |l| l.no),
            key_col: 1,
            key_len: 1,
            value_col: 1,
            value_len: 0,
        };
        let mut inline: Option<(usize, String)> = None; // (column, text) of the current value
        for seg in path {
            let region = self.region(&scope);
            match *seg {
                Seg::Key(key) => {
                    let found = region
                        .indent
                        .and_then(|indent| Some((indent, *region.keys.get(key)?)));
                    let Some((indent, k)) = found else {
                        // A key of a flow mapping (`{a: 1, b: 2}`) on the line.
                        let Some((col, text)) = inline.take() else {
                            break;
                        };
                        let Some(entry) = flow_key(&text, key) else {
                            break;
                        };
                        cur.key_col = col + entry.key;
                        cur.key_len = entry.key_len;
                        cur.value_col = col + entry.value;
                        cur.value_len = entry.value_len;
                        inline = (entry.value_len > 0)
                            .then(|| (cur.value_col, text.chars().skip(entry.value).collect()));
                        scope = Scope {
                            first: None,
                            start: 0,
                            end: 0,
                        };
                        continue;
                    };
                    let Some(l) = self.line(&scope, k) else { break };
                    let rest = &l.text[indent..];
                    let colon = key_colon(rest, key).or_else(|| rest.find(':')).unwrap_or(0);
                    let after = &rest[colon + 1..];
                    let value_start = after.len() - after.trim_start().len();
                    let value = &after[value_start..];
                    let value_col = indent + colon + 1 + value_start + 1;
                    let value_len = if value.starts_with('#') {
                        0
                    } else {
                        scalar_len(value)
                    };
                    cur = Loc {
                        line: l.no,
                        key_col: indent + 1,
                        key_len: colon.max(1),
                        value_col,
                        value_len,
                    };
                    inline = (value_len > 0).then(|| (value_col, value.to_owned()));
                    scope = self.children(&scope, k, indent);
                }
                Seg::Index(n) => {
                    if let Some(&k) = region.items.get(n) {
                        let Some(l) = self.line(&scope, k) else { break };
                        let dash = l.indent;
                        let after = &l.text[dash + 1..];
                        let skip = after.len() - after.trim_start().len();
                        let value = &after[skip..];
                        let value_col = dash + 1 + skip + 1;
                        let value_len = scalar_len(value);
                        cur = Loc {
                            line: l.no,
                            key_col: dash + 1,
                            key_len: 1,
                            value_col,
                            value_len,
                        };
                        inline = (value_len > 0).then(|| (value_col, value.to_owned()));
                        let mut first = l.clone();
                        first
                            .text
                            .replace_range(dash..dash + 1 + skip, &" ".repeat(1 + skip));
                        first.indent = dash + 1 + skip;
                        let children = self.children(&scope, k, dash);
                        scope = Scope {
                            first: (!value.is_empty()).then_some(first),
                            ..children
                        };
                    } else if let Some((col, text)) = inline.take() {
                        if let Some((offset, len)) = flow_item(&text, n) {
                            cur.value_col = col + offset;
                            cur.value_len = len;
                            cur.key_col = cur.value_col;
                            cur.key_len = len;
                            inline = Some((cur.value_col, text.chars().skip(offset).collect()));
                        }
                        scope = Scope {
                            first: None,
                            start: 0,
                            end: 0,
                        };
                    } else {
                        break;
                    }
                }
            }
        }
        cur
    }
}

/// Where an entry of a flow mapping is, in characters from its `{`.
struct FlowEntry {
    key: usize,
    key_len: usize,
    value: usize,
    value_len: usize,
}

/// One top-level entry of a flow collection: its characters `start..end`
/// and, in a mapping, the `:` after its key.
struct FlowPart {
    start: usize,
    end: usize,
    colon: Option<usize>,
}

/// The top-level entries of the flow collection `chars` opened by `open`
/// (`[` or `{`) at its first character, up to its closing bracket.
fn flow_parts(chars: &[char], open: char) -> Vec<FlowPart> {
    let mut parts = Vec::new();
    if chars.first() != Some(&open) {
        return parts;
    }
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut start = 1;
    let mut colon: Option<usize> = None;
    for (i, &c) in chars.iter().enumerate() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '[' | '{' => depth += 1,
            ':' if depth == 1 && colon.is_none() => {
                let next = chars.get(i + 1);
                if next.is_none_or(|n| n.is_whitespace() || matches!(n, ',' | '}')) {
                    colon = Some(i);
                }
            }
            ']' | '}' | ',' if depth == 1 => {
                parts.push(FlowPart {
                    start,
                    end: i,
                    colon: colon.take(),
                });
                if c != ',' {
                    return parts;
                }
                start = i + 1;
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    // Not closed on this line: the entries seen are still where they are.
    parts
}

/// The offset (after leading blanks) and length of `chars[from..to]`
/// trimmed.
fn trimmed(chars: &[char], from: usize, to: usize) -> (usize, usize) {
    let part = &chars[from..to];
    let lead = part.iter().take_while(|c| c.is_whitespace()).count();
    let len = part.iter().collect::<String>().trim().chars().count();
    (from + lead, len)
}

/// The entry `key` of the flow mapping `text` (`{a: 1, b: [x, y]}`) at its
/// top level.
fn flow_key(text: &str, key: &str) -> Option<FlowEntry> {
    let chars: Vec<char> = text.chars().collect();
    flow_parts(&chars, '{').into_iter().find_map(|part| {
        let at = part.colon?;
        let written: String = chars[part.start..at].iter().collect();
        if !key_forms(written.trim()).iter().any(|k| k == key) {
            return None;
        }
        let (key, key_len) = trimmed(&chars, part.start, at);
        let (value, value_len) = trimmed(&chars, at + 1, part.end);
        Some(FlowEntry {
            key,
            key_len,
            value,
            value_len,
        })
    })
}

/// The character offset and length of item `n` of a flow sequence
/// `[a, b, c]`.
fn flow_item(text: &str, n: usize) -> Option<(usize, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let part = flow_parts(&chars, '[').into_iter().nth(n)?;
    let (start, len) = trimmed(&chars, part.start, part.end);
    (len > 0).then_some((start, len))
}
