//! What the browser tests share: headless Chromium driven through
//! WebDriver (Debian's `chromium` and `chromium-driver`, installed by
//! `.ci/run`) with fantoccini, the console page's cards and event rows,
//! and a deadline for page state (polled, never timed).

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// How long page state, a process or a port is waited for.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// A child process that is killed when the test ends, however it ends.
pub struct Killed(pub Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `ready()`'s value, asked until it has one; panics after [`DEADLINE`].
pub fn poll<T>(what: &str, mut ready: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(value) = ready() {
            return value;
        }
        assert!(start.elapsed() < DEADLINE, "waited {DEADLINE:?} for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// [`poll`] for page state read by an async function.
pub async fn poll_page<T, F>(what: &str, mut ready: impl FnMut() -> F) -> T
where
    F: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(value) = ready().await {
            return value;
        }
        assert!(start.elapsed() < DEADLINE, "waited {DEADLINE:?} for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One HTTP/1.0 request to `addr`: the status and the body.
pub fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    let mut request = format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.to_owned())
}

/// chromedriver on a free loopback port, and a headless Chromium session.
pub async fn browser() -> (Killed, Client) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let driver = std::env::var("HOOKWIRE_CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
    let process = Command::new(&driver)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot start `{driver}` ({e}): apt-get install chromium chromium-driver")
        });
    let process = Killed(process);
    poll("chromedriver", || {
        TcpStream::connect(("127.0.0.1", port)).ok()
    });
    let mut options = json!({"args": ["--headless=new", "--no-sandbox", "--disable-gpu",
        "--disable-dev-shm-usage", "--window-size=1280,900"]});
    if let Ok(binary) = std::env::var("HOOKWIRE_CHROMIUM") {
        options["binary"] = json!(binary);
    }
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), options);
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client = ClientBuilder::new(connector)
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{port}"))
        .await
        .unwrap();
    (process, client)
}

/// A script's value in the page.
pub async fn eval(client: &Client, script: &str) -> Value {
    client.execute(script, vec![]).await.unwrap()
}

/// The approval cards on the page: `(decision id, path, arguments, metadata)`.
pub async fn cards(client: &Client) -> Vec<(String, String, String, String)> {
    let value = eval(
        client,
        "return [...document.querySelectorAll('.approval')].map(c => [c.dataset.id, \
         c.querySelector('.path').textContent, c.querySelector('pre.arguments').textContent, \
         (c.querySelector('pre.metadata') || {}).textContent || '']);",
    )
    .await;
    serde_json::from_value::<Vec<(String, String, String, String)>>(value).unwrap()
}

/// The text of the page's event rows.
pub async fn event_rows(client: &Client) -> Vec<String> {
    let value = eval(
        client,
        "return [...document.querySelectorAll('ol.events li')].map(li => li.textContent);",
    )
    .await;
    serde_json::from_value(value).unwrap()
}

/// Clicks the button `class` of the card of the call paying `to`.
pub async fn click(client: &Client, id: &str, class: &str) {
    let selector = format!(".approval[data-id='{id}'] button.{class}");
    client
        .find(Locator::Css(&selector))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}
