//! Tools of the `shapes` card: a `const fn`, and returns of numbers and
//! bools (their JSON text), alone and in a `Result`.

/// An answer of this file's own (`Answer` is `String`).
pub type Answer = String;

/// Counts the characters of `text`.
pub fn count(text: String) -> i64 {
    text.chars().count() as i64
}

/// Whether `n` is even.
pub const fn is_even(n: i64) -> bool {
    n % 2 == 0
}

/// Half of `x`.
pub fn half(x: f64) -> f64 {
    x / 2.0
}

/// `n` as a byte, if it fits.
pub fn small(n: i64) -> Result<u8, String> {
    u8::try_from(n).map_err(|e| e.to_string())
}

/// `a / b` (fails the call when `b` is zero: not a finite number).
pub async fn ratio(a: f64, b: f64) -> f32 {
    (a / b) as f32
}

/// Says whether `n` is positive, through an alias of `String`.
pub fn checked(n: i64) -> Answer {
    if n > 0 { "positive".into() } else { "not positive".into() }
}
