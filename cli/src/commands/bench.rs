//! `gpucomp bench`: end-to-end throughput of the high-level API (kernel-level numbers come from
//! `cargo bench --bench throughput`).
use std::time::{Duration, Instant};

use gpucomp::Device;

use crate::args::{CodecArgs, Parsed};
use crate::device::{describe, Choice};
use crate::progress::Progress;
use crate::table::{Align, Table};
use crate::units::{bytes, duration, gbps, ratio};
use crate::{io, CliError};

/// Times compression and decompression of INPUT and prints a table.
pub fn run(p: &Parsed) -> Result<(), CliError> {
    let [input] = p.positionals(["INPUT"])?;
    let args = CodecArgs::from(p)?;
    let runs = p.count("runs", 10)?;
    let choice = Choice::from(p)?;
    let progress = Progress::new();
    let data = io::read(input, &progress)?;
    let codec = args.codec(choice.select(&progress)?)?;
    let device = describe(codec.device());
    let wall = Instant::now();
    progress.phase(format!("compressing {} {} times on {device}", bytes(data.len() as u64), runs + 1));
    let (stream, compress) = timed(runs, || args.compress(&codec, &data))
        .map_err(|e| CliError::lib(format!("cannot compress {}", io::name(input, "stdin")), e))?;
    progress.phase(format!("decompressing {} {} times on {device}", bytes(stream.len() as u64), runs + 1));
    let (output, decompress) = timed(runs, || codec.decompress(&stream))
        .map_err(|e| CliError::lib("cannot decompress the compressed stream", e))?;
    if output != data {
        return Err(CliError::Failed("bench: the decompressed output differs from the input".into()));
    }
    let wall = wall.elapsed();

    let copies = if matches!(codec.device(), Device::Gpu(_)) { "; times include host<->device copies" } else { "" };
    let mut report = format!(
        "bench {} ({}): {}\n  on {device}; {runs} timed runs after a warm-up{copies}\n",
        io::name(input, "stdin"),
        bytes(data.len() as u64),
        args.describe()
    );
    let right = Align::Right;
    let mut table =
        Table::new(&[("", Align::Left), ("median", right), ("min", right), ("max", right), ("throughput", right)]);
    for (phase, times) in [("compress", &compress), ("decompress", &decompress)] {
        let median = times[times.len() / 2];
        table.row(vec![
            phase.into(),
            duration(median),
            duration(times[0]),
            duration(times[times.len() - 1]),
            gbps(data.len() as u64, median),
        ]);
    }
    report += &table.to_string();
    report += &format!(
        "  ratio {} ({} → {}); wall clock {} in all; throughput in uncompressed GB/s (10^9 B/s)\n",
        ratio(data.len() as u64, stream.len() as u64),
        bytes(data.len() as u64),
        bytes(stream.len() as u64),
        duration(wall),
    );
    report += "  kernel-level numbers: cargo bench --bench throughput -- run FILE --algorithm ALG\n";
    io::print(&report)
}

/// Calls `f` once untimed, then `runs` times: the last result and the sorted durations.
fn timed<T>(runs: usize, mut f: impl FnMut() -> gpucomp::Result<T>) -> gpucomp::Result<(T, Vec<Duration>)> {
    let mut result = f()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        result = f()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok((result, times))
}
