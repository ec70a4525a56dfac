//! Tools.

pub mod m {
    /// Inner.
    pub fn inner() -> String {
        String::new()
    }
}
