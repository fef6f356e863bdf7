//! Helpers of the CLI tests: running `gpucomp` as a subprocess, checking its output and exit
//! status, scratch folders, golden streams and generated inputs.
// Each test file uses a part of these.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
/// A file of the library's golden data (`tests/data/golden` at the workspace root).
pub fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/golden").join(name)
}

/// A fresh scratch folder for one test.
pub fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli").join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `gpucomp args...`, feeding `stdin`.
pub fn gpucomp_with_stdin<S: AsRef<std::ffi::OsStr>>(args: &[S], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpucomp"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn gpucomp");
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

pub fn gpucomp<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    gpucomp_with_stdin(args, &[])
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts success and returns stdout.
#[track_caller]
pub fn ok(o: &Output) -> String {
    assert!(o.status.success(), "gpucomp failed ({}): {}", o.status, stderr(o));
    stdout(o)
}

/// Asserts a clean failure: exit status `code`, one line on stderr mentioning every word of
/// `expect`, no panic text. Returns that line.
#[track_caller]
pub fn fails(o: &Output, code: i32, expect: &[&str]) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(code), "stderr: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("gpucomp: note:")).collect();
    assert_eq!(lines.len(), 1, "expected one error line, got: {err}");
    assert!(lines[0].starts_with("gpucomp: error: "), "{err}");
    for word in expect {
        assert!(err.contains(word), "expected '{word}' in: {err}");
    }
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE") && !err.contains("internal error"), "{err}");
    lines[0].to_string()
}

pub fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Compressible text: numbered lines of a few words.
pub fn text_bytes(n: usize) -> Vec<u8> {
    const WORDS: [&str; 8] = ["alpha", "beta", "gamma", "delta", "stream", "chunk", "nvcomp", "gpu"];
    let mut out = String::new();
    let mut i = 0usize;
    while out.len() < n {
        out += &format!("{i:06} {} {} {}\n", WORDS[i % 8], WORDS[(i / 8) % 8], WORDS[(i * 7) % 8]);
        i += 1;
    }
    out.truncate(n);
    out.into_bytes()
}

pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Asserts that `out` contains every one of `fields`.
#[track_caller]
pub fn assert_has(out: &str, fields: &[&str]) {
    for field in fields {
        assert!(out.contains(field), "missing '{field}' in:\n{out}");
    }
}

/// A xorshift generator seeded from `GPUCOMP_TEST_SEED` or the clock (the seed is printed for
/// replay), as the library's tests draw theirs.
pub struct Rng(u64);

impl Rng {
    /// A generator for the test `what`; prints its seed.
    pub fn fresh(what: &str) -> Rng {
        let seed = std::env::var("GPUCOMP_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64)
        });
        println!("{what}: seed {seed} (replay with GPUCOMP_TEST_SEED={seed})");
        Rng(seed | 1)
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

    /// `n` uniformly random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}
