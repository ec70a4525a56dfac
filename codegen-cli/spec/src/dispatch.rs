//! Perfect hashing of tool names, so that generated tool sets dispatch a
//! call by name in constant time however many tools they have.
//!
//! The emitter computes a [`PerfectHash`] over an agent's tool names at code
//! generation time (hash and displace with one "pilot" per bucket, as in
//! PTHash) and writes its key and pilots into the generated code; at run time
//! [`find`] hashes the name (a word at a time), picks its bucket and slot with
//! two multiply-shifts (no division), and compares the name with the one name
//! that can be in that slot. The runtime re-exports this module so generated
//! code and the generator share the same hash.
//!
//! ```
//! use hookwire_spec::dispatch::{PerfectHash, find, index};
//!
//! let names = ["read_file", "write_file", "list_dir"];
//! let ph = PerfectHash::build(&names);
//! let mut slots: Vec<usize> = names
//!     .iter()
//!     .map(|n| index(ph.key, &ph.pilots, names.len(), n.as_bytes()))
//!     .collect();
//! slots.sort();
//! assert_eq!(slots, [0, 1, 2]);
//!
//! // The names in slot order, as generated code holds them.
//! let table: Vec<&str> = ph.map.iter().map(|&i| names[i]).collect();
//! let slot = find(ph.key, &ph.pilots, &table, "write_file").unwrap();
//! assert_eq!(names[ph.map[slot]], "write_file");
//! assert_eq!(find(ph.key, &ph.pilots, &table, "rm_rf"), None);
//! ```

const SEED: u64 = 0x243f_6a88_85a3_08d3;
const WORD: u64 = 0x1319_8a2e_0370_7344;
const LAST: u64 = 0xa409_3822_299f_31d1;
const SLOT: u64 = 0x9e37_79b9_7f4a_7c15;

