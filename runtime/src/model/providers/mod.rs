//! Native providers (feature `providers`): Anthropic Messages, OpenAI chat
//! completions and Responses, Google Gemini and Ollama, through the
//! [`genai`] crate. Everything `genai` is in this module.
//!
//! Why `genai` and not rig's provider clients: besides what the [model
//! module](super) says, `genai` has one request and response type for every
//! provider, which is all our [`Model`] trait needs; rig-core's clients come
//! with its own agents, tools and vector stores. See BENCHMARKS.md for the
//! dependency counts.

use std::time::Duration;

use futures_util::StreamExt;
use genai::adapter::AdapterKind;
use genai::chat::{
    ChatMessage, ChatOptions, ChatRequest, ChatResponse, ChatStreamEvent, ContentPart,
    MessageContent, Tool, ToolCall as GenaiCall, ToolResponse,
};
use genai::resolver::{AuthData, Endpoint};
use genai::{Client, ModelIden, ServiceTarget};
use serde_json::Value;

use super::{Message, Model, ModelError, ModelRequest, ModelResponse, Thought, Usage};
use crate::BoxFuture;
use crate::call::{ToolArgs, ToolCall};

/// A model provider: the part of a model string before the first `:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// `anthropic:` - the Anthropic Messages API.
    Anthropic,
    /// `openai:` - OpenAI chat completions.
    OpenAi,
    /// `openai-responses:` - the OpenAI Responses API.
    OpenAiResponses,
    /// `gemini:` - the Google Gemini API.
    Gemini,
    /// `ollama:` - a local Ollama server (`/api/chat`).
    Ollama,
}

impl Provider {
    /// Every provider, in the order the docs list them.
    pub const ALL: [Self; 5] = [
        Self::Anthropic,
        Self::OpenAi,
        Self::OpenAiResponses,
        Self::Gemini,
        Self::Ollama,
    ];

    /// The provider a model-string prefix names (`anthropic`, `openai`,
    /// `openai-responses`, `gemini`, `ollama`).
    pub fn from_prefix(prefix: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.prefix() == prefix)
    }

    /// The model-string prefix.
    pub fn prefix(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
            Self::OpenAiResponses => "openai-responses",
            Self::Gemini => "gemini",
            Self::Ollama => "ollama",
        }
    }

    /// The environment variables read for the API key, first set wins
    /// (none for Ollama).
    pub fn key_vars(self) -> &'static [&'static str] {
        match self {
            Self::Anthropic => &["ANTHROPIC_API_KEY"],
            Self::OpenAi | Self::OpenAiResponses => &["OPENAI_API_KEY"],
            Self::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            Self::Ollama => &[],
        }
    }

    /// The environment variables read for the base URL, first set wins.
    pub fn base_url_vars(self) -> &'static [&'static str] {
        match self {
            Self::Anthropic => &["ANTHROPIC_BASE_URL"],
            Self::OpenAi | Self::OpenAiResponses => &["OPENAI_BASE_URL"],
            Self::Gemini => &["GEMINI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"],
            Self::Ollama => &["OLLAMA_HOST"],
        }
    }

    /// The base URL used when none is set, in the form of the provider's
    /// base-URL variable.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Anthropic => "https://api.anthropic.com",
            Self::OpenAi | Self::OpenAiResponses => "https://api.openai.com/v1",
            Self::Gemini => "https://generativelanguage.googleapis.com",
            Self::Ollama => "http://localhost:11434",
        }
    }

    fn adapter(self) -> AdapterKind {
        match self {
            Self::Anthropic => AdapterKind::Anthropic,
            Self::OpenAi => AdapterKind::OpenAI,
            Self::OpenAiResponses => AdapterKind::OpenAIResp,
            Self::Gemini => AdapterKind::Gemini,
            Self::Ollama => AdapterKind::Ollama,
        }
    }

    /// The endpoint `genai` appends its paths to, from a base URL in the
    /// form of the provider's variable: `ANTHROPIC_BASE_URL` has no API
    /// version (`/v1` is added), `OPENAI_BASE_URL` ends with it, a Gemini
    /// base URL gets `/v1beta` unless it names a version, and `OLLAMA_HOST`
    /// may lack the scheme.
    fn endpoint(self, base_url: &str) -> String {
        let mut url = base_url.trim().trim_end_matches('/').to_owned();
        if self == Self::Ollama && !url.contains("://") {
            url.insert_str(0, "http://");
        }
        let versioned = url.rsplit('/').next().is_some_and(|last| {
            last.starts_with('v') && last[1..].starts_with(|c: char| c.is_ascii_digit())
        });
        match self {
            Self::Anthropic if !versioned => url.push_str("/v1"),
            Self::Gemini if !versioned => url.push_str("/v1beta"),
            _ => {}
        }
        url.push('/');
        url
    }

    fn known() -> String {
        let mut names: Vec<&str> = Self::ALL.iter().map(|p| p.prefix()).collect();
        names.extend(["passthrough", "scripted", "playback"]);
        names.join(", ")
    }
}

