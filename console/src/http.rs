//! The console over HTTP: its routes, the token every request needs, the
//! CSRF token every decision needs, and the embedded page.
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the page (`?token=` sets the cookie and redirects here) |
//! | `GET /app.js`, `GET /app.css` | the page's script and style |
//! | `GET /api/runs` | the runs, with their status and waiting calls |
//! | `GET /api/runs/{run}/events` | a run's events, from its start, live (SSE) |
//! | `POST /api/approvals/{id}` | a decision (JSON; header `X-CSRF-Token`) |

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use futures_util::Stream;

use crate::approver::Posted;
use crate::secret::{escape_html, same};
use crate::{Console, ConsoleError, DecideError, Shared};

/// The page, its script and its style, embedded: nothing comes from
/// elsewhere.
const PAGE: &str = include_str!("../assets/index.html");
const SCRIPT: &str = include_str!("../assets/app.js");
const STYLE: &str = include_str!("../assets/app.css");

/// The content security policy of every response: this origin's script
/// and style only (no inline script, no `eval`), nothing from elsewhere,
/// no framing.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     connect-src 'self'; img-src 'self'; base-uri 'self'; form-action 'none'; \
     frame-ancestors 'none'";

/// The header a decision carries the CSRF token in.
const CSRF_HEADER: &str = "x-csrf-token";

impl Console {
    /// The console's routes, to serve or to nest in your service's router
    /// (`app.nest("/console", console.router())`): every route needs the
    /// console's token.
    pub fn router(&self) -> axum::Router {
        let shared = self.shared.clone();
        axum::Router::new()
            .route("/", get(page))
            .route(
                "/app.js",
                get(|| asset(SCRIPT, "text/javascript; charset=utf-8")),
            )
            .route("/app.css", get(|| asset(STYLE, "text/css; charset=utf-8")))
            .route("/api/runs", get(runs))
            .route("/api/runs/{run}/events", get(events))
            .route("/api/approvals/{id}", post(decide))
            .layer(middleware::from_fn_with_state(shared.clone(), guard))
            .with_state(shared)
    }

    /// Serves [`router`](Self::router) on 127.0.0.1 at `port` (0: any free
    /// port), on a task of its own.
    pub async fn listen(&self, port: u16) -> Result<Listening, ConsoleError> {
        self.listen_on(SocketAddr::from(([127, 0, 0, 1], port)))
            .await
    }

    /// Serves [`router`](Self::router) at `addr`, on a task of its own.
    /// Anyone who can reach `addr` and has the token can decide: prefer
    /// [`listen`](Self::listen)'s loopback, or TLS in front.
    pub async fn listen_on(&self, addr: SocketAddr) -> Result<Listening, ConsoleError> {
        let bind = |source| ConsoleError::Bind { addr, source };
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(bind)?;
        let addr = listener.local_addr().map_err(bind)?;
        let router = self.router();
        tokio::spawn(async move { axum::serve(listener, router).await });
        Ok(Listening {
            addr,
            token: self.shared.token.clone(),
        })
    }
}

/// A console being served ([`Console::listen`]).
#[derive(Debug, Clone)]
pub struct Listening {
    addr: SocketAddr,
    token: String,
}

impl Listening {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL with the token, to open in a browser.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token)
    }
}

/// Every request passes here: it needs the console's token (a decision
/// also the CSRF token), and every response gets the security headers.
async fn guard(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let mut response = match check(&shared, &request) {
        Ok(Access::Pass) => next.run(request).await,
        Ok(Access::SetCookie) => enter(&shared, &request),
        Err((status, why)) => refuse(status, why),
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// What a request with a good token may do.
enum Access {
    /// Go on.
    Pass,
    /// The page's URL with `?token=`: set the cookie, then the page.
    SetCookie,
}

/// Checks a request's token (and a POST's CSRF token).
fn check(shared: &Shared, request: &Request) -> Result<Access, (StatusCode, &'static str)> {
    let headers = request.headers();
    let token = shared.token.as_bytes();
    let by_query = query_token(request).is_some_and(|t| same(t.as_bytes(), token));
    let by_header = bearer(headers).is_some_and(|t| same(t.as_bytes(), token));
    let by_cookie = cookie(headers, &shared.cookie).is_some_and(|t| same(t.as_bytes(), token));
    if !(by_query || by_header || by_cookie) {
        return Err((
            StatusCode::UNAUTHORIZED,
            "this console needs its token: open the URL it printed (with `?token=`), or send \
             `Authorization: Bearer <token>`",
        ));
    }
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let csrf = headers.get(CSRF_HEADER).map(HeaderValue::as_bytes);
        if !csrf.is_some_and(|c| same(c, shared.csrf.as_bytes())) {
            return Err((
                StatusCode::FORBIDDEN,
                "refused: a decision needs the console's CSRF token (header `X-CSRF-Token`, \
                 from the page); nothing was decided",
            ));
        }
    }
    Ok(if by_query && request.method() == Method::GET {
        Access::SetCookie
    } else {
        Access::Pass
    })
}

/// A refusal, as plain text.
fn refuse(status: StatusCode, message: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message.to_owned(),
    )
        .into_response()
}

