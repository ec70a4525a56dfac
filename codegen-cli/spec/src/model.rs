//! Model strings (`anthropic:claude-sonnet-4-5`, `scripted:turns.yaml`,
//! `gpt-4o-mini`): the one parse the runtime (`hookwire::model::from_spec`)
//! and `cardgen check` share, so a string the check accepts is one the
//! runtime reads the same way, and a mistake gets the same advice from
//! both.

use std::fmt;

use crate::did_you_mean;

/// A model provider a model string can name, whether or not this build of
/// the runtime serves it: the part before the first `:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModelProvider {
    /// `openai:` - OpenAI chat completions (and any compatible server).
    OpenAi,
    /// `anthropic:` - the Anthropic Messages API.
    Anthropic,
    /// `openai-responses:` - the OpenAI Responses API.
    OpenAiResponses,
    /// `gemini:` - the Google Gemini API.
    Gemini,
    /// `ollama:` - a local Ollama server.
    Ollama,
}

impl ModelProvider {
    /// Every provider, in the order the docs list them.
    pub const ALL: [Self; 5] = [
        Self::Anthropic,
        Self::OpenAi,
        Self::OpenAiResponses,
        Self::Gemini,
        Self::Ollama,
    ];

    /// The model-string prefix.
    pub const fn prefix(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::OpenAiResponses => "openai-responses",
            Self::Gemini => "gemini",
            Self::Ollama => "ollama",
        }
    }

    /// The feature of the `hookwire` crate that serves the provider:
    /// `openai` for `openai:` (and a bare model name), `providers` for the
    /// others.
    pub const fn feature(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            _ => "providers",
        }
    }

    /// The provider a prefix names.
    pub fn from_prefix(prefix: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.prefix() == prefix)
    }
}

impl fmt::Display for ModelProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.prefix())
    }
}

/// The prefixes that are not providers: `passthrough` (a whole string),
/// `scripted:` and `playback:` (a script file).
pub const OFFLINE_MODEL_PREFIXES: [&str; 3] = ["passthrough", "scripted", "playback"];

/// A model string, read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelString<'a> {
    /// `passthrough`: answers with the last user message.
    Passthrough,
    /// `scripted:<path>` or `playback:<path>`: a script file.
    Script {
        /// The file, as written (relative paths are resolved by the
        /// reader).
        path: &'a str,
    },
    /// `<provider>:<model>`, or a bare model name (`gpt-4o-mini`), which
    /// is `openai:<name>`.
    Provider {
        /// The provider.
        provider: ModelProvider,
        /// The model, as the provider spells it (not empty).
        model: &'a str,
        /// Whether the string named no provider (a bare name).
        bare: bool,
    },
}

/// Why a model string names no model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelStringError {
    /// The string is empty.
    #[error(
        "the model string is empty: write `<provider>:<model>`, for example `anthropic:claude-sonnet-4-5`"
    )]
    Empty,
    /// `anthropic:` with nothing after the colon.
    #[error("model string `{spec}` names no model: write `{prefix}:<model>`")]
    NoModel {
        /// The whole string.
        spec: String,
        /// The prefix written.
        prefix: String,
    },
    /// A prefix that names no provider.
    #[error(
        "unknown model provider `{provider}` in `{spec}`{}; known: {}",
        suggestion.map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default(),
        known_prefixes()
    )]
    UnknownProvider {
        /// The prefix written.
        provider: String,
        /// The whole string.
        spec: String,
        /// The nearest known prefix, if one is near.
        suggestion: Option<&'static str>,
    },
    /// `anthropic/claude-..`: a provider's name before a `/`, which would
    /// read as an OpenAI model name.
    #[error(
        "model string `{spec}` would be the OpenAI model `{spec}`: did you mean `{provider}:{model}`? (for an OpenAI-compatible router that spells models so, write `openai:{spec}`)"
    )]
    SlashForColon {
        /// The whole string.
        spec: String,
        /// The provider before the `/`.
        provider: ModelProvider,
        /// What follows the `/`.
        model: String,
    },
}

