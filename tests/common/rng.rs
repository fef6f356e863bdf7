//! The tests' random generator (xorshift64*): seeded from `GPUCOMP_TEST_SEED` or the clock, the
//! seed printed so that a failure can be replayed. Shared by the library's and the CLI's tests
//! (`cli/tests/common` includes this file).

/// A small, fast generator (xorshift64*) for test data.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded from `GPUCOMP_TEST_SEED` or the clock; prints the seed.
    pub fn fresh(what: &str) -> Rng {
        let seed = std::env::var("GPUCOMP_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
        });
        println!("{what}: seed {seed} (replay with GPUCOMP_TEST_SEED={seed})");
        Rng(seed | 1)
    }

    /// A generator with a fixed seed, for a test whose assertion holds only for particular data.
    pub fn seeded(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    /// A generator seeded as [`Rng::fresh`] does, named by the caller's source location.
    #[track_caller]
    pub fn here() -> Rng {
        let at = std::panic::Location::caller();
        Rng::fresh(&format!("{}:{}", at.file(), at.line()))
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// An index in `0..n` (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// A standard normal sample (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = ((self.next() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
        let u2 = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// `n` uniformly random bytes (incompressible).
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    /// `n` bytes of compressible data: random words from a small vocabulary, runs, and
    /// repeats of earlier stretches at random distances.
    pub fn compressible(&mut self, n: usize) -> Vec<u8> {
        const WORDS: [&[u8]; 8] = [b"lorem ", b"ipsum ", b"gpu ", b"chunk ", b"|", b"0.04|", b"N|O|", b"\n"];
        let mut v = Vec::with_capacity(n + 64);
        while v.len() < n {
            match self.below(10) {
                0 => v.extend(std::iter::repeat_n(self.next() as u8, self.below(40) as usize + 1)),
                1..=3 if v.len() > 8 => {
                    let len = self.below(64) as usize + 4;
                    let start = self.below(v.len() as u64) as usize;
                    for k in 0..len {
                        v.push(v[start + k % (v.len() - start)]);
                    }
                }
                _ => v.extend_from_slice(WORDS[self.below(8) as usize]),
            }
        }
        v.truncate(n);
        v
    }
}
