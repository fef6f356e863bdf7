//! The `cli` target: what the `gpucomp` command-line tool does with bytes, in process through
//! its library (`gpucomp_cli`): `inspect`'s report of a stream, `gpucomp -d` (container
//! detection, `--algorithm`, `--max-size`, `--verify-checksums`) on the CPU, and the parsing of
//! arbitrary argument lists. Errors are fine; a panic is a finding.
use gpucomp_cli::args::CodecArgs;
use gpucomp_cli::commands::{self, decompress::Reading, inspect, Invocation};

use super::{algorithm, split};

/// `--algorithm` values `-d` gets (none: native streams name theirs, others read as LZ4).
const ALGORITHMS: [Option<&str>; 6] =
    [None, Some("lz4"), Some("ans"), Some("bitcomp"), Some("bitcomp-sparse"), Some("cascaded")];

/// Byte 0 `% 3` picks the mode; bytes 1-3 its options; the rest is the stream or the argument
/// list.
/// * 0, `inspect`: byte 1 bit 7 gives an algorithm (bytes 1-3, as [`algorithm`]) for a chunk
///   without header, bit 6 asks for chunk `byte 1 & 7`; bytes 2, 3 the table limits.
/// * 1, `gpucomp -d -q --cpu -f -o /dev/null STREAM` (the stream in a temporary file): byte 1
///   (when not 0) the `--max-size`, `byte 1 << (byte 2 & 31)`; byte 3 bit 0
///   `--verify-checksums`, bits 1-7 `--algorithm`.
/// * 2, arguments: the rest split at NUL bytes (lossy UTF-8), parsed as `gpucomp` parses its
///   command line, then read by every option accessor the commands call.
pub fn cli(data: &[u8]) {
    let (head, rest) = split::<4>(data);
    match head[0] % 3 {
        0 => {
            let given = (head[1] & 0x80 != 0).then(|| algorithm([head[1], head[2], head[3]]));
            let index = (head[1] & 0x40 != 0).then_some((head[1] & 7) as usize);
            let rows = 1 + (head[2] & 15) as usize;
            let _ = inspect::report(rest, "the input", rows, 1 + (head[3] & 15) as usize, index, given);
        }
        1 => decompress(head, rest),
        _ => arguments(rest),
    }
}

/// `gpucomp -d` on `stream`, written to a temporary file of this thread's own.
fn decompress(head: [u8; 4], stream: &[u8]) {
    let path = std::env::temp_dir().join(format!(
        "gpucomp-fuzz-cli-{}-{:?}.nvc",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&path, stream).expect("the temporary directory is writable");
    let mut argv: Vec<String> = ["-d", "-q", "--cpu", "-f", "-o", "/dev/null"].map(String::from).into();
    if head[1] != 0 {
        argv.extend(["--max-size".into(), (u64::from(head[1]) << (head[2] & 31)).to_string()]);
    }
    if head[3] & 1 == 1 {
        argv.push("--verify-checksums".into());
    }
    if let Some(name) = ALGORITHMS[(head[3] >> 1) as usize % ALGORITHMS.len()] {
        argv.extend(["--algorithm".into(), name.into()]);
    }
    argv.push(path.to_string_lossy().into_owned());
    let _ = commands::run(&argv);
    let _ = std::fs::remove_file(&path);
}

/// The argument list in `bytes` parsed, and read as the commands read it.
fn arguments(bytes: &[u8]) {
    let argv: Vec<String> = bytes.split(|&b| b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
    let Ok(Invocation::Run(_, p)) = commands::parse(&argv) else { return };
    let _ = p.algorithm();
    let _ = CodecArgs::from(&p);
    let _ = Reading::from(&p);
    let _ = (p.count("chunks", 8), p.count("blocks", 8), p.count("runs", 10), p.index("chunk"));
    let _ = (p.positionals(["INPUT"]), p.positionals(["INPUT", "OUTPUT"]));
}
