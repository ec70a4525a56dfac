//! Integration tests for hookwire live under tests/.
