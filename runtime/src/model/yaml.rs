//! The one place the model module reads YAML, so a maintained successor of
//! `serde_yaml` can replace it here alone.

use serde_json::Value;

/// Parses YAML text into a JSON value.
pub(crate) fn from_str(text: &str) -> Result<Value, String> {
    serde_yaml::from_str::<Value>(text).map_err(|e| e.to_string())
}
