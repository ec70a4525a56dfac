//! [`ProviderModel`]: a model at a native provider, one request at a
//! time, plain or streamed.

use genai::chat::ChatOptions;
use genai::resolver::{AuthData, Endpoint};
use genai::{Client, ModelIden, ServiceTarget};

use super::ProviderConfig;
use super::error::error;
use super::quiet::quiet;
use super::request::chat_request;
use super::response::{our_response, streamed};
use crate::BoxFuture;
use crate::model::{Model, ModelError, ModelRequest, ModelResponse};
use crate::secret::Secret;

/// A model at a native provider, through `genai`.
///
/// Built from a model string by [`from_spec`](crate::model::from_spec)
/// (`anthropic:claude-sonnet-4-5`, `openai-responses:gpt-5-mini`,
/// `gemini:gemini-2.5-flash`, `ollama:qwen3`; `openai:` strings are
/// `OpenAiModel`), or from a [`ProviderConfig`]:
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
/// [`Thought`](crate::model::Thought)s, stay in the history and go back with their turn, each to
/// the provider it came from. Not carried across turns: reasoning without a
/// signature, and the Responses API's reasoning items.
#[derive(Clone)]
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
            (Some(key), _) => AuthData::from_single(key.expose()),
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
            .map_err(|e| error(e, config.timeout))?;
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
            .map_err(|e| error(e, self.config.timeout))?;
        streamed(
            response.stream,
            on_text,
            self.config.provider,
            self.config.timeout,
        )
        .await
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
            .map_err(|e| error(e, self.config.timeout))?;
        Ok(our_response(response, self.config.provider))
    }

    /// The options of one request: the configured ones, with the output
    /// schema as the provider's structured output when the request asks
    /// for it natively.
    /// In tool mode ([`ModelRequest::output_tool`]), a tool call is
    /// required (`tool_choice`), so the answer cannot be text.
    fn options_for(&self, request: &ModelRequest<'_>) -> std::borrow::Cow<'_, ChatOptions> {
        if let Some(spec) = request.native_output() {
            let mut json = genai::chat::JsonSpec::new(spec.name.clone(), spec.schema.clone());
            if let Some(d) = &spec.description {
                json = json.with_description(d.clone());
            }
            return std::borrow::Cow::Owned(self.options.clone().with_response_format(json));
        }
        if request.output_tool().is_some() {
            let required = genai::chat::ToolChoice::Required;
            return std::borrow::Cow::Owned(self.options.clone().with_tool_choice(required));
        }
        std::borrow::Cow::Borrowed(&self.options)
    }
}

impl Model for ProviderModel {
    fn name(&self) -> &str {
        &self.name
    }

    /// Every provider answers a schema natively: OpenAI's
    /// `response_format` (chat completions and Responses), Anthropic's
    /// `output_config.format` (structured outputs), Gemini's
    /// `responseJsonSchema`, Ollama's `format`.
    fn native_output(&self) -> bool {
        true
    }

    fn complete<'a>(
        &'a self,
        request: ModelRequest<'a>,
    ) -> BoxFuture<'a, Result<ModelResponse, ModelError>> {
        Box::pin(async move {
            // A run someone streams (`Runner::stream`) gets the text as it
            // comes; otherwise the configured form.
            let answer = if self.config.streaming || request.on_text.is_some() {
                quiet(self.complete_streaming(&request, &|chunk| request.text_delta(chunk))).await
            } else {
                quiet(self.complete_plain(&request)).await
            };
            let key = self.config.api_key.as_ref().map(Secret::expose);
            answer.map_err(|e| e.scrubbed(key.as_slice()))
        })
    }
}

impl std::fmt::Debug for ProviderModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderModel")
            .field("name", &self.name)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}
