//! Bit-level helpers shared by kernels and the host's CPU codecs (one definition for both).

/// Transposes an 8×8 bit matrix held in a `u64`: bit `8r + c` moves to bit `8c + r` (byte `r`,
/// bit `c` becomes byte `c`, bit `r`). Its own inverse. Bitshuffle and Bitcomp's bit planes are
/// one such transpose per group of 8 elements.
#[inline(always)]
pub fn transpose8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^ t ^ (t << 28)
}

#[cfg(test)]
mod tests {
    use super::transpose8;

    #[test]
    fn transpose8_moves_each_bit_and_is_its_own_inverse() {
        let mut x = 0x0123_4567_89AB_CDEFu64;
        for _ in 0..64 {
            let t = transpose8(x);
            for (r, c) in (0..8).flat_map(|r| (0..8).map(move |c| (r, c))) {
                assert_eq!(x >> (8 * r + c) & 1, t >> (8 * c + r) & 1);
            }
            assert_eq!(transpose8(t), x);
            x = x.rotate_left(7) ^ 0x9E37_79B9_7F4A_7C15;
        }
    }
}
