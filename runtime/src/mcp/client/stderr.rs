//! A stdio server's stderr: read in bounded pieces, logged line by line
//! (each line [cleaned](crate::outside::clean) at
//! [`DISPLAY_LIMIT`](crate::outside::DISPLAY_LIMIT)), and its end kept for
//! error messages (at most [`MCP_STDERR_LIMIT`] bytes, cleaned, with a
//! marker saying how much came before). A server that writes megabytes, or
//! one line without end, costs a fixed amount of memory.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::io::AsyncReadExt;

use crate::outside::{DISPLAY_LIMIT, MCP_STDERR_LIMIT, clean, clean_tail_after};

/// How many of the last lines an error message shows.
const LINES: usize = 8;

/// The end of a server's stderr.
#[derive(Default)]
pub(super) struct StderrTail {
    /// The last bytes written (at most twice the limit).
    bytes: VecDeque<u8>,
    /// How many bytes were written before them.
    dropped: usize,
}

impl StderrTail {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend(chunk);
        let keep = 2 * MCP_STDERR_LIMIT;
        if self.bytes.len() > keep {
            let extra = self.bytes.len() - keep;
            self.bytes.drain(..extra);
            self.dropped += extra;
        }
    }

    /// The last lines, joined with ` | `, cleaned and bounded; empty when
    /// nothing was written.
    pub(super) fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let raw = String::from_utf8_lossy(&[a, b].concat()).into_owned();
        let lines: Vec<&str> = raw
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.is_empty())
            .collect();
        let shown = lines.len().min(LINES);
        let skipped: usize = lines[..lines.len() - shown]
            .iter()
            .map(|l| l.len() + 1)
            .sum();
        let joined = lines[lines.len() - shown..].join(" | ");
        clean_tail_after(&joined, MCP_STDERR_LIMIT, self.dropped + skipped)
    }

    /// Forgets what was written (a new process starts).
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.dropped = 0;
    }
}

/// Reads `stderr` until it ends: each line is logged (target
/// `hookwire::mcp::stderr`, debug) and its bytes kept in `tail`.
pub(super) fn forward(
    stderr: tokio::process::ChildStderr,
    server: Arc<str>,
    tail: Arc<Mutex<StderrTail>>,
) {
    tokio::spawn(async move {
        let mut stderr = stderr;
        let mut buf = vec![0u8; 8 * 1024];
        // The line being logged: at most `DISPLAY_LIMIT` bytes of it, and
        // how many more it had.
        let mut line: Vec<u8> = Vec::new();
        let mut over = 0usize;
        loop {
            let n = match stderr.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            let chunk = &buf[..n];
            tail.lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(chunk);
            for piece in chunk.split_inclusive(|b| *b == b'\n') {
                let (text, ends) = match piece.strip_suffix(b"\n") {
                    Some(text) => (text, true),
                    None => (piece, false),
                };
                let room = DISPLAY_LIMIT.saturating_sub(line.len());
                line.extend_from_slice(&text[..room.min(text.len())]);
                over += text.len().saturating_sub(room);
                if ends {
                    log(&server, &line, over);
                    line.clear();
                    over = 0;
                }
            }
        }
        if !line.is_empty() {
            log(&server, &line, over);
        }
    });
}

fn log(server: &str, line: &[u8], over: usize) {
    let mut text = clean(&String::from_utf8_lossy(line), DISPLAY_LIMIT);
    if over > 0 {
        text.push_str(&format!("…[truncated {over} bytes]"));
    }
    tracing::debug!(target: "hookwire::mcp::stderr", server, "{text}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_bounded_and_clean() {
        let mut tail = StderrTail::default();
        for _ in 0..100 {
            tail.push(&[b'x'; 2000]);
            tail.push(b"\n");
        }
        tail.push("last \u{1b}[2J \u{202e}words\n".as_bytes());
        let text = tail.text();
        assert!(text.len() <= MCP_STDERR_LIMIT + 40, "{}", text.len());
        assert!(text.starts_with("…[truncated "), "{text}");
        assert!(text.ends_with("last \\u{1b}[2J \\u{202e}words"), "{text}");
        assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}'));
    }
}
