//! What both encoder loops share: the rules' constants and the hash of a key to its table slot.

/// Lanes of a warp.
pub(super) const LANES: usize = 32;
/// No match starts within the last 12 bytes.
pub(super) const LAST_MATCH: usize = 12;
/// The last 5 bytes are literals.
pub(super) const END_LITERALS: usize = 5;
/// nvCOMP's "empty" slot value (and every slot's initial value).
pub(super) const EMPTY: u16 = 0xFFFF;
/// Gpucomp: lanes after the first candidate lane that the lazy choice considers (step 5).
pub(super) const LAZY_LANES: usize = 4;
/// Gpucomp: cap, in elements, of the match lengths compared by the lazy choice (step 5).
pub(super) const LAZY_CAP: usize = 16;

/// Each byte with its bits reversed.
const REVERSED: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).reverse_bits();
        i += 1;
    }
    t
};

/// The slot function of a table of a given size, for Gpucomp's rules (`G`) or Nvcomp's.
#[derive(Clone, Copy)]
pub(super) struct Hasher<const G: bool> {
    mask: usize,
    shift: u32,
}

impl<const G: bool> Hasher<G> {
    /// For a table of `table_size` slots, a power of two up to 65536.
    pub(super) fn new(table_size: usize) -> Self {
        Hasher { mask: table_size - 1, shift: 32 - table_size.trailing_zeros() }
    }

    /// The slot of key `k`, below the table size.
    #[inline(always)]
    pub(super) fn slot(self, k: u32) -> usize {
        if G {
            // `shift` is 16..=32; a u64 shift by 32 gives 0 without a branch.
            (u64::from(k.wrapping_mul(0x9E37_79B1)) >> self.shift) as usize
        } else {
            // The mask keeps at most 16 bits, and a sum's low 16 bits need only its operands'
            // low 16 bits: those of `reverse_bits(k)` are the top two bytes reversed, two table
            // loads instead of a full bit reversal (about 16 instructions on x86-64).
            let rev_low = (REVERSED[(k >> 24) as usize] as u32) | (REVERSED[(k >> 16) as usize & 0xFF] as u32) << 8;
            (rev_low.wrapping_add(k ^ 0xC375) as usize) & self.mask
        }
    }
}
