//! Native providers (feature `providers`): Anthropic Messages, OpenAI chat
//! completions and Responses, Google Gemini and Ollama, through the
//! [`genai`] crate. Everything `genai` is in this module.
//!
//! Why `genai` and not rig's provider clients: besides what the [model
//! module](super) says, `genai` has one request and response type for every
//! provider, which is all our [`Model`] trait needs; rig-core's clients come
//! with its own agents, tools and vector stores. See BENCHMARKS.md for the
//! dependency counts.
//!
//! By concept:
//! * this file: the provider table ([`Provider`]: prefixes, key and base
//!   URL variables, endpoints) and [`ProviderConfig`];
//! * `client.rs`: [`ProviderModel`], one request plain or streamed;
//! * `request.rs`: our request as `genai`'s;
//! * `response.rs`: `genai`'s answer (whole or streamed) as ours;
//! * `error.rs`: `genai`'s errors as ours;
//! * `quiet.rs`: `genai`'s own log events left out (they show response
//!   bodies unredacted).

use std::time::Duration;

use genai::adapter::AdapterKind;

use hookwire_spec::ModelProvider;

use super::ModelError;
use crate::secret::Secret;

mod client;
mod error;
mod quiet;
mod request;
mod response;

pub use client::ProviderModel;

/// A model provider: the part of a model string before the first `:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// `anthropic:` - the Anthropic Messages API.
    Anthropic,
    /// OpenAI chat completions through `genai`, for a [`ProviderConfig`]
    /// built in code. The model string `openai:` is always the
    /// OpenAI-compatible `OpenAiModel` (see [`from_spec`](super::from_spec)).
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

    /// The model-string prefix (the spelling is hookwire-spec's, which
    /// `cardgen check` reads model strings with).
    pub fn prefix(self) -> &'static str {
        self.spec().prefix()
    }

    /// The same provider in the shared vocabulary.
    fn spec(self) -> ModelProvider {
        match self {
            Self::Anthropic => ModelProvider::Anthropic,
            Self::OpenAi => ModelProvider::OpenAi,
            Self::OpenAiResponses => ModelProvider::OpenAiResponses,
            Self::Gemini => ModelProvider::Gemini,
            Self::Ollama => ModelProvider::Ollama,
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
    /// The API key (required by every provider but Ollama; never printed:
    /// see [`Secret`]).
    pub api_key: Option<Secret>,
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
        config.api_key = var(provider.key_vars()).map(Secret::from);
        config.base_url = var(provider.base_url_vars());
        config
    }

    /// Sets the base URL (in the form of the provider's variable).
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Sets the API key.
    pub fn with_api_key(mut self, key: impl Into<Secret>) -> Self {
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

#[cfg(test)]
mod tests {
    use super::*;

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
