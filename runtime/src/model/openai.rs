//! An OpenAI-compatible chat-completions model with tool calling, streamed
//! when someone streams the run (the server-sent events are read with
//! `sse-stream`, in this module only).

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Map, Value, json};

use super::scrub::transport;
use super::{Message, Model, ModelError, ModelRequest, ModelResponse, Usage};
use crate::BoxFuture;
use crate::secret::Secret;
use hookwire_chain::call::{ToolArgs, ToolCall};
use hookwire_chain::tool::ToolDefinition;

/// Where and how to reach an OpenAI-compatible chat-completions service.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OpenAiConfig {
    /// The base URL, up to and including `/v1` (default
    /// `https://api.openai.com/v1`).
    pub base_url: String,
    /// The model name.
    pub model: String,
    /// The API key, sent as a bearer token when set (never printed: see
    /// [`Secret`]).
    pub api_key: Option<Secret>,
    /// The sampling temperature, when set.
    pub temperature: Option<f64>,
    /// The answer's token limit, when set.
    pub max_tokens: Option<u32>,
    /// How long one request may take.
    pub timeout: Duration,
}

impl OpenAiConfig {
    /// A configuration for `model` at the default base URL, without a key.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            base_url: "https://api.openai.com/v1".to_owned(),
            model: model.into(),
            api_key: None,
            temperature: None,
            max_tokens: None,
            timeout: Duration::from_secs(120),
        }
    }

    /// A configuration from the environment: `OPENAI_BASE_URL`,
    /// `OPENAI_API_KEY` and `HOOKWIRE_MODEL` (a model name, or
    /// `openai:<model>`). `model` (for example an agent's configured
    /// model) is used when `HOOKWIRE_MODEL` is not set.
    pub fn from_env(model: Option<&str>) -> Result<Self, ModelError> {
        let name = std::env::var("HOOKWIRE_MODEL")
            .ok()
            .or_else(|| model.map(str::to_owned))
            .ok_or_else(|| {
                ModelError::Config("no model: set HOOKWIRE_MODEL or configure one".to_owned())
            })?;
        let name = name.strip_prefix("openai:").unwrap_or(&name).to_owned();
        let mut config = Self::new(name);
        if let Ok(url) = std::env::var("OPENAI_BASE_URL") {
            config.base_url = url;
        }
        config.api_key = std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|k| !k.is_empty())
            .map(Secret::from);
        Ok(config)
    }

    /// Sets the base URL.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Sets the API key.
    pub fn with_api_key(mut self, key: impl Into<Secret>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Sets the request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

/// A model behind an OpenAI-compatible `POST {base_url}/chat/completions`.
///
/// Tools are offered as `{"type": "function", "function": {name,
/// description, parameters}}`; tool calls come back with their ids and
/// JSON-text arguments, and tool results go back as `role: tool` messages
/// answering those ids.
///
/// A request with a text sink ([`ModelRequest::on_text`], set when someone
/// streams the run) is streamed: it asks for `stream: true` with
/// `stream_options: {"include_usage": true}`, hands each text delta to the
/// sink as it arrives, assembles the tool calls from their pieces and reads
/// the usage from the last chunk. Any other request is not streamed.
///
/// ```no_run
/// # use hookwire::model::{OpenAiConfig, OpenAiModel};
/// let model = OpenAiModel::new(OpenAiConfig::from_env(Some("gpt-4o-mini")).unwrap()).unwrap();
/// # let _ = model;
/// ```
#[derive(Clone)]
pub struct OpenAiModel {
    config: OpenAiConfig,
    client: reqwest::Client,
    url: String,
}

impl OpenAiModel {
    /// A model with this configuration.
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        // reqwest is built without a bundled TLS provider; install ring's
        // unless the process already chose one.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|e| ModelError::Config(e.to_string()))?;
        let url = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        Ok(Self {
            config,
            client,
            url,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &OpenAiConfig {
        &self.config
    }

    /// The request body for `request`, exactly as sent (with `stream` and
    /// `stream_options` when the request has a text sink).
    pub fn request_body(&self, request: &ModelRequest<'_>) -> Value {
        let mut messages = Vec::with_capacity(request.messages.len() + 1);
        if !request.system.is_empty() {
            messages.push(json!({"role": "system", "content": request.system}));
        }
        messages.extend(request.messages.iter().map(wire_message));
        let mut body = Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert("messages".into(), Value::Array(messages));
        if !request.tools.is_empty() {
            body.insert(
                "tools".into(),
                Value::Array(request.tools.iter().map(wire_tool).collect()),
            );
        }
        if let Some(spec) = request.native_output() {
            let mut schema = Map::new();
            schema.insert("name".into(), json!(spec.name));
            if let Some(d) = &spec.description {
                schema.insert("description".into(), json!(d));
            }
            schema.insert("schema".into(), spec.schema.clone());
            schema.insert("strict".into(), json!(spec.strict));
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": schema}),
            );
        }
        if request.output_tool().is_some() && !request.tools.is_empty() {
            // The answer must be the final-answer tool's call (or another
            // tool's), never text.
            body.insert("tool_choice".into(), json!("required"));
        }
        if let Some(t) = self.config.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if let Some(m) = self.config.max_tokens {
            body.insert("max_tokens".into(), json!(m));
        }
        if request.on_text.is_some() {
            body.insert("stream".into(), json!(true));
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        Value::Object(body)
    }

    async fn send(&self, request: &ModelRequest<'_>) -> Result<ModelResponse, ModelError> {
        let body = self.request_body(request);
        let mut req = self.client.post(&self.url).json(&body);
        if let Some(key) = &self.config.api_key {
            req = req.bearer_auth(key.expose());
        }
        let timeout = self.config.timeout;
        let response = req.send().await.map_err(|e| transport(&e, timeout))?;
        let status = response.status();
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let retry_after_ms = super::retry::retry_after_ms(
            header("retry-after").as_deref(),
            header("retry-after-ms").as_deref(),
        );
        let event_stream =
            header("content-type").is_some_and(|t| t.trim_start().starts_with("text/event-stream"));
        if status.is_success() && event_stream {
            return read_stream(response, request, timeout).await;
        }
        let text = response.text().await.map_err(|e| transport(&e, timeout))?;
        if !status.is_success() {
            // The whole body: `scrubbed` redacts it, then bounds it.
            return Err(ModelError::Http {
                status: status.as_u16(),
                body: text,
                retry_after_ms,
            });
        }
        // A server that answers a streamed request in one piece: its text
        // is one delta.
        let response = parse_response(&text)?;
        request.text_delta(&response.text);
        Ok(response)
    }
}

/// Reads a streamed chat completion: each `data:` event is a
/// `chat.completion.chunk` until `data: [DONE]`.
async fn read_stream(
    response: reqwest::Response,
    request: &ModelRequest<'_>,
    timeout: Duration,
) -> Result<ModelResponse, ModelError> {
    let mut events = sse_stream::SseStream::new(reqwest::Body::from(response));
    let mut answer = StreamedAnswer::default();
    while let Some(event) = events.next().await {
        let event = event.map_err(|e| transport(&e, timeout))?;
        let Some(data) = event.data else {
            continue;
        };
        if data.trim() == "[DONE]" {
            answer.done = true;
            break;
        }
        let chunk: Value = serde_json::from_str(&data)
            .map_err(|e| ModelError::InvalidResponse(format!("a stream chunk is not JSON: {e}")))?;
        answer.add(&chunk, &|text| request.text_delta(text))?;
    }
    answer.finish()
}

/// A streamed answer as its chunks arrive.
#[derive(Debug, Default)]
struct StreamedAnswer {
    text: String,
    /// The tool calls by their `index`, in the order they began.
    calls: Vec<StreamedCall>,
    usage: Option<Usage>,
    /// A choice said why it finished.
    finished: bool,
    /// `data: [DONE]` came.
    done: bool,
}

/// A tool call as its pieces arrive: the id and name once, the arguments
/// in pieces.
#[derive(Debug, Default)]
struct StreamedCall {
    index: u64,
    id: String,
    name: String,
    arguments: String,
}

impl StreamedAnswer {
    /// Adds one chunk: its text delta (also to `on_text`), its pieces of
    /// tool calls, its usage.
    fn add(&mut self, chunk: &Value, on_text: &dyn Fn(&str)) -> Result<(), ModelError> {
        let bad = |what: String| ModelError::InvalidResponse(what);
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(bad(format!("the stream reported an error: {error}")));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage_of(usage));
        }
        let Some(choice) = chunk.get("choices").and_then(|c| c.get(0)) else {
            return Ok(());
        };
        if choice.get("finish_reason").is_some_and(|r| !r.is_null()) {
            self.finished = true;
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(());
        };
        match delta.get("content") {
            Some(Value::String(text)) if !text.is_empty() => {
                on_text(text);
                self.text.push_str(text);
            }
            Some(Value::String(_) | Value::Null) | None => {}
            Some(_) => return Err(bad("`delta.content` is not a string".into())),
        }
        let Some(pieces) = delta.get("tool_calls").filter(|t| !t.is_null()) else {
            return Ok(());
        };
        let pieces = pieces
            .as_array()
            .ok_or_else(|| bad("`delta.tool_calls` is not an array".into()))?;
        for piece in pieces {
            let id = piece.get("id").and_then(Value::as_str).unwrap_or_default();
            // Without an index (some servers), a piece with a new id
            // starts a call and any other continues the last one.
            let index = match piece.get("index").and_then(Value::as_u64) {
                Some(index) => index,
                None => match self.calls.last() {
                    Some(last) if id.is_empty() || id == last.id => last.index,
                    Some(last) => last.index.saturating_add(1),
                    None => 0,
                },
            };
            let call = match self.calls.iter().position(|c| c.index == index) {
                Some(at) => &mut self.calls[at],
                None => {
                    self.calls.push(StreamedCall {
                        index,
                        ..StreamedCall::default()
                    });
                    let last = self.calls.len() - 1;
                    &mut self.calls[last]
                }
            };
            if call.id.is_empty() {
                call.id = id.to_owned();
            }
            let function = piece.get("function");
            if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str)
                && call.name.is_empty()
            {
                call.name = name.to_owned();
            }
            match function.and_then(|f| f.get("arguments")) {
                Some(Value::String(part)) => call.arguments.push_str(part),
                Some(Value::Null) | None => {}
                Some(other) => call.arguments.push_str(&other.to_string()),
            }
        }
        Ok(())
    }

    /// The answer, once the stream has ended.
    fn finish(self) -> Result<ModelResponse, ModelError> {
        if !self.done && !self.finished {
            return Err(ModelError::Transport(
                "the stream ended before the answer was complete".to_owned(),
            ));
        }
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        for call in self.calls {
            if call.name.is_empty() {
                return Err(ModelError::InvalidResponse(format!(
                    "streamed tool call {} (`{}`) has no function name",
                    call.index, call.id
                )));
            }
            tool_calls.push(ToolCall::new(
                call.id,
                call.name,
                ToolArgs::from_json(call.arguments),
            ));
        }
        Ok(ModelResponse {
            text: self.text,
            tool_calls,
            usage: self.usage.unwrap_or_default(),
            ..ModelResponse::default()
        })
    }
}

