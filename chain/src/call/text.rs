//! [`CallStr`]: the id and the tool name a call carries, taken as the
//! model's provider made them (moved, never copied), shared once the loop
//! keeps them in several places, or a tool set's own `&'static str`.

use std::borrow::{Borrow, Cow};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// A string a tool call carries: its id, or its tool's name.
///
/// A provider parses a model's answer into `String`s; a call takes them as
/// they are (a move, no copy). Where the agent loop keeps a call in several
/// places (the history, the trace, the tool's context) it makes the string
/// shared first ([`share`](Self::share), one copy), so that each of them
/// holds a reference count; and a tool's name that a tool set declares is
/// its `&'static str` ([`from_static`](Self::from_static)), which costs
/// nothing to hold.
///
/// It reads as a `&str` (`Deref`), compares, hashes and orders as one, and
/// serializes as a plain string.
///
/// ```
/// use hookwire::call::CallStr;
///
/// let mut id = CallStr::from(String::from("call_1")); // moved in
/// id.share(); // copied once; clones are reference counts from now on
/// let kept = id.clone();
/// assert_eq!(kept, "call_1");
/// assert_eq!(CallStr::from_static("pay").as_static(), Some("pay"));
/// ```
#[derive(Clone)]
pub struct CallStr(Repr);

#[derive(Clone)]
enum Repr {
    /// A name a tool set holds for the program's life.
    Static(&'static str),
    /// A string shared by everything that keeps the call.
    Shared(Arc<str>),
    /// The provider's own string, moved in. A clone copies it: share it
    /// first where it is kept twice.
    Owned(String),
}

impl CallStr {
    /// A tool set's own name (generated tool sets declare theirs this way).
    #[inline(always)]
    pub const fn from_static(text: &'static str) -> Self {
        Self(Repr::Static(text))
    }

    /// The string.
    #[inline]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Static(text) => text,
            Repr::Shared(text) => text,
            Repr::Owned(text) => text,
        }
    }

    /// The string if it is a `&'static str`: a copy that borrows nothing.
    #[inline]
    pub fn as_static(&self) -> Option<&'static str> {
        match self.0 {
            Repr::Static(text) => Some(text),
            _ => None,
        }
    }

    /// Makes clones cheap: an owned string is copied once into a shared
    /// one; a shared or static one is left as it is.
    #[inline]
    pub fn share(&mut self) {
        if let Repr::Owned(text) = &mut self.0 {
            self.0 = Repr::Shared(Arc::from(std::mem::take(text)));
        }
    }

    /// [`share`](Self::share)s the string and returns a clone of it.
    #[inline]
    pub fn shared(&mut self) -> Self {
        self.share();
        self.clone()
    }

    /// The string as an owned `String` (no copy if it is one).
    #[inline]
    pub fn into_string(self) -> String {
        match self.0 {
            Repr::Owned(text) => text,
            Repr::Static(text) => text.to_owned(),
            Repr::Shared(text) => text.as_ref().to_owned(),
        }
    }
}

impl Default for CallStr {
    #[inline]
    fn default() -> Self {
        Self::from_static("")
    }
}

impl Deref for CallStr {
    type Target = str;

    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for CallStr {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for CallStr {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for CallStr {
    #[inline]
    fn from(text: String) -> Self {
        Self(Repr::Owned(text))
    }
}

impl From<&str> for CallStr {
    #[inline]
    fn from(text: &str) -> Self {
        Self(Repr::Owned(text.to_owned()))
    }
}

impl From<&String> for CallStr {
    #[inline]
    fn from(text: &String) -> Self {
        Self(Repr::Owned(text.clone()))
    }
}

impl From<Arc<str>> for CallStr {
    #[inline]
    fn from(text: Arc<str>) -> Self {
        Self(Repr::Shared(text))
    }
}

impl From<&Arc<str>> for CallStr {
    #[inline]
    fn from(text: &Arc<str>) -> Self {
        Self(Repr::Shared(Arc::clone(text)))
    }
}

impl From<Cow<'static, str>> for CallStr {
    #[inline]
    fn from(text: Cow<'static, str>) -> Self {
        match text {
            Cow::Borrowed(text) => Self::from_static(text),
            Cow::Owned(text) => Self::from(text),
        }
    }
}

impl From<&CallStr> for CallStr {
    #[inline]
    fn from(text: &CallStr) -> Self {
        text.clone()
    }
}

impl From<CallStr> for String {
    #[inline]
    fn from(text: CallStr) -> Self {
        text.into_string()
    }
}

impl From<CallStr> for Arc<str> {
    #[inline]
    fn from(text: CallStr) -> Self {
        match text.0 {
            Repr::Shared(text) => text,
            Repr::Static(text) => Arc::from(text),
            Repr::Owned(text) => Arc::from(text),
        }
    }
}

impl fmt::Debug for CallStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for CallStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for CallStr {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for CallStr {}

impl PartialEq<str> for CallStr {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for CallStr {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for CallStr {
    #[inline]
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<CallStr> for str {
    #[inline]
    fn eq(&self, other: &CallStr) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<CallStr> for &str {
    #[inline]
    fn eq(&self, other: &CallStr) -> bool {
        *self == other.as_str()
    }
}

impl PartialOrd for CallStr {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for CallStr {
    #[inline]
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Hash for CallStr {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Serialize for CallStr {
    #[inline]
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CallStr {
    #[inline]
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_string_is_moved_in_and_shared_once() {
        let text = String::from("call_1");
        let at = text.as_ptr();
        let mut id = CallStr::from(text);
        // Moved, not copied.
        assert_eq!(id.as_str().as_ptr(), at);
        let shared = id.shared();
        // Shared: the clone and the original hold the one copy.
        assert_eq!(shared.as_str().as_ptr(), id.as_str().as_ptr());
        assert_ne!(shared.as_str().as_ptr(), at);
        assert_eq!(shared, "call_1");
        assert_eq!(serde_json::to_string(&shared).unwrap(), "\"call_1\"");
        let back: CallStr = serde_json::from_str("\"call_1\"").unwrap();
        assert_eq!(back, shared);
        assert_eq!(CallStr::from_static("pay").as_static(), Some("pay"));
        assert_eq!(back.as_static(), None);
    }

    #[test]
    fn it_stays_as_small_as_a_string() {
        assert!(std::mem::size_of::<CallStr>() <= 24);
    }
}
