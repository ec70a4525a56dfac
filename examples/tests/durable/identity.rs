//! Only Restate may call the service: with a request identity key the
//! service refuses every request the server did not sign, while runs
//! through the server (which signs with the private key) work; and a
//! session's state is not served by the ingress.

use super::*;

use ed25519_dalek::SigningKey;
use ed25519_dalek::pkcs8::EncodePrivateKey;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;

/// An Ed25519 key pair as each side reads it: the server's private key
/// (PKCS#8 PEM, written into `dir`) and the SDK's public key
/// (`publickeyv1_` and base58 of the 32 key bytes).
fn identity(dir: &std::path::Path, seed: u8) -> (std::path::PathBuf, String) {
    let key = SigningKey::from_bytes(&[seed; 32]);
    let pem = key.to_pkcs8_pem(LineEnding::LF).unwrap();
    let path = dir.join(format!("identity-{seed}.pem"));
    std::fs::write(&path, pem.as_bytes()).unwrap();
    let public = format!(
        "publickeyv1_{}",
        bs58::encode(key.verifying_key().to_bytes()).into_string()
    );
    (path, public)
}

/// POSTs straight to the service's port (HTTP/2, as Restate does), with
/// `headers`, and returns the status and the body.
async fn to_service(port: u16, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let http = reqwest::Client::builder()
        .http2_prior_knowledge()
        .build()
        .unwrap();
    let mut request = http
        .post(format!("http://127.0.0.1:{port}{path}"))
        .header("content-type", "application/vnd.restate.invocation.v5");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let answer = request.send().await.unwrap();
    let status = answer.status().as_u16();
    (status, answer.text().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_an_identity_key_only_the_server_may_call_the_service() {
    let dir = tempfile::tempdir().unwrap();
    let (private, public) = identity(dir.path(), 7);
    let private = private.display().to_string();
    let server = Server::start_with(&[(
        "RESTATE_REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE",
        private.as_str(),
    )]);
    let ledger = dir.path().join("ledger");
    let port = free_port();
    let spec = ServiceSpec {
        port,
        ledger: &ledger,
        script: None,
        delay_ms: 0,
        reuse_port: false,
        timeout_ms: None,
    };
    let _service = Service::start_with(
        &spec,
        &[("HOOKWIRE_RESTATE_IDENTITY_KEYS", public.as_str())],
    );

    // Anyone else who reaches the port is refused before any handler:
    // without a signature, with a forged one, and for discovery too.
    let (_, other_public) = identity(dir.path(), 8);
    assert_ne!(public, other_public);
    for headers in [
        vec![],
        vec![
            ("x-restate-signature-scheme", "v1"),
            ("x-restate-jwt-v1", "eyJhbGciOiJFZERTQSJ9.e30.AAAA"),
        ],
        vec![("x-restate-signature-scheme", "unsigned")],
    ] {
        for path in [
            "/invoke/AgentSession/run",
            "/invoke/AgentApproval/decide",
            "/discover",
        ] {
            let (code, answer) = to_service(port, path, &headers).await;
            assert_eq!(code, 401, "{path} with {headers:?}: {answer}");
        }
    }
    assert!(
        ledger_counts(&ledger).is_empty(),
        "{:?}",
        ledger_counts(&ledger)
    );

    // Through the server, which signs its requests, registration and a run
    // work.
    let client = server.registered_client(port).await;
    let invocation = client
        .start("id-1", "Weekly PMO round", None)
        .await
        .unwrap();
    let pending = wait_pending(&client, &server.admin, "id-1", 1)
        .await
        .remove(0);
    client
        .decide("id-1", &pending.id(), ApprovalDecision::Approve)
        .await
        .unwrap();
    let out = finish(&client, &invocation).await;
    assert_eq!(out.status, RunStatus::Completed, "{out:?}");
    let counts = ledger_counts(&ledger);
    let paid: Vec<_> = counts
        .iter()
        .filter(|(line, _)| line.starts_with("done pay_vendor"))
        .collect();
    assert_eq!(paid.len(), 1, "{counts:?}");
    assert_eq!(*paid[0].1, 1, "{counts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_with_a_key_refuses_a_server_that_signs_with_another() {
    let dir = tempfile::tempdir().unwrap();
    let (private, _) = identity(dir.path(), 7);
    let (_, other) = identity(dir.path(), 9);
    let private = private.display().to_string();
    let server = Server::start_with(&[(
        "RESTATE_REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE",
        private.as_str(),
    )]);
    let ledger = dir.path().join("ledger");
    let port = free_port();
    let spec = ServiceSpec {
        port,
        ledger: &ledger,
        script: None,
        delay_ms: 0,
        reuse_port: false,
        timeout_ms: None,
    };
    let _service =
        Service::start_with(&spec, &[("HOOKWIRE_RESTATE_IDENTITY_KEYS", other.as_str())]);
    let refused = server
        .client()
        .register(&server.admin, &format!("http://127.0.0.1:{port}"))
        .await
        .unwrap_err();
    assert!(refused.to_string().contains("401"), "{refused}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ingress_does_not_serve_a_sessions_state() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let port = free_port();
    let _service = Service::start(&ServiceSpec {
        port,
        ledger: &ledger,
        script: None,
        delay_ms: 0,
        reuse_port: false,
        timeout_ms: None,
    });
    let client = server.registered_client(port).await;
    client
        .start("open-1", "Weekly PMO round", None)
        .await
        .unwrap();
    let pending = wait_pending(&client, &server.admin, "open-1", 1).await;
    assert_eq!(pending[0].tool(), "pay_vendor");
    // The operator reads it through the admin API; the ingress refuses.
    let address = server.ingress.trim_start_matches("http://").to_owned();
    let (code, answer) = post(&address, "/AgentSession/open-1/state", "");
    assert!((400..500).contains(&code), "{code}: {answer}");
    assert!(!answer.contains("Weekly PMO round"), "{answer}");
    assert!(!answer.contains("pay_vendor"), "{answer}");
}
