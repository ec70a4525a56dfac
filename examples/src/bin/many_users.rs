//! Many users, one agent: one agent value, built once from its
//! dependencies, serves concurrent sessions; each session has its own
//! history, child histories, approvals and typed session values.
//!
//! ```text
//! cargo run -p hookwire-examples --bin many_users
//! ```
//!
//! Offline: every session runs on the built-in scripted model.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use hookwire::agent::Runner;
use hookwire::model::{ScriptedModel, Turn};
use hookwire::{Dep, ToolContext};

/// What the tools need, built once per process: here a shared ledger.
#[derive(Clone, Default)]
struct Deps {
    ledger: Arc<Mutex<BTreeMap<String, i64>>>,
}

/// The user of one session (a typed session value, not a string map).
struct User(String);

/// Adds `amount` to the caller's balance and returns the new balance.
#[hookwire::tool]
fn deposit(deps: Dep<Deps>, cx: &ToolContext, amount: i64) -> String {
    let Some(User(user)) = cx.session::<User>() else {
        return "no user in this session".to_owned();
    };
    let mut ledger = match deps.ledger.lock() {
        Ok(ledger) => ledger,
        Err(poisoned) => poisoned.into_inner(),
    };
    let balance = ledger.entry(user.clone()).or_default();
    *balance += amount;
    format!("{user}'s balance is {balance}")
}

/// A bank teller.
#[hookwire::agent(
    name = "teller",
    instruction = "Deposit what the user asks for.",
    deps = Deps,
    function_tools = [deposit],
)]
pub struct Teller;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let deps = Deps::default();
    // Built once; every session shares it.
    let teller = Arc::new(Teller::new(&deps));
    let sessions = ["alice", "bob", "carol"]
        .into_iter()
        .zip(1..)
        .map(|(user, n)| {
            let teller = teller.clone();
            tokio::spawn(async move {
                let model = ScriptedModel::from_turns([
                    Turn::call("deposit", serde_json::json!({ "amount": n * 10 })),
                    Turn::text("Done."),
                ]);
                let mut session = Runner::new(teller, model).with_session_value(User(user.into()));
                let out = session.run(format!("deposit {}", n * 10)).await;
                (user, out, session.history().len())
            })
        });
    for joined in futures_join(sessions).await {
        match joined {
            Ok((user, Ok(out), messages)) => {
                println!("== {user}: {messages} messages in this session");
                print!("{}", out.trace_text());
            }
            Ok((user, Err(e), _)) => println!("== {user}: the run failed: {e}"),
            Err(e) => println!("a session task failed: {e}"),
        }
    }
    let ledger = match deps.ledger.lock() {
        Ok(ledger) => ledger.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    println!("== the ledger the dependency holds: {ledger:?}");
}

/// Awaits every task, in order.
async fn futures_join<T>(
    tasks: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<Result<T, tokio::task::JoinError>> {
    let mut out = Vec::new();
    for task in tasks {
        out.push(task.await);
    }
    out
}
