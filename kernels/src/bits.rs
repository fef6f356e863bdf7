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

/// PTX `prmt.b32` (default mode): byte `k` of the result is byte `sel >> 4k & 7` of the 8 bytes
/// `b:a` (bytes 0..3 from `a`); one instruction on the GPU.
#[inline(always)]
pub fn prmt(a: u32, b: u32, sel: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        unsafe extern "C" {
            #[link_name = "llvm.nvvm.prmt"]
            fn nvvm_prmt(a: u32, b: u32, sel: u32) -> u32;
        }
        // SAFETY: a pure register operation.
        unsafe { nvvm_prmt(a, b, sel) }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let ba = (b as u64) << 32 | a as u64;
        (0..4).fold(0, |r, k| r | ((ba >> (8 * (sel >> (4 * k) & 7))) as u8 as u32) << (8 * k))
    }
}

/// Transposes the four 8×8 bit blocks of 8 words (block `b`: bits `8b..8b + 8` of the words):
/// bit `8b + c` of word `r` moves to bit `8b + r` of word `c`. For 8 elements of 32 bits, byte
/// `b` of word `c` is then the plane of bit `8b + c` (bit `r` from element `r`), without the
/// byte gather that [`transpose8`] needs first.
#[inline(always)]
pub fn transpose_blocks8(w: &mut [u32; 8]) {
    let swap = |w: &mut [u32; 8], a: usize, b: usize, shift: u32, mask: u32| {
        let t = ((w[a] >> shift) ^ w[b]) & mask;
        w[b] ^= t;
        w[a] ^= t << shift;
    };
    // Word r's high nibbles ↔ word r + 4's low nibbles; then bit pairs, then single bits.
    for a in 0..4 {
        swap(w, a, a + 4, 4, 0x0F0F_0F0F);
    }
    for a in [0, 1, 4, 5] {
        swap(w, a, a + 2, 2, 0x3333_3333);
    }
    for a in [0, 2, 4, 6] {
        swap(w, a, a + 1, 1, 0x5555_5555);
    }
}

/// Exchanges the bits `mask << shift` of `a` with the bits `mask` of `b` (one step of a block
/// transpose).
#[inline(always)]
fn swap(a: &mut u64, b: &mut u64, shift: u32, mask: u64) {
    let t = ((*a >> shift) ^ *b) & mask;
    *b ^= t;
    *a ^= t << shift;
}

/// Transposes the 8×8 byte matrix whose row `r` is `y[r]` (byte `c` of row `r` ↔ byte `r` of
/// row `c`), in three block-swap stages.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn transpose_bytes(
    y0: &mut u64,
    y1: &mut u64,
    y2: &mut u64,
    y3: &mut u64,
    y4: &mut u64,
    y5: &mut u64,
    y6: &mut u64,
    y7: &mut u64,
) {
    const M32: u64 = 0x0000_0000_FFFF_FFFF;
    const M16: u64 = 0x0000_FFFF_0000_FFFF;
    const M8: u64 = 0x00FF_00FF_00FF_00FF;
    // Row r, high half ↔ row r + 4, low half; and so on down to single bytes.
    swap(y0, y4, 32, M32);
    swap(y1, y5, 32, M32);
    swap(y2, y6, 32, M32);
    swap(y3, y7, 32, M32);
    swap(y0, y2, 16, M16);
    swap(y1, y3, 16, M16);
    swap(y4, y6, 16, M16);
    swap(y5, y7, 16, M16);
    swap(y0, y1, 8, M8);
    swap(y2, y3, 8, M8);
    swap(y4, y5, 8, M8);
    swap(y6, y7, 8, M8);
}

#[cfg(test)]
mod tests {
    use super::{transpose8, transpose_blocks8};

    #[test]
    fn transpose_blocks8_moves_each_bit() {
        let e: [u32; 8] = core::array::from_fn(|j| 0x9E37_79B9u32.rotate_left(5 * j as u32) ^ (0x0123_4567 * j as u32));
        let mut w = e;
        transpose_blocks8(&mut w);
        for (b, r, c) in (0..4).flat_map(|b| (0..8).flat_map(move |r| (0..8).map(move |c| (b, r, c)))) {
            assert_eq!(e[r] >> (8 * b + c) & 1, w[c] >> (8 * b + r) & 1);
        }
    }

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
