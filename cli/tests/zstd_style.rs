//! `gpucomp [OPTIONS] FILE...`, the zstd-style command: FILE -> FILE.nvc -> FILE, `-o`, `-c`,
//! stdin, `--rm` / `-k`, refusal to overwrite without `-f`, `-q` / `-v`, the codec options, and
//! the usage, help and version texts with their exit statuses.
mod common;

use common::{assert_has, fails, gpucomp, gpucomp_with_stdin, ok, s, scratch, stderr, text_bytes};

/// The NVCOMP_NATIVE magic, as the first bytes of a stream.
const MAGIC: [u8; 4] = [0x27, 0x13, 0x91, 0x52];

#[test]
fn file_to_file_nvc_and_back() {
    let dir = scratch("file_to_file_nvc_and_back");
    let data = text_bytes(120_000);
    let input = dir.join("data.txt");
    let stream = dir.join("data.txt.nvc");
    std::fs::write(&input, &data).unwrap();
    let o = gpucomp(&["--cpu", s(&input)]);
    ok(&o);
    assert!(stderr(&o).contains("compressed") && stderr(&o).contains("ratio"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&input).unwrap(), data, "the input is kept by default");
    let compressed = std::fs::read(&stream).unwrap();
    assert_eq!(compressed[..4], MAGIC);

    // Both outputs exist now: neither direction overwrites without -f.
    fails(&gpucomp(&["--cpu", s(&input)]), 1, &["data.txt.nvc", "already exists", "-f"]);
    assert_eq!(std::fs::read(&stream).unwrap(), compressed);
    std::fs::write(&input, b"changed").unwrap();
    fails(&gpucomp(&["-d", "--cpu", s(&stream)]), 1, &["data.txt", "already exists"]);
    assert_eq!(std::fs::read(&input).unwrap(), b"changed");
    ok(&gpucomp(&["-df", "--cpu", s(&stream)]));
    assert_eq!(std::fs::read(&input).unwrap(), data);

    // --rm removes the input once the output is written; -k (the default) keeps it.
    std::fs::remove_file(&stream).unwrap();
    ok(&gpucomp(&["--cpu", "--rm", s(&input)]));
    assert!(!input.exists() && stream.exists());
    ok(&gpucomp(&["--cpu", "-d", "--rm", "-k", s(&stream)]));
    assert!(input.exists() && stream.exists(), "-k after --rm keeps the input");
    std::fs::remove_file(&input).unwrap();
    ok(&gpucomp(&["--decompress", "--cpu", "--rm", s(&stream)]));
    assert!(input.exists() && !stream.exists());
    assert_eq!(std::fs::read(&input).unwrap(), data);
}

