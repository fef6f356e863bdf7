//! The fuzz targets' inputs under `cargo test`: every finding kept in `fuzz/regressions/<target>/`
//! and the committed seed corpus `fuzz/corpus/<target>/`, each run through the same function its
//! libFuzzer target calls (`fuzz/src/lib.rs`, compiled into this test), which panics on a bug.
#[path = "../fuzz/src/lib.rs"]
mod targets;

use std::path::Path;

/// A fuzz target's body.
type Target = fn(&[u8]);

/// Each target's name (its folder) and function.
const TARGETS: [(&str, Target); 10] = [
    ("container", targets::container),
    ("decompress", targets::decompress),
    ("lz4", targets::lz4),
    ("cascaded", targets::cascaded),
    ("bitcomp", targets::bitcomp),
    ("ans", targets::ans),
    ("zstd", targets::zstd),
    ("round_trip", targets::round_trip),
    ("differential", targets::differential),
    ("cli", targets::cli),
];

/// Runs every file of `fuzz/<folder>/<target>/` through its target; returns how many ran.
fn run_all(folder: &str) -> usize {
    let mut ran = 0;
    for (name, target) in TARGETS {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz").join(folder).join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut paths: Vec<_> = entries.map(|e| e.expect("readable entry").path()).collect();
        paths.sort();
        for path in paths {
            let data = std::fs::read(&path).expect("readable input");
            eprintln!("{}", path.display());
            target(&data);
            ran += 1;
        }
    }
    ran
}

#[test]
fn regressions() {
    run_all("regressions");
}

#[test]
fn seed_corpus() {
    assert!(run_all("corpus") > 0, "fuzz/corpus is empty");
}
