//! HTTP headers of a streamable-HTTP server (`headers:`, `bearer_token:`),
//! whose values may name environment variables (`${GITHUB_TOKEN}`) so that
//! secrets stay out of the configuration file. A value is checked when the
//! configuration is read (a valid header name, not one the transport sets
//! itself, a well-formed `${NAME}`) and its variables are looked up when
//! the servers connect: a missing one is an error before the run.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use hookwire_spec::HeaderPiece;
use http::{HeaderName, HeaderValue};

use crate::secret::Secret;

/// A lookup of `${NAME}`: the value of the variable, `None` when unset.
type Lookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Where `${NAME}` in header values is looked up.
#[derive(Clone)]
pub(crate) struct Secrets(Option<Lookup>);

impl Secrets {
    /// The process environment.
    pub(crate) fn environment() -> Self {
        Self(None)
    }

    /// `lookup` instead of the process environment.
    pub(crate) fn with(lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(lookup)))
    }

    fn get(&self, name: &str) -> Option<String> {
        match &self.0 {
            Some(lookup) => lookup(name),
            None => std::env::var(name).ok(),
        }
    }
}

impl Default for Secrets {
    fn default() -> Self {
        Self::environment()
    }
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "Secrets(custom)"
        } else {
            "Secrets(environment)"
        })
    }
}

/// The headers with every `${NAME}` looked up; never printed.
#[derive(Clone, Default)]
pub(crate) struct Resolved(pub(crate) HashMap<HeaderName, HeaderValue>);

impl Resolved {
    /// The values as sent, to take out of any text that comes back
    /// ([`redact`](crate::secret::redact)).
    pub(crate) fn values(&self) -> Vec<&str> {
        self.0.values().filter_map(|v| v.to_str().ok()).collect()
    }
}

impl fmt::Debug for Resolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.0.keys().map(HeaderName::as_str))
            .finish()
    }
}

/// The headers as sent: every `${NAME}` looked up in `secrets`. An unset
/// variable is an error naming the header and the variable (never a
/// value).
pub(crate) fn resolve(
    headers: &BTreeMap<String, Secret>,
    secrets: &Secrets,
) -> Result<Resolved, String> {
    let mut out = HashMap::with_capacity(headers.len());
    for (name, value) in headers {
        let mut text = String::new();
        let pieces = hookwire_spec::header_pieces(value.expose())
            .map_err(|e| format!("header `{name}`: {e}"))?;
        for piece in pieces {
            match piece {
                HeaderPiece::Text(t) => text.push_str(t),
                HeaderPiece::Var(var) => match secrets.get(var) {
                    Some(v) => text.push_str(&v),
                    None => {
                        return Err(format!(
                            "header `{name}` needs the environment variable `{var}`, which is not set: set it before the run (its value stays out of the configuration)"
                        ));
                    }
                },
            }
        }
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{name}` is not a valid HTTP header name"))?;
        let value = HeaderValue::from_str(&text).map_err(|_| {
            format!(
                "header `{name}`: its value, once its variables are set, has a character a header cannot carry (a control character or a line break)"
            )
        })?;
        out.insert(header, value);
    }
    Ok(Resolved(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(value: &str, vars: &[(&str, &str)]) -> Result<String, String> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let secrets =
            Secrets::with(move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()));
        let headers = BTreeMap::from([("Authorization".to_owned(), Secret::from(value))]);
        let out = resolve(&headers, &secrets)?;
        Ok(out
            .0
            .values()
            .next()
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned())
    }

    #[test]
    fn values_take_variables_and_literals() {
        assert_eq!(
            resolved("Bearer ${T}", &[("T", "abc")]),
            Ok("Bearer abc".into())
        );
        assert_eq!(resolved("$${T} ${T}$", &[("T", "x")]), Ok("${T} x$".into()));
        assert_eq!(
            resolved("Bearer ${MISSING}", &[]),
            Err("header `Authorization` needs the environment variable `MISSING`, which is not set: set it before the run (its value stays out of the configuration)".into())
        );
        assert_eq!(
            resolved("${T}", &[("T", "a\nb")]).unwrap_err(),
            "header `Authorization`: its value, once its variables are set, has a character a header cannot carry (a control character or a line break)"
        );
    }
}
