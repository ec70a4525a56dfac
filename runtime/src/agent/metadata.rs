//! [`RunMetadata`]: a session's store of serde values by key, which
//! lifecycle hooks read and write and which an exported state keeps.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A session's metadata: JSON values by key, which every lifecycle hook
/// of its runs is given (`cx.run_metadata`) to read and write, typed through
/// serde. Unlike [`SessionValues`](crate::call::SessionValues) (any Rust
/// value, by type, set by the caller and never exported), it is plain
/// data: an exported [`RunState`](crate::agent::RunState) keeps it
/// (`metadata`), and so does a durable session. Each runner has its own;
/// an agent called as a tool does not see its parent's.
///
/// ```
/// # use hookwire::agent::RunMetadata;
/// let metadata = RunMetadata::default();
/// metadata.insert("retries", &2_u32).unwrap();
/// assert_eq!(metadata.get::<u32>("retries"), Some(2));
/// // A value of another type is not there for `T`.
/// assert_eq!(metadata.get::<String>("retries"), None);
/// ```
#[derive(Debug, Default)]
pub struct RunMetadata {
    map: Mutex<BTreeMap<String, Value>>,
}

impl RunMetadata {
    #[inline]
    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Value>> {
        crate::lock(&self.map)
    }

    /// The value under `key`, read as a `T`; `None` when there is none or
    /// it does not deserialize into `T`.
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        T::deserialize(self.lock().get(key)?).ok()
    }

    /// The JSON value under `key`.
    pub fn get_value(&self, key: &str) -> Option<Value> {
        self.lock().get(key).cloned()
    }

    /// Sets `key` to `value` (replacing what was there); an error when
    /// `value` does not serialize to JSON (nothing changes then).
    pub fn insert<T: Serialize + ?Sized>(
        &self,
        key: impl Into<String>,
        value: &T,
    ) -> Result<(), serde_json::Error> {
        let value = serde_json::to_value(value)?;
        self.lock().insert(key.into(), value);
        Ok(())
    }

    /// Removes `key`, returning its value.
    pub fn remove(&self, key: &str) -> Option<Value> {
        self.lock().remove(key)
    }

    /// Every value, by key: what an exported state keeps.
    pub fn to_map(&self) -> BTreeMap<String, Value> {
        self.lock().clone()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Replaces every value (an imported state's).
    pub(crate) fn replace(&self, map: BTreeMap<String, Value>) {
        *self.lock() = map;
    }
}
