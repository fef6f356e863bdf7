//! `gpucomp decompress`: an nvCOMP stream (container detected) back into its bytes.
use std::time::Instant;

use gpucomp::container::{self, BitstreamKind, NativeStream};
use gpucomp::{Algorithm, Codec, Device, ZstdOptions};

use crate::args::{describe_algorithm, Parsed};
use crate::device::{describe, Choice};
use crate::progress::Progress;
use crate::units::{bytes, duration, gbps, parse_size};
use crate::{io, CliError};

/// How to read streams: the algorithm of RAW / WITH_UNCOMPRESSED_SIZE streams (native streams
/// record theirs) and whether to verify stored checksums.
#[derive(Debug, Clone, Copy)]
pub struct Reading {
    /// `--algorithm` and its options, for streams without a header.
    pub algorithm: Algorithm,
    /// Whether `--algorithm` was given: without it, a RAW stream that starts with a zstd magic
    /// number (a plain `.zst` file) is read as Zstd.
    pub named: bool,
    /// `--verify-checksums`.
    pub verify: bool,
    /// `--max-size`: the largest uncompressed size a stream may declare (no limit beyond the
    /// format's bound by default).
    pub max_size: u64,
}

impl Reading {
    /// From `--algorithm` (and its options), `--verify-checksums` and `--max-size`.
    pub fn from(p: &Parsed) -> Result<Reading, CliError> {
        let max_size = match p.option("max-size") {
            None => u64::MAX,
            Some(s) => parse_size(s).map(|n| n as u64).ok_or_else(|| {
                CliError::Usage(format!("--max-size {s}: expected a size such as 1073741824, 512M or 1G"))
            })?,
        };
        Ok(Reading {
            algorithm: p.algorithm()?,
            named: p.option("algorithm").is_some(),
            verify: p.flag("verify-checksums"),
            max_size,
        })
    }
}

/// Decompresses INPUT into OUTPUT and prints a summary line on stderr.
pub fn run(p: &Parsed) -> Result<(), CliError> {
    let [input, output] = p.positionals(["INPUT", "OUTPUT"])?;
    let reading = Reading::from(p)?;
    let choice = Choice::from(p)?;
    io::check_output(output, p.flag("force"))?;
    let progress = Progress::new();
    let device = choice.select(&progress)?;
    file(&reading, &device, input, output, &progress)
}

/// Decompresses `input` into `output` (`-`: stdin / stdout) on `device`, then says how it went
/// through `progress`. `output` must have passed [`io::check_output`].
pub fn file(
    reading: &Reading,
    device: &Device,
    input: &str,
    output: &str,
    progress: &Progress,
) -> Result<(), CliError> {
    let stream = io::read(input, progress)?;
    let fail = |e| CliError::lib(format!("cannot decompress {}", io::name(input, "stdin")), e);
    let kind = container::detect(&stream);
    // What the stream is and how it is read: its own algorithm and checksums when native.
    let (algorithm, checksums) = match kind {
        BitstreamKind::Native => {
            let s = NativeStream::parse(&stream).map_err(fail)?;
            (s.algorithm().map_err(fail)?, s.has_checksums())
        }
        BitstreamKind::Raw if !reading.named && gpucomp::cpu::zstd::starts_with_magic(&stream) => {
            (Algorithm::Zstd(ZstdOptions::default()), false)
        }
        _ => (reading.algorithm, false),
    };
    let codec = Codec::on(algorithm, device.clone())
        .with_checksums(reading.verify)
        .with_max_decompressed_size(reading.max_size);
    let device = describe(codec.device());
    let size = codec.decompressed_size(&stream).map_err(fail)?;
    progress.size(size);
    progress.phase(format!("decompressing {} into {} on {device}", bytes(stream.len() as u64), bytes(size)));
    let start = Instant::now();
    let data = codec.decompress(&stream).map_err(fail)?;
    let elapsed = start.elapsed();
    io::write(output, &data, progress)?;
    let checks = match (reading.verify, checksums) {
        (true, true) => ", checksums verified",
        (true, false) => ", no checksums stored to verify",
        (false, _) => "",
    };
    progress.say(format!(
        "decompressed {} → {}, {kind} {}{checks}, on {device} in {} ({})",
        bytes(stream.len() as u64),
        bytes(data.len() as u64),
        describe_algorithm(&algorithm),
        duration(elapsed),
        gbps(data.len() as u64, elapsed),
    ));
    Ok(())
}
