//! Models: what the agent loop asks for the next turn.
//!
//! A [`Model`] takes a [`ModelRequest`] (the system instruction, the
//! conversation so far as [`Message`]s, and the [`ToolDefinition`]s on
//! offer) and answers with a [`ModelResponse`]: text, tool calls, or both,
//! and the tokens it used.
//!
//! Built in:
//! * [`ScriptedModel`] plays back a script of turns (YAML or JSON); it is
//!   deterministic, and the offline default for examples and tests;
//! * [`PassthroughModel`] answers with the last user message;
//! * `OpenAiModel` (feature `openai`) speaks the OpenAI-compatible
//!   chat-completions protocol with tool calling;
//! * `ProviderModel` (feature `providers`, which implies `openai`) speaks
//!   each provider's own API: Anthropic Messages, OpenAI Responses, Google
//!   Gemini and Ollama (streamed or not), from a `provider:model` string
//!   ([`from_spec`]); `openai:` strings are always `OpenAiModel`.
//!
//! The native providers come from one crate, `genai`, rather than rig's
//! provider clients (`rig-core`): both cover these providers with tool
//! calls and streaming and weigh about the same, but `genai` is a client
//! library only, takes our `reqwest` client, reports an HTTP error with its
//! status and headers (so `Retry-After` is honoured), and kept its API
//! through its 0.7 patch releases, while `rig-core` is an agent framework
//! of its own, changed its API in nearly every release, and needs a newer
//! compiler than our minimum.
//!
//! Failed calls are retried by the runner ([`RetryPolicy`](crate::hooks::RetryPolicy),
//! [`complete_with_retry`]): transport errors, 429 and 5xx, for any model.
//!
//! A model call waits on a network or a script, never on the hot path, so
//! the trait is object-safe and returns a boxed future: a run can hold an
//! `Arc<dyn Model>` chosen from configuration at run time.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use hookwire_chain::BoxFuture;
use hookwire_chain::call::ToolCall;
pub use hookwire_chain::message::{Message, Thought};
use hookwire_chain::tool::ToolDefinition;

mod error;
#[cfg(feature = "openai")]
mod openai;
mod output;
mod passthrough;
#[cfg(feature = "providers")]
mod providers;
mod retry;
mod scripted;
mod scrub;
#[cfg(feature = "yaml")]
mod yaml;

pub use error::ModelError;
#[cfg(feature = "openai")]
#[cfg_attr(docsrs, doc(cfg(feature = "openai")))]
pub use openai::{OpenAiConfig, OpenAiModel};
pub(crate) use output::json_in_text;
pub use output::{FINAL_RESULT_TOOL, OutputMode, OutputSpec};
pub use passthrough::PassthroughModel;
#[cfg(feature = "providers")]
#[cfg_attr(docsrs, doc(cfg(feature = "providers")))]
pub use providers::{Provider, ProviderConfig, ProviderModel};
pub use retry::{RetryNote, complete_with_retry};
pub use scripted::{Script, ScriptMode, ScriptedModel, ScriptedToolCall, Turn, TurnExpectation};

/// What a model is asked: everything it needs for the next turn.
#[derive(Clone, Copy)]
#[non_exhaustive]
pub struct ModelRequest<'a> {
    /// The agent asking (for traces and scripted expectations).
    pub agent: &'a str,
    /// The system instruction.
    pub system: &'a str,
    /// The conversation so far, oldest first.
    pub messages: &'a [Message],
    /// The tools the model may call.
    pub tools: &'a [ToolDefinition],
    /// Where a model that streams sends each chunk of its answer's text as
    /// it arrives ([`text_delta`](Self::text_delta)): set by the agent loop
    /// when someone streams the run
    /// ([`Runner::stream`](crate::agent::Runner::stream)), `None`
    /// otherwise. The chunks, joined, are the response's `text`.
    pub on_text: Option<&'a TextSink<'a>>,
    /// The schema the final answer must follow, when the run asks for
    /// typed output ([`Runner::run_typed`](crate::agent::Runner::run_typed)):
    /// a model with native structured output
    /// ([`Model::native_output`]) is asked for it
    /// ([`OutputMode::Native`]); otherwise the final-answer tool is among
    /// [`tools`](Self::tools) ([`OutputMode::Tool`]).
    pub output: Option<&'a OutputSpec>,
}

