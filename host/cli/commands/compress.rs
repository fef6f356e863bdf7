//! `gpucomp compress`: a file into an nvCOMP stream.
use std::time::Instant;

use crate::args::{CodecArgs, Parsed};
use crate::device::{describe, Choice};
use crate::progress::Progress;
use crate::units::{bytes, duration, gbps, ratio};
use crate::{io, CliError};

/// Compresses INPUT into OUTPUT and prints a summary line on stderr.
pub fn run(p: &Parsed) -> Result<(), CliError> {
    let [input, output] = p.positionals(["INPUT", "OUTPUT"])?;
    let args = CodecArgs::from(p)?;
    let choice = Choice::from(p)?;
    let progress = Progress::new();
    let data = io::read(input, &progress)?;
    let codec = args.codec(choice.select()?)?;
    let device = describe(codec.device());
    progress.phase(format!("compressing {} on {device}", bytes(data.len() as u64)));
    let start = Instant::now();
    let stream = codec
        .compress_as(&data, args.kind)
        .map_err(|e| CliError::lib(format!("cannot compress {}", io::name(input, "stdin")), e))?;
    let elapsed = start.elapsed();
    io::write(output, &stream, &progress)?;
    eprintln!(
        "gpucomp: compressed {} → {} (ratio {}), {}, on {device} in {} ({})",
        bytes(data.len() as u64),
        bytes(stream.len() as u64),
        ratio(data.len() as u64, stream.len() as u64),
        args.describe(),
        duration(elapsed),
        gbps(data.len() as u64, elapsed),
    );
    Ok(())
}