impl std::fmt::Display for Provider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.prefix())
    }
}

/// Where and how to reach a provider.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ProviderConfig {
    /// The provider.
    pub provider: Provider,
    /// The model name, as the provider spells it.
    pub model: String,
    /// The API key (required by every provider but Ollama).
    pub api_key: Option<String>,
    /// The base URL, in the form of the provider's base-URL variable
    /// (`None`: [`Provider::default_base_url`]).
    pub base_url: Option<String>,
    /// The sampling temperature, when set.
    pub temperature: Option<f64>,
    /// The answer's token limit, when set (`genai` picks one per model for
    /// Anthropic, which requires it).
    pub max_tokens: Option<u32>,
    /// How long one request may take.
    pub timeout: Duration,
    /// Whether to stream the answer when nobody streams the run: the answer
    /// is the same. Off by default: streamed requests measured slower than
    /// plain ones (BENCHMARKS.md, "Native providers"). A run someone
    /// streams ([`Runner::stream`](crate::agent::Runner::stream)) always
    /// streams the request, so its text deltas reach the run's events as
    /// they come.
    pub streaming: bool,
}

impl ProviderConfig {
    /// `model` at `provider`'s default base URL, without a key.
    pub fn new(provider: Provider, model: impl Into<String>) -> Self {
        Self {
            provider,
            model: model.into(),
            api_key: None,
            base_url: None,
            temperature: None,
            max_tokens: None,
            timeout: Duration::from_secs(300),
            streaming: false,
        }
    }

    /// `model` with the key and base URL from the provider's environment
    /// variables ([`Provider::key_vars`], [`Provider::base_url_vars`]).
    pub fn from_env(provider: Provider, model: impl Into<String>) -> Self {
        let var = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| std::env::var(n).ok().filter(|v| !v.trim().is_empty()))
        };
        let mut config = Self::new(provider, model);
        config.api_key = var(provider.key_vars());
        config.base_url = var(provider.base_url_vars());
        config
    }

    /// Sets the base URL (in the form of the provider's variable).
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Sets the API key.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Sets the token limit of an answer.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sets the temperature.
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets the request timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Streams the answer or not.
    pub fn with_streaming(mut self, streaming: bool) -> Self {
        self.streaming = streaming;
        self
    }

    /// The model string: `<provider>:<model>`.
    pub fn spec(&self) -> String {
        format!("{}:{}", self.provider, self.model)
    }
}