/// What receives a model's text chunks: any `Fn(&str)`.
pub type TextSink<'a> = dyn Fn(&str) + Send + Sync + 'a;

impl std::fmt::Debug for ModelRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRequest")
            .field("agent", &self.agent)
            .field("system", &self.system)
            .field("messages", &self.messages)
            .field("tools", &self.tools)
            .field("on_text", &self.on_text.is_some())
            .field("output", &self.output)
            .finish()
    }
}

impl<'a> ModelRequest<'a> {
    /// A request.
    pub fn new(
        agent: &'a str,
        system: &'a str,
        messages: &'a [Message],
        tools: &'a [ToolDefinition],
    ) -> Self {
        Self {
            agent,
            system,
            messages,
            tools,
            on_text: None,
            output: None,
        }
    }

    /// Asks for a final answer of this schema (see [`output`](Self::output)).
    pub fn with_output(mut self, spec: &'a OutputSpec) -> Self {
        self.output = Some(spec);
        self
    }

    /// The output spec, if the model is asked to answer it natively
    /// ([`OutputMode::Native`]).
    pub fn native_output(&self) -> Option<&'a OutputSpec> {
        self.output.filter(|spec| spec.is_native())
    }

    /// The output spec, if the model is asked to answer through the
    /// final-answer tool ([`OutputMode::Tool`]): the answer must then be a
    /// tool call, and a client whose provider can require one asks for it
    /// (`tool_choice`: `required` for OpenAI, `any` for Anthropic), so a
    /// model cannot end the run with text.
    pub fn output_tool(&self) -> Option<&'a OutputSpec> {
        self.output.filter(|spec| !spec.is_native())
    }

    /// Sends each chunk of the answer's text to `sink` as it arrives (see
    /// [`on_text`](Self::on_text)).
    ///
    /// ```
    /// # use hookwire::model::{Message, Model, ModelRequest, ScriptedModel, Turn};
    /// let model = ScriptedModel::from_turns([Turn::text("one two three")]);
    /// let chunks = std::sync::Mutex::new(Vec::new());
    /// let sink = |chunk: &str| chunks.lock().unwrap().push(chunk.to_owned());
    /// let history = [Message::user("count")];
    /// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    /// # rt.block_on(async {
    /// let request = ModelRequest::new("a", "", &history, &[]).with_on_text(&sink);
    /// let response = model.complete(request).await.unwrap();
    /// assert_eq!(chunks.lock().unwrap().concat(), response.text);
    /// assert_eq!(chunks.lock().unwrap().len(), 3);
    /// # });
    /// ```
    pub fn with_on_text(mut self, sink: &'a TextSink<'a>) -> Self {
        self.on_text = Some(sink);
        self
    }

    /// Sends one chunk of the answer's text to the sink, if there is one
    /// (a model that streams calls it with each chunk, in order).
    pub fn text_delta(&self, chunk: &str) {
        if let Some(sink) = self.on_text
            && !chunk.is_empty()
        {
            sink(chunk);
        }
    }

    /// The text of the last user message, if any.
    pub fn last_user_text(&self) -> Option<&'a str> {
        self.messages.iter().rev().find_map(|m| match m {
            Message::User { content } => Some(content.as_str()),
            _ => None,
        })
    }
}

/// Tokens a model call used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub input_tokens: u64,
    /// Tokens in the answer.
    pub output_tokens: u64,
}

impl Usage {
    /// Input and output tokens together.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, rhs: Self) {
        self.input_tokens = self.input_tokens.saturating_add(rhs.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(rhs.output_tokens);
    }
}

/// A model's answer for one turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelResponse {
    /// The text (may be empty when there are tool calls).
    #[serde(default)]
    pub text: String,
    /// The tool calls, in order.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Tokens used.
    #[serde(default)]
    pub usage: Usage,
    /// What the provider asked to get back with this turn; it goes into
    /// the history with the turn ([`ModelResponse::to_message`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thoughts: Vec<Thought>,
}

