//! The compile-fail suite of hookwire's macros: `tests/ui.rs` runs every
//! case of this folder with trybuild, against each case's reviewed
//! `.stderr`. The crate has nothing of its own.
