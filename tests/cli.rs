//! The `gpucomp` command-line tool, run as a subprocess: round trips through every container and
//! encoder, golden nvCOMP streams, inspect, verify, bench, help, and clean errors. Everything but
//! `default_device_works_with_or_without_gpu` passes `--cpu`, so the suite runs without a GPU.
mod common;

use common::Rng;
use gpucomp::container::NativeStream;
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

/// `gpucomp inspect --chunk I [--blocks N] STREAM` on a golden stream; asserts success.
fn inspect_chunk(stream: &str, chunk: usize, blocks: usize) -> String {
    let path = golden(&format!("streams/{stream}"));
    ok(&gpucomp(&["inspect", "--chunk", &chunk.to_string(), "--blocks", &blocks.to_string(), s(&path)]))
}

#[track_caller]
fn assert_has(out: &str, fields: &[&str]) {
    for field in fields {
        assert!(out.contains(field), "missing '{field}' in:\n{out}");
    }
}

/// The rows of the table whose title line starts with `title`, without its `... not shown ...`
/// rows (rows are right-aligned numbers first: indented by more than two spaces).
fn table_rows<'a>(out: &'a str, title: &str) -> Vec<&'a str> {
    let mut lines = out.lines().skip_while(|l| !l.trim_start().starts_with(title));
    lines.next().unwrap_or_else(|| panic!("no table '{title}' in:\n{out}"));
    lines.take_while(|l| l.starts_with("   ") || l.starts_with("  ... ")).filter(|l| l.starts_with("   ")).collect()
}

#[test]
fn inspect_cascaded_golden_chunks() {
    let out = inspect_chunk("orderkey.i64.cascaded.native.data_type=i8.nvc", 0, 2);
    assert_has(
        &out,
        &[
            "chunk 0: 2376 bytes at offset 0, 65536 bytes uncompressed",
            "decodes: yes, 65536 bytes",
            "Cascaded chunk: asymmetric, type longlong, 65536 bytes uncompressed, 2376 compressed",
            "16 blocks of 4 KiB (offsets in the chunk); pipelines: RLE → DELTA → RLE ×16",
            "... 12 blocks not shown ...",
        ],
    );
    let rows = table_rows(&out, "block  offset");
    assert_eq!(rows.len(), 4, "{out}");
    let first: Vec<&str> = rows[0].split_whitespace().collect();
    // block, offset, bytes, elements, slots, pipeline (8 words), reference, runs.
    assert_eq!(first[..5], ["0", "8", "152", "512", "0,1,2"], "{out}");
    assert_eq!(first[5..13].join(" "), "RLE → DELTA → RLE → FOR+bitpack(5 bits)", "{out}");
    assert_eq!(first[13..], ["1", "130/33"], "{out}");

    let out = inspect_chunk("ramp.i32.cascaded.native.data_type=i4.nvc", 2, 8);
    assert_has(&out, &["28928 bytes uncompressed", "pipelines: DELTA ×8"]);
    assert_eq!(table_rows(&out, "block  offset").len(), 8, "{out}");
    assert!(table_rows(&out, "block  offset").iter().all(|r| r.contains("DELTA → FOR+bitpack(0 bits)")), "{out}");
    let out = inspect_chunk("runs.u16.cascaded.native.data_type=u2.nvc", 0, 8);
    assert_has(&out, &["type ushort", "pipelines: RLE ×16", "RLE → FOR+bitpack(16 bits)"]);

    let out = inspect_chunk("walk.i64.cascaded.native.data_type=i8.mode=SYMMETRIC.nvc", 3, 8);
    assert_has(
        &out,
        &[
            "decodes: yes, 43392 bytes",
            "Cascaded chunk: symmetric, type longlong",
            "6 blocks of 8 KiB",
            "sub-streams",
            "DELTA+FOR ×",
            "block  offset  bytes  elements  sub-streams  forms",
        ],
    );
    assert_eq!(table_rows(&out, "block  offset").len(), 6, "{out}");
    let out = inspect_chunk("mixed.u8.cascaded.native.data_type=u1.nvc", 1, 8);
    assert_has(
        &out,
        &["Cascaded chunk: asymmetric, raw fallback, type uchar, 4464 bytes uncompressed, 4472 compressed"],
    );
    // nvCOMP's chunk whose header drops the 3 trailing bytes its table counts (cpu::cascaded docs).
    let out = inspect_chunk("discount.u8.cascaded.native.checksum=COMPUTE_AND_NO_VERIFY.nvc", 1, 8);
    assert_has(
        &out,
        &["decodes: no: decodes to 34464 bytes, but the container records 34467", "34464 bytes uncompressed"],
    );
}

