//! hookwire macros
