//! `gpucomp inspect`: golden nvCOMP streams of every algorithm (header fields, chunk tables, the
//! inside of chunks), fresh single-chunk streams, corrupt chunks and bad arguments.
mod common;

use common::rng::Rng;
use common::{assert_has, fails, golden, gpucomp, ok, s, scratch, stderr};
use gpucomp::container::NativeStream;

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
    let cases: [(&str, &str, &str, &str); 5] = [
        ("lz4", "char", "LZ4", "LZ4 chunk: one raw LZ4 block"),
        ("cascaded", "int", "Cascaded", "Cascaded chunk: asymmetric, type int"),
        ("bitcomp", "int", "Bitcomp", "Bitcomp chunk: i32, algorithm 0 (default)"),
        ("ans", "uchar", "ANS", "ANS chunk: mode bytes (0)"),
        ("zstd", "char", "Zstd", "Zstd chunk: 1 frame"),
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
