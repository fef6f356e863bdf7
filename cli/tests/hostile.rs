//! `gpucomp -d` on streams that claim huge sizes (issue 22): a clean failure (exit 1, one error
//! line naming the claim) within a second, and `--max-size`, the caller's cap.
mod common;

use std::time::{Duration, Instant};

use common::{fails, gpucomp, ok, s, scratch, text_bytes};

#[test]
fn forged_sizes_fail_cleanly_and_fast() {
    let dir = scratch("hostile_forged");
    let input = dir.join("text");
    std::fs::write(&input, text_bytes(100_000)).unwrap();
    // A size prefix above 1 TiB is not detected as one (the stream reads as RAW): 2^40 is the
    // largest claim that prefix can make.
    for (kind, at, claims) in [("usize", 0, [1u64 << 40, 1 << 39]), ("native", 0x10, [1 << 60, u64::MAX])] {
        let stream = dir.join(format!("text.{kind}.nvc"));
        ok(&gpucomp(&["compress", "--cpu", "--kind", kind, s(&input), s(&stream)]));
        let mut bytes = std::fs::read(&stream).unwrap();
        for claim in claims {
            bytes[at..at + 8].copy_from_slice(&claim.to_le_bytes());
            std::fs::write(&stream, &bytes).unwrap();
            let start = Instant::now();
            let out = gpucomp(&["-d", "--cpu", "-f", "-o", s(&dir.join("out")), s(&stream)]);
            assert!(start.elapsed() < Duration::from_secs(1), "{kind} {claim}: {:?}", start.elapsed());
            fails(&out, 1, &["cannot decompress", &claim.to_string()]);
        }
    }
}

#[test]
fn max_size_caps_decompression() {
    let dir = scratch("hostile_max_size");
    let input = dir.join("text");
    std::fs::write(&input, text_bytes(100_000)).unwrap();
    let stream = dir.join("text.nvc");
    ok(&gpucomp(&["compress", "--cpu", s(&input), s(&stream)]));
    let out = dir.join("out");
    fails(&gpucomp(&["-d", "--cpu", "--max-size", "99999", "-o", s(&out), s(&stream)]), 1, &["100000", "99999"]);
    assert!(!out.exists());
    ok(&gpucomp(&["decompress", "--cpu", "--max-size", "100000", s(&stream), s(&out)]));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&input).unwrap());
    fails(&gpucomp(&["--cpu", "--max-size", "1M", s(&input)]), 2, &["--max-size"]);
    fails(&gpucomp(&["decompress", "--cpu", "--max-size", "lots", s(&stream), s(&out)]), 2, &["--max-size"]);
}