/// A model at a native provider, through `genai`.
///
/// Built from a model string by [`from_spec`](super::from_spec)
/// (`anthropic:claude-sonnet-4-5`, `openai:gpt-4o-mini`,
/// `openai-responses:gpt-5-mini`, `gemini:gemini-2.5-flash`,
/// `ollama:qwen3`), or from a [`ProviderConfig`]:
///
/// ```
/// use hookwire::model::{Model, Provider, ProviderConfig, ProviderModel};
/// let model = ProviderModel::new(
///     ProviderConfig::new(Provider::Anthropic, "claude-sonnet-4-5")
///         .with_api_key("sk-ant-...")
///         .with_base_url("http://127.0.0.1:8080"),
/// )
/// .unwrap();
/// assert_eq!(model.name(), "anthropic:claude-sonnet-4-5");
/// ```
///
/// Tools go to the provider with their JSON Schemas; tool calls come back
/// with the provider's ids and arguments, and tool results go back
/// answering those ids. Gemini's thought signatures and Anthropic's signed
/// (and redacted) thinking blocks come back as the answer's
/// [`Thought`]s, stay in the history and go back with their turn, each to
/// the provider it came from. Not carried across turns: reasoning without a
/// signature, and the Responses API's reasoning items.
#[derive(Debug, Clone)]
pub struct ProviderModel {
    config: ProviderConfig,
    name: String,
    client: Client,
    target: ServiceTarget,
    options: ChatOptions,
}

