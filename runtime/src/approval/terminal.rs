//! [`TerminalApprover`]: asks at the terminal.

use super::{ApprovalDecision, ApprovalRequest, Approver};
use crate::BoxFuture;

/// Asks at the terminal: prints the request (and the tool's
/// [approval metadata](super::ApprovalRequest::metadata), if any) on
/// standard error and reads an answer from standard input: `y`/`yes`
/// approves, `n`/`no` denies, `a`/`always` approves this and every later
/// call of the tool, `e`/`never` denies this and every later call of the
/// tool, `edit {"amount": 5}` approves this call with the edited arguments
/// (a JSON object, checked against the tool's argument type before it
/// runs). Anything else asks again.
///
/// "Every later call" holds where the answers are remembered: give it to
/// [`Approvals::new`](super::Approvals::new)
/// (`runner.with_approvals(Approvals::new(TerminalApprover::new()))`).
/// Asked directly by a chain's gate, `always` and `never` decide the call
/// shown only.
///
/// When standard input is not a terminal, or is closed, the call is denied
/// (fail closed).
#[derive(Debug, Clone, Copy, Default)]
pub struct TerminalApprover {
    allow_non_terminal: bool,
}

impl TerminalApprover {
    /// A terminal approver.
    pub fn new() -> Self {
        Self::default()
    }

    /// Also reads answers when standard input is not a terminal (a pipe).
    pub fn allow_non_terminal(mut self) -> Self {
        self.allow_non_terminal = true;
        self
    }

    /// Reads one answer from a line typed at the prompt (`None`: ask again).
    ///
    /// ```
    /// # use hookwire::approval::{ApprovalDecision, TerminalApprover};
    /// assert_eq!(TerminalApprover::parse_answer(" Yes\n"), Some(ApprovalDecision::Approve));
    /// assert_eq!(
    ///     TerminalApprover::parse_answer(r#"edit {"amount": 5}"#),
    ///     Some(ApprovalDecision::ApproveWith(serde_json::json!({"amount": 5})))
    /// );
    /// assert_eq!(TerminalApprover::parse_answer("edit [5]"), None);
    /// ```
    pub fn parse_answer(line: &str) -> Option<ApprovalDecision> {
        let line = line.trim();
        if let Some((word, edited)) = line.split_once(char::is_whitespace)
            && word.eq_ignore_ascii_case("edit")
        {
            return match serde_json::from_str(edited.trim()) {
                Ok(object @ serde_json::Value::Object(_)) => {
                    Some(ApprovalDecision::ApproveWith(object))
                }
                _ => None,
            };
        }
        match line.to_ascii_lowercase().as_str() {
            "y" | "yes" | "approve" => Some(ApprovalDecision::Approve),
            "n" | "no" | "deny" => {
                Some(ApprovalDecision::Deny("denied at the terminal".to_owned()))
            }
            "a" | "always" => Some(ApprovalDecision::AlwaysApprove),
            "e" | "never" => Some(ApprovalDecision::AlwaysDeny),
            _ => None,
        }
    }
}

/// The question asked for `request`. What the model and the tool wrote
/// (the arguments, the tool's name, the reason, the metadata) is
/// [cleaned](crate::outside::clean): bounded at
/// [`DISPLAY_LIMIT`](crate::outside::DISPLAY_LIMIT) each, control and
/// bidi characters escaped, so that it cannot rewrite the terminal.
pub(crate) fn question(request: &ApprovalRequest<'_>) -> String {
    use crate::outside::{DISPLAY_LIMIT, clean};
    let shown = |text: &str| clean(text, DISPLAY_LIMIT);
    let context = request
        .metadata()
        .map(|m| format!("\n  context: {}", shown(&m.to_string())))
        .unwrap_or_default();
    let arguments = request
        .arguments
        .to_value()
        .map_or_else(|_| format!("{:?}", request.arguments), |v| v.to_string());
    format!(
        "[hookwire] agent `{}` wants to call `{}` with {} ({}).{context}\nApprove? [y]es / [n]o / [a]lways / n[e]ver / edit {{..}}: ",
        shown(request.agent),
        shown(request.tool),
        shown(&arguments),
        shown(request.reason),
    )
}

static PROMPT: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Approver for TerminalApprover {
    fn decide<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, ApprovalDecision> {
        use std::io::IsTerminal;
        let question = question(&request);
        let allow = self.allow_non_terminal;
        Box::pin(async move {
            if !allow && !std::io::stdin().is_terminal() {
                return ApprovalDecision::Deny(
                    "approval needs a terminal, and there is none".to_owned(),
                );
            }
            // One question at a time, even when calls run concurrently.
            let _turn = PROMPT.lock().await;
            let asked = tokio::task::spawn_blocking(move || {
                use std::io::{BufRead, Write};
                let stdin = std::io::stdin();
                let mut stderr = std::io::stderr();
                loop {
                    let _ = write!(stderr, "{question}");
                    let _ = stderr.flush();
                    let mut line = String::new();
                    match stdin.lock().read_line(&mut line) {
                        Ok(0) | Err(_) => {
                            return ApprovalDecision::Deny("no answer at the terminal".to_owned());
                        }
                        Ok(_) => {
                            if let Some(answer) = Self::parse_answer(&line) {
                                return answer;
                            }
                        }
                    }
                }
            })
            .await;
            asked
                .unwrap_or_else(|_| ApprovalDecision::Deny("the terminal prompt failed".to_owned()))
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ToolArgs;
    use crate::approval::CallKey;

    #[test]
    fn the_question_shows_no_raw_control_or_bidi_character_and_is_bounded() {
        let args = serde_json::json!({
            "path": "/tmp/\u{1b}[2K\u{1b}[1Aok \u{202e}txt.exe",
            "blob": "y".repeat(100_000),
        });
        let key = CallKey::root("s", "agent", 0, "c1", "rm\u{1b}]0;x\u{7}", &args);
        let arguments = ToolArgs::from_value(args).unwrap();
        let request = ApprovalRequest::new(&key, &arguments, "because\r\u{202e}", None);
        let q = question(&request);
        assert!(!q.chars().any(crate::outside::is_unsafe), "{}", &q[..200]);
        assert!(q.contains("\\u001b[2K"), "{}", &q[..200]);
        assert!(q.contains("rm\\u{1b}]0;x\\u{7}"), "{}", &q[..200]);
        assert!(q.contains("because\\u{d}\\u{202e}"), "{q:.0}");
        assert!(q.contains("…[truncated "), "{q:.0}");
        assert!(q.len() < 3 * crate::outside::DISPLAY_LIMIT, "{}", q.len());
    }
}
