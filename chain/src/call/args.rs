//! The arguments of one tool call: kept as the model's text until someone
//! looks inside.

use std::fmt;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::typed::{Erased, clone_typed};
use crate::error::ToolError;

/// The arguments of one tool call: a JSON object.
///
/// Arguments arrive from a model as a JSON string. They stay that string
/// until someone needs to look inside: a tool parses it straight into its
/// typed argument struct, and a hook that reads or rewrites a field turns it
/// into a JSON object first ([`get`](Self::get), [`object_mut`](Self::object_mut)).
/// A chain of hooks that never look at the arguments therefore costs no
/// parsing and no allocation.
///
/// It is three words: every layer of a chain moves it, so it stays small.
/// A parsed object is shared by clones and copied only when a shared one is
/// rewritten (copy on write). The agent loop shares the model's text once
/// per call ([`share_text`](Self::share_text): one copy, no parsing), so
/// that it keeps the call in the history, hands the tool its arguments and
/// notes them in the trace without copying a large argument each time; the
/// tool still parses the text straight into its typed arguments, and a
/// hook that reads a field parses it into an object once for the whole
/// chain. A text given to a tool set directly stays a plain `String`, which
/// costs nothing to take.
pub struct ToolArgs {
    pub(super) repr: Repr,
}

pub(super) enum Repr {
    /// The model's text; empty or blank means `{}`.
    Json(String),
    /// A parsed object, shared by clones (copy on write). The `Arc` is
    /// boxed: every layer of a chain moves the arguments, and with an
    /// `Arc` in place its inline release in each layer's code made a
    /// 16-hook chain about 80 instructions dearer per call (the chain
    /// bench), although the arguments there are never an object.
    Object(Box<Parsed>),
    /// The model's text, shared by clones ([`ToolArgs::share_text`]):
    /// unparsed until someone reads a field.
    Shared(Arc<str>),
    /// The tool's own argument type, parsed by a typed hook
    /// ([`ToolArgs::typed`], `typed.rs`), with the JSON it still is.
    Typed(Box<dyn Erased>),
}

impl Clone for ToolArgs {
    #[inline]
    fn clone(&self) -> Self {
        let repr = match &self.repr {
            Repr::Json(text) => Repr::Json(text.clone()),
            Repr::Object(parsed) => Repr::Object(parsed.clone()),
            Repr::Shared(text) => Repr::Shared(Arc::clone(text)),
            Repr::Typed(erased) => return clone_typed(&**erased),
        };
        Self { repr }
    }
}

/// A parsed object, shared by clones (copy on write), with the shared text
/// it was parsed from while no one rewrote it: the object still is that
/// text, so it keeps the text's identity (the call log and the trace see
/// arguments a hook only read as the ones the model sent, without comparing
/// them).
#[derive(Clone)]
pub(super) struct Parsed {
    map: Arc<Map<String, Value>>,
    from: Option<Arc<str>>,
}

impl Repr {
    #[inline]
    fn object(map: Map<String, Value>, from: Option<Arc<str>>) -> Self {
        Self::Object(Box::new(Parsed {
            map: Arc::new(map),
            from,
        }))
    }
}

/// Who a shared text is (its address).
#[inline]
fn text_identity(text: &Arc<str>) -> usize {
    Arc::as_ptr(text).cast::<u8>() as usize
}

impl ToolArgs {
    /// No arguments: `{}`. Allocates nothing.
    #[inline]
    pub fn empty() -> Self {
        Self {
            repr: Repr::Json(String::new()),
        }
    }

    /// Arguments as a model sends them: a JSON text, parsed on demand. An
    /// empty or blank string means `{}`. A text that is not a JSON object is
    /// reported as invalid arguments when the arguments are first read.
    pub fn from_json(text: impl Into<String>) -> Self {
        Self {
            repr: Repr::Json(text.into()),
        }
    }

    /// Arguments from a JSON object.
    #[inline]
    pub fn from_map(map: Map<String, Value>) -> Self {
        Self {
            repr: Repr::object(map, None),
        }
    }

    /// Arguments from a JSON value, which must be an object (`null` counts
    /// as `{}`).
    #[inline]
    pub fn from_value(value: Value) -> Result<Self, ToolError> {
        match value {
            Value::Object(map) => Ok(Self::from_map(map)),
            Value::Null => Ok(Self::empty()),
            other => Err(ToolError::invalid_arguments(
                "",
                None,
                format!("arguments must be a JSON object, got {}", kind(&other)),
            )),
        }
    }