impl ProviderModel {
    /// A model with this configuration; [`ModelError::MissingKey`] when the
    /// provider needs a key and none is set.
    pub fn new(config: ProviderConfig) -> Result<Self, ModelError> {
        let name = config.spec();
        let auth = match (&config.api_key, config.provider.key_vars().first()) {
            (Some(key), _) => AuthData::from_single(key.clone()),
            (None, None) => AuthData::from_single("ollama"),
            (None, Some(env)) => {
                return Err(ModelError::MissingKey {
                    spec: name,
                    env: (*env).to_owned(),
                });
            }
        };
        let base = config
            .base_url
            .as_deref()
            .unwrap_or(config.provider.default_base_url());
        let target = ServiceTarget {
            endpoint: Endpoint::from_owned(config.provider.endpoint(base)),
            auth,
            model: ModelIden::new(config.provider.adapter(), config.model.clone()),
        };
        // reqwest is built without a bundled TLS provider; install ring's
        // unless the process already chose one.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .build()
            .map_err(|e| ModelError::Config(e.to_string()))?;
        let client = Client::builder()
            .with_reqwest(http)
            .build()
            .map_err(error)?;
        // Reasoning is captured for Anthropic's thinking blocks, which only
        // go back with their text.
        let mut options = ChatOptions::default()
            .with_capture_usage(true)
            .with_capture_content(true)
            .with_capture_reasoning_content(true)
            .with_capture_tool_calls(true);
        if let Some(t) = config.temperature {
            options = options.with_temperature(t);
        }
        if let Some(m) = config.max_tokens {
            options = options.with_max_tokens(m);
        }
        Ok(Self {
            config,
            name,
            client,
            target,
            options,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// One request, streamed: `on_text` hears each text delta as it
    /// arrives; the answer is collected as the plain call returns it.
    pub(crate) async fn complete_streaming(
        &self,
        request: &ModelRequest<'_>,
        on_text: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<ModelResponse, ModelError> {
        let response = self
            .client
            .exec_chat_stream(
                self.target.clone(),
                chat_request(request, self.config.provider),
                Some(&*self.options_for(request)),
            )
            .await
            .map_err(error)?;
        let mut stream = response.stream;
        let mut text = String::new();
        let mut calls = Vec::new();
        let mut thoughts = Vec::new();
        let mut end = None;
        while let Some(event) = stream.next().await {
            match event.map_err(error)? {
                ChatStreamEvent::Chunk(chunk) => {
                    on_text(&chunk.content);
                    text.push_str(&chunk.content);
                }
                ChatStreamEvent::ToolCallChunk(chunk) => calls.push(chunk.tool_call),
                ChatStreamEvent::End(e) => end = Some(e),
                _ => {}
            }
        }
        let Some(end) = end else {
            return Err(ModelError::InvalidResponse(
                "the stream ended without its end event".to_owned(),
            ));
        };
        // The captured content is the whole answer, each tool call once with
        // its complete arguments, with its thoughts; the chunks are the
        // fallback.
        if let Some(content) = end.captured_content {
            let turn = our_turn(content, self.config.provider);
            if !turn.calls.is_empty() {
                calls = turn.calls;
            }
            if let Some(t) = turn.text {
                text = t;
            }
            thoughts = turn.thoughts;
        } else {
            calls = last_of_each_call(calls);
        }
        Ok(ModelResponse {
            text,
            tool_calls: calls.into_iter().map(our_call).collect(),
            usage: end.captured_usage.map(our_usage).unwrap_or_default(),
            thoughts,
        })
    }

    /// One request, not streamed.
    async fn complete_plain(
        &self,
        request: &ModelRequest<'_>,
    ) -> Result<ModelResponse, ModelError> {
        let response = self
            .client
            .exec_chat(
                self.target.clone(),
                chat_request(request, self.config.provider),
                Some(&*self.options_for(request)),
            )
            .await
            .map_err(error)?;
        Ok(our_response(response, self.config.provider))
    }

    /// The options of one request: the configured ones, with the output
    /// schema as the provider's structured output when the request asks
    /// for it natively.
    fn options_for(&self, request: &ModelRequest<'_>) -> std::borrow::Cow<'_, ChatOptions> {
        match request.native_output() {
            None => std::borrow::Cow::Borrowed(&self.options),
            Some(spec) => {
                let mut json = genai::chat::JsonSpec::new(spec.name.clone(), spec.schema.clone());
                if let Some(d) = &spec.description {
                    json = json.with_description(d.clone());
                }
                std::borrow::Cow::Owned(self.options.clone().with_response_format(json))
            }
        }
    }
}

impl Model for ProviderModel {
    fn name(&self) -> &str {
        &self.name
    }

    /// OpenAI (chat completions and Responses), Gemini and Ollama answer a
    /// schema natively; Anthropic answers through the final-answer tool,
    /// which every Claude model with tools supports.
    fn native_output(&self) -> bool {
        self.config.provider != Provider::Anthropic
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            // A run someone streams (`Runner::stream`) gets the text as it
            // comes; otherwise the configured form.
            if self.config.streaming || request.on_text.is_some() {
                self.complete_streaming(&request, &|chunk| request.text_delta(chunk))
                    .await
            } else {
                self.complete_plain(&request).await
            }
        })
    }
}

/// Our request as `genai`'s: the system instruction, the messages (an
/// assistant turn's thoughts, text and tool calls in one message, each tool
/// result answering its call's id, with the tool's name for Gemini) and the
/// tools with their JSON Schemas.
pub(crate) fn chat_request(request: &ModelRequest<'_>, provider: Provider) -> ChatRequest {
    let mut messages = Vec::with_capacity(request.messages.len());
    for message in request.messages {
        messages.push(match message {
            Message::User { content } => ChatMessage::user(content.as_str()),
            Message::Assistant {
                content,
                tool_calls,
                thoughts,
            } => ChatMessage::assistant(their_turn(content, tool_calls, thoughts, provider)),
            Message::Tool {
                tool_call_id,
                name,
                result,
            } => ChatMessage::from(
                ToolResponse::new(&**tool_call_id, result.text_content()).with_fn_name(&**name),
            ),
        });
    }
    let mut chat = ChatRequest::new(messages);
    if !request.system.is_empty() {
        chat = chat.with_system(request.system);
    }
    if !request.tools.is_empty() {
        chat = chat.with_tools(request.tools.iter().map(|t| {
            let tool = Tool::new(t.name.as_str())
                .with_description(t.description.as_str())
                .with_schema(t.input_schema.clone());
            if t.strict {
                tool.with_strict(true)
            } else {
                tool
            }
        }));
    }
    chat
}

/// An assistant turn as `genai`'s content: the thoughts `provider` reads
/// first (thinking blocks, a signature on the text), then the text, then
/// the tool calls, each with its own signature.
fn their_turn(
    content: &str,
    tool_calls: &[ToolCall],
    thoughts: &[Thought],
    provider: Provider,
) -> MessageContent {
    let mut parts = Vec::with_capacity(tool_calls.len() + thoughts.len() + 1);
    let mut calls: Vec<GenaiCall> = tool_calls.iter().map(their_call).collect();
    for thought in thoughts {
        match (provider, thought) {
            (Provider::Gemini, Thought::Signature { signature, call }) => match call {
                None => parts.push(ContentPart::ThoughtSignature(signature.clone())),
                Some(at) => {
                    if let Some(call) = calls.get_mut(*at) {
                        call.thought_signatures = Some(vec![signature.clone()]);
                    }
                }
            },
            (Provider::Anthropic, Thought::Thinking { text, signature }) => {
                parts.push(ContentPart::ThoughtSignature(signature.clone()));
                parts.push(ContentPart::ReasoningContent(text.clone()));
            }
            (Provider::Anthropic, Thought::Opaque { block }) => {
                parts.push(ContentPart::from_custom(block.clone(), None));
            }
            // Another provider's thoughts mean nothing here.
            _ => {}
        }
    }
    if !content.is_empty() {
        parts.push(ContentPart::Text(content.to_owned()));
    }
    parts.extend(calls.into_iter().map(ContentPart::ToolCall));
    MessageContent::from_parts(parts)
}

/// An answer's content as ours.
struct Turn {
    /// The text parts, joined (`None`: no text part).
    text: Option<String>,
    calls: Vec<GenaiCall>,
    thoughts: Vec<Thought>,
}

/// `genai`'s answer content as ours: its text, its tool calls, and the
/// thoughts that must go back with it. `genai` puts a signature just before
/// the part it signs: before a `ReasoningContent` it is an Anthropic
/// thinking block; a signature a tool call also carries (Gemini's own, or
/// Anthropic's copy of its thinking signatures on the first call) belongs
/// to that call; any other signs the text (Gemini).
fn our_turn(content: MessageContent, provider: Provider) -> Turn {
    let mut parts = content.into_parts().into_iter().peekable();
    let mut texts = Vec::new();
    let mut calls: Vec<GenaiCall> = Vec::new();
    let mut thoughts = Vec::new();
    let mut signed_thinking = Vec::new();
    let mut free_signatures = Vec::new();
    while let Some(part) = parts.next() {
        match part {
            ContentPart::ThoughtSignature(signature) => {
                match parts.next_if(|p| matches!(p, ContentPart::ReasoningContent(_))) {
                    Some(ContentPart::ReasoningContent(text)) => {
                        signed_thinking.push(signature.clone());
                        thoughts.push(Thought::Thinking { text, signature });
                    }
                    _ => free_signatures.push(signature),
                }
            }
            ContentPart::Custom(custom) if provider == Provider::Anthropic => {
                let kind = custom.data.get("type").and_then(Value::as_str);
                if matches!(kind, Some("thinking" | "redacted_thinking")) {
                    thoughts.push(Thought::Opaque { block: custom.data });
                }
            }
            ContentPart::Text(text) => texts.push(ContentPart::Text(text)),
            ContentPart::ToolCall(call) => calls.push(call),
            _ => {}
        }
    }
    let own = |call: &GenaiCall| {
        call.thought_signatures
            .as_ref()
            .and_then(|s| s.first())
            .filter(|s| !signed_thinking.contains(s))
            .cloned()
    };
    let on_calls: Vec<Option<String>> = calls.iter().map(own).collect();
    for signature in free_signatures {
        if !on_calls.iter().flatten().any(|s| *s == signature)
            && !signed_thinking.contains(&signature)
        {
            thoughts.push(Thought::signature(signature, None));
        }
    }
    for (at, signature) in on_calls.into_iter().enumerate() {
        if let Some(signature) = signature {
            thoughts.push(Thought::signature(signature, Some(at)));
        }
    }
    Turn {
        text: MessageContent::from_parts(texts).into_joined_texts(),
        calls,
        thoughts,
    }
}

fn their_call(call: &ToolCall) -> GenaiCall {
    // Arguments that never parsed go back as the text the model sent.
    let arguments = call.arguments.to_value().unwrap_or_else(|_| {
        serde_json::to_value(&call.arguments).unwrap_or(Value::Object(Default::default()))
    });
    GenaiCall {
        call_id: call.id.to_string(),
        fn_name: call.name.to_string(),
        fn_arguments: arguments,
        thought_signatures: None,
    }
}

fn our_call(call: GenaiCall) -> ToolCall {
    let arguments = match call.fn_arguments {
        Value::Object(map) => ToolArgs::from_map(map),
        Value::String(text) => ToolArgs::from_json(text),
        Value::Null => ToolArgs::empty(),
        // Not an object: kept as text, reported as invalid arguments when read.
        other => ToolArgs::from_json(other.to_string()),
    };
    ToolCall::new(call.call_id, call.fn_name, arguments)
}

fn our_usage(usage: genai::chat::Usage) -> Usage {
    let count = |n: Option<i32>| n.and_then(|n| u64::try_from(n).ok()).unwrap_or(0);
    Usage {
        input_tokens: count(usage.prompt_tokens),
        output_tokens: count(usage.completion_tokens),
    }
}

fn our_response(response: ChatResponse, provider: Provider) -> ModelResponse {
    let usage = our_usage(response.usage);
    let turn = our_turn(response.content, provider);
    ModelResponse {
        text: turn.text.unwrap_or_default(),
        tool_calls: turn.calls.into_iter().map(our_call).collect(),
        usage,
        thoughts: turn.thoughts,
    }
}

/// Tool-call chunks without a captured end: a call may come in several
/// chunks with the same id, the last one complete.
fn last_of_each_call(chunks: Vec<GenaiCall>) -> Vec<GenaiCall> {
    let mut calls: Vec<GenaiCall> = Vec::new();
    for chunk in chunks {
        match calls.iter_mut().find(|c| c.call_id == chunk.call_id) {
            Some(call) => *call = chunk,
            None => calls.push(chunk),
        }
    }
    calls
}

/// A `genai` error as ours: an HTTP status (with `Retry-After`) as
/// [`ModelError::Http`], a failed connection as
/// [`ModelError::Transport`], the rest as what it is.
fn error(e: genai::Error) -> ModelError {
    let http = |e: &genai::Error| {
        let status = e.status()?;
        let header = |name: &str| {
            e.headers()
                .and_then(|h| h.get(name))
                .and_then(|v| v.to_str().ok())
        };
        let body = match e {
            genai::Error::HttpError { body, .. } => body.clone(),
            genai::Error::WebModelCall { webc_error, .. }
            | genai::Error::WebAdapterCall { webc_error, .. } => match webc_error {
                genai::webc::Error::ResponseFailedStatus { body, .. } => body.clone(),
                other => other.to_string(),
            },
            other => other.to_string(),
        };
        Some(ModelError::Http {
            status: status.as_u16(),
            body: body.chars().take(500).collect(),
            retry_after_ms: super::retry::retry_after_ms(
                header("retry-after"),
                header("retry-after-ms"),
            ),
        })
    };
    if let Some(mapped) = http(&e) {
        return mapped;
    }
    match &e {
        // A stream's HTTP error arrives boxed inside the stream error.
        genai::Error::WebStream { error: inner, .. } => {
            match inner.downcast_ref::<genai::Error>().and_then(http) {
                Some(mapped) => mapped,
                None => ModelError::Transport(e.to_string()),
            }
        }
        genai::Error::WebModelCall { .. } | genai::Error::WebAdapterCall { .. } => {
            ModelError::Transport(e.to_string())
        }
        genai::Error::RequiresApiKey { .. }
        | genai::Error::NoAuthData { .. }
        | genai::Error::NoAuthResolver { .. }
        | genai::Error::Resolver { .. }
        | genai::Error::AdapterNotSupported { .. } => ModelError::Config(e.to_string()),
        _ => ModelError::InvalidResponse(e.to_string()),
    }
}

/// The model for `<provider>:<model>` with its key and base URL from the
/// environment; `Ok(None)` when `prefix` names no native provider.
pub(crate) fn from_prefixed(
    prefix: &str,
    model: &str,
) -> Option<Result<ProviderModel, ModelError>> {
    let provider = Provider::from_prefix(prefix)?;
    Some(ProviderModel::new(ProviderConfig::from_env(
        provider, model,
    )))
}

/// The providers (and other model-string prefixes) this build knows.
pub(crate) fn known() -> String {
    Provider::known()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Anthropic's answer as `genai` reads a non-streamed one: the thinking
    /// block as a signature before its reasoning, a redacted block as a
    /// custom part, the first call mirroring the thinking signatures.
    #[test]
    fn anthropic_thinking_is_kept_once_and_goes_back_first() {
        let call = GenaiCall {
            call_id: "toolu_1".into(),
            fn_name: "weather".into(),
            fn_arguments: serde_json::json!({"city": "Oslo"}),
            thought_signatures: Some(vec!["sig-T".into()]),
        };
        let redacted = serde_json::json!({"type": "redacted_thinking", "data": "abc"});
        let content = MessageContent::from_parts(vec![
            ContentPart::ThoughtSignature("sig-T".into()),
            ContentPart::ReasoningContent("Hmm.".into()),
            ContentPart::from_custom(redacted.clone(), None),
            ContentPart::Text("Checking.".into()),
            ContentPart::ToolCall(call),
        ]);
        let turn = our_turn(content, Provider::Anthropic);
        assert_eq!(turn.text.as_deref(), Some("Checking."));
        assert_eq!(
            turn.thoughts,
            [
                Thought::Thinking {
                    text: "Hmm.".into(),
                    signature: "sig-T".into()
                },
                Thought::Opaque {
                    block: redacted.clone()
                },
            ]
        );
        // Back to Anthropic: the blocks first; to Gemini: none of them.
        let calls = [ToolCall::new("toolu_1", "weather", ToolArgs::empty())];
        let back = their_turn("Checking.", &calls, &turn.thoughts, Provider::Anthropic);
        assert!(matches!(
            back.parts().as_slice(),
            [
                ContentPart::ThoughtSignature(s),
                ContentPart::ReasoningContent(r),
                ContentPart::Custom(c),
                ContentPart::Text(_),
                ContentPart::ToolCall(_)
            ] if s == "sig-T" && r == "Hmm." && c.data == redacted
        ));
        let back = their_turn("Checking.", &calls, &turn.thoughts, Provider::Gemini);
        assert!(matches!(
            back.parts().as_slice(),
            [ContentPart::Text(_), ContentPart::ToolCall(c)] if c.thought_signatures.is_none()
        ));
    }

    #[test]
    fn base_urls_take_the_form_of_each_providers_variable() {
        let e = |p: Provider, u: &str| p.endpoint(u);
        assert_eq!(
            e(Provider::Anthropic, "https://api.anthropic.com"),
            "https://api.anthropic.com/v1/"
        );
        assert_eq!(e(Provider::Anthropic, "http://h:1/v1/"), "http://h:1/v1/");
        assert_eq!(
            e(Provider::OpenAi, "https://api.openai.com/v1"),
            "https://api.openai.com/v1/"
        );
        assert_eq!(
            e(Provider::Gemini, "https://g.example"),
            "https://g.example/v1beta/"
        );
        assert_eq!(
            e(Provider::Gemini, "https://g.example/v1"),
            "https://g.example/v1/"
        );
        assert_eq!(
            e(Provider::Ollama, "127.0.0.1:11434"),
            "http://127.0.0.1:11434/"
        );
        assert_eq!(
            e(Provider::Ollama, "http://localhost:11434/"),
            "http://localhost:11434/"
        );
    }
}