#[test]
fn inspect_bitcomp_golden_block_modes() {
    let out = inspect_chunk("big.u32.bitcomp.native.algorithm_type=1.data_type=u4.nvc", 0, 8);
    assert_has(
        &out,
        &[
            "Bitcomp chunk: u32, algorithm 1 (sparse), 65536 bytes uncompressed in 8 blocks of 8 KiB (8 raw, 0 sparse)",
            "block  word offset  words  bytes  padding  uncompressed  mode  ratio",
        ],
    );
    let rows = table_rows(&out, "block  word offset");
    assert_eq!(rows.len(), 8, "{out}");
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells, [&i.to_string(), &(2048 * i).to_string(), "2048", "8192", "0", "8192", "raw", "1.00"]);
    }
    let out = inspect_chunk("text.tbl.bitcomp.native.data_type=u1.nvc", 2, 1);
    assert_has(&out, &["Bitcomp chunk: u8, algorithm 0 (default)", "(0 raw, 8 default)", "... 6 blocks not shown ..."]);
    let rows = table_rows(&out, "block  word offset");
    assert!(rows.len() == 2 && rows.iter().all(|r| r.contains(" default ")), "{out}");
}

#[test]
fn inspect_ans_golden_table_and_sub_chunks() {
    let out = inspect_chunk("text.tbl.ans.raw.nvc", 0, 2);
    assert_has(
        &out,
        &[
            "RAW stream",
            "as ANS: 200000 bytes uncompressed",
            "decodes: yes, 200000 bytes",
            "ANS chunk: mode bytes (0), 200000 bytes uncompressed in 7 sub-chunks of 32768, 2 states per lane (64 per sub-chunk)",
            "table log 11 (M = 2048)",
            "top symbols (frequency of M): '|' 270, '0' 162",
            "final states: 0x",
            "... 3 sub-chunks not shown ...",
        ],
    );
    let rows = table_rows(&out, "sub-chunk  offset");
    assert_eq!(rows.len(), 4, "{out}");
    let last: Vec<&str> = rows[3].split_whitespace().collect();
    assert_eq!(last[..4], ["6", "124864", "2308", "3392"], "{out}");
    let out = inspect_chunk("geo.u8.ans.raw.max_sub_chunk_count=64.nvc", 0, 4);
    assert_has(&out, &["in 10 sub-chunks of 2048", "... 2 sub-chunks not shown ..."]);
    let out = inspect_chunk("geo.u8.ans.raw.states_per_lane=1.nvc", 0, 8);
    assert_has(&out, &["1 state per lane (32 per sub-chunk)"]);
    let out = inspect_chunk("f32n40000.f32.ans.native.data_type=f4.uncomp_chunk_size=16384.nvc", 9, 8);
    assert_has(
        &out,
        &[
            "chunk 9: ",
            "decodes: yes, 12544 bytes",
            "ANS chunk: mode FLOAT32 (3)",
            "raw section 24..9432 (9408 bytes)",
            "table log 10 (M = 1024)",
        ],
    );
}

/// TPC-H-like `l_orderkey` values: ascending, each repeated 1 to 7 times.
fn orderkeys(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut key = 1 + rng.below(1000) as i32;
    let mut out = Vec::with_capacity(4 * n);
    while out.len() < 4 * n {
        for _ in 0..1 + rng.below(7) {
            out.extend_from_slice(&key.to_le_bytes());
        }
        key += 1 + 31 * (rng.below(8) == 0) as i32;
    }
    out.truncate(4 * n);
    out
}

