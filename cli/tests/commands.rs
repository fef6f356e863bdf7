//! The `gpucomp` subcommands, run as a subprocess: round trips through every container and
//! encoder, golden nvCOMP streams, verify, bench, help, and clean errors. Everything but
//! `default_device_works_with_or_without_gpu` passes `--cpu`, so the suite runs without a GPU.
mod common;

use common::{fails, golden, gpucomp, gpucomp_with_stdin, ok, random_bytes, s, scratch, stderr, text_bytes};

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
    // Not a command: a FILE (zstd-style), which does not exist either.
    fails(&gpucomp(&["frobnicate"]), 1, &["cannot read 'frobnicate'", "nor is 'frobnicate' a command", "gpucomp help"]);
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

    // A plain .zst file cut short: found to be Zstd by its magic number, then refused.
    let zst = std::fs::read(golden("../zstd/foreign/text.tbl.l3.zst")).unwrap();
    let cut = dir.join("cut.zst");
    std::fs::write(&cut, &zst[..zst.len() / 2]).unwrap();
    fails(&gpucomp(&["decompress", "--cpu", s(&cut), s(&out)]), 1, &["cannot decompress", "chunk 0"]);

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

// ---------------------------------------------------------------------------------------------
// Zstd (compressed on the CPU; decompressed on the GPU when there is one)

#[test]
fn zstd_round_trips_levels_and_nvcomp_streams() {
    let dir = scratch("zstd");
    let data = text_bytes(200_000);
    let input = dir.join("text");
    std::fs::write(&input, &data).unwrap();
    for (kind, level) in [("native", "3"), ("raw", "1"), ("usize", "19"), ("native", "-5")] {
        let stream = dir.join(format!("text.{kind}.{level}.nvc"));
        let back = dir.join(format!("text.{kind}.{level}.out"));
        let o = gpucomp(&[
            "compress",
            "--cpu",
            "--algorithm",
            "zstd",
            "--level",
            level,
            "--kind",
            kind,
            s(&input),
            s(&stream),
        ]);
        ok(&o);
        assert!(stderr(&o).contains(&format!("Zstd level {level}")), "{}", stderr(&o));
        let mut args = vec!["decompress", "--cpu"];
        if kind != "native" {
            args.extend(["--algorithm", "zstd"]);
        }
        ok(&gpucomp(&[&args[..], &[s(&stream), s(&back)]].concat()));
        assert!(std::fs::read(&back).unwrap() == data, "{kind} level {level}");
    }
    // nvCOMP's own Zstd stream, its algorithm read from the header.
    let nvcomp = golden("../zstd/streams/text.tbl.zstd.native.nvc");
    let back = dir.join("nvcomp.out");
    ok(&gpucomp(&["decompress", "--cpu", s(&nvcomp), s(&back)]));
    assert!(std::fs::read(&back).unwrap() == std::fs::read(golden("inputs/text.tbl")).unwrap());
    let out = ok(&gpucomp(&["inspect", "--chunk", "1", s(&nvcomp)]));
    for want in ["Zstd chunk: 1 frame", "frame 0: zstd at 0", "content size 65536 bytes", "checksum none", "compressed"]
    {
        assert!(out.contains(want), "{want}\n{out}");
    }
    // Plain .zst files from the zstd tool decompress without --algorithm (the magic number says
    // Zstd); two frames decode to both inputs, one after the other.
    for (file, want) in [
        ("text.tbl.l19.zst", vec!["inputs/text.tbl"]),
        ("two-frames.zst", vec!["inputs/text.tbl", "inputs/orderkey.i64"]),
    ] {
        let back = dir.join(format!("{file}.out"));
        ok(&gpucomp(&["decompress", "--cpu", s(&golden(&format!("../zstd/foreign/{file}"))), s(&back)]));
        let want: Vec<u8> = want.iter().flat_map(|w| std::fs::read(golden(w)).unwrap()).collect();
        assert!(std::fs::read(&back).unwrap() == want, "{file}");
    }
    // A zstd-tool frame as a RAW stream: inspect finds Zstd and shows the frame.
    let foreign = golden("../zstd/foreign/two-frames.zst");
    let out = ok(&gpucomp(&["inspect", "--chunk", "0", s(&foreign)]));
    assert!(out.contains("as Zstd: ") && out.contains("Zstd chunk: 2 frames"), "{out}");
    for level in ["23", "-8", "three"] {
        fails(
            &gpucomp(&["compress", "--cpu", "--algorithm", "zstd", "--level", level, s(&input), "-"]),
            2,
            &["--level"],
        );
    }
}

#[test]
fn zstd_plain_files_of_any_size() {
    let dir = scratch("zst-file");
    let data = text_bytes(200_000);
    let input = dir.join("text");
    std::fs::write(&input, &data).unwrap();
    // --kind zst: frames of --chunk-size (4 whole ones and a short fifth), read back without
    // --algorithm (the magic number), one frame after the other.
    let zst = dir.join("text.zst");
    let o = gpucomp(&[
        "compress",
        "--cpu",
        "--algorithm",
        "zstd",
        "--kind",
        "zst",
        "--chunk-size",
        "48K",
        s(&input),
        s(&zst),
    ]);
    ok(&o);
    assert!(stderr(&o).contains("frames of 48.0 KiB, a plain zstd file"), "{}", stderr(&o));
    let file = std::fs::read(&zst).unwrap();
    let frames = gpucomp::cpu::zstd::frames(&file).unwrap();
    assert_eq!(frames.len(), 5, "{frames:?}");
    let back = dir.join("text.back");
    ok(&gpucomp(&["decompress", "--cpu", s(&zst), s(&back)]));
    assert!(std::fs::read(&back).unwrap() == data);
    // Nothing in, zstd's empty frame out (a RAW chunk cannot be empty), and back to nothing.
    let empty = dir.join("empty");
    std::fs::write(&empty, b"").unwrap();
    let zst = dir.join("empty.zst");
    ok(&gpucomp(&["compress", "--cpu", "--algorithm", "zstd", "--kind", "zst", s(&empty), s(&zst)]));
    assert_eq!(gpucomp::cpu::zstd::frames(&std::fs::read(&zst).unwrap()).unwrap().len(), 1);
    let back = dir.join("empty.back");
    ok(&gpucomp(&["decompress", "--cpu", s(&zst), s(&back)]));
    assert!(std::fs::read(&back).unwrap().is_empty());
    // Other algorithms have no plain zstd file.
    fails(&gpucomp(&["compress", "--cpu", "--kind", "zst", s(&input), "-"]), 2, &["--kind zst", "--algorithm zstd"]);
}
