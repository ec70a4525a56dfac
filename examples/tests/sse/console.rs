//! The console example (`--bin console`) in a real browser: headless
//! Chromium driven through WebDriver (Debian's `chromium` and
//! `chromium-driver`, installed by `.ci/run`), with fantoccini. Page state
//! is polled with a deadline, never timed.
//!
//! `HOOKWIRE_CONSOLE_SCREENSHOT=docs/console.png` saves the page with both
//! payments waiting (a path relative to the repository's root).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use fantoccini::Locator;

use crate::browser_support::{
    Killed, browser, cards, click, eval, event_rows, http, poll, poll_page,
};

/// The console example, running: its URL and what it printed so far.
struct Example {
    process: Killed,
    url: String,
    addr: SocketAddr,
    token: String,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Example {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_console"))
            .args(["--port", "0"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let process = Killed(child);
        let lines = Arc::new(Mutex::new(Vec::new()));
        let kept = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                kept.lock().unwrap().push(line);
            }
        });
        let url = poll("the console's URL", || {
            let lines = lines.lock().unwrap();
            lines
                .iter()
                .find_map(|l| l.strip_prefix("console: ").map(str::to_owned))
        });
        let rest = url.strip_prefix("http://").unwrap();
        let (addr, token) = rest.split_once("/?token=").unwrap();
        Self {
            process,
            addr: addr.parse().unwrap(),
            token: token.to_owned(),
            url,
            lines,
        }
    }

    /// Waits for the example to exit; what it printed.
    fn finish(mut self) -> Vec<String> {
        poll("the example's exit", || {
            self.process.0.try_wait().unwrap().map(|_| ())
        });
        // The reader thread reads what is left in the pipe.
        poll("the example's trace", || {
            let lines = self.lines.lock().unwrap();
            lines
                .iter()
                .any(|l| l.starts_with("completed:"))
                .then(|| lines.clone())
        })
    }
}

/// Every request needs the token: none, or a wrong one, is 401.
fn every_request_needs_the_token(addr: SocketAddr, token: &str) {
    let bad = "0".repeat(token.len());
    for path in ["/", "/api/runs", "/app.js", &format!("/?token={bad}")] {
        let (status, body) = http(addr, "GET", path, &[], "");
        assert_eq!(status, 401, "GET {path}: {body}");
        assert!(body.contains("needs its token"), "{body}");
    }
    let bearer = format!("Bearer {token}");
    let (status, _) = http(addr, "GET", "/api/runs", &[("Authorization", &bearer)], "");
    assert_eq!(status, 200);
}

