//! The stdio transport to an MCP server: its child process, and a cap on the
//! size of one message from it.
//!
//! rmcp drops a line longer than its cap (16 MiB) and keeps the connection
//! open, so the call that line answered would wait for its full timeout and
//! then report "timed out". Here the server's stdout passes through
//! [`pump`] first, which applies the same cap and, for a line over it,
//! hands rmcp a JSON-RPC error answer with the dropped line's id instead:
//! the call fails at once, saying what happened. When the id cannot be read
//! (it is neither among the first scalar fields nor the last field), the
//! drop is counted in [`Spawned::dropped`] and the timeout message says so.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::{AsyncRwTransport, DEFAULT_MAX_LINE_LENGTH};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

/// The largest message (one line, with its newline) taken from a server:
/// rmcp's own cap, which its HTTP transport applies too.
pub(crate) const MAX_MESSAGE_BYTES: usize = DEFAULT_MAX_LINE_LENGTH;

/// The JSON-RPC error code of the answer that stands in for a dropped one
/// (in the range JSON-RPC leaves to implementations).
pub(crate) const OVERSIZED_CODE: i32 = -32_001;

/// The value of `data.hookwire` in that answer, which tells it apart from
/// a server's own error with the same code.
pub(crate) const OVERSIZED_MARK: &str = "message_too_large";

/// How many bytes of each end of an oversized line are kept to find its id.
const EDGE: usize = 4096;

/// A started stdio server.
pub(crate) struct Spawned {
    pub(crate) transport: ChildTransport,
    pub(crate) stderr: Option<ChildStderr>,
    pub(crate) pid: Option<u32>,
    /// Oversized messages dropped whose id could not be read.
    pub(crate) dropped: Arc<AtomicU64>,
}

/// rmcp's line transport over the server's stdin and the [`pump`]ed
/// stdout; owns the child process, which is killed when this is dropped.
pub(crate) struct ChildTransport {
    child: Child,
    inner: AsyncRwTransport<RoleClient, DuplexStream, ChildStdin>,
}

/// Starts `command` with piped stdin, stdout and stderr.
pub(crate) fn spawn(mut command: Command, server: Arc<str>) -> std::io::Result<Spawned> {
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(std::io::Error::other(
            "the server's stdin or stdout is not piped",
        ));
    };
    let stderr = child.stderr.take();
    let pid = child.id();
    let (reader, writer) = tokio::io::duplex(64 * 1024);
    let dropped = Arc::new(AtomicU64::new(0));
    tokio::spawn(pump(
        stdout,
        writer,
        MAX_MESSAGE_BYTES,
        server,
        dropped.clone(),
    ));
    Ok(Spawned {
        transport: ChildTransport {
            child,
            inner: AsyncRwTransport::new_client(reader, stdin),
        },
        stderr,
        pid,
        dropped,
    })
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Closing stdin asks the server to exit; one that has not within a
        // second is killed.
        self.inner.close().await?;
        if crate::wait::limit(Duration::from_secs(1), self.child.wait())
            .await
            .is_err()
        {
            self.child.kill().await?;
        }
        Ok(())
    }
}

/// Whether `error` is the answer [`pump`] put in place of a dropped one.
pub(crate) fn is_stand_in(error: &rmcp::ErrorData) -> bool {
    error.code.0 == OVERSIZED_CODE
        && error
            .data
            .as_ref()
            .and_then(|data| data.get("hookwire"))
            .is_some_and(|mark| mark == OVERSIZED_MARK)
}

