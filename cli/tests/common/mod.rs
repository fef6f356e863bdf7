//! Helpers of the CLI tests: running `gpucomp` as a subprocess, checking its output and exit
//! status, scratch folders, golden streams and generated inputs.
// Each test file uses a part of these.
#![allow(dead_code)]

#[path = "../../../tests/common/rng.rs"]
pub mod rng;

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

/// `n` random bytes, the same for the same `seed`.
pub fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    rng::Rng::seeded(seed).bytes(n)
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