#[test]
fn several_files_and_output_names() {
    let dir = scratch("several_files_and_output_names");
    let (a, b) = (dir.join("a.bin"), dir.join("b.bin"));
    std::fs::write(&a, text_bytes(10_000)).unwrap();
    std::fs::write(&b, text_bytes(20_000)).unwrap();
    ok(&gpucomp(&["--cpu", "-q", s(&a), s(&b)]));
    assert!(dir.join("a.bin.nvc").exists() && dir.join("b.bin.nvc").exists());

    let out = dir.join("named.out");
    ok(&gpucomp(&["--cpu", "-d", s(&dir.join("a.bin.nvc")), "-o", s(&out)]));
    assert_eq!(std::fs::read(&out).unwrap(), text_bytes(10_000));
    fails(&gpucomp(&["--cpu", "-o", s(&out), s(&a), s(&b)]), 2, &["-o", "2 FILEs"]);
    fails(&gpucomp(&["--cpu", "-d", s(&a)]), 1, &["a.bin", "does not end in .nvc"]);
    fails(&gpucomp(&["--cpu", "-f", "--rm", s(&a), "-o", s(&a)]), 1, &["both input and output"]);
    assert_eq!(std::fs::read(&a).unwrap(), text_bytes(10_000));

    // One missing FILE among several: the others are still written, the status is 1.
    let c = dir.join("c.bin");
    std::fs::write(&c, text_bytes(5_000)).unwrap();
    let o = gpucomp(&["--cpu", s(&dir.join("missing.bin")), s(&c)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("missing.bin") && stderr(&o).contains("1 of 2 FILEs failed"), "{}", stderr(&o));
    assert!(dir.join("c.bin.nvc").exists());
}

#[test]
fn stdout_and_stdin() {
    let dir = scratch("stdout_and_stdin");
    let data = text_bytes(50_000);
    let input = dir.join("in.txt");
    std::fs::write(&input, &data).unwrap();
    let o = gpucomp(&["-c", "--cpu", s(&input)]);
    let stream = o.stdout.clone();
    ok(&o);
    assert_eq!(stream[..4], MAGIC);
    assert!(!dir.join("in.txt.nvc").exists(), "-c writes no file");

    let o = gpucomp_with_stdin(&["-dc", "--cpu"], &stream);
    ok(&o);
    assert!(o.stdout == data, "-dc with no FILE: stdin to stdout");
    let o = gpucomp_with_stdin(&["--cpu", "-"], &data);
    ok(&o);
    assert_eq!(o.stdout[..4], MAGIC, "- reads stdin and writes stdout");
    let back = dir.join("back.txt");
    ok(&gpucomp_with_stdin(&["-d", "--cpu", "-o", s(&back)], &o.stdout));
    assert_eq!(std::fs::read(&back).unwrap(), data);
    fails(&gpucomp(&["--cpu", "-c", s(&input), s(&input)]), 2, &["-c", "several"]);
    fails(&gpucomp(&["--cpu", "-c", "-o", s(&back), s(&input)]), 2, &["-c", "-o"]);
}

#[test]
fn codec_options_and_verbosity() {
    let dir = scratch("codec_options_and_verbosity");
    let weights: Vec<u8> = (0..20_000u32).flat_map(|i| ((i % 97) as u16 * 7).to_le_bytes()).collect();
    let input = dir.join("weights.f16");
    std::fs::write(&input, &weights).unwrap();
    let o = gpucomp(&["--cpu", "--algorithm", "ans", "--data-type", "float16", "-v", s(&input)]);
    ok(&o);
    assert!(stderr(&o).contains("gpucomp: [") && stderr(&o).contains("compressing"), "-v: {}", stderr(&o));
    let stream = dir.join("weights.f16.nvc");
    let inspected = ok(&gpucomp(&["inspect", s(&stream)]));
    assert_has(&inspected, &["format ANS", "data_type float16"]);
    std::fs::remove_file(&input).unwrap();
    let o = gpucomp(&["-d", "-q", "--cpu", "--verify-checksums", s(&stream)]);
    ok(&o);
    assert!(stderr(&o).is_empty(), "-q: {}", stderr(&o));
    assert_eq!(std::fs::read(&input).unwrap(), weights);

    fails(&gpucomp(&["-d", "--cpu", "--chunk-size", "4K", s(&stream)]), 2, &["--chunk-size", "compression"]);
    fails(&gpucomp(&["--cpu", "--verify-checksums", s(&input)]), 2, &["--verify-checksums", "-d"]);
    fails(&gpucomp(&["--cpu", "-x", s(&input)]), 2, &["unknown option '-x'", "gpucomp --help"]);
    fails(&gpucomp(&["--cpu", "--algorithm", "cascaded", "--level", "300", s(&input)]), 2, &["--level"]);
}

#[test]
fn subcommands_refuse_to_overwrite_without_force() {
    let dir = scratch("subcommands_refuse_to_overwrite_without_force");
    let (input, output) = (dir.join("in"), dir.join("out"));
    std::fs::write(&input, text_bytes(10_000)).unwrap();
    std::fs::write(&output, b"precious").unwrap();
    fails(&gpucomp(&["compress", "--cpu", s(&input), s(&output)]), 1, &["already exists"]);
    assert_eq!(std::fs::read(&output).unwrap(), b"precious");
    ok(&gpucomp(&["compress", "--cpu", "-f", s(&input), s(&output)]));
    fails(&gpucomp(&["decompress", "--cpu", s(&output), s(&input)]), 1, &["already exists"]);
    ok(&gpucomp(&["decompress", "--cpu", "--force", s(&output), s(&input)]));
    assert_eq!(std::fs::read(&input).unwrap(), text_bytes(10_000));
}

#[test]
fn no_arguments_print_usage_and_exit_2() {
    let o = gpucomp::<&str>(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = stderr(&o);
    assert_has(&err, &["usage: gpucomp [OPTIONS] FILE...", "exit status", "gpucomp: error: no FILE or command given"]);
    // Options without a FILE, -c or -o: a usage error too.
    fails(&gpucomp(&["--cpu"]), 2, &["no FILE given"]);
}

#[test]
fn help_and_version() {
    let main = ok(&gpucomp(&["--help"]));
    assert_has(&main, &["usage: gpucomp [OPTIONS] FILE...", "-d, --decompress", "commands:", "exit status: 0"]);
    assert_eq!(main, ok(&gpucomp(&["-h"])));
    assert_eq!(main, ok(&gpucomp(&["help"])));
    assert_eq!(main, ok(&gpucomp(&["-d", "--help"])));
    for command in ["compress", "decompress", "inspect", "verify", "bench"] {
        let text = ok(&gpucomp(&[command, "--help"]));
        assert!(text.starts_with(&format!("usage: gpucomp {command}")), "{text}");
        assert_eq!(text, ok(&gpucomp(&["help", command])));
    }
    let version = ok(&gpucomp(&["--version"]));
    assert!(version.starts_with("gpucomp ") && version == ok(&gpucomp(&["-V"])), "{version}");
    fails(&gpucomp(&["help", "frobnicate"]), 2, &["frobnicate"]);
}
