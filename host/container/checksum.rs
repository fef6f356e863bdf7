//! nvCOMP 6's HLIF checksums (`shared/nvcomp/FORMATS.md` A.5): a lane-folded CRC-32.
//!
//! Building blocks: zlib's CRC-32 (CRC-32/ISO-HDLC: reflected polynomial `0xEDB88320`, init and
//! xorout `0xFFFFFFFF`) and zlib's `crc32_combine` in its *linear* form
//! `combine(c1, c2, n) = (c1 · x^(8n) mod P) ^ c2` (so `combine(c1, c2, 0) == c1 ^ c2`).
//!
//! **Lane fold** of a byte string: cut it into 32-byte words; lane `j` (0..32) holds the words
//! `j, j+32, j+64, …` (warp-strided); each lane is the CRC-32 of its words concatenated (an empty
//! lane is 0); then `r = lane[0]` and `r = combine(r, lane[j], L)` for `j = 1..32`, with **one**
//! fixed `L` for every lane (not the lane's real length — this is why the result is not CRC-32).
//!
//! - [`chunk_checksum`] (the per-chunk tables): the bytes before the first 32-byte-aligned address
//!   (the *head*) seed lane 0, `L = (words / 32) · 32`, and the trailing partial word (the *tail*)
//!   continues the CRC.
//! - [`header_checksum`] (the `u32` at 0x30): the lane fold over `[0, comp_data_offset)` with the
//!   word at 0x30 read as zero, no head, `L = words` (a word count used as a byte count), and the
//!   tail's CRC-32 XORed in.
//!
//! What is established (checked against every checksummed golden stream, see `tests/container.rs`):
//! per-chunk compressed checksums for every chunk, per-chunk uncompressed checksums for every
//! chunk except one whose stored value is 0 (nvCOMP stores 0 on some path; a stored 0 means "not
//! computed" and is never treated as a mismatch), and the header word for every stream — all of
//! which have `comp_data_offset < 1024`. For `comp_data_offset >= 1024`
//! ([`HEADER_CHECKSUM_ESTABLISHED_BELOW`]) the header rule is an extrapolation that no nvCOMP
//! stream has confirmed: readers do not verify it there, writers still emit the extrapolated value.
use crc32fast::Hasher;

/// The header word at 0x30 is verified only for `comp_data_offset` below this (FORMATS A.5: no
/// nvCOMP stream with a larger data offset and checksums has been observed).
pub const HEADER_CHECKSUM_ESTABLISHED_BELOW: usize = 1024;

/// Byte offset of the header checksum word in an NVCOMP_NATIVE stream.
pub const HEADER_CHECKSUM_OFFSET: usize = 0x30;

const POLY: u32 = 0xEDB8_8320;
const WORD: usize = 32;
const LANES: usize = 32;

/// `a(x) · b(x) mod P` in zlib's reflected representation (zlib `multmodp`).
const fn mulmod(a: u32, mut b: u32) -> u32 {
    if a == 0 {
        return 0;
    }
    let mut m: u32 = 1 << 31;
    let mut p: u32 = 0;
    loop {
        if a & m != 0 {
            p ^= b;
            if a & (m - 1) == 0 {
                return p;
            }
        }
        m >>= 1;
        b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
    }
}

/// `x^(2^k) mod P` for k = 0..32 (zlib `x2n_table`).
const X2N: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut p: u32 = 1 << 30; // x^1
    let mut k = 0;
    while k < 32 {
        t[k] = p;
        p = mulmod(p, p);
        k += 1;
    }
    t
};

/// `x^(8·nbytes) mod P` (zlib `x2nmodp(nbytes, 3)`).
fn x8n(mut nbytes: u64) -> u32 {
    let mut p: u32 = 1 << 31; // x^0
    let mut k = 3usize;
    while nbytes != 0 {
        if nbytes & 1 != 0 {
            p = mulmod(X2N[k & 31], p);
        }
        nbytes >>= 1;
        k += 1;
    }
    p
}

/// zlib's `crc32_combine` in its linear form: `(c1 · x^(8·len2) mod P) ^ c2`.
///
/// For real lengths, `crc32_combine(crc32(a), crc32(b), b.len()) == crc32(a ++ b)`;
/// `crc32_combine(c1, c2, 0) == c1 ^ c2`.
pub fn crc32_combine(c1: u32, c2: u32, len2: u64) -> u32 {
    mulmod(x8n(len2), c1) ^ c2
}