/// Fresh columns compressed by every algorithm into RAW and WITH_UNCOMPRESSED_SIZE streams:
/// inspect finds the algorithm (or reads the one given) and shows the chunk.
#[test]
fn inspect_fresh_single_chunk_streams_name_their_algorithm() {
    let dir = scratch("inspect_fresh");
    let mut rng = Rng::fresh("inspect_fresh_single_chunk_streams_name_their_algorithm");
    let n = 20_000 + rng.index(20_000);
    let data = orderkeys(&mut rng, n);
    let input = dir.join("orderkeys.i32");
    std::fs::write(&input, &data).unwrap();
    let len = data.len().to_string();
    let cases: [(&str, &str, &str, &str); 4] = [
        ("lz4", "char", "LZ4", "LZ4 chunk: one raw LZ4 block"),
        ("cascaded", "int", "Cascaded", "Cascaded chunk: asymmetric, type int"),
        ("bitcomp", "int", "Bitcomp", "Bitcomp chunk: i32, algorithm 0 (default)"),
        ("ans", "uchar", "ANS", "ANS chunk: mode bytes (0)"),
    ];
    for (algorithm, data_type, name, view) in cases {
        for kind in ["raw", "usize"] {
            let stream = dir.join(format!("{algorithm}.{kind}"));
            let args = ["compress", "--cpu", "--algorithm", algorithm, "--data-type", data_type, "--kind", kind];
            ok(&gpucomp(&[&args[..], &[s(&input), s(&stream)]].concat()));
            let out = ok(&gpucomp(&["inspect", "--chunk", "0", s(&stream)]));
            assert_has(
                &out,
                &[&format!("as {name}: {len} bytes uncompressed"), &format!("decodes: yes, {len} bytes"), view],
            );
            if algorithm == "cascaded" {
                assert!(out.contains("RLE → DELTA"), "sorted keys with repeats: RLE then DELTA\n{out}");
            }
            let out = ok(&gpucomp(&["inspect", "--algorithm", algorithm, "--data-type", data_type, s(&stream)]));
            assert!(out.contains(&format!("  as {name}")) && !out.contains("also decodes"), "{out}");
        }
    }
    // Named algorithms that do not fit are errors, not guesses.
    let raw = dir.join("cascaded.raw");
    fails(&gpucomp(&["inspect", "--algorithm", "ans", s(&raw)]), 1, &["not a stream", "does not decode as ANS"]);
}

/// Corrupt chunks inside valid NVCOMP_NATIVE containers: inspect succeeds and says why the chunk
/// does not decode or parse.
#[test]
fn inspect_corrupt_chunks_shows_errors() {
    let dir = scratch("inspect_corrupt");
    let mut rng = Rng::fresh("inspect_corrupt_chunks_shows_errors");
    let streams = [
        ("orderkey.i64.cascaded.native.data_type=i8.nvc", "Cascaded"),
        ("text.tbl.bitcomp.native.data_type=u1.nvc", "Bitcomp"),
        ("text.tbl.ans.native.nvc", "ANS"),
    ];
    for (name, algorithm) in streams {
        let good = std::fs::read(golden(&format!("streams/{name}"))).unwrap();
        let range = NativeStream::parse(&good).unwrap().chunk_range(1).unwrap();
        let path = dir.join(name);
        // The whole chunk random: its header does not parse.
        let mut bad = good.clone();
        bad[range.clone()].copy_from_slice(&rng.bytes(range.len()));
        std::fs::write(&path, &bad).unwrap();
        let out = ok(&gpucomp(&["inspect", "--chunk", "1", s(&path)]));
        assert_has(&out, &["decodes: no: ", &format!("error: not a valid {algorithm} chunk: cannot decompress")]);
        // A few bits flipped, or the second half zeroed: whatever is shown, no failure.
        for trial in 0..12 {
            let mut bad = good.clone();
            if trial == 0 {
                bad[range.start + range.len() / 2..range.end].fill(0);
            } else {
                for _ in 0..1 + rng.below(3) {
                    let at = range.start + rng.index(range.len().min(256));
                    bad[at] ^= 1 << rng.below(8);
                }
            }
            std::fs::write(&path, &bad).unwrap();
            let o = gpucomp(&["inspect", "--chunk", "1", s(&path)]);
            let out = ok(&o);
            assert!(out.contains("decodes: yes") || out.contains("decodes: no: "), "{out}");
            assert!(stderr(&o).is_empty(), "{}", stderr(&o));
        }
    }
}

