//! The unit tests' random inputs: seeded from `GPUCOMP_TEST_SEED` or the clock, the seed printed
//! so that a failure can be replayed (the integration tests' `Rng`, for tests inside the crate).
#![forbid(unsafe_code)]

/// A xorshift64* generator.
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator seeded from `GPUCOMP_TEST_SEED` or the clock, named by the caller's location.
    #[track_caller]
    pub(crate) fn here() -> Rng {
        let at = std::panic::Location::caller();
        let seed = std::env::var("GPUCOMP_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
        });
        println!("{}:{}: seed {seed} (replay with GPUCOMP_TEST_SEED={seed})", at.file(), at.line());
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// An index in `0..n` (0 when `n` is 0).
    pub(crate) fn index(&mut self, n: usize) -> usize {
        (self.next() % (n as u64).max(1)) as usize
    }

    /// `n` random bytes.
    pub(crate) fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}
