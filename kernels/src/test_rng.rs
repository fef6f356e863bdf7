//! Deterministic numbers for the unit tests.

/// The xorshift64 sequence (shifts 13, 7, 17) from `seed`, made odd so that it is never 0.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}
