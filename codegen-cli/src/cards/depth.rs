//! How deeply a Rust file nests, measured before `syn` parses it.
//!
//! `syn` parses by recursive descent: every level of a nested expression or
//! type costs stack (tens of kilobytes per `Vec<` in a debug build), so a
//! referenced file with thousands of levels would overflow the stack and
//! abort `cardgen` or a build script without a word, even if the card never
//! uses the deep code. Lexing is iterative, so the file's tokens are walked
//! first (with a stack of our own) and a file deeper than [`MAX_DEPTH`] is
//! an error at the token where it gets too deep.
//!
//! The measure counts, at every token, each enclosing delimiter, each
//! unclosed `<`, and the prefix operators and keywords that `syn` parses
//! by recursion (`&`, `*`, `-`, `!`, `|`, `..`, `=`, `->`, `fn`, `dyn`,
//! `impl`, `return`, ...) since the last `;`, `,` or block of that level.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// The deepest nesting accepted. Real code stays far below; `syn` needs at
/// most a few megabytes of stack for it in a debug build.
pub(crate) const MAX_DEPTH: usize = 100;

/// Keywords that start a construct `syn` parses by recursion.
const RECURSIVE_KEYWORDS: [&str; 10] = [
    "return", "break", "yield", "move", "async", "dyn", "impl", "fn", "box", "become",
];

/// Keywords after which an operator is a prefix (`*const *const T`,
/// `&mut &mut T`, `if !x`), though they start no recursion themselves.
const PREFIXING_KEYWORDS: [&str; 15] = [
    "const", "mut", "static", "ref", "unsafe", "extern", "as", "in", "where", "let", "if", "else",
    "match", "while", "for",
];

/// One level of delimiters.
#[derive(Default)]
struct Level {
    /// `<` not closed yet (cleared by `;` and blocks).
    angle: usize,
    /// Recursive prefixes since the last `;`, `,` or block.
    chain: usize,
    /// Whether the last token ends an operand (an identifier, a literal, a
    /// group): after one, `&` or `-` is a binary operator.
    after_operand: bool,
}

impl Level {
    fn depth(&self) -> usize {
        1 + self.angle + self.chain
    }

    fn reset(&mut self) {
        self.angle = 0;
        self.chain = 0;
    }

    /// Takes the operator `op` (its characters joined).
    fn operator(&mut self, op: &str) {
        match op {
            ";" => self.reset(),
            "," => self.chain = 0,
            "<" => self.angle += 1,
            "<<" => self.angle += 2,
            ">" => self.angle = self.angle.saturating_sub(1),
            ">>" => self.angle = self.angle.saturating_sub(2),
            "->" | "=" | "+=" | "-=" | "*=" | "/=" | "%=" | "^=" | "&=" | "|=" | "<<=" | ">>=" => {
                self.chain += 1
            }
            "-" | "*" | "!" | "&" | "&&" | "|" | "||" | ".." | "..=" | "..."
                if !self.after_operand =>
            {
                self.chain += 1;
            }
            _ => {}
        }
        // `?` ends an operand (`x? - 1`); every other operator starts one.
        self.after_operand = op == "?";
    }
}

