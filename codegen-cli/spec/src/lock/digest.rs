//! The one module of the spec that hashes (`sha2`): the digest a lock
//! keeps of a tool's description.

use sha2::{Digest, Sha256};

/// The prefix of every digest: the algorithm, so that a later one can be
/// told apart.
pub(super) const PREFIX: &str = "sha256:";

/// `sha256:` and the SHA-256 of `text` in lower-case hex.
pub(super) fn digest(text: &str) -> String {
    let bytes = Sha256::digest(text.as_bytes());
    let mut out = String::with_capacity(PREFIX.len() + 64);
    out.push_str(PREFIX);
    for b in bytes.iter() {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Whether `text` has the form of a digest.
pub(super) fn is_digest(text: &str) -> bool {
    text.strip_prefix(PREFIX)
        .is_some_and(|h| h.len() == 64 && h.bytes().all(|b| HEX.contains(&b)))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_digest_is_sha256_in_hex() {
        assert_eq!(
            super::digest("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(super::is_digest(&super::digest("")));
        assert!(!super::is_digest("sha256:xyz"));
    }
}
