//! `gpucomp decompress`: an nvCOMP stream (container detected) back into its bytes.
use std::time::Instant;

use gpucomp::container::{self, BitstreamKind, NativeStream};
use gpucomp::Codec;

use crate::args::{describe_algorithm, Parsed};
use crate::device::{describe, Choice};
use crate::progress::Progress;
use crate::units::{bytes, duration, gbps};
use crate::{io, CliError};

/// Decompresses INPUT into OUTPUT and prints a summary line on stderr.
pub fn run(p: &Parsed) -> Result<(), CliError> {
    let [input, output] = p.positionals(["INPUT", "OUTPUT"])?;
    let algorithm = p.algorithm()?;
    let choice = Choice::from(p)?;
    let verify = p.flag("verify-checksums");
    let progress = Progress::new();
    let stream = io::read(input, &progress)?;
    let fail = |e| CliError::lib(format!("cannot decompress {}", io::name(input, "stdin")), e);
    let kind = container::detect(&stream);
    // What the stream is and how it is read: its own algorithm and checksums when native.
    let (algorithm, checksums) = match kind {
        BitstreamKind::Native => {
            let s = NativeStream::parse(&stream).map_err(fail)?;
            (s.algorithm().map_err(fail)?, s.has_checksums())
        }
        _ => (algorithm, false),
    };
    let codec = Codec::on(algorithm, choice.select()?).with_checksums(verify);
    let device = describe(codec.device());
    let size = codec.decompressed_size(&stream).map_err(fail)?;
    progress.size(size);
    progress.phase(format!("decompressing {} into {} on {device}", bytes(stream.len() as u64), bytes(size)));
    let start = Instant::now();
    let data = codec.decompress(&stream).map_err(fail)?;
    let elapsed = start.elapsed();
    io::write(output, &data, &progress)?;
    let checks = match (verify, checksums) {
        (true, true) => ", checksums verified",
        (true, false) => ", no checksums stored to verify",
        (false, _) => "",
    };
    eprintln!(
        "gpucomp: decompressed {} → {}, {kind} {}{checks}, on {device} in {} ({})",
        bytes(stream.len() as u64),
        bytes(data.len() as u64),
        describe_algorithm(&algorithm),
        duration(elapsed),
        gbps(data.len() as u64, elapsed),
    );
    Ok(())
}
