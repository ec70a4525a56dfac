//! [`TerminalApprover`]: asks at the terminal.

use super::{Answer, ApprovalRequest, Asker, BoxFuture};

/// Asks at the terminal: prints the request on standard error and reads
/// an answer from standard input: `y`/`yes` approves, `n`/`no` denies,
/// `a`/`always` approves this and every later call of the tool, `e`/`never`
/// denies this and every later call of the tool. Anything else asks again.
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
    pub fn parse_answer(line: &str) -> Option<Answer> {
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" | "approve" => Some(Answer::Approve),
            "n" | "no" | "deny" => Some(Answer::Deny("denied at the terminal".to_owned())),
            "a" | "always" => Some(Answer::AlwaysApprove),
            "e" | "never" => Some(Answer::AlwaysDeny),
            _ => None,
        }
    }
}

static PROMPT: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

impl Asker for TerminalApprover {
    fn ask<'a>(&'a self, request: ApprovalRequest<'a>) -> BoxFuture<'a, Answer> {
        use std::io::IsTerminal;
        let question = format!(
            "[hookwire] agent `{}` wants to call `{}` with {} ({}).\nApprove? [y]es / [n]o / [a]lways / n[e]ver: ",
            request.agent,
            request.tool,
            request
                .arguments
                .to_value()
                .map_or_else(|_| format!("{:?}", request.arguments), |v| v.to_string()),
            request.reason,
        );
        let allow = self.allow_non_terminal;
        Box::pin(async move {
            if !allow && !std::io::stdin().is_terminal() {
                return Answer::Deny("approval needs a terminal, and there is none".to_owned());
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
                            return Answer::Deny("no answer at the terminal".to_owned());
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
            asked.unwrap_or_else(|_| Answer::Deny("the terminal prompt failed".to_owned()))
        })
    }
}
