//! The one place that parses YAML (serde_yaml is deprecated upstream; a
//! maintained successor can replace it here alone).

use serde::de::DeserializeOwned;

/// A YAML parse error with its position.
#[derive(Debug, Clone)]
pub(crate) struct YamlError {
    pub(crate) message: String,
    pub(crate) line: Option<usize>,
    pub(crate) column: Option<usize>,
}

/// Parses `text` as YAML into `T`.
pub(crate) fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    serde_yaml::from_str(text).map_err(|e| {
        let location = e.location();
        YamlError {
            message: e.to_string(),
            line: location.as_ref().map(|l| l.line()),
            column: location.as_ref().map(|l| l.column()),
        }
    })
}
