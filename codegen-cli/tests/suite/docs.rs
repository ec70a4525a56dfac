//! The documents against the repository: README.md, codegen-cli/CARDS.md
//! and the guide's pages (docs/*.md). Their Rust blocks are doctests of
//! `hookwire-examples` (examples/src/lib.rs); what these tests add:
//!
//! - every crate a page's Rust blocks use is one the page's dependencies
//!   (its `toml` blocks) list, so a reader who copies the page's
//!   `Cargo.toml` lines can build its code;
//! - every shell block is run here (`cardgen` commands, against the
//!   repository's cards), or its first line, a comment, says which test
//!   runs it (`# run by <file>`) or why none does (`# not run by a test:
//!   <reason>`);
//! - every compiler error a page quotes is copied from a reviewed
//!   `.stderr` of `tests/ui/` (or a bad card's `expected.txt`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The documents these tests read: README.md, CARDS.md and every guide
/// page but its table of contents.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut docs = vec![root.join("README.md"), root.join("codegen-cli/CARDS.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(|p| !p.ends_with("SUMMARY.md"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 12, "the guide has its pages: {pages:?}");
    docs.extend(pages);
    docs
}

/// A fenced block: its info string, its first line's number and its text.
struct Block {
    info: String,
    line: usize,
    text: String,
}

/// The fenced blocks of a Markdown text (fences of three backticks, also
/// indented ones inside a list item: the fence's indentation is taken off
/// each line of its block).
fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, usize, String)> = None;
    for (n, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((info.trim().to_owned(), n + 1, indent, String::new()));
                }
            }
            Some((info, start, fence_indent, text)) => {
                if trimmed.starts_with("```") {
                    out.push(Block {
                        info: std::mem::take(info),
                        line: *start,
                        text: std::mem::take(text),
                    });
                    open = None;
                } else {
                    text.push_str(&line[indent.min(*fence_indent)..]);
                    text.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "an unclosed fence");
    out
}

/// Whether rustdoc takes the block as Rust (no language, or `rust` and
/// rustdoc's own attributes).
fn is_rust(info: &str) -> bool {
    info.is_empty()
        || info.split(',').map(str::trim).all(|t| {
            matches!(
                t,
                "rust" | "ignore" | "no_run" | "should_panic" | "compile_fail" | "edition2024"
            )
        })
}