/// An oversized line being skipped: its length so far and its two ends.
struct Oversized {
    bytes: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl Oversized {
    fn push(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len();
        if self.head.len() < EDGE {
            let room = EDGE - self.head.len();
            self.head.extend_from_slice(&chunk[..room.min(chunk.len())]);
        }
        self.tail.extend_from_slice(chunk);
        if self.tail.len() > 2 * EDGE {
            self.tail.drain(..self.tail.len() - EDGE);
        }
    }

    fn id(&self) -> Option<Value> {
        id_among_first_fields(&self.head).or_else(|| id_as_last_field(&self.tail))
    }
}

/// Copies the server's stdout to rmcp line by line, replacing each line over
/// `limit` bytes with an error answer for its id (see the module docs).
async fn pump(
    stdout: ChildStdout,
    mut to_rmcp: DuplexStream,
    limit: usize,
    server: Arc<str>,
    dropped: Arc<AtomicU64>,
) {
    let mut stdout = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    let mut over: Option<Oversized> = None;
    loop {
        let (taken, ends_line) = {
            let available = match stdout.fill_buf().await {
                Ok(available) if !available.is_empty() => available,
                // End of output or a read error: the connection is over.
                _ => break,
            };
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let chunk = &available[..take];
            match &mut over {
                Some(skipping) => skipping.push(chunk),
                None if line.len() + take > limit => {
                    let mut skipping = Oversized {
                        bytes: 0,
                        head: Vec::new(),
                        tail: Vec::new(),
                    };
                    skipping.push(&line);
                    skipping.push(chunk);
                    line.clear();
                    over = Some(skipping);
                }
                None => line.extend_from_slice(chunk),
            }
            (take, newline.is_some())
        };
        stdout.consume(taken);
        if !ends_line {
            continue;
        }
        let sent = match over.take() {
            None => to_rmcp.write_all(&line).await,
            Some(skipped) => {
                let answer = stand_in(&skipped, limit, &server, &dropped);
                match answer {
                    Some(answer) => to_rmcp.write_all(&answer).await,
                    None => Ok(()),
                }
            }
        };
        if sent.is_err() {
            // rmcp's side is gone.
            return;
        }
        line.clear();
        if line.capacity() > 1 << 20 {
            line = Vec::new();
        }
    }
    // A last line without a newline: rmcp reads it as the end of input.
    let _ = to_rmcp.write_all(&line).await;
}

/// The error answer that replaces a dropped line, or `None` (and a count in
/// `dropped`) when its id cannot be read.
fn stand_in(
    skipped: &Oversized,
    limit: usize,
    server: &str,
    dropped: &AtomicU64,
) -> Option<Vec<u8>> {
    let id = skipped.id();
    let shown = id
        .as_ref()
        .map_or_else(|| "(unreadable)".to_owned(), ToString::to_string);
    tracing::warn!(
        target: "hookwire::mcp",
        server,
        bytes = skipped.bytes,
        limit,
        id = %shown,
        "MCP server sent a message over the size limit; it was dropped"
    );
    let Some(id) = id else {
        dropped.fetch_add(1, Ordering::Relaxed);
        return None;
    };
    let answer = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": OVERSIZED_CODE,
            "message": format!(
                "its answer was {} bytes long, over the limit of {limit} bytes for one \
                 message, so it was dropped",
                skipped.bytes
            ),
            "data": {"hookwire": OVERSIZED_MARK, "bytes": skipped.bytes, "limit": limit},
        }
    });
    let mut answer = answer.to_string().into_bytes();
    answer.push(b'\n');
    Some(answer)
}

/// The `id` of a JSON object whose fields before it are scalars
/// (`{"jsonrpc":"2.0","id":7,"result":...}`), read from its first bytes.
fn id_among_first_fields(head: &[u8]) -> Option<Value> {
    struct Find<'a>(&'a mut Option<Value>);
    impl<'de> Visitor<'de> for Find<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON-RPC message")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                if key == "id" {
                    *self.0 = Some(map.next_value()?);
                    return Ok(());
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let mut found = None;
    // The head is cut short, so the parse as a whole fails: only the id
    // found on the way counts.
    let _ = serde::Deserializer::deserialize_map(
        &mut serde_json::Deserializer::from_slice(head),
        Find(&mut found),
    );
    found.filter(|id| id.is_number() || id.is_string())
}

/// The `id` of a JSON object whose last field it is
/// (`{"result":...,"jsonrpc":"2.0","id":7}`), read from its last bytes.
fn id_as_last_field(tail: &[u8]) -> Option<Value> {
    let text = tail.trim_ascii_end();
    let body = text.strip_suffix(b"}")?;
    let key = body.windows(4).rposition(|w| w == b"\"id\"")?;
    // A key starts an object or follows a comma.
    if !matches!(body[..key].trim_ascii_end().last(), Some(b',' | b'{')) {
        return None;
    }
    let rest = body[key + 4..].trim_ascii_start().strip_prefix(b":")?;
    let id: Value = serde_json::from_slice(rest).ok()?;
    (id.is_number() || id.is_string()).then_some(id)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_read_from_either_end() {
        let cut = br#"{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"xxxx"#;
        assert_eq!(id_among_first_fields(cut), Some(json!(42)));
        let cut = br#"{"id":"a-1","jsonrpc":"2.0","result":"#;
        assert_eq!(id_among_first_fields(cut), Some(json!("a-1")));
        let end = br#"xxxx"}]},"jsonrpc":"2.0","id":9}"#;
        assert_eq!(id_as_last_field(end), Some(json!(9)));
        let end = b"xx\"}]},\"jsonrpc\":\"2.0\",\"id\" : \"r7\" }\r\n";
        assert_eq!(id_as_last_field(end), Some(json!("r7")));
    }

    #[test]
    fn an_id_inside_the_result_is_not_taken() {
        // Nested objects and strings end differently from the message.
        assert_eq!(id_as_last_field(br#"{"a":{"id":3}}"#), None);
        assert_eq!(id_as_last_field(br#"{"text":"say \"id\":3}"}"#), None);
        assert_eq!(id_among_first_fields(br#"{"result":{"id":3},"id":"#), None);
        assert_eq!(id_as_last_field(br#"{"id":{"x":1}}"#), None);
    }
}