impl ModelResponse {
    /// The model's answer as the assistant turn of the history: its text,
    /// its tool calls and its [`Thought`]s.
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            content: self.text.clone(),
            tool_calls: hookwire_chain::message::clone_or_empty(&self.tool_calls),
            thoughts: hookwire_chain::message::clone_or_empty(&self.thoughts),
        }
    }

    /// [`to_message`](Self::to_message), taking the response's
    /// tool calls instead of copying them (the response is left without
    /// calls).
    pub(crate) fn take_message(&mut self) -> Message {
        Message::Assistant {
            content: self.text.clone(),
            tool_calls: std::mem::take(&mut self.tool_calls),
            thoughts: hookwire_chain::message::clone_or_empty(&self.thoughts),
        }
    }

    /// A final answer.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// A turn with tool calls.
    pub fn tool_calls(text: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self {
            text: text.into(),
            tool_calls,
            ..Self::default()
        }
    }

    /// Sets the usage.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = usage;
        self
    }
}

/// A language model: the next turn of a conversation.
///
/// ```
/// # use hookwire::model::{Message, Model, ModelRequest, PassthroughModel};
/// # let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// # rt.block_on(async {
/// let model = PassthroughModel::new();
/// let history = [Message::user("ping")];
/// let response = model.complete(ModelRequest::new("a", "", &history, &[])).await.unwrap();
/// assert_eq!(response.text, "ping");
/// # });
/// ```
pub trait Model: Send + Sync {
    /// The model's name, for traces.
    fn name(&self) -> &str;

    /// The provider serving the model, as OpenTelemetry's
    /// `gen_ai.provider.name` names it (feature `otel`): by default from
    /// the `provider:` prefix of [`name`](Self::name) (`anthropic`,
    /// `openai`, `gcp.gemini` for `gemini:`, the prefix itself for
    /// another), `_OTHER` when it has none.
    fn provider(&self) -> &str {
        match self.name().split_once(':') {
            Some(("openai" | "openai-responses", _)) => "openai",
            Some(("gemini", _)) => "gcp.gemini",
            Some((prefix, _)) => prefix,
            None => "_OTHER",
        }
    }

    /// Answers one request.
    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>>;

    /// Whether the model answers a [`ModelRequest::output`] schema
    /// natively (the provider's structured output); if not (the default),
    /// a run asking for typed output offers it a final-answer tool
    /// ([`FINAL_RESULT_TOOL`]) instead.
    fn native_output(&self) -> bool {
        false
    }
}

impl<M: Model + ?Sized> Model for Arc<M> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn provider(&self) -> &str {
        (**self).provider()
    }

    fn native_output(&self) -> bool {
        (**self).native_output()
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        (**self).complete(request)
    }
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn provider(&self) -> &str {
        (**self).provider()
    }

    fn native_output(&self) -> bool {
        (**self).native_output()
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        (**self).complete(request)
    }
}

