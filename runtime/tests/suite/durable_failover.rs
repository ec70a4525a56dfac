//! The durable client with several ingress addresses, against local TCP
//! servers: one refuses connections, one takes a request and closes the
//! connection without answering (a node killed mid-request), one answers.
//! A request moves on when it was not sent, or when sending it again cannot
//! run it twice (an idempotency key, a read); otherwise it is reported.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use hookwire::approval::ApprovalDecision;
use hookwire::durable::{ClientError, DurableClient};

/// A request a fake ingress received: its method and path, and its
/// `idempotency-key` header.
type Request = (String, Option<String>);

/// What a fake ingress received.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<Request>>>);

impl Seen {
    fn requests(&self) -> Vec<Request> {
        self.0.lock().unwrap().clone()
    }
}

/// A URL nothing listens on (bound, then released): connections refused.
fn refusing() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    format!("http://{}", listener.local_addr().unwrap())
}

/// Reads one request from `stream` and records it.
fn read_request(stream: &mut TcpStream, seen: &Seen) -> Option<()> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let what: Vec<&str> = line.split_whitespace().take(2).collect();
    let (mut length, mut key) = (0usize, None);
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().ok()?,
            "idempotency-key" => key = Some(value.trim().to_owned()),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    seen.0.lock().unwrap().push((what.join(" "), key));
    Some(())
}

/// A fake ingress: `answer` gives the response to write (`None`: close
/// the connection without answering, after reading the request).
fn ingress(answer: Option<(u16, &'static str)>) -> (String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Seen::default();
    let record = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let record = record.clone();
            std::thread::spawn(move || {
                while read_request(&mut stream, &record).is_some() {
                    let Some((status, body)) = answer else { return };
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\n\
                         content-length: {}\r\n\r\n{body}",
                        body.len()
                    );
                }
            });
        }
    });
    (url, seen)
}

const STARTED: Option<(u16, &str)> = Some((200, r#"{"invocationId":"inv_1abc"}"#));

#[tokio::test]
async fn a_refused_connection_moves_to_the_next_ingress_and_stays_there() {
    let (up, seen) = ingress(STARTED);
    let dead = refusing();
    let client = DurableClient::with_ingresses([dead.clone(), up.clone()]).unwrap();
    assert_eq!(client.ingress(), dead);
    // No key: the request was never sent to the refusing node, so it may go
    // to the next one.
    let id = client.start("s1", "hi", None).await.unwrap();
    assert_eq!(id, "inv_1abc");
    assert_eq!(seen.requests().len(), 1);
    assert_eq!(seen.requests()[0].0, "POST /AgentSession/s1/run/send");
    // The next request goes to the node that answered first.
    assert_eq!(client.ingress(), up);
    assert_eq!(client.ingresses(), [dead, up]);

    // Every address refuses: the last one's error.
    let (a, b) = (refusing(), refusing());
    let client = DurableClient::new(&a).unwrap().add_ingress(&b);
    let e = client.start("s1", "hi", None).await.unwrap_err();
    assert!(matches!(e, ClientError::Unreachable { .. }), "{e:?}");
    assert!(e.url().starts_with(&b), "{e}");
    let none: [&str; 0] = [];
    assert!(matches!(
        DurableClient::with_ingresses(none),
        Err(ClientError::NoIngress)
    ));
}

#[tokio::test]
async fn a_request_that_may_have_arrived_is_sent_again_only_with_an_idempotency_key() {
    let (cut, cut_seen) = ingress(None);
    let (up, up_seen) = ingress(STARTED);
    let client = DurableClient::with_ingresses([&cut, &up]).unwrap();

    // A start without a key reached a node that died before answering: not
    // sent again (a second copy could start a second run), reported.
    let e = client.start("s1", "hi", None).await.unwrap_err();
    assert!(matches!(e, ClientError::MaybeReceived { .. }), "{e:?}");
    assert!(e.to_string().contains("may have been received"), "{e}");
    assert_eq!(e.url(), format!("{cut}/AgentSession/s1/run/send"));
    // `run` waits for the output of a run it starts: the same.
    let e = client.run("s1", "hi").await.unwrap_err();
    assert!(matches!(e, ClientError::MaybeReceived { .. }), "{e:?}");
    assert_eq!(cut_seen.requests().len(), 2);
    assert!(up_seen.requests().is_empty(), "{:?}", up_seen.requests());

    // With a key, the same request goes on to the next node, key and all:
    // the cluster runs one start per key.
    let id = client.start("s1", "hi", Some("k-1")).await.unwrap();
    assert_eq!(id, "inv_1abc");
    let key = Some("k-1".to_owned());
    assert_eq!(cut_seen.requests()[2].1, key);
    assert_eq!(
        up_seen.requests(),
        [("POST /AgentSession/s1/run/send".to_owned(), key)]
    );

    // With one address, nothing is retried and the error is the old one.
    let alone = DurableClient::new(&cut).unwrap();
    let e = alone.start("s1", "hi", None).await.unwrap_err();
    assert!(matches!(e, ClientError::Unreachable { .. }), "{e:?}");
}

#[tokio::test]
async fn a_decision_carries_its_own_key_to_every_node_and_a_read_moves_on() {
    let (cut, cut_seen) = ingress(None);
    let (up, up_seen) = ingress(Some((409, r#"{"message":"already decided (approve)"}"#)));
    let client = DurableClient::with_ingresses([&cut, &up]).unwrap();
    let e = client
        .decide("s1", "d1", ApprovalDecision::Approve)
        .await
        .unwrap_err();
    // The decision went on to the node that answers, whose answer it is.
    assert_eq!(e.status(), Some(409), "{e:?}");
    let (cut_req, up_req) = (cut_seen.requests(), up_seen.requests());
    assert_eq!(up_req[0].0, "POST /AgentSession/s1/approve");
    let key = up_req[0].1.clone().unwrap();
    assert!(key.starts_with("hookwire-") && key.len() == 41, "{key}");
    // Both copies had the same key: the cluster decides once.
    assert_eq!(cut_req[0].1.as_deref(), Some(key.as_str()));
    // Another decision is another request: another key.
    let _ = client
        .decide("s1", "d1", ApprovalDecision::Approve)
        .await
        .unwrap_err();
    let again = up_seen.requests()[1].1.clone().unwrap();
    assert_ne!(again, key);

    // A read (a run's output) moves on too.
    let (cut, _) = ingress(None);
    let (up, up_seen) = ingress(Some((
        200,
        r#"{"text":"done","status":"completed","steps":1,"trace":[]}"#,
    )));
    let client = DurableClient::with_ingresses([&cut, &up]).unwrap();
    let _ = client.output("inv_1abc").await;
    assert_eq!(
        up_seen.requests()[0].0,
        "GET /restate/invocation/inv_1abc/attach"
    );
}