    /// Arguments from any serializable value that serializes to an object.
    pub fn from_serialize<T: Serialize>(value: &T) -> Result<Self, ToolError> {
        let value = serde_json::to_value(value)
            .map_err(|e| ToolError::invalid_arguments("", None, e.to_string()))?;
        Self::from_value(value)
    }

    /// Whether the arguments are still the unparsed text the model sent.
    #[inline]
    pub fn is_raw(&self) -> bool {
        matches!(self.repr, Repr::Json(_) | Repr::Shared(_))
    }

    /// Makes clones cheap without parsing: the model's text is copied once
    /// into a shared one, which clones hold by reference count. A reader of
    /// a field parses it then (once per holder); a tool parses it straight
    /// into its typed arguments. Parsed arguments are shared already.
    #[inline]
    pub fn share_text(&mut self) {
        if let Repr::Json(text) = &mut self.repr {
            self.repr = Repr::Shared(Arc::from(std::mem::take(text)));
        }
    }

    /// Makes clones cheap: a text that parses as an object is parsed now,
    /// once, instead of copied by each clone (parsed objects are shared).
    /// A text that does not parse stays as it is, so that whoever reads it
    /// reports the error.
    #[inline]
    pub fn share(&mut self) {
        // Typed arguments become their JSON (an error leaves a text that
        // says why, which does not parse).
        let _ = self.untype();
        if let Some(text) = self.raw_text()
            && let Ok(map) = parse_object(text)
        {
            self.repr = Repr::object(map, self.shared_text());
        }
    }

    /// The parsed object, parsing the text first if needed: what
    /// [`object`](Self::object) reads and [`object_mut`](Self::object_mut)
    /// writes through.
    #[inline]
    fn parsed_arc(&mut self) -> Result<&mut Arc<Map<String, Value>>, ToolError> {
        self.untype()?;
        if let Some(text) = self.raw_text() {
            let map = parse_object(text)?;
            self.repr = Repr::object(map, self.shared_text());
        }
        match &mut self.repr {
            Repr::Object(parsed) => Ok(&mut parsed.map),
            Repr::Json(_) | Repr::Shared(_) | Repr::Typed(_) => {
                unreachable!("the text was just parsed")
            }
        }
    }

    /// The arguments as a JSON object, parsing the text first if needed.
    /// Reading never copies: an object shared with a clone (the history's,
    /// the trace's) stays shared.
    #[inline]
    pub fn object(&mut self) -> Result<&Map<String, Value>, ToolError> {
        self.parsed_arc().map(|map| &**map)
    }

    /// The arguments as a mutable JSON object, for hooks that rewrite them
    /// (an object shared with a clone is copied first).
    #[inline]
    pub fn object_mut(&mut self) -> Result<&mut Map<String, Value>, ToolError> {
        self.parsed_arc()?;
        match &mut self.repr {
            Repr::Object(parsed) => {
                // Rewritten: no longer the text it was parsed from.
                parsed.from = None;
                Ok(Arc::make_mut(&mut parsed.map))
            }
            Repr::Json(_) | Repr::Shared(_) | Repr::Typed(_) => {
                unreachable!("the text was just parsed")
            }
        }
    }

    /// One field of the arguments (`None` if absent or if the arguments do
    /// not parse as an object).
    #[inline]
    pub fn get(&mut self, key: &str) -> Option<&Value> {
        self.object().ok()?.get(key)
    }

    /// The arguments as a JSON object through a shared reference: `Some`
    /// once they are parsed ([`share`](Self::share), [`object`](Self::object),
    /// or built from a map), `None` while they are still the model's text.
    /// An approver's [`ApprovalRequest`](crate::approve::ApprovalRequest)
    /// always sees parsed arguments when they parse.
    #[inline]
    pub fn parsed(&self) -> Option<&Map<String, Value>> {
        match &self.repr {
            Repr::Object(parsed) => Some(&parsed.map),
            Repr::Json(_) | Repr::Shared(_) => None,
            Repr::Typed(erased) => erased.source().and_then(Self::parsed),
        }
    }