/// Plain CRC-32 (zlib `crc32(0, data)`).
pub fn crc32(data: &[u8]) -> u32 {
    crc32fast::hash(data)
}

/// CRC-32 continued from a previous CRC value (zlib `crc32(crc, data)`).
pub fn crc32_continue(crc: u32, data: &[u8]) -> u32 {
    let mut h = Hasher::new_with_initial(crc);
    h.update(data);
    h.finalize()
}

/// The lane fold of the first `words` 32-byte words of `body`, lane 0 seeded with `seed`.
fn lane_fold(body: &[u8], seed: u32, combine_len: u64) -> u32 {
    let mut lanes: [Hasher; LANES] = std::array::from_fn(|j| Hasher::new_with_initial(if j == 0 { seed } else { 0 }));
    for (k, word) in body.chunks_exact(WORD).enumerate() {
        lanes[k % LANES].update(word);
    }
    let mut lanes = lanes.into_iter().map(Hasher::finalize);
    let first = lanes.next().unwrap_or(seed);
    lanes.fold(first, |r, c| crc32_combine(r, c, combine_len))
}

/// nvCOMP's per-chunk checksum of `data` that lay at byte address `addr` (only `addr mod 32`
/// matters).
///
/// For the compressed-chunk table `addr` is the chunk's position in the stream
/// (`comp_data_offset + chunk_offset[i]`; nvCOMP's stream buffers are 32-byte aligned); for the
/// uncompressed-chunk table it is `i · uncomp_chunk_size` (the chunk's position in the input).
/// Equals plain CRC-32 for fewer than two aligned 32-byte words and for exactly 32 words.
pub fn chunk_checksum(data: &[u8], addr: u64) -> u32 {
    let head_len = usize::try_from((WORD as u64 - addr % WORD as u64) % WORD as u64).unwrap_or(0).min(data.len());
    let (head, body) = data.split_at(head_len);
    let words = body.len() / WORD;
    let combine_len = (words / LANES * LANES) as u64;
    let r = lane_fold(&body[..words * WORD], crc32(head), combine_len);
    crc32_continue(r, &body[words * WORD..])
}

/// nvCOMP's header checksum (the `u32` at 0x30) of `prefix` = the stream's bytes
/// `[0, comp_data_offset)`; the 4 bytes at 0x30 are read as zero whatever `prefix` holds there.
///
/// Established for `prefix.len() < 1024` ([`HEADER_CHECKSUM_ESTABLISHED_BELOW`]); for longer
/// prefixes this is the same rule extrapolated, unconfirmed by nvCOMP.
pub fn header_checksum(prefix: &[u8]) -> u32 {
    let mut pre = prefix.to_vec();
    let end = pre.len().min(HEADER_CHECKSUM_OFFSET + 4);
    if let Some(w) = pre.get_mut(HEADER_CHECKSUM_OFFSET..end) {
        w.fill(0);
    }
    let words = pre.len() / WORD;
    lane_fold(&pre[..words * WORD], 0, words as u64) ^ crc32(&pre[words * WORD..])
}

/// nvCOMP's `ChecksumPolicy` (HLIF), with its wire values: whether checksums are computed when
/// compressing and verified when decompressing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u32)]
pub enum ChecksumPolicy {
    /// Neither compute nor verify (nvCOMP's default).
    #[default]
    NoComputeNoVerify = 0,
    /// Compute when compressing; do not verify.
    ComputeAndNoVerify = 1,
    /// Do not compute; verify stored checksums when present.
    NoComputeAndVerifyIfPresent = 2,
    /// Compute; verify stored checksums when present.
    ComputeAndVerifyIfPresent = 3,
    /// Compute; verify, and fail with `CannotVerifyChecksums` when a stream has none.
    ComputeAndVerify = 4,
}

impl ChecksumPolicy {
    /// The policy with this wire value, if any.
    pub fn from_raw(v: u32) -> Option<ChecksumPolicy> {
        use ChecksumPolicy::*;
        [
            NoComputeNoVerify,
            ComputeAndNoVerify,
            NoComputeAndVerifyIfPresent,
            ComputeAndVerifyIfPresent,
            ComputeAndVerify,
        ]
        .into_iter()
        .find(|p| *p as u32 == v)
    }

    /// Whether compression writes checksums.
    pub fn computes(self) -> bool {
        matches!(self, Self::ComputeAndNoVerify | Self::ComputeAndVerifyIfPresent | Self::ComputeAndVerify)
    }

