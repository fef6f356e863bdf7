//! The `gpucomp` command-line tool, run as a subprocess: round trips through every container and
//! encoder, golden nvCOMP streams, inspect, verify, bench, help, and clean errors. Everything but
//! `default_device_works_with_or_without_gpu` passes `--cpu`, so the suite runs without a GPU.
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

// ---------------------------------------------------------------------------------------------
// helpers

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden").join(name)
}

/// A fresh scratch folder for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli").join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `gpucomp args...`, feeding `stdin`.
fn gpucomp_with_stdin<S: AsRef<std::ffi::OsStr>>(args: &[S], stdin: &[u8]) -> Output {
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

fn gpucomp<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    gpucomp_with_stdin(args, &[])
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts success and returns stdout.
#[track_caller]
fn ok(o: &Output) -> String {
    assert!(o.status.success(), "gpucomp failed ({}): {}", o.status, stderr(o));
    stdout(o)
}

/// Asserts a clean failure: exit status `code`, one line on stderr mentioning every word of
/// `expect`, no panic text. Returns that line.
#[track_caller]
fn fails(o: &Output, code: i32, expect: &[&str]) -> String {
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

fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
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
fn text_bytes(n: usize) -> Vec<u8> {
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

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

// ---------------------------------------------------------------------------------------------
// round trips

#[test]
fn round_trip_every_kind_and_encoder() {
    let dir = scratch("round_trip");
    let inputs = [("random", random_bytes(150_000, 7)), ("text", text_bytes(300_000))];
    for (name, data) in &inputs {
        let input = dir.join(name);
        std::fs::write(&input, data).unwrap();
        for kind in ["native", "raw", "usize"] {
            for encoder in ["gpucomp", "nvcomp"] {
                let stream = dir.join(format!("{name}.{kind}.{encoder}.nvc"));
                let back = dir.join(format!("{name}.{kind}.{encoder}.out"));
                let o = gpucomp(&["compress", "--cpu", "--kind", kind, "--encoder", encoder, s(&input), s(&stream)]);
                ok(&o);
                let summary = stderr(&o);
                assert!(summary.contains("ratio") && summary.contains("CPU") && summary.contains("GB/s"), "{summary}");
                ok(&gpucomp(&["decompress", "--cpu", s(&stream), s(&back)]));
                assert!(std::fs::read(&back).unwrap() == *data, "{name} {kind} {encoder}");
            }
        }
    }
}

#[test]
fn round_trip_with_options_and_checksums() {
    let dir = scratch("options");
    let data: Vec<u8> = (0u32..50_000).flat_map(|i| (i / 3).to_le_bytes()).collect();
    let input = dir.join("ints");
    std::fs::write(&input, &data).unwrap();
    let options = ["--data-type", "uint", "--bitshuffle", "msb", "--chunk-size", "16K"];
    for kind in ["native", "usize"] {
        let stream = dir.join(format!("ints.{kind}"));
        let back = dir.join(format!("ints.{kind}.out"));
        let mut args = vec!["compress", "--cpu", "--checksums", "--kind", kind];
        args.extend(options);
        args.extend([s(&input), s(&stream)]);
        ok(&gpucomp(&args));
        let mut args = vec!["decompress", "--cpu", "--verify-checksums"];
        if kind != "native" {
            args.extend(&options[..4]);
        }
        args.extend([s(&stream), s(&back)]);
        let o = gpucomp(&args);
        ok(&o);
        if kind == "native" {
            assert!(stderr(&o).contains("checksums verified"), "{}", stderr(&o));
        }
        assert!(std::fs::read(&back).unwrap() == data, "{kind}");
    }
}

#[test]
fn round_trip_through_stdin_and_stdout() {
    let data = text_bytes(100_000);
    let o = gpucomp_with_stdin(&["compress", "--cpu", "-", "-"], &data);
    let stream = o.stdout.clone();
    ok(&o);
    assert_eq!(&stream[..4], &[0x27, 0x13, 0x91, 0x52], "stdout holds the NVCOMP_NATIVE stream");
    let o = gpucomp_with_stdin(&["decompress", "--cpu", "-", "-"], &stream);
    ok(&o);
    assert!(o.stdout == data);
}

/// No `--cpu`: must work whether or not this machine has a GPU.
#[test]
fn default_device_works_with_or_without_gpu() {
    let dir = scratch("default_device");
    let data = text_bytes(200_000);
    let (input, stream, back) = (dir.join("in"), dir.join("in.nvc"), dir.join("out"));
    std::fs::write(&input, &data).unwrap();
    let o = gpucomp(&["compress", s(&input), s(&stream)]);
    ok(&o);
    let err = stderr(&o);
    assert!(err.contains("on GPU") || err.contains("note: running on the CPU"), "{err}");
    ok(&gpucomp(&["decompress", s(&stream), s(&back)]));
    assert!(std::fs::read(&back).unwrap() == data);
}

#[test]
fn large_input_shows_phases_on_stderr_only() {
    let data = vec![0u8; 64 << 20];
    let o = gpucomp_with_stdin(&["compress", "--cpu", "-", "-"], &data);
    ok(&o);
    let err = stderr(&o);
    for phase in ["read 64.0 MiB from stdin", "compressing 64.0 MiB", "writing", "to stdout"] {
        assert!(err.contains(phase), "missing '{phase}' in: {err}");
    }
    let o = gpucomp_with_stdin(&["decompress", "--cpu", "-", "-"], &o.stdout);
    ok(&o);
    assert!(stderr(&o).contains("decompressing"), "{}", stderr(&o));
    assert!(o.stdout == data, "stdout holds only the data");
}

// ---------------------------------------------------------------------------------------------
// golden nvCOMP streams

#[test]
fn decompress_golden_nvcomp_streams() {
    let dir = scratch("golden");
    let cases: [(&str, &str, &[&str]); 6] = [
        ("discount.u8.lz4.native.nvc", "discount.u8", &[]),
        ("text.tbl.lz4.native.uncomp_chunk_size=4096.nvc", "text.tbl", &[]),
        ("text4k.txt.lz4.native.checksum_policy=COMPUTE_AND_VERIFY.nvc", "text4k.txt", &["--verify-checksums"]),
        ("hi.u32.lz4.native.bitshuffle_mode=NVCOMP_BITSHUFFLE_MSB_FIRST.data_type=u4.nvc", "hi.u32", &[]),
        ("shipdate.i32.lz4.raw.nvc", "shipdate.i32", &[]),
        ("orderkey.i64.lz4.usize.nvc", "orderkey.i64", &[]),
    ];
    for (stream, input, extra) in cases {
        let out = dir.join(input);
        let mut args = vec!["decompress", "--cpu"];
        args.extend(extra);
        let path = golden(&format!("streams/{stream}"));
        args.extend([s(&path), s(&out)]);
        ok(&gpucomp(&args));
        assert!(std::fs::read(&out).unwrap() == std::fs::read(golden(&format!("inputs/{input}"))).unwrap(), "{stream}");
    }
}

#[test]
fn inspect_golden_native_stream() {
    let stream = golden("streams/discount.u8.lz4.native.uncomp_chunk_size=4096.nvc");
    let out = ok(&gpucomp(&["inspect", "--chunks", "3", s(&stream)]));
    for field in [
        "NVCOMP_NATIVE stream, 97159 bytes",
        "version 6.0, format LZ4 (0)",
        "data_type char (0), bitshuffle none (0)",
        "100003 bytes in 25 chunks of 4096 (last 1699)",
        "checksums: none",
        "chunks: 25",
        "median",
        "offset",
        "uncompressed",
        "... 19 chunks not shown ...",
    ] {
        assert!(out.contains(field), "missing '{field}' in:\n{out}");
    }
    assert_eq!(out.lines().filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit())).count(), 6, "{out}");
}

#[test]
fn inspect_golden_streams_with_options_checksums_raw_usize() {
    let shuffled = golden("streams/hi.u16.lz4.native.bitshuffle_mode=NVCOMP_BITSHUFFLE_LSB_FIRST.data_type=u2.nvc");
    let out = ok(&gpucomp(&["inspect", s(&shuffled)]));
    assert!(out.contains("data_type ushort (3), bitshuffle lsb_first (2)"), "{out}");
    let checked = golden("streams/text4k.txt.lz4.native.checksum_policy=COMPUTE_AND_VERIFY.nvc");
    let out = ok(&gpucomp(&["inspect", s(&checked)]));
    assert!(out.contains("checksums: header (0x30)") && out.contains(" ok"), "{out}");
    let out = ok(&gpucomp(&["inspect", s(&golden("streams/text.tbl.lz4.usize.nvc"))]));
    assert!(out.contains("WITH_UNCOMPRESSED_SIZE") && out.contains("200000"), "{out}");
    let out = ok(&gpucomp(&["inspect", s(&golden("streams/text.tbl.lz4.raw.nvc"))]));
    assert!(out.contains("RAW") && out.contains("as LZ4: 200000 bytes uncompressed"), "{out}");
}

// ---------------------------------------------------------------------------------------------
// verify, bench, help

#[test]
fn verify_on_cpu_skips_gpu_checks() {
    let dir = scratch("verify");
    let input = dir.join("text");
    std::fs::write(&input, text_bytes(100_000)).unwrap();
    let out = ok(&gpucomp(&["verify", "--cpu", "--encoder", "nvcomp", "--chunk-size", "8K", s(&input)]));
    for field in ["compress on CPU", "CPU stream decompressed on CPU", "equals the input", "GPU checks skipped: --cpu"]
    {
        assert!(out.contains(field), "missing '{field}' in:\n{out}");
    }
    assert!(out.contains("all 2 checks passed"), "{out}");
}

#[test]
fn bench_on_cpu_prints_a_table() {
    let dir = scratch("bench");
    let input = dir.join("text");
    std::fs::write(&input, text_bytes(100_000)).unwrap();
    let out = ok(&gpucomp(&["bench", "--cpu", "--runs", "2", s(&input)]));
    for field in ["median", "decompress", "GB/s", "ratio", "cargo bench --bench lz4"] {
        assert!(out.contains(field), "missing '{field}' in:\n{out}");
    }
}

#[test]
fn help_for_every_command() {
    assert!(ok(&gpucomp(&["help"])).contains("commands:"));
    for command in ["compress", "decompress", "inspect", "verify", "bench"] {
        let text = ok(&gpucomp(&[command, "--help"]));
        assert!(text.contains(&format!("usage: gpucomp {command}")) && text.contains("examples:"), "{text}");
        assert_eq!(text, ok(&gpucomp(&["help", command])));
        for line in text.lines().filter(|l| l.trim_start().starts_with("--")) {
            assert!(line.starts_with("  --"), "misaligned option in {command} help: {line}");
        }
    }
    assert!(ok(&gpucomp(&["bench", "-h"])).contains("cargo bench --bench lz4"));
}

// ---------------------------------------------------------------------------------------------
// errors

#[test]
fn missing_input_file() {
    let dir = scratch("missing");
    let missing = dir.join("does-not-exist");
    fails(&gpucomp(&["compress", "--cpu", s(&missing), s(&dir.join("out"))]), 1, &["does-not-exist", "cannot read"]);
    fails(&gpucomp(&["inspect", s(&missing)]), 1, &["does-not-exist"]);
    assert!(!dir.join("out").exists());
}

#[test]
fn bad_arguments_exit_2() {
    let input = golden("inputs/text.tbl");
    let out = "/nonexistent/out";
    fails(&gpucomp(&["compress", "--cpu", "--bogus", s(&input), out]), 2, &["--bogus", "gpucomp compress --help"]);
    fails(&gpucomp(&["compress", "--cpu", "--data-type", "float", s(&input), out]), 2, &["float", "uint"]);
    fails(&gpucomp(&["compress", "--cpu", "--chunk-size", "lots", s(&input), out]), 2, &["--chunk-size", "lots"]);
    fails(&gpucomp(&["compress", "--cpu", "--chunk-size", "17M", s(&input), out]), 2, &["chunk size", "16777216"]);
    fails(
        &gpucomp(&["compress", "--cpu", "--data-type", "int", "--chunk-size", "6", s(&input), out]),
        2,
        &["multiple of 4"],
    );
    fails(&gpucomp(&["compress", "--cpu", s(&input)]), 2, &["missing OUTPUT"]);
    fails(&gpucomp(&["compress", "--cpu", "--gpu", s(&input), out]), 2, &["--cpu", "--gpu"]);
    fails(&gpucomp(&["bench", "--cpu", "--runs", "0", s(&input)]), 2, &["--runs"]);
    fails(&gpucomp(&["frobnicate"]), 2, &["unknown command", "frobnicate"]);
    fails(&gpucomp::<&str>(&[]), 2, &["no command"]);
}

#[test]
fn corrupt_streams_fail_cleanly() {
    let dir = scratch("corrupt");
    let good = std::fs::read(golden("streams/discount.u8.lz4.native.nvc")).unwrap();
    let truncated = dir.join("truncated.nvc");
    std::fs::write(&truncated, &good[..good.len() / 2]).unwrap();
    let out = dir.join("out");
    fails(&gpucomp(&["decompress", "--cpu", s(&truncated), s(&out)]), 1, &["cannot decompress", "invalid stream"]);
    fails(&gpucomp(&["inspect", s(&truncated)]), 1, &["not a valid stream"]);

    let mut checked =
        std::fs::read(golden("streams/text4k.txt.lz4.native.checksum_policy=COMPUTE_AND_VERIFY.nvc")).unwrap();
    let last = checked.len() - 1;
    checked[last] ^= 0x01;
    let flipped = dir.join("flipped.nvc");
    std::fs::write(&flipped, &checked).unwrap();
    fails(&gpucomp(&["decompress", "--cpu", "--verify-checksums", s(&flipped), s(&out)]), 1, &["cannot decompress"]);

    let garbage = dir.join("garbage");
    std::fs::write(&garbage, random_bytes(1000, 3)).unwrap();
    fails(&gpucomp(&["decompress", "--cpu", s(&garbage), s(&out)]), 1, &["cannot decompress"]);
    fails(&gpucomp(&["inspect", s(&garbage)]), 1, &["not a stream"]);
    assert!(!out.exists(), "nothing is written on failure");
}
