//! Arguments held as the tool's own Rust type: what a typed hook reads and
//! rewrites as fields.
//!
//! The first typed hook of a chain parses the model's text into the tool's
//! argument type once; the next typed hooks borrow that value, and the tool
//! takes it by move ([`ToolArgs::take_typed`]): a chain of typed hooks parses
//! the arguments once, into no JSON object. Whoever asks for JSON after a
//! hook rewrote the value (a JSON hook's [`ToolArgs::get`], the trace, an
//! approval) gets the value serialized.

use std::any::Any;
use std::borrow::Cow;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::args::Repr;
use super::{ToolArgs, json_kind};
use crate::error::ToolError;

/// How a rewritten value is written as JSON.
type WriteJson<T> = fn(&T) -> Result<Map<String, Value>, ToolError>;

/// A typed value with what it still is as JSON.
pub(super) struct Typed<T> {
    value: T,
    /// The arguments it was parsed from, while no hook could have rewritten
    /// it: it still is them (their text's identity included).
    source: Option<ToolArgs>,
    /// Writes the value as JSON; set by [`ToolArgs::typed_mut`], the one
    /// way to rewrite it, so it is there whenever `source` is not.
    write: Option<WriteJson<T>>,
}

/// A [`Typed`] of any type, as [`Repr::Typed`] holds it.
pub(super) trait Erased: Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
    /// The arguments it was parsed from, if no hook could have rewritten it.
    fn source(&self) -> Option<&ToolArgs>;
    /// The arguments as JSON: its source, or the value written.
    fn json(&self) -> Result<Cow<'_, ToolArgs>, ToolError>;
    /// [`json`](Self::json), by value.
    fn into_json(self: Box<Self>) -> Result<ToolArgs, ToolError>;
}

impl<T: Send + Sync + 'static> Erased for Typed<T> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }

    fn source(&self) -> Option<&ToolArgs> {
        self.source.as_ref()
    }

    fn json(&self) -> Result<Cow<'_, ToolArgs>, ToolError> {
        match (&self.source, self.write) {
            (Some(source), _) => Ok(Cow::Borrowed(source)),
            (None, Some(write)) => {
                write(&self.value).map(|map| Cow::Owned(ToolArgs::from_map(map)))
            }
            (None, None) => Err(unwritable()),
        }
    }

    fn into_json(self: Box<Self>) -> Result<ToolArgs, ToolError> {
        match (self.source, self.write) {
            (Some(source), _) => Ok(source),
            (None, Some(write)) => write(&self.value).map(ToolArgs::from_map),
            (None, None) => Err(unwritable()),
        }
    }
}

/// A value rewritten by no way that sets its writer: cannot happen
/// ([`ToolArgs::typed_mut`] sets it), reported rather than panicking.
#[cold]
fn unwritable() -> ToolError {
    ToolError::invalid_arguments("", None, "typed arguments that cannot be written as JSON")
}

/// Writes a rewritten value as a JSON object.
fn write_json<T: Serialize>(value: &T) -> Result<Map<String, Value>, ToolError> {
    match serde_json::to_value(value) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(ToolError::invalid_arguments(
            "",
            None,
            format!(
                "rewritten arguments must be a JSON object, got {}",
                json_kind(&other)
            ),
        )),
        Err(e) => Err(ToolError::invalid_arguments(
            "",
            None,
            format!("rewritten arguments cannot be written as JSON: {e}"),
        )),
    }
}