    /// Whether decompression verifies stored checksums.
    pub fn verifies(self) -> bool {
        matches!(self, Self::NoComputeAndVerifyIfPresent | Self::ComputeAndVerifyIfPresent | Self::ComputeAndVerify)
    }

    /// Whether a stream without checksums is an error (`CannotVerifyChecksums`).
    pub fn requires(self) -> bool {
        self == Self::ComputeAndVerify
    }
}

/// The two per-chunk checksum tables of an NVCOMP_NATIVE stream.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChecksumTables {
    /// First table: checksum of each compressed chunk ([`chunk_checksum`] at its stream position).
    pub compressed: Vec<u32>,
    /// Second table: checksum of each uncompressed chunk ([`chunk_checksum`] at `i · chunk size`).
    pub uncompressed: Vec<u32>,
}

impl ChecksumTables {
    /// The uncompressed-chunk checksums of `input` cut into chunks of `uncomp_chunk_size` bytes
    /// (an empty table for a zero chunk size).
    pub fn uncompressed_of(input: &[u8], uncomp_chunk_size: usize) -> Vec<u32> {
        if uncomp_chunk_size == 0 {
            return Vec::new();
        }
        input
            .chunks(uncomp_chunk_size)
            .enumerate()
            .map(|(i, c)| chunk_checksum(c, (i as u64).wrapping_mul(uncomp_chunk_size as u64)))
            .collect()
    }
}

/// Outcome of checking one stored checksum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckOutcome {
    /// Stored and computed values agree.
    Match(u32),
    /// They differ: nvCOMP would report `BadChecksum`.
    Mismatch {
        /// The value in the stream.
        stored: u32,
        /// The value computed from the data.
        computed: u32,
    },
    /// The stored value is 0, nvCOMP's "not computed": skipped.
    NotStored,
    /// Not checked: the rule is not established for this case (header word with
    /// `comp_data_offset >= 1024`); carries the stored value.
    Unverified(u32),
}

impl CheckOutcome {
    /// Compare `stored` with `computed`, with 0 meaning "not computed".
    pub fn compare(stored: u32, computed: u32) -> CheckOutcome {
        if stored == 0 {
            CheckOutcome::NotStored
        } else if stored == computed {
            CheckOutcome::Match(stored)
        } else {
            CheckOutcome::Mismatch { stored, computed }
        }
    }

    /// Whether this is a mismatch.
    pub fn is_mismatch(self) -> bool {
        matches!(self, CheckOutcome::Mismatch { .. })
    }
}

impl std::fmt::Display for CheckOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckOutcome::Match(v) => write!(f, "{v:08x} ok"),
            CheckOutcome::Mismatch { stored, computed } => write!(f, "{stored:08x} BAD (computed {computed:08x})"),
            CheckOutcome::NotStored => write!(f, "0 (not computed)"),
            CheckOutcome::Unverified(v) => write!(f, "{v:08x} (not verifiable)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, seed: u32) -> Vec<u8> {
        let mut x = seed.wrapping_mul(2654435761).wrapping_add(1);
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect()
    }

    #[test]
    fn combine_matches_crc32_of_concatenation() {
        for (la, lb) in [(0, 0), (0, 5), (5, 0), (1, 1), (31, 33), (100, 1000), (4096, 77), (65536, 65537)] {
            let a = data(la, 1);
            let b = data(lb, 2);
            let ab = [a.as_slice(), b.as_slice()].concat();
            assert_eq!(crc32_combine(crc32(&a), crc32(&b), lb as u64), crc32(&ab), "{la}+{lb}");
        }
        assert_eq!(crc32_combine(0x1234_5678, 0x9abc_def0, 0), 0x1234_5678 ^ 0x9abc_def0);
    }

    #[test]
    fn continue_matches_concatenation() {
        let a = data(77, 3);
        let b = data(1000, 4);
        assert_eq!(crc32_continue(crc32(&a), &b), crc32(&[a, b].concat()));
        assert_eq!(crc32_continue(0x5555, &[]), 0x5555);
    }

    #[test]
    fn chunk_checksum_is_crc32_where_documented() {
        for n in [0, 1, 31, 32, 63, 1024, 1055] {
            let d = data(n, 5);
            assert_eq!(chunk_checksum(&d, 0), crc32(&d), "len {n}");
        }
        // 64 bytes aligned: lanes XORed.
        let d = data(64, 6);
        assert_eq!(chunk_checksum(&d, 0), crc32(&d[..32]) ^ crc32(&d[32..]));
        assert_ne!(chunk_checksum(&d, 0), crc32(&d));
    }
}