/// The code rustdoc compiles: hidden lines (`# ..`) shown.
fn rust_code(block: &str) -> String {
    block
        .lines()
        .map(|l| {
            let t = l.trim_start();
            if t == "#" {
                ""
            } else if let Some(rest) = t.strip_prefix("# ") {
                rest
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The code without comments and string literals (`"a::b"` is no path).
fn without_strings_and_comments(code: &str) -> String {
    let mut out = String::new();
    for line in code.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if in_str {
                if c == '"' && prev != '\\' {
                    in_str = false;
                }
                prev = if prev == '\\' && c == '\\' { ' ' } else { c };
                continue;
            }
            if c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            if c == '"' {
                in_str = true;
                prev = ' ';
                continue;
            }
            out.push(c);
        }
        out.push('\n');
    }
    out
}

/// Names that are never a dependency.
const NOT_CRATES: &[&str] = &[
    "std", "core", "alloc", "crate", "self", "super", "u8", "u16", "u32", "u64", "u128", "usize",
    "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool", "char", "str",
];

/// The crates a piece of Rust code uses: the first segment of each `use`
/// tree and of every other path (`x::..`, `#[x::..]`), without the code's
/// own items and the names its `use`s bring in.
fn crates_used(code: &str) -> BTreeSet<String> {
    let code = without_strings_and_comments(code);
    let ident = |s: &str| -> Option<String> {
        let s = s.trim().trim_start_matches("r#");
        let end = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        (end > 0).then(|| s[..end].to_owned())
    };
    let mut crates = BTreeSet::new();
    let mut own = BTreeSet::new();
    // `use` statements: their root is a crate; what they import is ours.
    let mut rest = String::new();
    let mut text = code.as_str();
    while let Some(at) = find_word(text, "use") {
        rest.push_str(&text[..at]);
        let stmt_end = text[at..].find(';').map_or(text.len(), |e| at + e + 1);
        let stmt = &text[at + 3..stmt_end];
        if let Some(root) = ident(stmt.trim_start().trim_start_matches("::")) {
            crates.insert(root);
        }
        if find_word(stmt, "self").is_some() {
            // `x::{self, ..}` imports the module `x`.
            for (at, _) in stmt.match_indices("::{") {
                let before = &stmt[..at];
                let start = before
                    .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .map_or(0, |i| i + 1);
                if let Some(n) = ident(&before[start..]) {
                    own.insert(n);
                }
            }
        }
        for part in stmt.split([',', '{', '}', ';']) {
            let part = part.trim();
            let name = match part.rsplit_once(" as ") {
                Some((_, alias)) => alias.trim(),
                None => part.rsplit("::").next().unwrap_or(""),
            };
            let name = if name == "self" {
                part.trim_end_matches("::self")
                    .rsplit("::")
                    .next()
                    .unwrap_or("")
            } else {
                name
            };
            if let Some(n) = ident(name) {
                own.insert(n);
            }
        }
        text = &text[stmt_end..];
    }
    rest.push_str(text);
    // The code's own items.
    for kw in [
        "mod", "fn", "struct", "enum", "trait", "type", "const", "static",
    ] {
        let mut t = rest.as_str();
        while let Some(at) = find_word(t, kw) {
            if let Some(n) = ident(&t[at + kw.len()..]) {
                own.insert(n);
            }
            t = &t[at + kw.len()..];
        }
    }
    // An agent's module of MCP argument types (`Clock` has `clock_mcp`).
    let generated: Vec<String> = own
        .iter()
        .filter(|n| n.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|n| {
            let mut snake = String::new();
            for (i, c) in n.chars().enumerate() {
                if c.is_ascii_uppercase() && i > 0 {
                    snake.push('_');
                }
                snake.push(c.to_ascii_lowercase());
            }
            snake + "_mcp"
        })
        .collect();
    own.extend(generated);
    // Paths: an identifier right before `::`, not itself after `::`.
    let bytes = rest.as_bytes();
    let mut i = 0;
    while let Some(at) = rest[i..].find("::") {
        let end = i + at;
        let mut start = end;
        while start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            start -= 1;
        }
        let before = rest[..start].trim_end();
        let name = &rest[start..end];
        // After `::` or `>` it is not a path's first segment; after `.` a
        // method's turbofish (`get::<u32>`).
        let after_path = before.ends_with("::") || before.ends_with('>') || before.ends_with('.');
        if !name.is_empty()
            && !after_path
            && name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        {
            crates.insert(name.to_owned());
        }
        i = end + 2;
    }
    crates
        .into_iter()
        .filter(|c| !NOT_CRATES.contains(&c.as_str()) && !own.contains(c))
        .collect()
}

/// Where `word` occurs as a whole word in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(word) {
        let at = from + at;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if boundary(before) && boundary(after) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The crates a page's `toml` blocks list as dependencies (in a
/// `[*dependencies]` table, or in a block without a table header), with
/// `-` written `_` as Rust names them.
fn listed_dependencies(markdown: &str) -> BTreeSet<String> {
    let mut listed = BTreeSet::new();
    for block in blocks(markdown).iter().filter(|b| b.info == "toml") {
        let mut in_deps = true;
        for line in block.text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_deps = line.ends_with("dependencies]");
                continue;
            }
            if in_deps
                && let Some((key, _)) = line.split_once('=')
                && !key.trim().is_empty()
                && !key.trim().starts_with('#')
            {
                listed.insert(key.trim().replace('-', "_"));
            }
        }
    }
    listed
}

/// The crates a document's Rust blocks use that its dependencies do not
/// list, each with the first line that uses it.
fn unlisted_crates(markdown: &str) -> Vec<(String, usize)> {
    let listed = listed_dependencies(markdown);
    let mut missing: Vec<(String, usize)> = Vec::new();
    for block in blocks(markdown).iter().filter(|b| is_rust(&b.info)) {
        for krate in crates_used(&rust_code(&block.text)) {
            if !listed.contains(&krate) && !missing.iter().any(|(c, _)| *c == krate) {
                missing.push((krate, block.line));
            }
        }
    }
    missing
}

