//! Bit helpers of the CPU codecs, written plainly: the oracle shares no code with the kernels
//! it checks.

/// Transposes an 8×8 bit matrix held in a `u64`: bit `8r + c` (byte `r`, bit `c`) moves to bit
/// `8c + r` (byte `c`, bit `r`). Its own inverse. Bitshuffle and Bitcomp's bit planes are one
/// such transpose per group of 8 elements.
pub(crate) fn transpose8(x: u64) -> u64 {
    let mut t = 0;
    for r in 0..8 {
        for c in 0..8 {
            t |= (x >> (8 * r + c) & 1) << (8 * c + r);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::transpose8;

    #[test]
    fn transpose8_moves_each_bit_and_is_its_own_inverse() {
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..1000 {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let y = transpose8(s);
            for row in 0..8 {
                for col in 0..8 {
                    assert_eq!((s >> (8 * row + col)) & 1, (y >> (8 * col + row)) & 1);
                }
            }
            assert_eq!(transpose8(y), s);
        }
        assert_eq!(transpose8(0x0000_0000_0000_00FF), 0x0101_0101_0101_0101);
    }
}
