//! Sealed states: the key a runner signs the states it exports with
//! (HMAC-SHA256, [`StateKey`]), and it together with the record of the
//! decisions that already ran a call ([`StateSeal`]).
//! The one module of the runtime that uses `hmac` and `sha2`.

use std::fmt;
use std::sync::Arc;

use hmac::{KeyInit, Mac};
use sha2::Sha256;

use crate::approval::{MemorySpent, SpentDecisions};

type HmacSha256 = hmac::Hmac<Sha256>;

/// What the MAC covers before the state's JSON: the format, so that a
/// state's seal is never one of anything else signed with the same key.
const DOMAIN: &[u8] = b"hookwire-run-state-v2\n";

/// The shortest key [`StateKey::new`] takes, in bytes.
pub const MIN_STATE_KEY_BYTES: usize = 32;

/// The secret key exported states are sealed with (HMAC-SHA256). Its bytes
/// never reach `Debug`. Keep it as you keep any other secret: whoever has
/// it can write a state your runners take as their own.
#[derive(Clone)]
pub struct StateKey(Arc<[u8]>);

impl fmt::Debug for StateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StateKey(<redacted>)")
    }
}

/// A key too short to seal states with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a state key of {0} bytes is too short: give at least {MIN_STATE_KEY_BYTES} random bytes")]
pub struct StateKeyError(pub usize);

impl StateKey {
    /// A key of at least [`MIN_STATE_KEY_BYTES`] bytes (random bytes from
    /// your secret store, not a password).
    pub fn new(bytes: impl AsRef<[u8]>) -> Result<Self, StateKeyError> {
        let bytes = bytes.as_ref();
        if bytes.len() < MIN_STATE_KEY_BYTES {
            return Err(StateKeyError(bytes.len()));
        }
        Ok(Self(Arc::from(bytes)))
    }

    fn mac(&self, json: &[u8]) -> HmacSha256 {
        // HMAC takes a key of any length: `new_from_slice` does not fail.
        let mut mac = match HmacSha256::new_from_slice(&self.0) {
            Ok(mac) => mac,
            Err(_) => HmacSha256::new(&Default::default()),
        };
        mac.update(DOMAIN);
        mac.update(json);
        mac
    }

    /// The seal of a state's JSON (without its seal): hex.
    pub(crate) fn seal(&self, json: &[u8]) -> String {
        let tag = self.mac(json).finalize().into_bytes();
        let mut out = String::with_capacity(tag.len() * 2);
        for byte in tag {
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        out
    }

    /// Whether `seal` (hex) is the seal of `json`, compared in constant
    /// time.
    pub(crate) fn verify(&self, json: &[u8], seal: &str) -> bool {
        let Some(tag) = unhex(seal) else {
            return false;
        };
        self.mac(json).verify_slice(&tag).is_ok()
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn unhex(text: &str) -> Option<Vec<u8>> {
    let digit = |b: u8| char::from(b).to_digit(16).map(|d| d as u8);
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    bytes
        .chunks(2)
        .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
        .collect()
}

/// How a runner seals the states it exports and checks the ones it
/// imports ([`Runner::with_state_seal`](super::Runner::with_state_seal)):
/// a [`StateKey`] and the [`SpentDecisions`] record, or, for states that
/// never leave the process (tests, one process), no seal at all
/// ([`unsigned`](Self::unsigned)), said out loud.
///
/// A runner with none refuses every import
/// ([`StateError::NoSeal`](super::StateError::NoSeal)). Cloning shares the
/// record.
///
/// ```
/// use hookwire::agent::{StateKey, StateSeal};
/// let key = StateKey::new([7u8; 32])?; // from your secret store
/// let seal = StateSeal::new(key);
/// # let _ = seal;
/// # Ok::<(), hookwire::agent::StateKeyError>(())
/// ```
#[derive(Clone)]
pub struct StateSeal {
    key: Option<StateKey>,
    spent: Arc<dyn SpentDecisions>,
}

impl fmt::Debug for StateSeal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateSeal")
            .field("signed", &self.key.is_some())
            .finish_non_exhaustive()
    }
}

impl StateSeal {
    /// States sealed with `key`, decisions recorded in memory
    /// ([`MemorySpent`]; give a shared record with
    /// [`with_spent`](Self::with_spent)).
    pub fn new(key: StateKey) -> Self {
        Self {
            key: Some(key),
            spent: Arc::new(MemorySpent::new()),
        }
    }

    /// States neither sealed nor checked: only for states that never leave
    /// the process (tests, a state kept in memory). Anyone who can hand
    /// such a runner a state can make it run any call the state names.
    /// Decisions are still recorded, and used once.
    pub fn unsigned() -> Self {
        Self {
            key: None,
            spent: Arc::new(MemorySpent::new()),
        }
    }

    /// Records spent decisions in `spent` (shared with every runner that
    /// may import the same states).
    pub fn with_spent(mut self, spent: Arc<dyn SpentDecisions>) -> Self {
        self.spent = spent;
        self
    }

    /// The key, if states are sealed.
    pub(crate) fn key(&self) -> Option<&StateKey> {
        self.key.as_ref()
    }

    /// The record of spent decisions.
    pub(crate) fn spent(&self) -> &Arc<dyn SpentDecisions> {
        &self.spent
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_verifies_only_its_own_text_and_key() {
        let key = StateKey::new([1u8; 32]).unwrap();
        let seal = key.seal(b"{\"a\":1}");
        assert_eq!(seal.len(), 64);
        assert!(key.verify(b"{\"a\":1}", &seal));
        assert!(!key.verify(b"{\"a\":2}", &seal));
        assert!(!key.verify(b"{\"a\":1}", &seal[..62]));
        assert!(!key.verify(b"{\"a\":1}", &"z".repeat(64)));
        let other = StateKey::new([2u8; 32]).unwrap();
        assert!(!other.verify(b"{\"a\":1}", &seal));
        assert!(StateKey::new([0u8; 31]).is_err());
        assert_eq!(format!("{key:?}"), "StateKey(<redacted>)");
    }
}