    /// Sets one field, parsing the arguments first if needed.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Result<(), ToolError> {
        self.object_mut()?.insert(key.into(), value);
        Ok(())
    }

    /// Whether `self` and `other` share their text or object: a clone that
    /// no one rewrote since. Cheap; `false` says nothing about equality.
    #[inline]
    pub fn is_shared_with(&self, other: &Self) -> bool {
        matches!(
            (self.shared_identity(), other.shared_identity()),
            (Some(a), Some(b)) if a == b
        )
    }

    /// Who the parsed object is (its address), while it is shared: two
    /// arguments with the same `Some` identity, both alive, share it
    /// ([`is_shared_with`](Self::is_shared_with) without a second value
    /// at hand: the call log compares what a tool received with what the
    /// model sent by it, instead of keeping a clone).
    #[doc(hidden)]
    #[inline]
    pub fn shared_identity(&self) -> Option<usize> {
        match &self.repr {
            Repr::Object(parsed) => Some(match &parsed.from {
                Some(text) => text_identity(text),
                None => Arc::as_ptr(&parsed.map) as usize,
            }),
            Repr::Shared(text) => Some(text_identity(text)),
            Repr::Json(_) => None,
            // Still what it was parsed from, or rewritten.
            Repr::Typed(erased) => erased.source().and_then(Self::shared_identity),
        }
    }

    /// The model's text, if the arguments were never parsed.
    #[doc(hidden)]
    #[inline]
    pub fn raw_text(&self) -> Option<&str> {
        match &self.repr {
            Repr::Json(text) => Some(text),
            Repr::Shared(text) => Some(text),
            Repr::Object(_) | Repr::Typed(_) => None,
        }
    }

    /// The shared text, if the arguments are one.
    #[inline]
    fn shared_text(&self) -> Option<Arc<str>> {
        match &self.repr {
            Repr::Shared(text) => Some(Arc::clone(text)),
            _ => None,
        }
    }

    /// The arguments as a JSON value (a copy).
    #[inline]
    pub fn to_value(&self) -> Result<Value, ToolError> {
        match &self.repr {
            Repr::Json(text) => parse_object(text).map(Value::Object),
            Repr::Shared(text) => parse_object(text).map(Value::Object),
            Repr::Object(parsed) => Ok(Value::Object((*parsed.map).clone())),
            Repr::Typed(erased) => erased.json()?.to_value(),
        }
    }

    /// Deserializes the arguments into `T`, the tool's typed arguments.
    ///
    /// On failure the error is [`ToolError::InvalidArguments`] and names the
    /// offending field (`items[2].qty`) when there is one; `tool` is used in
    /// its message.
    pub fn parse<T: DeserializeOwned>(&self, tool: &str) -> Result<T, ToolError> {
        // The fast path (a JSON text that starts with `{`, as a model sends
        // it, or no text at all) does no bookkeeping; blank or odd texts,
        // objects and failures go out of line, and only a failure pays for a
        // second, path-tracking pass that finds the field to name.
        let text: &str = match &self.repr {
            Repr::Json(text) => text,
            Repr::Shared(text) => text,
            Repr::Object(_) | Repr::Typed(_) => return self.parse_slow(tool),
        };
        if text.starts_with('{') || text.is_empty() {
            serde_json::from_str::<T>(json_text(text))
                .map_err(|error| self.invalid::<T>(tool, error))
        } else {
            self.parse_slow(tool)
        }
    }

    /// [`parse`](Self::parse) off its fast path.
    #[inline(never)]
    fn parse_slow<T: DeserializeOwned>(&self, tool: &str) -> Result<T, ToolError> {
        let first = match &self.repr {
            Repr::Json(_) | Repr::Shared(_) => {
                let text = self.raw_text().unwrap_or_default();
                // serde accepts a struct from a JSON array too; a tool's
                // arguments must be an object.
                let text = json_text(text);
                if !(text.starts_with('{') || text.trim_start().starts_with('{')) {
                    let error = parse_object(text).err().unwrap_or_else(|| {
                        ToolError::invalid_arguments("", None, "arguments must be a JSON object")
                    });
                    return Err(error.with_tool(tool));
                }
                serde_json::from_str::<T>(text)
            }
            Repr::Object(parsed) => T::deserialize(&*parsed.map),
            // Another type's value (a hook for other arguments): from JSON.
            Repr::Typed(erased) => {
                return erased
                    .json()
                    .and_then(|json| json.parse::<T>(tool))
                    .map_err(|error| error.with_tool(tool));
            }
        };
        first.map_err(|error| self.invalid::<T>(tool, error))
    }

    /// The invalid-arguments error for a failed parse: a second,
    /// path-tracking pass finds the field to name. Out of line, off the hot
    /// path.
    #[cold]
    #[inline(never)]
    fn invalid<T: DeserializeOwned>(&self, tool: &str, error: impl fmt::Display) -> ToolError {
        let tracked = match &self.repr {
            Repr::Json(_) | Repr::Shared(_) => {
                let text = self.raw_text().unwrap_or_default();
                let mut de = serde_json::Deserializer::from_str(json_text(text));
                serde_path_to_error::deserialize::<_, T>(&mut de).err()
            }
            Repr::Object(parsed) => serde_path_to_error::deserialize::<_, T>(&*parsed.map).err(),
            Repr::Typed(_) => None,
        };
        match tracked {
            Some(e) => {
                let path = e.path().to_string();
                let field = (path != "." && path != "?").then_some(path);
                ToolError::invalid_arguments(tool, field, e.into_inner().to_string())
            }
            None => ToolError::invalid_arguments(tool, None, error.to_string()),
        }
    }
}

