//! `gpucomp compress`: a file into an nvCOMP stream.
use std::time::Instant;

use gpucomp::Device;

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
    io::check_output(output, p.flag("force"))?;
    let progress = Progress::new();
    let device = choice.select(&progress)?;
    file(&args, &device, input, output, &progress)
}

/// Compresses `input` into `output` (`-`: stdin / stdout) on `device`, then says how it went
/// through `progress`. `output` must have passed [`io::check_output`].
pub fn file(args: &CodecArgs, device: &Device, input: &str, output: &str, progress: &Progress) -> Result<(), CliError> {
    let data = io::read(input, progress)?;
    let codec = args.codec(device.clone())?;
    let device = describe(codec.device());
    progress.phase(format!("compressing {} on {device}", bytes(data.len() as u64)));
    let start = Instant::now();
    let stream = args
        .compress(&codec, &data)
        .map_err(|e| CliError::lib(format!("cannot compress {}", io::name(input, "stdin")), e))?;
    let elapsed = start.elapsed();
    io::write(output, &stream, progress)?;
    progress.say(format!(
        "compressed {} → {} (ratio {}), {}, on {device} in {} ({})",
        bytes(data.len() as u64),
        bytes(stream.len() as u64),
        ratio(data.len() as u64, stream.len() as u64),
        args.describe(),
        duration(elapsed),
        gbps(data.len() as u64, elapsed),
    ));
    Ok(())
}