fn wire_message(message: &Message) -> Value {
    match message {
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
            ..
        } => {
            let mut m = Map::new();
            m.insert("role".into(), json!("assistant"));
            m.insert(
                "content".into(),
                if content.is_empty() && !tool_calls.is_empty() {
                    Value::Null
                } else {
                    json!(content)
                },
            );
            if !tool_calls.is_empty() {
                m.insert(
                    "tool_calls".into(),
                    Value::Array(tool_calls.iter().map(wire_call).collect()),
                );
            }
            Value::Object(m)
        }
        Message::Tool {
            tool_call_id,
            result,
            ..
        } => json!({
            "role": "tool",
            "tool_call_id": tool_call_id,
            "content": result.text_content(),
        }),
    }
}

fn wire_call(call: &ToolCall) -> Value {
    // Arguments go back as the JSON text the model sent (verbatim when it
    // did not parse).
    let arguments = match serde_json::to_value(&call.arguments) {
        Ok(Value::String(raw)) => raw,
        Ok(value) => value.to_string(),
        Err(_) => "{}".to_owned(),
    };
    json!({
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": arguments},
    })
}

fn wire_tool(tool: &ToolDefinition) -> Value {
    let mut function = Map::new();
    function.insert("name".into(), json!(tool.name));
    function.insert("description".into(), json!(tool.description));
    function.insert("parameters".into(), tool.input_schema.clone());
    if tool.strict {
        function.insert("strict".into(), json!(true));
    }
    json!({"type": "function", "function": function})
}