/// The full 128-bit product of `a` and `b`, folded to 64 bits: one
/// multiplication that mixes every input bit into the result.
#[inline(always)]
const fn fold(a: u64, b: u64) -> u64 {
    let p = (a as u128) * (b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The hash of `name` under `key`: the length, then the bytes eight at a
/// time, each word mixed in with one folded multiplication. The words a name
/// is read as (with its length) determine the name, so two distinct names
/// collide only under some keys, never all.
#[inline]
pub const fn hash(key: u64, name: &[u8]) -> u64 {
    let mut h = (key ^ SEED).wrapping_add(name.len() as u64);
    let mut rest = name;
    while rest.len() > 8 {
        if let Some((word, tail)) = rest.split_first_chunk::<8>() {
            h = fold(h ^ u64::from_le_bytes(*word), WORD);
            rest = tail;
        }
    }
    // The last 0 to 8 bytes: two (possibly overlapping) 4-byte reads, or the
    // first, middle and last byte of a shorter tail.
    let tail = if let (Some(first), Some(last)) = (rest.first_chunk::<4>(), rest.last_chunk::<4>())
    {
        (u32::from_le_bytes(*first) as u64) | ((u32::from_le_bytes(*last) as u64) << 32)
    } else if let (Some(&first), Some(&last)) = (rest.first(), rest.last()) {
        (first as u64) | ((rest[rest.len() / 2] as u64) << 8) | ((last as u64) << 16)
    } else {
        0
    };
    fold(h ^ tail, LAST)
}

/// `x * n / 2^32`: maps a uniform 32-bit `x` to `0..n` without a division.
#[inline(always)]
const fn reduce(x: u64, n: usize) -> usize {
    (((x >> 32) * n as u64) >> 32) as usize
}

/// The slot of a name hashed to `h` in a table of `len` slots, when its
/// bucket's pilot is `pilot`.
#[inline(always)]
const fn slot_of(h: u64, pilot: u64, len: usize) -> usize {
    reduce((h ^ pilot).wrapping_mul(SLOT), len)
}

/// The bucket of a name hashed to `h` among `buckets`.
#[inline(always)]
const fn bucket_of(h: u64, buckets: usize) -> usize {
    reduce(h, buckets)
}

/// The slot of `name` in a table of `len` names hashed with `key` and
/// `pilots`. Always `< len` (and `0` when `len` or `pilots` is empty);
/// the caller compares the slot's name with `name`, since a name that is not
/// in the table lands on some slot too ([`find`] does both).
#[inline]
pub fn index(key: u64, pilots: &[u64], len: usize, name: &[u8]) -> usize {
    if len == 0 || pilots.is_empty() {
        return 0;
    }
    let h = hash(key, name);
    let pilot = match pilots.get(bucket_of(h, pilots.len())) {
        Some(&p) => p,
        None => 0,
    };
    slot_of(h, pilot, len)
}

/// The slot of `name` in `names` (the names in slot order, as
/// [`PerfectHash::map`] orders them), or `None` for any other name: what a
/// generated tool set runs to dispatch a call.
#[inline]
pub fn find(key: u64, pilots: &[u64], names: &[&str], name: &str) -> Option<usize> {
    let slot = index(key, pilots, names.len(), name.as_bytes());
    match names.get(slot) {
        Some(candidate) if *candidate == name => Some(slot),
        _ => None,
    }
}

/// A perfect hash over a set of names: [`index`] with this key and these
/// pilots maps each name to its own slot, and `map` says which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerfectHash {
    /// The hash key.
    pub key: u64,
    /// One pilot per bucket, already mixed: the value [`index`] XORs into
    /// the hash of every name of the bucket.
    pub pilots: Vec<u64>,
    /// `map[slot]` is the position (in the input) of the name in `slot`.
    pub map: Vec<usize>,
}

/// The average number of names per bucket.
const BUCKET_SIZE: usize = 4;
/// How many pilots are tried for one bucket before the key is given up.
const MAX_PILOTS: u64 = 1 << 16;

impl PerfectHash {
    /// Builds a perfect hash over `names`, which must be distinct (a
    /// duplicate makes the search fail; see [`PerfectHash::try_build`]).
    /// Deterministic: the same names give the same key and pilots.
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

    /// Builds a perfect hash over `names`; `None` if two names are equal
    /// (or, for more than `u32::MAX` names, too many).
    pub fn try_build<S: AsRef<str>>(names: &[S]) -> Option<Self> {
        let mut seen = std::collections::HashSet::new();
        if !names.iter().all(|n| seen.insert(n.as_ref())) || u32::try_from(names.len()).is_err() {
            return None;
        }
        if names.is_empty() {
            return Some(Self {
                key: 0,
                pilots: Vec::new(),
                map: Vec::new(),
            });
        }
        // The chance that one key fails is small; a few keys always suffice
        // for distinct names.
        (0..1_000u64).find_map(|attempt| {
            let key = SLOT.wrapping_mul(attempt + 1);
            try_key(names, key)
        })
    }
}

/// The `p`-th pilot value tried for a bucket.
const fn pilot(p: u64) -> u64 {
    fold(p ^ SEED, WORD)
}

fn try_key<S: AsRef<str>>(names: &[S], key: u64) -> Option<PerfectHash> {
    let len = names.len();
    let buckets_len = len.div_ceil(BUCKET_SIZE);
    let hashes: Vec<u64> = names
        .iter()
        .map(|n| hash(key, n.as_ref().as_bytes()))
        .collect();
    let mut buckets: Vec<(usize, Vec<usize>)> = (0..buckets_len).map(|i| (i, Vec::new())).collect();
    for (i, &h) in hashes.iter().enumerate() {
        buckets[bucket_of(h, buckets_len)].1.push(i);
    }
    // Largest buckets first; ties in bucket order, for determinism.
    buckets.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(&b.0)));

    let mut map: Vec<Option<usize>> = vec![None; len];
    let mut pilots = vec![0u64; buckets_len];
    // `try_map[slot] == generation` marks a slot taken by the bucket being
    // placed, so that trying a pilot needs no clearing.
    let mut try_map = vec![0u64; len];
    let mut generation = 0u64;
    let mut values_to_add = Vec::with_capacity(BUCKET_SIZE * 4);

    'buckets: for (bucket, keys) in &buckets {
        'pilots: for p in 0..MAX_PILOTS {
            let value = pilot(p);
            values_to_add.clear();
            generation += 1;
            for &k in keys {
                let slot = slot_of(hashes[k], value, len);
                if map[slot].is_some() || try_map[slot] == generation {
                    continue 'pilots;
                }
                try_map[slot] = generation;
                values_to_add.push((slot, k));
            }
            pilots[*bucket] = value;
            for &(slot, k) in &values_to_add {
                map[slot] = Some(k);
            }
            continue 'buckets;
        }
        return None;
    }
    Some(PerfectHash {
        key,
        pilots,
        map: map.into_iter().collect::<Option<Vec<_>>>()?,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The names in slot order, as generated code holds them.
    fn table<'a>(ph: &PerfectHash, names: &[&'a str]) -> Vec<&'a str> {
        ph.map.iter().map(|&i| names[i]).collect()
    }

    fn check(names: &[String]) {
        let ph = PerfectHash::build(names);
        for (i, name) in names.iter().enumerate() {
            let slot = index(ph.key, &ph.pilots, names.len(), name.as_bytes());
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
        // Names that share their words: a prefix, the same bytes in another
        // length, tails of every length from 0 to 8 around a word boundary.
        let names: Vec<String> = (0..20).map(|i| "ab".repeat(i)).collect();
        check(&names);
        let names: Vec<String> = (0..20).map(|i| "x".repeat(i)).collect();
        check(&names);
    }

    #[test]
    fn deterministic_and_rejects_duplicates() {
        let names = ["a", "b", "c", "d", "e", "f"];
        assert_eq!(PerfectHash::build(&names), PerfectHash::build(&names));
        assert!(PerfectHash::try_build(&["a", "b", "a"]).is_none());
        assert_eq!(index(0, &[], 0, b"x"), 0);
        assert_eq!(find(0, &[], &[], "x"), None);
    }

    #[test]
    fn names_that_collide_in_the_hash_are_unknown() {
        let names = ["add_one", "mul", "echo"];
        let ph = PerfectHash::build(&names);
        let table = table(&ph, &names);
        let mut collided = [0usize; 3];
        for i in 0..3000 {
            let probe = format!("tool_{i}");
            let slot = index(ph.key, &ph.pilots, table.len(), probe.as_bytes());
            collided[slot] += 1;
            assert_eq!(find(ph.key, &ph.pilots, &table, &probe), None, "{probe}");
        }
        // Every slot was hit by names that are not there.
        assert!(collided.iter().all(|&c| c > 0), "{collided:?}");
        // A prefix, an extension and a one-byte change of a known name.
        for probe in ["add_on", "add_one_", "add_onf", "Add_one", "mu", "mull", ""] {
            assert_eq!(find(ph.key, &ph.pilots, &table, probe), None, "{probe}");
        }
    }

    proptest! {
        /// Any name (any characters, any length) is found exactly when it is
        /// one of the tool names, and then in its own slot.
        #[test]
        fn find_knows_exactly_the_names_it_was_built_for(
            names in prop::collection::hash_set(any::<String>(), 1..40),
            probes in prop::collection::vec(any::<String>(), 0..40),
        ) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let ph = PerfectHash::build(&names);
            let table = table(&ph, &names);
            for (i, name) in names.iter().enumerate() {
                let slot = find(ph.key, &ph.pilots, &table, name);
                prop_assert_eq!(slot.map(|s| ph.map[s]), Some(i));
            }
            for probe in &probes {
                let found = find(ph.key, &ph.pilots, &table, probe);
                prop_assert_eq!(found.is_some(), names.contains(&probe.as_str()));
                if let Some(slot) = found {
                    prop_assert_eq!(table[slot], probe.as_str());
                }
            }
        }

        /// Any bytes land on a slot inside the table.
        #[test]
        fn index_stays_in_the_table(
            len in 1usize..5000,
            pilots in prop::collection::vec(any::<u64>(), 1..64),
            key in any::<u64>(),
            name in prop::collection::vec(any::<u8>(), 0..100),
        ) {
            prop_assert!(index(key, &pilots, len, &name) < len);
        }
    }
}
