//! An OpenAI-compatible chat-completions model with tool calling.

use std::time::Duration;

use serde_json::{Map, Value, json};

use super::{Message, Model, ModelError, ModelRequest, ModelResponse, Usage};
use crate::approval::BoxFuture;
use crate::call::{ToolArgs, ToolCall};
use crate::tool::ToolDefinition;

/// Where and how to reach an OpenAI-compatible chat-completions service.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct OpenAiConfig {
    /// The base URL, up to and including `/v1` (default
    /// `https://api.openai.com/v1`).
    pub base_url: String,
    /// The model name.
    pub model: String,
    /// The API key, sent as a bearer token when set.
    pub api_key: Option<String>,
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
            .filter(|k| !k.is_empty());
        Ok(config)
    }

    /// Sets the base URL.
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = url.into();
        self
    }

    /// Sets the API key.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
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
/// ```no_run
/// # use hookwire::model::{OpenAiConfig, OpenAiModel};
/// let model = OpenAiModel::new(OpenAiConfig::from_env(Some("gpt-4o-mini")).unwrap()).unwrap();
/// # let _ = model;
/// ```
#[derive(Debug, Clone)]
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

    /// The request body for `request`, exactly as sent.
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
        if let Some(t) = self.config.temperature {
            body.insert("temperature".into(), json!(t));
        }
        if let Some(m) = self.config.max_tokens {
            body.insert("max_tokens".into(), json!(m));
        }
        Value::Object(body)
    }

    async fn send(&self, body: Value) -> Result<ModelResponse, ModelError> {
        let mut req = self.client.post(&self.url).json(&body);
        if let Some(key) = &self.config.api_key {
            req = req.bearer_auth(key);
        }
        let response = req
            .send()
            .await
            .map_err(|e| ModelError::Transport(e.to_string()))?;
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
        let text = response
            .text()
            .await
            .map_err(|e| ModelError::Transport(e.to_string()))?;
        if !status.is_success() {
            return Err(ModelError::Http {
                status: status.as_u16(),
                body: text.chars().take(500).collect(),
                retry_after_ms,
            });
        }
        parse_response(&text)
    }
}

fn wire_message(message: &Message) -> Value {
    match message {
        Message::User { content } => json!({"role": "user", "content": content}),
        Message::Assistant {
            content,
            tool_calls,
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
    let usage = body.get("usage").map_or_else(Usage::default, |u| Usage {
        input_tokens: u.get("prompt_tokens").and_then(Value::as_u64).unwrap_or(0),
        output_tokens: u
            .get("completion_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    });
    Ok(ModelResponse {
        text,
        tool_calls,
        usage,
    })
}

impl Model for OpenAiModel {
    fn name(&self) -> &str {
        &self.config.model
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
        let body = self.request_body(&request);
        Box::pin(self.send(body))
    }
}
