//! Perfect hashing of tool names, so that generated tool sets dispatch a
//! call by name in constant time however many tools they have.
//!
//! The emitter computes a [`PerfectHash`] over an agent's tool names at code
//! generation time (hash-and-displace, as in the CHD algorithm) and writes
//! its key and displacements into the generated code; at run time
//! [`index`] maps a name to the one slot it can be in, and the generated code
//! compares the name with the slot's name. The runtime re-exports this
//! module so generated code and the generator share the same hash.
//!
//! ```
//! use hookwire_codegen::spec::dispatch::{PerfectHash, index};
//!
//! let names = ["read_file", "write_file", "list_dir"];
//! let ph = PerfectHash::build(&names);
//! let mut slots: Vec<usize> = names
//!     .iter()
//!     .map(|n| index(ph.key, &ph.displacements, names.len(), n.as_bytes()))
//!     .collect();
//! slots.sort();
//! assert_eq!(slots, [0, 1, 2]);
//! ```

/// The hash of `name` under `key`: FNV-1a over the bytes, then a 64-bit
/// finalizer so that every bit depends on every input byte.
#[inline]
pub const fn hash(key: u64, name: &[u8]) -> u64 {
    let mut h = key ^ 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < name.len() {
        h ^= name[i] as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

#[inline]
const fn split(h: u64) -> (u32, u32, u32) {
    let g = (h >> 42) as u32;
    let f1 = ((h >> 21) & 0x1f_ffff) as u32;
    let f2 = (h & 0x1f_ffff) as u32;
    (g, f1, f2)
}

#[inline]
const fn displace(f1: u32, f2: u32, d1: u32, d2: u32) -> u32 {
    d2.wrapping_add(f1.wrapping_mul(d1)).wrapping_add(f2)
}

/// The slot of `name` in a table of `len` names hashed with `key` and
/// `displacements`. Always `< len` (and `0` when `len` or the
/// displacements are empty); the caller compares the slot's name with
/// `name`, since a name that is not in the table lands on some slot too.
#[inline]
pub fn index(key: u64, displacements: &[(u32, u32)], len: usize, name: &[u8]) -> usize {
    if len == 0 || displacements.is_empty() {
        return 0;
    }
    let (g, f1, f2) = split(hash(key, name));
    let (d1, d2) = displacements[g as usize % displacements.len()];
    displace(f1, f2, d1, d2) as usize % len
}

/// A perfect hash over a set of names: [`index`] with this key and these
/// displacements maps each name to its position in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerfectHash {
    /// The hash key.
    pub key: u64,
    /// One `(d1, d2)` pair per bucket.
    pub displacements: Vec<(u32, u32)>,
    /// `map[slot]` is the position (in the input) of the name in `slot`.
    pub map: Vec<usize>,
}

const BUCKET_SIZE: usize = 4;

impl PerfectHash {
    /// Builds a perfect hash over `names`, which must be distinct (a
    /// duplicate makes the search fail; see [`PerfectHash::try_build`]).
    /// Deterministic: the same names give the same key and displacements.
    ///
    /// # Panics
    ///
    /// If `names` contains a duplicate. Use [`PerfectHash::try_build`] for
    /// names that have not been checked.
    pub fn build<S: AsRef<str>>(names: &[S]) -> Self {
        match Self::try_build(names) {
            Some(ph) => ph,
            None => panic!("PerfectHash::build: duplicate names"),
        }
    }

    /// Builds a perfect hash over `names`; `None` if two names are equal.
    pub fn try_build<S: AsRef<str>>(names: &[S]) -> Option<Self> {
        let mut seen = std::collections::HashSet::new();
        if !names.iter().all(|n| seen.insert(n.as_ref())) {
            return None;
        }
        if names.is_empty() {
            return Some(Self {
                key: 0,
                displacements: Vec::new(),
                map: Vec::new(),
            });
        }
        // The chance that one key fails is small; a few keys always suffice
        // for distinct names.
        (0..1_000u64).find_map(|attempt| {
            let key = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(attempt + 1);
            try_key(names, key)
        })
    }
}

fn try_key<S: AsRef<str>>(names: &[S], key: u64) -> Option<PerfectHash> {
    let len = names.len();
    let buckets_len = len.div_ceil(BUCKET_SIZE);
    let hashes: Vec<(u32, u32, u32)> = names
        .iter()
        .map(|n| split(hash(key, n.as_ref().as_bytes())))
        .collect();
    let mut buckets: Vec<(usize, Vec<usize>)> = (0..buckets_len).map(|i| (i, Vec::new())).collect();
    for (i, (g, _, _)) in hashes.iter().enumerate() {
        buckets[*g as usize % buckets_len].1.push(i);
    }
    // Largest buckets first; ties in bucket order, for determinism.
    buckets.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));

    let mut map: Vec<Option<usize>> = vec![None; len];
    let mut displacements = vec![(0u32, 0u32); buckets_len];
    // `try_map[slot] == generation` marks a slot taken by the bucket being
    // placed, so that trying a displacement needs no clearing.
    let mut try_map = vec![0u64; len];
    let mut generation = 0u64;
    let mut values_to_add = Vec::with_capacity(BUCKET_SIZE * 4);
    let table = u32::try_from(len).ok()?;

    'buckets: for (bucket, keys) in &buckets {
        for d1 in 0..table {
            'disps: for d2 in 0..table {
                values_to_add.clear();
                generation += 1;
                for &k in keys {
                    let (_, f1, f2) = hashes[k];
                    let slot = displace(f1, f2, d1, d2) as usize % len;
                    if map[slot].is_some() || try_map[slot] == generation {
                        continue 'disps;
                    }
                    try_map[slot] = generation;
                    values_to_add.push((slot, k));
                }
                displacements[*bucket] = (d1, d2);
                for &(slot, k) in &values_to_add {
                    map[slot] = Some(k);
                }
                continue 'buckets;
            }
        }
        return None;
    }
    Some(PerfectHash {
        key,
        displacements,
        map: map.into_iter().collect::<Option<Vec<_>>>()?,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn check(names: &[String]) {
        let ph = PerfectHash::build(names);
        for (i, name) in names.iter().enumerate() {
            let slot = index(ph.key, &ph.displacements, names.len(), name.as_bytes());
            assert_eq!(ph.map[slot], i, "{name}");
        }
    }

    #[test]
    fn every_name_gets_its_own_slot_at_every_size() {
        for n in [1, 2, 3, 5, 10, 100, 1000, 3000] {
            let names: Vec<String> = (0..n).map(|i| format!("tool_{i}")).collect();
            check(&names);
        }
        check(&["".to_owned(), "a".to_owned()]);
    }

    #[test]
    fn deterministic_and_rejects_duplicates() {
        let names = ["a", "b", "c", "d", "e", "f"];
        assert_eq!(PerfectHash::build(&names), PerfectHash::build(&names));
        assert!(PerfectHash::try_build(&["a", "b", "a"]).is_none());
        assert_eq!(index(0, &[], 0, b"x"), 0);
    }
}