/// A model from a model string, as in an AgentCard's `model:` field or the
/// examples' `--model` flag:
///
/// * `passthrough` - [`PassthroughModel`];
/// * `scripted:<path>` or `playback:<path>` - a [`ScriptedModel`] playing the
///   script file (`.json`, or YAML), relative paths resolved against `base`;
/// * `openai:<model>` (feature `openai`, which `providers` implies) - the
///   OpenAI-compatible chat-completions `OpenAiModel`, with
///   `OPENAI_BASE_URL` and `OPENAI_API_KEY` (no key needed, for a local
///   server): the one client of `openai:`, whichever features are on;
/// * `<provider>:<model>` (feature `providers`) - a native provider through
///   `ProviderModel`: `anthropic:claude-sonnet-4-5`,
///   `openai-responses:gpt-5-mini`, `gemini:gemini-2.5-flash`,
///   `ollama:qwen3`, with the key and base URL from the provider's
///   environment variables (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`,
///   `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `GEMINI_API_KEY`, `OLLAMA_HOST`);
/// * a name without a provider (`gpt-4o-mini`) - as `openai:<name>`.
///
/// Errors come before any run: [`ModelError::UnknownProvider`] for a
/// prefix that names no provider (with the nearest, if one is near),
/// [`ModelError::FeatureOff`] for a provider whose feature is off,
/// [`ModelError::Config`] for a string that names no model (`anthropic:`,
/// or `anthropic/claude-..`, which would be an OpenAI model name),
/// [`ModelError::MissingKey`] for a provider whose key variable is not set.
/// `cardgen check` reads model strings with the same parse
/// ([`hookwire_spec::parse_model_string`]).
///
/// ```
/// let model = hookwire::model::from_spec("passthrough", None).unwrap();
/// assert_eq!(model.name(), "passthrough");
/// assert!(hookwire::model::from_spec("scripted:/no/such/file.yaml", None).is_err());
/// let Err(e) = hookwire::model::from_spec("acme:m1", None) else { panic!() };
/// assert!(e.to_string().starts_with("unknown model provider `acme` in `acme:m1`"));
///
/// // A model from a string goes where any model goes.
/// use hookwire::agent::{AgentConfig, BasicAgent, Runner};
/// let agent = BasicAgent::new(AgentConfig::new("echo"), hookwire::Router::new());
/// let runner = Runner::new(agent, model);
/// # let _ = runner;
/// ```
pub fn from_spec(spec: &str, base: Option<&std::path::Path>) -> Result<Arc<dyn Model>, ModelError> {
    use hookwire_spec::{ModelString, ModelStringError, parse_model_string};
    let parsed = parse_model_string(spec).map_err(|e| match e {
        ModelStringError::UnknownProvider {
            provider,
            spec,
            suggestion,
        } => ModelError::UnknownProvider {
            provider,
            spec,
            suggestion: suggestion.map(str::to_owned),
            known: hookwire_spec::known_prefixes(),
        },
        e => ModelError::Config(e.to_string()),
    });
    let (provider, name) = match parsed? {
        ModelString::Passthrough => return Ok(Arc::new(PassthroughModel)),
        ModelString::Script { path } => {
            let path = std::path::Path::new(path);
            let path = match base {
                Some(base) if path.is_relative() => base.join(path),
                _ => path.to_path_buf(),
            };
            return Ok(Arc::new(ScriptedModel::from_file(path)?));
        }
        ModelString::Provider {
            provider, model, ..
        } => (provider, model),
        _ => {
            return Err(ModelError::Config(format!(
                "model string `{spec}` is not supported by this version"
            )));
        }
    };
    // `openai:` first: one client for it whichever features are on (the
    // provider table has an `openai` row too, for `ProviderConfig`).
    #[cfg(feature = "openai")]
    if provider == hookwire_spec::ModelProvider::OpenAi {
        let mut config = OpenAiConfig::new(name);
        if let Ok(url) = std::env::var("OPENAI_BASE_URL") {
            config.base_url = url;
        }
        config.api_key = std::env::var("OPENAI_API_KEY")
            .ok()
            .filter(|k| !k.is_empty())
            .map(crate::secret::Secret::from);
        return Ok(Arc::new(OpenAiModel::new(config)?));
    }
    #[cfg(feature = "providers")]
    if let Some(model) = providers::from_prefixed(provider.prefix(), name) {
        return Ok(Arc::new(model?));
    }
    let _ = name;
    Err(ModelError::FeatureOff {
        spec: spec.trim().to_owned(),
        feature: provider.feature().to_owned(),
    })
}

/// Built without `providers` (`cargo test -p hookwire --no-default-features
/// --lib`): a provider's model string names the feature to turn on.
#[cfg(all(test, not(feature = "providers")))]
mod feature_off {
    #[test]
    fn a_provider_whose_feature_is_off_names_the_feature() {
        let Err(e) = super::from_spec("anthropic:claude-x", None) else {
            panic!("built a provider model without `providers`");
        };
        assert!(
            matches!(&e, super::ModelError::FeatureOff { feature, .. } if feature == "providers"),
            "{e}"
        );
        assert!(e.to_string().contains("`providers` feature"), "{e}");
        if !cfg!(feature = "openai") {
            let Err(e) = super::from_spec("gpt-4o-mini", None) else {
                panic!("built an OpenAI model without `openai`");
            };
            assert!(e.to_string().contains("`openai` feature"), "{e}");
        }
    }
}
