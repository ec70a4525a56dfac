//! The durable PMO service: serves the orchestrator's sessions to a Restate
//! server. See docs/durable.md.
//!
//! ```text
//! durable_pmo [--listen 127.0.0.1:9080] [--register http://127.0.0.1:9070]
//!             [--reuse-port] [--script FILE]
//! ```
//!
//! `--register` registers the service with the server's admin API once it
//! listens (again on every start: a new build is a new revision).
//! `--reuse-port` lets several processes listen on one address (replicas).
//! `DURABLE_PMO_RETRY_MS` and `DURABLE_PMO_RETRY_ATTEMPTS` set the retry
//! policy (the wait between attempts, fixed, and the attempts before the
//! invocation pauses) instead of `DurableAgent`'s defaults.
//! `HOOKWIRE_RESTATE_IDENTITY_KEYS` (`publickeyv1_..`) makes the service
//! serve only requests the Restate server signed with the matching private
//! key (its `request-identity-private-key-pem-file`).

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use hookwire::durable::{DurableAgent, DurableClient};
use hookwire_examples::durable_pmo::{ConversationScript, finance_runner, session_runner};

struct Args {
    listen: SocketAddr,
    register: Option<String>,
    reuse_port: bool,
    script: Option<String>,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        listen: SocketAddr::from(([127, 0, 0, 1], 9080)),
        register: None,
        reuse_port: false,
        script: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--listen" => {
                let v = value()?;
                args.listen = v.parse().map_err(|e| format!("--listen {v}: {e}"))?;
            }
            "--register" => args.register = Some(value()?),
            "--script" => args.script = Some(value()?),
            "--reuse-port" => args.reuse_port = true,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("durable_pmo: {e}");
            return ExitCode::from(2);
        }
    };
    let model = match &args.script {
        Some(path) => ConversationScript::from_file(path),
        None => ConversationScript::default_script(),
    };
    let model = match model {
        Ok(model) => Arc::new(model),
        Err(e) => {
            eprintln!("durable_pmo: {e}");
            return ExitCode::FAILURE;
        }
    };
    let listener = match DurableAgent::listener(args.listen, args.reuse_port) {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("durable_pmo: cannot listen on {}: {e}", args.listen);
            return ExitCode::FAILURE;
        }
    };
    // The PMO (`AgentSession`) and finance (`DurableFinanceSession`), side
    // by side.
    let pmo_model = model.clone();
    let mut pmo = DurableAgent::new(move |_session| session_runner(pmo_model.clone()));
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u32>().ok());
    if let Some(ms) = var("DURABLE_PMO_RETRY_MS") {
        let wait = Duration::from_millis(u64::from(ms));
        pmo = pmo.with_retry(wait, wait);
    }
    if let Some(attempts) = var("DURABLE_PMO_RETRY_ATTEMPTS") {
        pmo = pmo.with_max_attempts(attempts);
    }
    let pmo = match pmo.with_identity_keys_from_env() {
        Ok(pmo) => pmo,
        Err(e) => {
            eprintln!("durable_pmo: {e}");
            return ExitCode::from(2);
        }
    };
    let service = match pmo.and(DurableAgent::new(move |_session| {
        finance_runner(model.clone())
    })) {
        Ok(service) => service,
        Err(e) => {
            eprintln!("durable_pmo: {e}");
            return ExitCode::FAILURE;
        }
    };
    let serving = tokio::spawn(service.serve(listener));
    eprintln!("durable_pmo: serving on http://{}", args.listen);
    if let Some(admin) = &args.register {
        let registered = match DurableClient::new("http://127.0.0.1:8080") {
            Ok(client) => {
                client
                    .register(admin, &format!("http://{}", args.listen))
                    .await
            }
            Err(e) => Err(e),
        };
        match registered {
            Ok(_) => eprintln!("durable_pmo: registered with {admin}"),
            Err(e) => {
                eprintln!("durable_pmo: cannot register: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    match serving.await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("durable_pmo: the server stopped: {e}");
            ExitCode::FAILURE
        }
    }
}
