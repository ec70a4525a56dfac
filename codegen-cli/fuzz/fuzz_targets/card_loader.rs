//! The card loader must not panic on any input.
//!
//! `cd codegen-cli/fuzz && cargo +nightly fuzz run card_loader corpus/card_loader`
//! (the seed corpus also runs as a normal test: `codegen-cli/tests/suite/fuzz_corpus.rs`).

#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    hookwire_codegen::cards::fuzz_one(data);
});