#[test]
fn the_crate_scan_finds_paths_uses_and_attributes_and_skips_own_names() {
    let code = "# #[derive(serde::Deserialize)] struct Q;\n\
                use hookwire::otel::{self, layer};\n\
                use tracing_subscriber::layer::SubscriberExt as _;\n\
                mod agents { }\n\
                #[tokio::main] async fn main() { otel::layer(); agents::x(); std::mem::drop(1u32); \
                let _ = \"futures_util::x\"; // schemars::JsonSchema\n\
                let _ = <u32 as Into<u64>>::into(1); hookwire::serde_json::json!({}); x.get::<u32>(); }";
    let used = crates_used(&rust_code(code));
    assert_eq!(
        used.into_iter().collect::<Vec<_>>(),
        ["hookwire", "serde", "tokio", "tracing_subscriber"]
    );
    let page = "```toml\n[dependencies]\nhookwire = \"0.1\"\ntracing-subscriber = \"0.3\"\n```\n\n\
                ```rust\nuse tracing_subscriber::Layer;\n# serde_json::json!({});\n```\n";
    assert_eq!(unlisted_crates(page), [("serde_json".to_owned(), 7)]);
}

#[test]
fn every_document_lists_the_crates_its_rust_blocks_use() {
    let mut problems = Vec::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let rust = blocks(&text).iter().filter(|b| is_rust(&b.info)).count();
        if rust > 0 && listed_dependencies(&text).is_empty() {
            problems.push(format!(
                "{}: Rust blocks but no `toml` block of dependencies",
                doc.display()
            ));
        }
        for (krate, line) in unlisted_crates(&text) {
            problems.push(format!(
                "{}:{line}: the block uses the crate `{krate}`, which the page's dependencies do not list",
                doc.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Whether the block is a shell block.
fn is_shell(info: &str) -> bool {
    matches!(
        info.split([' ', ',']).next(),
        Some("sh" | "bash" | "shell" | "console" | "zsh")
    )
}

#[test]
fn every_shell_block_is_run_or_says_why_not() {
    let root = root();
    let out = tempfile::tempdir().unwrap();
    // `cardgen` on the PATH is this build's binary.
    let bin = out.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_cardgen"), bin.join("cardgen")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut problems = Vec::new();
    let mut ran = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let name = doc.strip_prefix(&root).unwrap().display().to_string();
        let name = name.trim_start_matches("../").to_owned();
        for block in blocks(&text).iter().filter(|b| is_shell(&b.info)) {
            let at = format!("{name}:{}", block.line);
            // The block's first line may say who runs it, as a comment
            // (rustdoc and mdBook read the info string: it stays `sh`).
            let first = block.text.lines().next().unwrap_or("");
            if block.info != "sh" {
                problems.push(format!(
                    "{at}: a shell block is `sh`, marked by its first line"
                ));
                continue;
            }
            match first.strip_prefix("# ") {
                Some(why) if why.starts_with("not run by a test:") => {
                    if why.len() < "not run by a test: ".len() + 10 {
                        problems.push(format!("{at}: say why the block is not run"));
                    }
                }
                Some(by) if by.starts_with("run by ") => {
                    let test = root.join(&by["run by ".len()..]);
                    let source = std::fs::read_to_string(&test).unwrap_or_default();
                    if !source.contains(&name) {
                        problems.push(format!(
                            "{at}: {} does not exist or does not read {name}",
                            test.display()
                        ));
                    }
                }
                _ => {
                    // Runnable here: `cardgen` commands only.
                    let script = block
                        .text
                        .replace("cargo run -p hookwire-codegen --bin cardgen --", "cardgen")
                        .replace("/tmp/", &format!("{}/", out.path().display()));
                    // Nothing else is run: a block with another command is
                    // reported, not started.
                    let others: Vec<&str> = script
                        .lines()
                        .map(str::trim)
                        .filter(|l| {
                            !(l.is_empty() || l.starts_with('#') || l.starts_with("cardgen "))
                        })
                        .collect();
                    if let Some(line) = others.first() {
                        problems.push(format!(
                            "{at}: `{line}` is not a `cardgen` command this test runs: \
                             start the block with `# not run by a test: <reason>` or `# run by <test file>`"
                        ));
                        continue;
                    }
                    let run = Command::new("sh")
                        .args(["-e", "-c", &script])
                        .current_dir(&root)
                        .env("PATH", &path)
                        .output()
                        .unwrap();
                    ran += 1;
                    if !run.status.success() {
                        problems.push(format!(
                            "{at}: the block failed:\n{}{}",
                            String::from_utf8_lossy(&run.stdout),
                            String::from_utf8_lossy(&run.stderr)
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(ran >= 2, "the documents' cardgen blocks ran ({ran})");
}

/// Every file under `dir` (recursively) whose name ends with `suffix`.
fn files(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, suffix, out);
        } else if path.to_string_lossy().ends_with(suffix) {
            out.push(path);
        }
    }
}

#[test]
fn every_quoted_error_is_copied_from_a_reviewed_file() {
    let root = root();
    let mut reviewed = Vec::new();
    files(&root.join("tests/ui"), ".stderr", &mut reviewed);
    files(
        &root.join("codegen-cli/tests/cards/bad"),
        "expected.txt",
        &mut reviewed,
    );
    let reviewed: Vec<Vec<String>> = reviewed
        .iter()
        .map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(|l| l.trim_end().to_owned())
                .collect()
        })
        .collect();
    let mut problems = Vec::new();
    let mut quoted = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        for block in blocks(&text).iter().filter(|b| b.info == "text") {
            let lines: Vec<&str> = block.text.lines().map(str::trim_end).collect();
            let is_error = lines.first().is_some_and(|l| {
                l.starts_with("error[") || l.starts_with("error: ") || l.contains(": error: ")
            });
            if !is_error {
                continue;
            }
            quoted += 1;
            let found = reviewed.iter().any(|file| {
                file.windows(lines.len())
                    .any(|w| w.iter().zip(&lines).all(|(a, b)| a == b))
            });
            if !found {
                problems.push(format!(
                    "{}:{}: this error is not a run of lines of any reviewed .stderr or expected.txt",
                    doc.display(),
                    block.line
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(quoted >= 3, "the documents quote errors ({quoted})");
}

#[test]
fn every_quoted_file_is_the_file() {
    let root = root();
    let mut quoted = 0;
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for block in blocks(&text) {
            // The line before the fence: `<!-- file: <path> -->`.
            let marker = lines
                .get(block.line.saturating_sub(2))
                .copied()
                .unwrap_or("");
            let Some(path) = marker
                .strip_prefix("<!-- file: ")
                .and_then(|m| m.strip_suffix(" -->"))
            else {
                continue;
            };
            quoted += 1;
            let file = std::fs::read_to_string(root.join(path)).unwrap();
            assert_eq!(
                block.text,
                file,
                "{}:{}: the block is not {path}",
                doc.display(),
                block.line
            );
        }
    }
    assert!(quoted >= 1, "README.md quotes its card");
}

/// README.md's agent and its card hold the same functions: each item of
/// the card's `shop.rs` (after its header) is in README.md's first Rust
/// block, verbatim.
#[test]
fn the_readme_card_holds_the_readme_functions() {
    let root = root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let agent = blocks(&readme)
        .into_iter()
        .find(|b| is_rust(&b.info))
        .unwrap()
        .text;
    let shop = std::fs::read_to_string(root.join("examples/readme/cards/shop.rs")).unwrap();
    let items: Vec<&str> = shop
        .split("\n\n")
        .filter(|item| item.contains("#[hookwire::"))
        .collect();
    assert_eq!(items.len(), 3, "price, pay and the guard");
    for item in items {
        assert!(
            agent.contains(item.trim()),
            "README.md's agent does not hold, verbatim:\n{item}"
        );
    }
}
