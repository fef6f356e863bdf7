//! `gpucomp verify`: the GPU and the CPU write the same stream, and each device decodes each
//! stream back to the input.
use gpucomp::Device;

use crate::args::{CodecArgs, Parsed};
use crate::device::{describe, Choice};
use crate::progress::Progress;
use crate::table::{Align, Table};
use crate::units::{bytes, ratio};
use crate::{io, CliError};

/// The checks run so far, as table rows.
struct Checks {
    table: Table,
    total: usize,
    failed: usize,
}

impl Checks {
    fn add(&mut self, check: String, outcome: Result<String, String>) {
        self.total += 1;
        let result = outcome.unwrap_or_else(|e| {
            self.failed += 1;
            format!("FAILED: {e}")
        });
        self.table.row(vec![check, result]);
    }
}

/// Runs the checks on INPUT, prints their table; an error if any failed.
pub fn run(p: &Parsed) -> Result<(), CliError> {
    let [input] = p.positionals(["INPUT"])?;
    let args = CodecArgs::from(p)?;
    let choice = Choice::from(p)?;
    let progress = Progress::new();
    let data = io::read(input, &progress)?;
    let mut codecs = vec![("CPU", args.codec(Device::Cpu)?)];
    let skipped = match choice.gpu()? {
        Ok(gpu) => {
            codecs.push(("GPU", args.codec(Device::Gpu(gpu))?));
            None
        }
        Err(reason) => Some(reason),
    };
    let devices: Vec<String> = codecs.iter().map(|(_, codec)| describe(codec.device())).collect();
    let mut report = format!(
        "verify {} ({}): {}\n  on {}\n",
        io::name(input, "stdin"),
        bytes(data.len() as u64),
        args.describe(),
        devices.join(" and ")
    );
    let mut checks =
        Checks { table: Table::new(&[("check", Align::Left), ("result", Align::Left)]), total: 0, failed: 0 };
    let mut streams = Vec::new();
    for (name, codec) in &codecs {
        progress.phase(format!("compressing on {name}"));
        match args.compress(codec, &data) {
            Ok(s) => {
                let summary = format!("{} (ratio {})", bytes(s.len() as u64), ratio(data.len() as u64, s.len() as u64));
                checks.add(format!("compress on {name}"), Ok(summary));
                streams.push((name, s));
            }
            Err(e) => checks.add(format!("compress on {name}"), Err(e.to_string())),
        }
    }
    if let [(cpu, cpu_stream), (gpu, gpu_stream)] = streams.as_slice() {
        let same = compare(gpu_stream, cpu_stream).map(|()| "byte-identical".to_string());
        checks.add(format!("{gpu} stream == {cpu} stream"), same);
    }
    for (stream_name, stream) in &streams {
        for (name, codec) in &codecs {
            progress.phase(format!("decompressing the {stream_name} stream on {name}"));
            let outcome = codec
                .decompress(stream)
                .map_err(|e| e.to_string())
                .and_then(|out| compare(&out, &data).map(|()| "equals the input".to_string()));
            checks.add(format!("{stream_name} stream decompressed on {name}"), outcome);
        }
    }
    report += &checks.table.to_string();
    if let Some(reason) = skipped {
        report += &format!("GPU checks skipped: {reason}\n");
    }
    if checks.failed == 0 {
        report += &format!("all {} checks passed\n", checks.total);
    }
    io::print(&report)?;
    match checks.failed {
        0 => Ok(()),
        failed => Err(CliError::Failed(format!("verify: {failed} of {} checks failed", checks.total))),
    }
}

/// `Ok` when `got == want`, else where they first differ.
fn compare(got: &[u8], want: &[u8]) -> Result<(), String> {
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        return Err(format!("differs at byte {i}"));
    }
    if got.len() != want.len() {
        return Err(format!("{} bytes, expected {}", got.len(), want.len()));
    }
    Ok(())
}
