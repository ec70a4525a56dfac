//! The console following a durable agent's sessions through Restate (its
//! admin API for their states, the ingress for decisions), in a real
//! browser: a paused session's calls shown with their exact arguments,
//! one decided in the page, one through the ingress by somebody else.

use super::*;
use crate::browser_support::{browser, cards, click, eval, event_rows, poll_page};
use fantoccini::Locator;
use hookwire_console::{Console, DurableSessions};

/// The status the page shows for the run listed as `session`.
async fn page_status(page: &fantoccini::Client, session: &str) -> String {
    let script = format!(
        "const run = [...document.querySelectorAll('article.run')].find(r => \
         r.querySelector('.name').textContent === '{session}'); \
         return run ? run.dataset.status : '';"
    );
    eval(page, &script).await.as_str().unwrap_or("").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_durable_sessions_payments_are_decided_in_the_console() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let (_service, port) = scripted_service(
        dir.path(),
        &ledger,
        "turns:\n  - tool_calls:\n      - {id: pay_ok, name: pay_vendor, arguments: {vendor: Acme, amount: 10}}\n      - {id: pay_bad, name: pay_vendor, arguments: {vendor: Mallory, amount: 99999}}\n  - text: paid\n",
    );
    let client = server.registered_client(port).await;
    let invocation = client
        .start("shop-1", "pay the vendors", None)
        .await
        .unwrap();

    let console = Console::new().unwrap();
    let sessions =
        DurableSessions::new(client.clone(), &server.admin).every(Duration::from_millis(200));
    let _watched = console.watch_sessions(sessions);
    let listening = console.listen(0).await.unwrap();
    let (_driver, page) = browser().await;
    page.goto(&listening.url()).await.unwrap();

    // The paused session is listed, both calls wait with their exact
    // arguments, and the session's trace so far is its event log.
    let waiting = poll_page("both payments waiting", || async {
        let cards = cards(&page).await;
        (cards.len() == 2).then_some(cards)
    })
    .await;
    let mut shown: Vec<_> = waiting
        .iter()
        .map(|(_, path, args, _)| (path.as_str(), args.as_str()))
        .collect();
    shown.sort();
    assert_eq!(
        shown,
        [
            (
                "durable-PMO / pay_vendor",
                r#"{"vendor":"Acme","amount":10}"#
            ),
            (
                "durable-PMO / pay_vendor",
                r#"{"vendor":"Mallory","amount":99999}"#
            ),
        ]
    );
    assert_eq!(page_status(&page, "shop-1").await, "waiting");
    let id_of = |who: &str| {
        waiting
            .iter()
            .find(|(_, _, args, _)| args.contains(who))
            .map(|(id, ..)| id.clone())
            .unwrap()
    };
    let (acme, mallory) = (id_of("Acme"), id_of("Mallory"));
    let rows = event_rows(&page).await;
    assert!(
        rows.iter().any(|r| r.contains("pay the vendors")),
        "the prompt: {rows:#?}"
    );

    // Somebody else approves Acme through the ingress; a decision for it
    // in the page is then refused by the session, and nothing changes.
    client
        .decide_by("shop-1", &acme, ApprovalDecision::Approve, Some("bob"))
        .await
        .unwrap();
    page.find(Locator::Css("#who"))
        .await
        .unwrap()
        .send_keys("alice")
        .await
        .unwrap();
    click(&page, &acme, "deny").await;
    let refused = poll_page("the refusal on Acme's card", || async {
        let script = format!(
            "return document.querySelector(\".approval[data-id='{acme}'] .message\").textContent;"
        );
        let text = eval(&page, &script).await;
        let text = text.as_str().unwrap_or("").to_owned();
        (!text.is_empty()).then_some(text)
    })
    .await;
    assert!(
        refused.contains("decided already (by another approver of the durable session)"),
        "{refused}"
    );

    // Alice denies Mallory in the page: the session goes on, and the page
    // shows it finishing, with who decided each call.
    click(&page, &mallory, "deny").await;
    poll_page("the session completed", || async {
        (page_status(&page, "shop-1").await == "completed").then_some(())
    })
    .await;
    let rows = poll_page("every card gone", || async {
        let rows = event_rows(&page).await;
        cards(&page).await.is_empty().then_some(rows)
    })
    .await;
    let row = |vendor: &str, amount: u32, what: &str| {
        format!(r#"pay_vendor {{"vendor":"{vendor}","amount":{amount}}} -> {what}"#)
    };
    let acme_row = row("Acme", 10, "allowed (approved at approver by bob (");
    let mallory_row = row(
        "Mallory",
        99999,
        "denied by approver (denied at approver by alice (",
    );
    assert!(rows.iter().any(|r| r.contains(&acme_row)), "{rows:#?}");
    assert!(rows.iter().any(|r| r.contains(&mallory_row)), "{rows:#?}");
    assert!(
        rows.iter()
            .any(|r| r.starts_with("decided") && r.ends_with("approved by bob")),
        "Acme's card went as the session decided it: {rows:#?}"
    );
    page.close().await.unwrap();

    // Only Acme was paid, and the session's trace names who decided.
    let output = finish(&client, &invocation).await;
    assert_eq!(output.status, RunStatus::Completed);
    let counts = ledger_counts(&ledger);
    assert_eq!(count(&counts, "done pay_vendor Acme"), 1, "{counts:#?}");
    assert!(!counts.keys().any(|l| l.contains("Mallory")), "{counts:#?}");
    assert_eq!(
        deciders(&output, "pay_ok"),
        Some(vec![Some("bob".to_owned())])
    );
    assert_eq!(
        deciders(&output, "pay_bad"),
        Some(vec![Some("alice".to_owned())])
    );
}