/// Every prefix a model string may start with, comma-separated.
pub fn known_prefixes() -> String {
    ModelProvider::ALL
        .iter()
        .map(|p| p.prefix())
        .chain(OFFLINE_MODEL_PREFIXES)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads a model string (surrounding space ignored).
///
/// ```
/// use hookwire_spec::{ModelProvider, ModelString, ModelStringError, parse_model_string};
///
/// assert_eq!(
///     parse_model_string("anthropic:claude-sonnet-4-5"),
///     Ok(ModelString::Provider { provider: ModelProvider::Anthropic, model: "claude-sonnet-4-5", bare: false })
/// );
/// assert!(matches!(parse_model_string("gpt-4o-mini"), Ok(ModelString::Provider { provider: ModelProvider::OpenAi, bare: true, .. })));
/// let e = parse_model_string("antropic:claude-x").unwrap_err();
/// assert!(e.to_string().contains("did you mean `anthropic`?"), "{e}");
/// assert!(matches!(parse_model_string("anthropic:"), Err(ModelStringError::NoModel { .. })));
/// assert!(matches!(parse_model_string("anthropic/claude-x"), Err(ModelStringError::SlashForColon { .. })));
/// assert!(parse_model_string("openai:anthropic/claude-x").is_ok());
/// ```
pub fn parse_model_string(spec: &str) -> Result<ModelString<'_>, ModelStringError> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err(ModelStringError::Empty);
    }
    if spec == "passthrough" {
        return Ok(ModelString::Passthrough);
    }
    let Some((prefix, rest)) = spec.split_once(':') else {
        if let Some((first, model)) = spec.split_once('/')
            && let Some(provider) = ModelProvider::from_prefix(first.trim())
            && provider != ModelProvider::OpenAi
        {
            return Err(ModelStringError::SlashForColon {
                spec: spec.to_owned(),
                provider,
                model: model.to_owned(),
            });
        }
        return Ok(ModelString::Provider {
            provider: ModelProvider::OpenAi,
            model: spec,
            bare: true,
        });
    };
    let no_model = || ModelStringError::NoModel {
        spec: spec.to_owned(),
        prefix: prefix.to_owned(),
    };
    if rest.trim().is_empty() {
        return Err(no_model());
    }
    if matches!(prefix, "scripted" | "playback") {
        return Ok(ModelString::Script { path: rest });
    }
    match ModelProvider::from_prefix(prefix) {
        Some(provider) => Ok(ModelString::Provider {
            provider,
            model: rest,
            bare: false,
        }),
        None => Err(ModelStringError::UnknownProvider {
            provider: prefix.to_owned(),
            spec: spec.to_owned(),
            suggestion: did_you_mean(
                &prefix.to_ascii_lowercase(),
                ModelProvider::ALL
                    .iter()
                    .map(|p| p.prefix())
                    .chain(["scripted", "playback"]),
            ),
        }),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn strings_read_as_the_runtime_reads_them() {
        assert_eq!(
            parse_model_string(" passthrough "),
            Ok(ModelString::Passthrough)
        );
        assert_eq!(
            parse_model_string("scripted:a.yaml"),
            Ok(ModelString::Script { path: "a.yaml" })
        );
        assert_eq!(
            parse_model_string("ollama:qwen3:8b"),
            Ok(ModelString::Provider {
                provider: ModelProvider::Ollama,
                model: "qwen3:8b",
                bare: false
            })
        );
        for bad in ["", "  ", "anthropic:", "scripted: ", "gemini:  "] {
            assert!(parse_model_string(bad).is_err(), "{bad:?}");
        }
        let e = parse_model_string("Anthropic:claude").unwrap_err();
        assert!(e.to_string().contains("did you mean `anthropic`?"), "{e}");
        let e = parse_model_string("acme:m1").unwrap_err();
        assert!(!e.to_string().contains("did you mean"), "{e}");
        let e = parse_model_string("gemini/gemini-2.5-flash").unwrap_err();
        assert!(
            e.to_string()
                .contains("did you mean `gemini:gemini-2.5-flash`?"),
            "{e}"
        );
    }
}
