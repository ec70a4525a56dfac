//! The client's calls to the admin API (`http://127.0.0.1:9070`):
//! registering a service, resuming a paused invocation, and reading
//! invocations and session states with its SQL query endpoint.

use serde_json::{Value, json};

use super::{ClientError, DurableClient, check_session_id, checked_invocation_id};
use crate::agent::RunState;

impl DurableClient {
    /// Registers the durable service at `service` (`http://127.0.0.1:9080`)
    /// with the server whose admin API is at `admin`
    /// (`http://127.0.0.1:9070`); again with `force` for a new build.
    pub async fn register(&self, admin: &str, service: &str) -> Result<Value, ClientError> {
        let url = format!("{}/deployments", admin.trim_end_matches('/'));
        self.send(
            self.http
                .post(&url)
                .json(&json!({"uri": service, "force": true})),
            &url,
        )
        .await
    }

    /// Runs the paused invocation `invocation` again from its journal
    /// (`PATCH /invocations/<id>/resume` on the admin API at `admin`): an
    /// invocation pauses when the retry policy's attempts run out
    /// ([`DurableAgent::with_max_attempts`](crate::durable::DurableAgent::with_max_attempts)).
    pub async fn resume(&self, admin: &str, invocation: &str) -> Result<(), ClientError> {
        let invocation = checked_invocation_id(invocation)?;
        let url = format!(
            "{}/invocations/{invocation}/resume",
            admin.trim_end_matches('/')
        );
        self.send::<Value>(self.http.patch(&url), &url)
            .await
            .map(drop)
    }

    /// The status of the invocation `invocation` as the admin API at
    /// `admin` reports it (`running`, `backing-off`, `paused`,
    /// `suspended`, `completed`, ...); `None` if the server does not know
    /// it.
    pub async fn status(
        &self,
        admin: &str,
        invocation: &str,
    ) -> Result<Option<String>, ClientError> {
        let invocation = checked_invocation_id(invocation)?;
        let query = format!("SELECT status FROM sys_invocation WHERE id = '{invocation}'");
        self.admin_value(admin, &query, "status").await
    }

    /// The session's state (`None` before its first run), read through the
    /// admin API at `admin` (`http://127.0.0.1:9070`): the session's
    /// `state` handler is private, so the ingress does not serve a
    /// session's history to whoever reaches it. Keep the admin API off
    /// public networks.
    pub async fn state(&self, admin: &str, session: &str) -> Result<Option<RunState>, ClientError> {
        check_session_id(session)?;
        // Neither name can hold a quote: a durable name is an identifier,
        // a session id is checked above (unreserved URL characters).
        let query = format!(
            "SELECT value_utf8 FROM state WHERE service_name = '{}' AND service_key = '{}' \
             AND key = 'state'",
            self.agent.session_service(),
            session
        );
        let Some(text) = self.admin_value(admin, &query, "value_utf8").await? else {
            return Ok(None);
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| ClientError::Decode {
                url: query_url(admin),
                message: e.to_string(),
            })
    }

    /// The text of `column` in the first row that `query` gives on the
    /// admin API at `admin`; `None` when there is no such row.
    async fn admin_value(
        &self,
        admin: &str,
        query: &str,
        column: &str,
    ) -> Result<Option<String>, ClientError> {
        Ok(self
            .admin_rows(admin, query)
            .await?
            .first()
            .and_then(|row| row.get(column))
            .and_then(Value::as_str)
            .map(str::to_owned))
    }

    /// The rows that `query` gives on the admin API at `admin`.
    async fn admin_rows(&self, admin: &str, query: &str) -> Result<Vec<Value>, ClientError> {
        let url = query_url(admin);
        let mut answer: Value = self
            .send(
                self.http
                    .post(&url)
                    .header("accept", "application/json")
                    .json(&json!({ "query": query })),
                &url,
            )
            .await?;
        Ok(match answer.get_mut("rows").map(Value::take) {
            Some(Value::Array(rows)) => rows,
            _ => Vec::new(),
        })
    }

    /// Every session of the agent that has a state, with it (sorted by
    /// session id), read through the admin API at `admin` as
    /// [`state`](Self::state) reads one: what a console lists. A session's
    /// state is written when its run pauses for approval and when it ends,
    /// so a paused session's `approvals.pending` are the calls that wait.
    pub async fn sessions(&self, admin: &str) -> Result<Vec<(String, RunState)>, ClientError> {
        // A durable name is an identifier: it holds no quote.
        let query = format!(
            "SELECT service_key, value_utf8 FROM state WHERE service_name = '{}' \
             AND key = 'state' ORDER BY service_key",
            self.agent.session_service()
        );
        let url = query_url(admin);
        let answer = self.admin_rows(admin, &query).await?;
        let mut sessions = Vec::new();
        for row in answer {
            let (Some(key), Some(text)) = (
                row.get("service_key").and_then(Value::as_str),
                row.get("value_utf8").and_then(Value::as_str),
            ) else {
                continue;
            };
            let state = serde_json::from_str(text).map_err(|e| ClientError::Decode {
                url: url.clone(),
                message: format!("the state of session `{key}`: {e}"),
            })?;
            sessions.push((key.to_owned(), state));
        }
        Ok(sessions)
    }
}

/// The query endpoint of the admin API at `admin`.
fn query_url(admin: &str) -> String {
    format!("{}/query", admin.trim_end_matches('/'))
}