/// The `token` of the request's query.
fn query_token(request: &Request) -> Option<&str> {
    request
        .uri()
        .query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
}

/// The token of `Authorization: Bearer`.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
}

/// The value of the cookie `name`.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(name)?.strip_prefix('='))
}

/// The path the console is mounted at, with a trailing `/`: what the
/// page's links are relative to.
fn base(request: &Request) -> String {
    let here = request.uri().path();
    let full = request
        .extensions()
        .get::<OriginalUri>()
        .map_or(here, |o| o.0.path());
    let prefix = full.strip_suffix(here).unwrap_or(full);
    let prefix = if here == "/" {
        full.trim_end_matches('/')
    } else {
        prefix.trim_end_matches('/')
    };
    format!("{prefix}/")
}

/// The page's URL with the token: keep the token in the cookie and go to
/// the page without it (it leaves the address bar and the history).
fn enter(shared: &Shared, request: &Request) -> Response {
    let base = base(request);
    let cookie = format!(
        "{}={}; Path={base}; HttpOnly; SameSite=Strict",
        shared.cookie, shared.token
    );
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let (Ok(cookie), Ok(location)) =
        (HeaderValue::from_str(&cookie), HeaderValue::from_str(&base))
    {
        headers.insert(header::SET_COOKIE, cookie);
        headers.insert(header::LOCATION, location);
    }
    response
}

/// `GET /`: the page, with the CSRF token and its base, escaped.
async fn page(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let html = PAGE
        .replace("{{base}}", &escape_html(&base(&request)))
        .replace("{{title}}", &escape_html(&shared.title))
        .replace("{{csrf}}", &escape_html(&shared.csrf));
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response()
}

/// An embedded asset.
async fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// A JSON response.
fn json(status: StatusCode, value: &impl serde::Serialize) -> Response {
    let body = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `GET /api/runs`.
async fn runs(State(shared): State<Arc<Shared>>) -> Response {
    json(StatusCode::OK, &shared.summaries())
}

/// `GET /api/runs/{run}/events`: the run's log from its start (or after
/// the `Last-Event-ID` a reconnecting browser sends), then live, as
/// server-sent events whose id is their place in the log; it ends when
/// the run has.
async fn events(
    State(shared): State<Arc<Shared>>,
    Path(run): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(run) = shared.run(&run) else {
        return refuse(StatusCode::NOT_FOUND, "no such run");
    };
    let from = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok())
        .map_or(0, |seen| seen.saturating_add(1));
    let follow = run.follow();
    let open = Open::new(shared.clone());
    let stream = futures_util::stream::unfold(
        (run, follow, from, open),
        |(run, mut follow, at, open)| async move {
            loop {
                match run.event(at) {
                    Ok(event) => {
                        let sse = Event::default()
                            .event(event.name)
                            .id(at.to_string())
                            .data(event.data);
                        return Some((Ok::<_, Infallible>(sse), (run, follow, at + 1, open)));
                    }
                    Err(true) => return None,
                    Err(false) => {
                        if follow.changed().await.is_err() {
                            return None;
                        }
                    }
                }
            }
        },
    );
    sse(stream)
}

/// An open event stream, counted in [`Shared::streams`] while it lives.
struct Open(Arc<Shared>);

impl Open {
    fn new(shared: Arc<Shared>) -> Self {
        shared.streams.send_modify(|open| *open += 1);
        Self(shared)
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0
            .streams
            .send_modify(|open| *open = open.saturating_sub(1));
    }
}

/// `stream` as an SSE response.
fn sse(stream: impl Stream<Item = Result<Event, Infallible>> + Send + 'static) -> Response {
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// `POST /api/approvals/{id}`: a person's decision for a waiting call.
async fn decide(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let posted: Posted = match serde_json::from_slice(&body) {
        Ok(posted) => posted,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                &format!(
                    "a decision is a JSON object {{\"who\", \"decision\", \"reason\"?, \
                     \"arguments\"?}}: {e}; nothing was decided"
                ),
            );
        }
    };
    let decided = match posted.decision() {
        Ok((who, decision)) => shared.decide(&id, who, decision).await,
        Err(refused) => Err(refused),
    };
    match decided {
        Ok(()) => json(StatusCode::OK, &serde_json::json!({"decided": id})),
        Err(e) => {
            let status = match e {
                DecideError::NotWaiting(_) | DecideError::AlreadyDecided { .. } => {
                    StatusCode::CONFLICT
                }
                DecideError::Unanswered { .. } => StatusCode::BAD_GATEWAY,
                _ => StatusCode::BAD_REQUEST,
            };
            refuse(status, &e.to_string())
        }
    }
}