#[inline]
fn json_text(text: &str) -> &str {
    // A model's arguments nearly always start with `{`: no need to scan them.
    if text.starts_with('{') || !text.trim().is_empty() {
        text
    } else {
        "{}"
    }
}

/// Parses the model's text as an object. A duplicate key is an error (see
/// [`strict_json`](crate::strict_json)), as it is when the text is parsed
/// straight into a tool's typed arguments.
fn parse_object(text: &str) -> Result<Map<String, Value>, ToolError> {
    match crate::strict_json::from_str(json_text(text)) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(Value::Null) => Ok(Map::new()),
        Ok(other) => Err(ToolError::invalid_arguments(
            "",
            None,
            format!("arguments must be a JSON object, got {}", kind(&other)),
        )),
        Err(e) => Err(ToolError::invalid_arguments(
            "",
            None,
            format!("arguments are not valid JSON: {e}"),
        )),
    }
}

/// How a JSON value is named in an error (`an array`, `null`).
#[doc(hidden)]
#[inline]
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Default for ToolArgs {
    #[inline]
    fn default() -> Self {
        Self::empty()
    }
}

impl fmt::Debug for ToolArgs {
    #[inline]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.repr {
            Repr::Json(_) | Repr::Shared(_) => {
                write!(
                    f,
                    "ToolArgs({})",
                    json_text(self.raw_text().unwrap_or_default())
                )
            }
            Repr::Object(parsed) => write!(f, "ToolArgs({})", Value::Object((*parsed.map).clone())),
            Repr::Typed(erased) => match erased.json() {
                Ok(json) => fmt::Debug::fmt(&*json, f),
                Err(error) => write!(f, "ToolArgs(<{error}>)"),
            },
        }
    }
}

/// Two argument sets are equal when they are the same text, or when they
/// parse to the same object (so `ToolArgs::empty()` equals an empty map).
impl PartialEq for ToolArgs {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        match (&self.repr, &other.repr) {
            _ if self.is_shared_with(other) => true,
            (Repr::Object(a), Repr::Object(b)) => a.map == b.map,
            _ if self.raw_text().is_some() && self.raw_text() == other.raw_text() => true,
            _ => match (self.to_value(), other.to_value()) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            },
        }
    }
}

impl From<Map<String, Value>> for ToolArgs {
    #[inline]
    fn from(map: Map<String, Value>) -> Self {
        Self::from_map(map)
    }
}

impl Serialize for ToolArgs {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.repr {
            Repr::Object(parsed) => parsed.map.serialize(serializer),
            Repr::Typed(erased) => match erased.json() {
                Ok(json) => json.serialize(serializer),
                Err(error) => Err(serde::ser::Error::custom(error)),
            },
            Repr::Json(_) | Repr::Shared(_) => {
                match parse_object(self.raw_text().unwrap_or_default()) {
                    Ok(map) => map.serialize(serializer),
                    // Keep what the model sent, so a resumed run shows it verbatim.
                    Err(_) => serializer.serialize_str(self.raw_text().unwrap_or_default()),
                }
            }
        }
    }
}

impl<'de> Deserialize<'de> for ToolArgs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(text) => Ok(Self::from_json(text)),
            other => Self::from_value(other).map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
#[path = "args_tests.rs"]
mod tests;