/// Where the nesting of `tokens` first exceeds [`MAX_DEPTH`]: the 1-based
/// line and 0-based column of that token.
pub(crate) fn too_deep(tokens: TokenStream) -> Option<(usize, usize)> {
    let mut stack: Vec<(proc_macro2::token_stream::IntoIter, Level, bool)> =
        vec![(tokens.into_iter(), Level::default(), false)];
    let mut depth = 1;
    let mut op = String::new();
    // Where the current run of punctuation starts.
    let mut run_start = proc_macro2::Span::call_site();
    // The next identifier names a lifetime (`&'a T`): not an operand.
    let mut lifetime = false;
    loop {
        let (iter, _, _) = stack.last_mut()?;
        let Some(token) = iter.next() else {
            if let Some((_, level, braces)) = stack.pop() {
                depth -= level.depth();
                if let Some((_, parent, _)) = stack.last_mut() {
                    depth -= parent.depth();
                    if braces {
                        parent.reset();
                    }
                    parent.after_operand = true;
                    depth += parent.depth();
                }
            }
            continue;
        };
        if op.is_empty() {
            run_start = token.span();
        }
        // A run of punctuation counts where it starts.
        let span = run_start;
        let (_, level, _) = stack.last_mut()?;
        depth -= level.depth();
        match token {
            TokenTree::Punct(p) if p.as_char() == '\'' => {
                // A lifetime or label: `'a` is an operand, not an operator.
                operators(level, &op);
                op.clear();
                level.after_operand = false;
                lifetime = true;
            }
            TokenTree::Punct(p) => {
                op.push(p.as_char());
                if p.spacing() == Spacing::Alone {
                    operators(level, &op);
                    op.clear();
                }
            }
            TokenTree::Ident(ident) => {
                operators(level, &op);
                op.clear();
                let word = ident.to_string();
                if std::mem::take(&mut lifetime) {
                    level.after_operand = false;
                } else if RECURSIVE_KEYWORDS.contains(&word.as_str()) {
                    level.chain += 1;
                    level.after_operand = false;
                } else {
                    level.after_operand = !PREFIXING_KEYWORDS.contains(&word.as_str());
                }
            }
            TokenTree::Literal(_) => {
                operators(level, &op);
                op.clear();
                level.after_operand = true;
            }
            TokenTree::Group(g) => {
                operators(level, &op);
                op.clear();
                depth += level.depth();
                let braces = g.delimiter() == Delimiter::Brace;
                stack.push((g.stream().into_iter(), Level::default(), braces));
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(position(span));
                }
                continue;
            }
        }
        depth += level.depth();
        if depth > MAX_DEPTH {
            return Some(position(span));
        }
    }
}

/// The operators Rust reads from adjoining punctuation, longest first.
const OPERATORS: [&str; 24] = [
    "<<=", ">>=", "...", "..=", "::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "..",
];

/// Feeds `level` the operators of a run of adjoining punctuation
/// (`&&&&x` is `&&`, `&&`, then `x`).
fn operators(level: &mut Level, mut run: &str) {
    while let Some(c) = run.chars().next() {
        let op = OPERATORS
            .iter()
            .find(|op| run.starts_with(**op))
            .copied()
            .unwrap_or(&run[..c.len_utf8()]);
        level.operator(op);
        run = &run[op.len()..];
    }
}

fn position(span: proc_macro2::Span) -> (usize, usize) {
    let start = span.start();
    (start.line.max(1), start.column)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn depth_of(code: &str) -> Option<(usize, usize)> {
        too_deep(code.parse().unwrap())
    }

    #[test]
    fn ordinary_code_passes() {
        let code = r#"
            use std::collections::HashMap;
            pub fn f(x: &mut HashMap<String, Vec<Option<Box<dyn Fn(&str) -> Result<(), String>>>>>) -> i64 {
                let total = 1 - 2 - 3 * 4 * 5 & 6 | 7 || !true && -x.len() as i64 > 0;
                if a < b && c < d { return -1; } else if e { break 'outer; }
                let g = |x| |y| x + y;
                match v { A => { 1 } B => 2, _ => 3 }
            }
        "#;
        assert_eq!(depth_of(code), None);
        let many: String = (0..10_000)
            .map(|i| format!("pub fn f{i}() -> u8 {{ 1 - 1 }}\n"))
            .collect();
        assert_eq!(depth_of(&many), None);
    }

    #[test]
    fn every_kind_of_deep_nesting_is_caught_where_it_gets_too_deep() {
        let d = 10_000;
        for code in [
            format!("fn f() {{ let _ = {}1{}; }}", "(".repeat(d), ")".repeat(d)),
            format!("fn f() {{ let _ = {}1; }}", "- ".repeat(d)),
            format!("fn f() {{ let _ = {}1; }}", "|x| ".repeat(d)),
            format!("fn f() {{ let _ = {}1; }}", "a = ".repeat(d)),
            format!("type T = {}u8{};", "Vec<".repeat(d), ">".repeat(d)),
            format!("type T = {}u8;", "fn() -> ".repeat(d)),
            format!("type T = {}u8;", "*const ".repeat(d)),
            format!("type T = {}u8;", "&".repeat(d)),
            format!("type T = {}u8;", "&'a ".repeat(d)),
            format!("fn f() {{ let _ = {}x; }}", "&".repeat(d)),
            format!("fn f() {{ let _ = {}x; }}", "!".repeat(d)),
            format!("fn f() -> {}u8 {{}}", "impl Fn() -> ".repeat(d)),
        ] {
            let (line, col) = depth_of(&code).unwrap_or_else(|| panic!("{}", &code[..40]));
            assert_eq!(line, 1);
            assert!(col < 1_000, "{col}: {}", &code[..40]);
        }
    }
}