#[test]
fn inspect_chunk_arguments() {
    let native = golden("streams/ramp.i32.cascaded.native.data_type=i4.nvc");
    fails(&gpucomp(&["inspect", "--chunk", "x", s(&native)]), 2, &["--chunk x", "index"]);
    fails(&gpucomp(&["inspect", "--chunk", "3", s(&native)]), 2, &["--chunk 3", "3 chunks"]);
    fails(&gpucomp(&["inspect", "--chunk", "0", "--blocks", "0", s(&native)]), 2, &["--blocks"]);
    let raw = golden("streams/text.tbl.ans.raw.nvc");
    fails(&gpucomp(&["inspect", "--chunk", "1", s(&raw)]), 2, &["--chunk 1", "one chunk"]);
    fails(&gpucomp(&["inspect", "--algorithm", "zip", s(&raw)]), 2, &["--algorithm zip"]);
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
    for field in ["median", "decompress", "GB/s", "ratio", "cargo bench --bench throughput"] {
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
    assert!(ok(&gpucomp(&["bench", "-h"])).contains("cargo bench --bench throughput"));
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

#[test]
fn cascaded_and_ans_options_reach_the_stream() {
    let dir = scratch("cascaded_and_ans_options_reach_the_stream");
    let column: Vec<u8> = (0..50_000u32).flat_map(|i| (1_000 + i / 3).to_le_bytes()).collect();
    let input = dir.join("keys.u32");
    std::fs::write(&input, &column).unwrap();
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["--algorithm", "cascaded", "--data-type", "int", "--level", "1", "--stages", "delta"],
            &["data_type int", "fine 0x5", "level 1"],
        ),
        (&["--algorithm", "cascaded", "--stages", "none"], &["fine 0x4", "level 3"]),
        (
            &["--algorithm", "ans", "--states-per-lane", "2", "--sub-chunks", "16", "--histogram-reduction", "2"],
            &["max_sub_chunk_count 16", "states_per_lane 2", "histogram_reduction_log2 2"],
        ),
    ];
    for (i, (options, shown)) in cases.iter().enumerate() {
        let stream = dir.join(format!("{i}.nvc"));
        let mut args: Vec<&str> = vec!["compress", "--cpu"];
        args.extend_from_slice(options);
        args.extend([input.to_str().unwrap(), stream.to_str().unwrap()]);
        ok(&gpucomp(&args));
        let inspected = ok(&gpucomp(&["inspect", stream.to_str().unwrap()]));
        for field in *shown {
            assert!(inspected.contains(field), "{options:?}: '{field}' not in:\n{inspected}");
        }
        let back = dir.join(format!("{i}.out"));
        ok(&gpucomp(&["decompress", "--cpu", stream.to_str().unwrap(), back.to_str().unwrap()]));
        assert!(std::fs::read(&back).unwrap() == column, "{options:?}: round trip");
    }
    for bad in [["--level", "256"], ["--stages", "for"], ["--states-per-lane", "3"], ["--sub-chunks", "5"]] {
        let algorithm = if bad[0] == "--level" || bad[0] == "--stages" { "cascaded" } else { "ans" };
        let o = gpucomp(&["compress", "--algorithm", algorithm, bad[0], bad[1], input.to_str().unwrap(), "-"]);
        fails(&o, 2, &[bad[0]]);
    }
}