/// A decision for the call `id` without the CSRF token, or with a wrong
/// one, is refused (the caller checks that the call still waits).
fn a_decision_needs_the_csrf_token(addr: SocketAddr, bearer: &str, id: &str) {
    // A decision without the CSRF token, or with a wrong one, is refused,
    // and the call still waits.
    let decision = r#"{"who":"eve","decision":"approve"}"#;
    let decide = format!("/api/approvals/{id}");
    let json_type = ("Content-Type", "application/json");
    let (status, body) = http(
        addr,
        "POST",
        &decide,
        &[("Authorization", bearer), json_type],
        decision,
    );
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("CSRF"), "{body}");
    let bad = "0".repeat(48);
    let wrong = ("X-CSRF-Token", bad.as_str());
    let (status, _) = http(
        addr,
        "POST",
        &decide,
        &[("Authorization", bearer), json_type, wrong],
        decision,
    );
    assert_eq!(status, 403);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_decides_payments_in_the_console_in_a_browser() {
    let example = Example::start();
    let (addr, token) = (example.addr, example.token.clone());

    every_request_needs_the_token(addr, &token);
    let bearer = format!("Bearer {token}");

    let (_driver, client) = browser().await;
    client.goto(&example.url).await.unwrap();
    // The token left the address bar (it is in the page's cookie now).
    let here = client.current_url().await.unwrap();
    assert!(!here.as_str().contains("token"), "{here}");

    // Both payments wait, with the exact arguments the decision binds to.
    let waiting = poll_page("both payments waiting", || async {
        let cards = cards(&client).await;
        (cards.len() == 2).then_some(cards)
    })
    .await;
    let mut shown: Vec<_> = waiting
        .iter()
        .map(|(_, path, args, meta)| (path.as_str(), args.as_str(), meta.as_str()))
        .collect();
    shown.sort();
    assert_eq!(
        shown,
        [
            (
                "shop / pay",
                r#"{"to":"mallory","amount":1000000}"#,
                r#"{"risk":"high","payee":"mallory"}"#
            ),
            (
                "shop / pay",
                r#"{"to":"vendor","amount":1}"#,
                r#"{"risk":"low","payee":"vendor"}"#
            ),
        ]
    );
    let id_of = |to: &str| {
        waiting
            .iter()
            .find(|(_, _, args, _)| args.contains(to))
            .map(|(id, ..)| id.clone())
            .unwrap()
    };
    let (vendor, mallory) = (id_of("vendor"), id_of("mallory"));

    // The note's HTML is shown as text, and never parsed.
    let note = hookwire_examples::console::NOTE;
    let note_json = serde_json::to_string(note).unwrap();
    poll_page("the note shown as text", || async {
        let rows = event_rows(&client).await;
        rows.iter().any(|r| r.contains(&note_json)).then_some(())
    })
    .await;
    assert_eq!(
        eval(
            &client,
            "return document.querySelectorAll('main img').length;"
        )
        .await,
        0
    );
    assert_eq!(
        eval(&client, "return document.title;").await,
        "hookwire console"
    );

    client
        .find(Locator::Css("#who"))
        .await
        .unwrap()
        .send_keys("alice")
        .await
        .unwrap();
    if let Ok(path) = std::env::var("HOOKWIRE_CONSOLE_SCREENSHOT") {
        let png = client.screenshot().await.unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        std::fs::write(root.join(path), png).unwrap();
    }

    a_decision_needs_the_csrf_token(addr, &bearer, &mallory);
    assert_eq!(cards(&client).await.len(), 2);

    // Deny mallory in the page; a second decision for the call is refused.
    let again = r#"{"who":"eve","decision":"approve"}"#;
    let decide = format!("/api/approvals/{mallory}");
    let json_type = ("Content-Type", "application/json");
    click(&client, &mallory, "deny").await;
    poll_page("mallory's card gone", || async {
        (cards(&client).await.len() == 1).then_some(())
    })
    .await;
    let csrf = eval(
        &client,
        "return document.querySelector('meta[name=hookwire-csrf]').content;",
    )
    .await;
    let csrf = ("X-CSRF-Token", csrf.as_str().unwrap());
    let (status, body) = http(
        addr,
        "POST",
        &decide,
        &[("Authorization", &bearer), json_type, csrf],
        again,
    );
    assert_eq!(status, 409, "{body}");
    assert!(body.contains("decided already (denied by alice)"), "{body}");

    // Approve the vendor: the run goes on and the page shows it finish.
    click(&client, &vendor, "approve").await;
    poll_page("the run completed", || async {
        let status = eval(
            &client,
            "return document.querySelector('article.run').dataset.status;",
        )
        .await;
        (status == "completed").then_some(())
    })
    .await;
    let rows = event_rows(&client).await;
    let paid = |to: &str, amount: u64, what: &str| {
        format!(r#"pay {{"to":"{to}","amount":{amount}}} -> {what}"#)
    };
    let vendor_row = paid(
        "vendor",
        1,
        "allowed (approved at approver by alice (asker))",
    );
    let mallory_row = paid(
        "mallory",
        1_000_000,
        "denied by approver (denied at approver by alice (asker))",
    );
    assert!(rows.iter().any(|r| r.contains(&vendor_row)), "{rows:#?}");
    assert!(rows.iter().any(|r| r.contains(&mallory_row)), "{rows:#?}");
    assert_eq!(
        eval(&client, "return document.title;").await,
        "hookwire console"
    );
    client.close().await.unwrap();

    // Only the vendor was paid, and the trace names who decided.
    let printed = example.finish();
    let payments: Vec<&String> = printed.iter().filter(|l| l.starts_with("PAID ")).collect();
    assert_eq!(payments, ["PAID vendor 1"]);
    let trace = printed.join("\n");
    assert!(
        trace.contains(r#"approved at approver by "alice" (asker)"#),
        "{trace}"
    );
    assert!(
        trace.contains(r#"denied at approver by "alice" (asker)"#),
        "{trace}"
    );
}