/// Reads a chat-completions response body.
pub(crate) fn parse_response(text: &str) -> Result<ModelResponse, ModelError> {
    let bad = |what: &str| ModelError::InvalidResponse(what.to_owned());
    let body: Value =
        serde_json::from_str(text).map_err(|e| ModelError::InvalidResponse(e.to_string()))?;
    let message = body
        .get("choices")
        .and_then(|c| c.get(0))
        .and_then(|c| c.get("message"))
        .ok_or_else(|| bad("no `choices[0].message`"))?;
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(_) => return Err(bad("`content` is not a string")),
    };
    let mut tool_calls = Vec::new();
    if let Some(calls) = message.get("tool_calls").filter(|v| !v.is_null()) {
        let calls = calls
            .as_array()
            .ok_or_else(|| bad("`tool_calls` is not an array"))?;
        for (i, call) in calls.iter().enumerate() {
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(&format!("`tool_calls[{i}].id` is missing")))?;
            let function = call
                .get("function")
                .ok_or_else(|| bad(&format!("`tool_calls[{i}].function` is missing")))?;
            let name = function
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(&format!("`tool_calls[{i}].function.name` is missing")))?;
            let arguments = match function.get("arguments") {
                Some(Value::String(s)) => ToolArgs::from_json(s.clone()),
                Some(Value::Object(m)) => ToolArgs::from_map(m.clone()),
                _ => ToolArgs::empty(),
            };
            tool_calls.push(ToolCall::new(id, name, arguments));
        }
    }
    let usage = body.get("usage").map_or_else(Usage::default, usage_of);
    Ok(ModelResponse {
        text,
        tool_calls,
        usage,
        ..ModelResponse::default()
    })
}

/// A `usage` object's token counts.
fn usage_of(usage: &Value) -> Usage {
    let count = |name: &str| usage.get(name).and_then(Value::as_u64).unwrap_or(0);
    Usage {
        input_tokens: count("prompt_tokens"),
        output_tokens: count("completion_tokens"),
    }
}

impl Model for OpenAiModel {
    fn name(&self) -> &str {
        &self.config.model
    }

    /// `openai`: the chat-completions API, wherever it is served.
    fn provider(&self) -> &str {
        "openai"
    }

    /// The request carries `response_format: {type: json_schema, ..}`
    /// (strict when the schema allows it).
    fn native_output(&self) -> bool {
        true
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            let key = self.config.api_key.as_ref().map(Secret::expose);
            self.send(&request)
                .await
                .map_err(|e| e.scrubbed(key.as_slice()))
        })
    }
}

impl std::fmt::Debug for OpenAiModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiModel")
            .field("config", &self.config)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}