impl ToolArgs {
    /// The arguments as `T`, the tool's own argument type, to read: parsed
    /// once for the whole chain (the next typed reader borrows the same
    /// value, and the tool takes it), and still the arguments the model sent
    /// (a typed reader changes nothing the trace sees).
    ///
    /// This is what a typed pre hook that takes `&ArgsOf<tool>` runs on.
    /// Arguments that do not parse as `T` give the tool's own
    /// [`ToolError::InvalidArguments`], naming `tool` and the field.
    ///
    /// ```
    /// # use hookwire_chain::ToolArgs;
    /// #[derive(serde::Deserialize)]
    /// struct Refund { amount: u64 }
    /// let mut args = ToolArgs::from_json(r#"{"amount": 70}"#);
    /// assert_eq!(args.typed::<Refund>("refund").unwrap().amount, 70);
    /// ```
    pub fn typed<T: DeserializeOwned + Send + Sync + 'static>(
        &mut self,
        tool: &str,
    ) -> Result<&T, ToolError> {
        self.typed_slot::<T>(tool).map(|slot| &slot.value)
    }

    /// The arguments as `T`, to rewrite as fields: what a typed pre hook
    /// that takes `&mut ArgsOf<tool>` runs on. Parsed once for the whole
    /// chain, like [`typed`](Self::typed); from then on the arguments are
    /// what the hook leaves in the value (written as JSON only when someone
    /// asks for JSON: the trace, a JSON hook, an approval).
    ///
    /// ```
    /// # use hookwire_chain::ToolArgs;
    /// #[derive(serde::Deserialize, serde::Serialize)]
    /// struct Refund { amount: u64 }
    /// let mut args = ToolArgs::from_json(r#"{"amount": 70}"#);
    /// args.typed_mut::<Refund>("refund").unwrap().amount = 50;
    /// assert_eq!(args.get("amount"), Some(&serde_json::json!(50)));
    /// ```
    pub fn typed_mut<T: DeserializeOwned + Serialize + Send + Sync + 'static>(
        &mut self,
        tool: &str,
    ) -> Result<&mut T, ToolError> {
        let slot = self.typed_slot::<T>(tool)?;
        slot.source = None;
        slot.write = Some(write_json::<T>);
        Ok(&mut slot.value)
    }

    /// The arguments as `T`, parsed now unless they already are one.
    fn typed_slot<T: DeserializeOwned + Send + Sync + 'static>(
        &mut self,
        tool: &str,
    ) -> Result<&mut Typed<T>, ToolError> {
        let held = matches!(&self.repr, Repr::Typed(erased) if erased.as_any().is::<Typed<T>>());
        if !held {
            // Another type (a hook for other arguments): back to JSON first.
            self.untype()?;
            let value = self.parse::<T>(tool)?;
            let source = std::mem::take(self);
            self.repr = Repr::Typed(Box::new(Typed {
                value,
                source: Some(source),
                write: None,
            }));
        }
        match &mut self.repr {
            Repr::Typed(erased) => erased
                .as_any_mut()
                .downcast_mut::<Typed<T>>()
                .ok_or_else(unwritable),
            _ => Err(unwritable()),
        }
    }

    /// The typed value, if the arguments hold a `T` (what a tool takes
    /// after typed hooks: no second parse); otherwise the arguments back.
    #[doc(hidden)]
    #[inline]
    pub fn take_typed<T: 'static>(self) -> Result<T, Self> {
        match self.repr {
            Repr::Typed(erased) if erased.as_any().is::<Typed<T>>() => {
                match erased.into_any().downcast::<Typed<T>>() {
                    Ok(typed) => Ok(typed.value),
                    // Checked just above.
                    Err(_) => Err(Self::empty()),
                }
            }
            repr => Err(Self { repr }),
        }
    }

    /// Turns typed arguments back into JSON (their source, or the value
    /// written); other arguments stay as they are.
    pub(super) fn untype(&mut self) -> Result<(), ToolError> {
        if !matches!(self.repr, Repr::Typed(_)) {
            return Ok(());
        }
        let Repr::Typed(erased) = std::mem::replace(&mut self.repr, Repr::Json(String::new()))
        else {
            return Ok(());
        };
        match erased.into_json() {
            Ok(json) => {
                *self = json;
                Ok(())
            }
            Err(error) => {
                // Never `{}`: whoever reads them next is told why.
                *self = unwritten(&error);
                Err(error)
            }
        }
    }
}

/// A clone of typed arguments is their JSON: the typed value itself is not
/// `Clone`, and clones (the trace's, a retry's) read JSON. A value that
/// cannot be written as JSON (a custom `Serialize` that fails) clones as a
/// JSON string with the reason, which a reader reports as invalid arguments.
pub(super) fn clone_typed(erased: &dyn Erased) -> ToolArgs {
    match erased.json() {
        Ok(json) => json.into_owned(),
        Err(error) => unwritten(&error),
    }
}

/// Arguments that stand for ones that could not be written as JSON: a JSON
/// string with the reason, which no tool takes as arguments.
fn unwritten(error: &ToolError) -> ToolArgs {
    ToolArgs::from_json(serde_json::Value::String(error.to_string()).to_string())
}
