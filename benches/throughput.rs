//! Throughput of gpucomp's batched GPU codecs on one file, every algorithm, measured the way
//! nvCOMP's anchors were (`benches/nvcomp/nvbench.cu`, `benches/nvcomp/anchors/`): the file split
//! into chunks, one batched call per direction over the whole file, 2 warm-up calls, then the
//! median of N calls timed with a CUDA event pair; the decompression output is poisoned before
//! each call, every chunk's status and bytes are verified. Throughput is uncompressed bytes per
//! second, GB = 10^9 bytes.
//!
//! ```text
//! cargo bench --bench throughput -- corpus DIR [SF=2] [TEXT_MB=256]
//! cargo bench --bench throughput -- run FILE --algorithm lz4|cascaded|bitcomp|ans|zstd [--type T] [options]
//! cargo bench --bench throughput -- streams JOBS
//! cargo bench --bench throughput -- calls FILE --algorithm lz4|cascaded|bitcomp|ans|zstd [--buffers 256] [--size 1048576]
//! ```
//!
//! `corpus` writes the nine TPC-H files of the anchors (`lineitem.tbl`, `lineitem_comment.txt`
//! and seven `lineitem_<column>.<type>` arrays) byte for byte as `shared/tools/corpus` does with
//! the same arguments (crate `tpchgen` 4.0.0).
//!
//! `run` benchmarks one algorithm on one file. Where the GPU has no compression kernel for the
//! algorithm yet (the batched API answers `Unsupported`), compression throughput is reported as
//! n/a with the reason, and GPU decompression runs on the chunks the CPU reference codec writes,
//! which are the bytes the GPU compressor is specified to write. Where GPU compression exists,
//! its chunks are also compared with the CPU codec's and decoded by the CPU decoder. Without GPU
//! kernels at all (ANS) or without a GPU, the CPU codec still gives the compression ratio. Prints
//! a table and CSV lines in nvbench's columns `algo,file,dtype,chunk,bytes,comp_bytes,ratio,
//! comp_GBps,decomp_GBps,ok` (`n/a` where not measured); exit status 1 if anything failed to
//! verify or the GPU part failed.
//!
//! `streams` writes NVCOMP_NATIVE streams with the high-level API (GPU 0 where it has kernels,
//! else the CPU codecs, which write the same bytes) for option combinations the CLI has no flags
//! for (Cascaded levels and flags, ANS states and sub-chunk counts), one job per line of JOBS:
//! `INPUT OUTPUT ALGORITHM TYPE [chunk=N] [level=N] [flags=for+delta+rle] [states=N]
//! [subchunks=N]`, ALGORITHM as the CLI's `--algorithm`. `benches/nvcomp/interop.py` uses it.
//!
//! `calls` times the high-level device-batch calls of [`Codec`] by wall clock, as a Rust or
//! Python program sees them (header reads, plans, allocations, launches, read-backs): a batch of
//! `--buffers` device buffers of `--size` bytes cut from FILE, NVCOMP_NATIVE streams of
//! `--chunk`-byte chunks; the median and tenth percentile of `--runs` calls after the warm-ups,
//! beside the cost of one stream synchronisation and one 8-byte read-back (the floor of a call
//! that waits).
use std::error::Error;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, DevicePtr};
use gpucomp::batched::{self, BatchedCodec, CompressBatch, DecompressBatch};
use gpucomp::codec::DeviceRange;
use gpucomp::gpu::Gpu;
use gpucomp::{
    Algorithm, AnsOptions, BitcompAlgorithm, BitcompOptions, CascadedOptions, Codec, DataType, Device, Lz4Encoder,
    Lz4Options, Status, ZstdOptions,
};

const USAGE: &str = "\
usage: throughput corpus DIR [SF=2] [TEXT_MB=256]
       throughput run FILE --algorithm lz4|cascaded|bitcomp|ans|zstd [--type T] [--chunk 65536] [--runs 15]
                      [--encoder gpucomp|nvcomp|both] (lz4, default both)
                      [--bitcomp default|sparse|both] (bitcomp, default default)
                      [--level N] [--flags for+delta+rle] (cascaded) [--states N] [--subchunks N] (ans)
                      [--level N] (zstd: 1-22, default 3; compressed on the CPU, decompressed on the GPU)
                      [--baselines on|off] (lz4_flex, zstd -1 on the CPU; default on for lz4)
                      [--cpu-runs 5] [--bw GBPS] (device copy bandwidth: also print % of BW/(1+1/r))
       throughput calls FILE --algorithm A [--type T] [algorithm options] [--buffers 256] [--size 1048576]
                      [--chunk 65536] [--runs 50]
       throughput streams JOBS   (lines: INPUT OUTPUT ALGORITHM TYPE [chunk=N] [level=N]
                                  [flags=for+delta+rle] [states=N] [subchunks=N])";
/// Untimed runs before the timed ones (as nvbench): module load, JIT and first touch stay out.
const WARMUP: usize = 2;
/// Byte the decompression output is filled with before each call, so unwritten bytes show.
const POISON: u8 = 0xA5;

type Res<T> = Result<T, Box<dyn Error>>;

fn main() -> ExitCode {
    // `cargo bench` appends `--bench`; with no command it runs every bench target: nothing to do.
    let all: Vec<String> = std::env::args().skip(1).collect();
    let from_cargo_bench = all.iter().any(|a| a == "--bench");
    let args: Vec<&str> = all.iter().map(String::as_str).filter(|a| *a != "--bench").collect();
    let result = match args.as_slice() {
        ["corpus", dir, rest @ ..] if rest.len() <= 2 => corpus_command(dir, rest),
        ["run", file, opts @ ..] => run_command(file, opts),
        ["streams", jobs] => streams_command(jobs),
        ["calls", file, opts @ ..] => calls_command(file, opts),
        _ => {
            eprintln!("{USAGE}");
            return if from_cargo_bench && args.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) };
        }
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

// ---------------------------------------------------------------------------------------------
// corpus

fn corpus_command(dir: &str, rest: &[&str]) -> Res<bool> {
    let sf: f64 = rest.first().map_or(Ok(2.0), |s| s.parse()).map_err(|e| format!("SF: {e}"))?;
    let text_mb: usize = rest.get(1).map_or(Ok(256), |s| s.parse()).map_err(|e| format!("TEXT_MB: {e}"))?;
    write_corpus(Path::new(dir), sf, text_mb)?;
    Ok(true)
}

/// The files of `shared/tools/corpus OUT SF TEXT_MB`, by the same code: every row's seven
/// columns as little-endian arrays, and whole text lines until TEXT_MB MiB are reached.
fn write_corpus(dir: &Path, sf: f64, text_mb: usize) -> Res<()> {
    std::fs::create_dir_all(dir)?;
    let create = |name: &str| -> Res<BufWriter<std::fs::File>> {
        Ok(BufWriter::with_capacity(1 << 20, std::fs::File::create(dir.join(name))?))
    };
    let mut orderkey = create("lineitem_orderkey.i64")?;
    let mut partkey = create("lineitem_partkey.i32")?;
    let mut quantity = create("lineitem_quantity.i32")?;
    let mut price = create("lineitem_extendedprice.i64")?;
    let mut discount = create("lineitem_discount.u8")?;
    let mut shipdate = create("lineitem_shipdate.i32")?;
    let mut linenumber = create("lineitem_linenumber.u8")?;
    let (mut tbl, mut comment) = (create("lineitem.tbl")?, create("lineitem_comment.txt")?);
    let limit = text_mb << 20;
    let (mut tbl_bytes, mut comment_bytes, mut rows) = (0usize, 0usize, 0u64);
    eprintln!("corpus: TPC-H lineitem at scale factor {sf}, {text_mb} MiB of text each, into {}", dir.display());
    let t0 = Instant::now();
    for li in tpchgen::generators::LineItemGenerator::new(sf, 1, 1).iter() {
        orderkey.write_all(&li.l_orderkey.to_le_bytes())?;
        partkey.write_all(&(li.l_partkey as i32).to_le_bytes())?;
        quantity.write_all(&(li.l_quantity as i32).to_le_bytes())?;
        price.write_all(&li.l_extendedprice.into_inner().to_le_bytes())?;
        discount.write_all(&[li.l_discount.into_inner() as u8])?;
        shipdate.write_all(&li.l_shipdate.into_inner().to_le_bytes())?;
        linenumber.write_all(&[li.l_linenumber as u8])?;
        if tbl_bytes < limit {
            let line = format!("{li}\n");
            tbl_bytes += line.len();
            tbl.write_all(line.as_bytes())?;
        }
        if comment_bytes < limit {
            comment_bytes += li.l_comment.len() + 1;
            comment.write_all(li.l_comment.as_bytes())?;
            comment.write_all(b"\n")?;
        }
        rows += 1;
        if rows % 4_000_000 == 0 {
            eprintln!("corpus: {rows} rows ({:.1} s) ...", t0.elapsed().as_secs_f64());
        }
    }
    for w in [&mut orderkey, &mut partkey, &mut quantity, &mut price, &mut discount, &mut shipdate, &mut linenumber] {
        w.flush()?;
    }
    tbl.flush()?;
    comment.flush()?;
    eprintln!(
        "corpus: {rows} rows in {:.1} s: seven columns, lineitem.tbl {tbl_bytes} bytes, lineitem_comment.txt {comment_bytes} bytes",
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// algorithms and their options

/// Algorithm options given on the command line (`run`) or in a job line (`streams`).
#[derive(Default)]
struct AlgoArgs {
    data_type: Option<DataType>,
    lz4_encoders: Option<Vec<Lz4Encoder>>,
    bitcomp: Option<Vec<BitcompAlgorithm>>,
    level: Option<u8>,
    /// Cascaded (delta, rle, for).
    flags: Option<(bool, bool, bool)>,
    states: Option<u8>,
    subchunks: Option<u8>,
}

impl AlgoArgs {
    /// Reads one option; false if `key` is not an algorithm option.
    fn set(&mut self, key: &str, value: &str) -> Res<bool> {
        let int = |v: &str| v.parse::<u8>().map_err(|e| format!("{key} {v}: {e}"));
        match key {
            "type" => {
                self.data_type = Some(DataType::from_name(value).ok_or_else(|| format!("unknown data type {value}"))?)
            }
            "encoder" => {
                self.lz4_encoders = Some(match value {
                    "gpucomp" => vec![Lz4Encoder::Gpucomp],
                    "nvcomp" => vec![Lz4Encoder::Nvcomp],
                    "both" => vec![Lz4Encoder::Gpucomp, Lz4Encoder::Nvcomp],
                    _ => return Err(format!("--encoder {value}: gpucomp, nvcomp or both").into()),
                })
            }
            "bitcomp" => {
                self.bitcomp = Some(match value {
                    "default" | "0" => vec![BitcompAlgorithm::Default],
                    "sparse" | "1" => vec![BitcompAlgorithm::Sparse],
                    "both" => vec![BitcompAlgorithm::Default, BitcompAlgorithm::Sparse],
                    _ => return Err(format!("--bitcomp {value}: default, sparse or both").into()),
                })
            }
            "level" => self.level = Some(int(value)?),
            "flags" => {
                let mut f = (false, false, false);
                for name in value.split('+').filter(|s| !s.is_empty()) {
                    match name {
                        "delta" => f.0 = true,
                        "rle" => f.1 = true,
                        "for" => f.2 = true,
                        _ => return Err(format!("flags {value}: a '+'-list of for, delta, rle").into()),
                    }
                }
                self.flags = Some(f);
            }
            "states" => self.states = Some(int(value)?),
            "subchunks" => self.subchunks = Some(int(value)?),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The variants to measure: (the `algo` column, algorithm with options). LZ4 gives one per
    /// encoder (both by default), Bitcomp one per coder (the default coder by default).
    fn variants(&self, name: &str) -> Res<Vec<(String, Algorithm)>> {
        let t = |default: DataType| self.data_type.unwrap_or(default);
        Ok(match name {
            "lz4" => {
                let encoders = self.lz4_encoders.clone().unwrap_or(vec![Lz4Encoder::Gpucomp, Lz4Encoder::Nvcomp]);
                encoders
                    .into_iter()
                    .map(|encoder| {
                        let label = match encoder {
                            Lz4Encoder::Gpucomp => "gpucomp-lz4",
                            Lz4Encoder::Nvcomp => "gpucomp-lz4-nvenc",
                        };
                        let o = Lz4Options::default().with_data_type(t(DataType::Char)).with_encoder(encoder);
                        (label.to_string(), Algorithm::Lz4(o))
                    })
                    .collect()
            }
            "cascaded" => {
                let mut o = CascadedOptions::default().with_data_type(t(DataType::Uint));
                if let Some(level) = self.level {
                    o.compression_level = level;
                }
                if let Some((delta, rle, frame_of_reference)) = self.flags {
                    (o.delta, o.rle, o.frame_of_reference) = (delta, rle, frame_of_reference);
                }
                vec![("gpucomp-cascaded".into(), Algorithm::Cascaded(o))]
            }
            "bitcomp" | "bitcomp-sparse" => {
                let default = if name == "bitcomp" { BitcompAlgorithm::Default } else { BitcompAlgorithm::Sparse };
                let coders = self.bitcomp.clone().unwrap_or(vec![default]);
                coders
                    .into_iter()
                    .map(|algorithm| {
                        let label = match algorithm {
                            BitcompAlgorithm::Default => "gpucomp-bitcomp",
                            BitcompAlgorithm::Sparse => "gpucomp-bitcomp-sparse",
                        };
                        (
                            label.to_string(),
                            Algorithm::Bitcomp(
                                BitcompOptions::default().with_algorithm(algorithm).with_data_type(t(DataType::Uchar)),
                            ),
                        )
                    })
                    .collect()
            }
            "ans" => {
                let mut o = AnsOptions::for_type(t(DataType::Char));
                o.states_per_lane = self.states.unwrap_or(0);
                o.max_sub_chunk_count = self.subchunks.unwrap_or(0);
                vec![("gpucomp-ans".into(), Algorithm::Ans(o))]
            }
            "zstd" => {
                let level = self.level.map_or(ZstdOptions::DEFAULT_LEVEL, i32::from);
                vec![("gpucomp-zstd".into(), Algorithm::Zstd(ZstdOptions::default().with_level(level)))]
            }
            _ => {
                return Err(
                    format!("unknown algorithm {name}: lz4, cascaded, bitcomp, bitcomp-sparse, ans or zstd").into()
                )
            }
        })
    }
}

/// The data type an algorithm was given, for the `dtype` column (nvbench's names).
fn data_type_of(algorithm: &Algorithm) -> DataType {
    match algorithm {
        Algorithm::Lz4(o) => o.data_type,
        Algorithm::Cascaded(o) => o.data_type,
        Algorithm::Bitcomp(o) => o.data_type,
        Algorithm::Ans(o) => o.data_type,
        _ => DataType::Char,
    }
}

// ---------------------------------------------------------------------------------------------
// calls

/// `calls`: the high-level device-batch calls, wall clock per call.
fn calls_command(file: &str, opts: &[&str]) -> Res<bool> {
    let (mut buffers, mut size) = (256usize, 1usize << 20);
    let mut rest = Vec::new();
    let mut it = opts.iter();
    while let Some(&opt) = it.next() {
        match opt {
            "--buffers" | "--size" => {
                let v = it.next().and_then(|v| v.parse::<usize>().ok()).filter(|&n| n > 0);
                let v = v.ok_or_else(|| format!("{opt} needs a positive integer"))?;
                *(if opt == "--buffers" { &mut buffers } else { &mut size }) = v;
            }
            _ => rest.push(opt),
        }
    }
    let args = RunArgs::parse(&rest)?;
    let (label, algorithm) = args.algo.variants(&args.algorithm)?.into_iter().next().ok_or("no variant")?;
    let data = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    if data.is_empty() {
        return Err(format!("{file} is empty").into());
    }
    let gpu = Gpu::new(0)?;
    let s = gpu.stream().clone();
    println!(
        "{label}: {buffers} buffers of {size} bytes ({} chunks of {}), {}; median / p10 of {} calls after {WARMUP}",
        buffers * size.div_ceil(args.chunk),
        args.chunk,
        gpu.info().name,
        args.runs
    );
    let batch: Vec<u8> = data.iter().copied().cycle().take(buffers * size).collect();
    let input = s.clone_htod(&batch)?;
    let base = input.device_ptr(&s).0;
    let inputs: Vec<DeviceRange> =
        (0..buffers).map(|i| DeviceRange { address: base + (i * size) as u64, len: size }).collect();
    let codec = Codec::on(algorithm, Device::Gpu(gpu.clone())).with_chunk_size(args.chunk)?;
    let kind = gpucomp::BitstreamKind::Native;
    let time = |name: &str, call: &mut dyn FnMut() -> gpucomp::Result<()>| -> Res<()> {
        let mut us = Vec::with_capacity(args.runs);
        for r in 0..WARMUP + args.runs {
            let t = Instant::now();
            call()?;
            if r >= WARMUP {
                us.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        us.sort_by(f64::total_cmp);
        let (med, p10) = (us[us.len() / 2], us[us.len() / 10]);
        let gbps = (buffers * size) as f64 / med / 1e3;
        println!("  {name:32} {med:9.1} us  (p10 {p10:9.1})  {gbps:8.1} GB/s");
        Ok(())
    };
    time("stream synchronize", &mut || Ok(s.synchronize()?))?;
    let word = s.alloc_zeros::<u64>(1)?;
    time("8-byte read-back", &mut || Ok(s.clone_dtoh(&word).map(drop)?))?;
    // SAFETY: the inputs live in `input` until the end; every call below waits for its work.
    let streams = unsafe { codec.compress_device_batch(&inputs, kind)? };
    let bound = codec.max_compressed_size(size, kind)?;
    let comp_out = s.alloc_zeros::<u8>(buffers * bound)?;
    let comp_base = comp_out.device_ptr(&s).0;
    let comp_outs: Vec<DeviceRange> =
        (0..buffers).map(|i| DeviceRange { address: comp_base + (i * bound) as u64, len: bound }).collect();
    let dec_out = s.alloc_zeros::<u8>(buffers * size)?;
    let dec_base = dec_out.device_ptr(&s).0;
    let dec_outs: Vec<DeviceRange> =
        (0..buffers).map(|i| DeviceRange { address: dec_base + (i * size) as u64, len: size }).collect();
    let ranges = streams.ranges();
    // SAFETY (each call): inputs, streams and outputs are live, disjoint device buffers of this
    // GPU, and every call returns after its work is read back.
    time("compress_device_batch", &mut || unsafe { codec.compress_device_batch(&inputs, kind).map(drop) })?;
    time("compress_device_batch_into", &mut || unsafe {
        codec.compress_device_batch_into(&inputs, kind, &comp_outs).map(drop)
    })?;
    time("decompressed_sizes_device", &mut || unsafe { codec.decompressed_sizes_device(&ranges).map(drop) })?;
    time("decompress_device_batch", &mut || unsafe { codec.decompress_device_batch(&ranges).map(drop) })?;
    time("decompress_device_batch_into", &mut || unsafe {
        codec.decompress_device_batch_into(&ranges, &dec_outs).map(drop)
    })?;
    let decoded = s.clone_dtoh(&dec_out)?;
    Ok(decoded == batch)
}

// ---------------------------------------------------------------------------------------------
// run

/// Options of `run`.
struct RunArgs {
    algorithm: String,
    algo: AlgoArgs,
    chunk: usize,
    runs: usize,
    cpu_runs: usize,
    baselines: Option<bool>,
    bandwidth: Option<f64>,
}

impl RunArgs {
    fn parse(opts: &[&str]) -> Res<RunArgs> {
        let mut a = RunArgs {
            algorithm: String::new(),
            algo: AlgoArgs::default(),
            chunk: 65536,
            runs: 15,
            cpu_runs: 5,
            baselines: None,
            bandwidth: None,
        };
        let mut it = opts.iter();
        while let Some(opt) = it.next() {
            let key = opt.strip_prefix("--").ok_or_else(|| format!("unexpected argument {opt}\n{USAGE}"))?;
            let value = it.next().ok_or_else(|| format!("{opt} needs a value\n{USAGE}"))?;
            let count =
                |v: &str| v.parse::<usize>().ok().filter(|&n| n > 0).ok_or(format!("{opt} {v}: a positive integer"));
            match key {
                "algorithm" => a.algorithm = value.to_string(),
                "chunk" => a.chunk = count(value)?,
                "runs" => a.runs = count(value)?,
                "cpu-runs" => a.cpu_runs = count(value)?,
                "baselines" => {
                    a.baselines = Some(match *value {
                        "on" => true,
                        "off" => false,
                        _ => return Err(format!("--baselines {value}: on or off").into()),
                    })
                }
                "bw" => a.bandwidth = Some(value.parse().map_err(|e| format!("--bw {value}: {e}"))?),
                _ => {
                    if !a.algo.set(key, value)? {
                        return Err(format!("unknown option {opt}\n{USAGE}").into());
                    }
                }
            }
        }
        if a.algorithm.is_empty() {
            return Err(format!("--algorithm is required\n{USAGE}").into());
        }
        Ok(a)
    }
}

/// One line of the report. `None` throughputs were not measured (the reason is in `notes`).
struct Row {
    algo: String,
    dtype: DataType,
    /// Sum of the compressed chunk sizes (no container), if known.
    comp_bytes: Option<u64>,
    /// Median seconds of one compression / decompression call over the whole file.
    comp_s: Option<f64>,
    decomp_s: Option<f64>,
    ok: bool,
    notes: Vec<String>,
}

impl Row {
    fn new(algo: &str, dtype: DataType) -> Row {
        Row { algo: algo.into(), dtype, comp_bytes: None, comp_s: None, decomp_s: None, ok: true, notes: Vec::new() }
    }

    /// Records a failed check: the row is no longer ok.
    fn fail(&mut self, note: String) {
        eprintln!("{}: {note}", self.algo);
        self.notes.push(note);
        self.ok = false;
    }
}

fn run_command(file: &str, opts: &[&str]) -> Res<bool> {
    let args = RunArgs::parse(opts)?;
    let variants = args.algo.variants(&args.algorithm)?;
    let data = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    if data.is_empty() {
        return Err(format!("{file} is empty").into());
    }
    let chunk = args.chunk;
    for (label, algorithm) in &variants {
        let width = algorithm.element_width().map_err(|e| format!("{label}: {e}"))?;
        if chunk % width != 0 || chunk > algorithm.max_chunk_size() {
            return Err(format!(
                "{label}: --chunk {chunk} must be a multiple of {width} up to {}",
                algorithm.max_chunk_size()
            )
            .into());
        }
    }
    let name = Path::new(file).file_name().map_or(file.into(), |n| n.to_string_lossy().into_owned());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{name}: {} bytes, {} chunks of {chunk} bytes; median of {} runs after {WARMUP} warm-up runs",
        data.len(),
        data.len().div_ceil(chunk),
        args.runs
    );

    let mut rows = Vec::new();
    let mut gpu_failed = false;
    let gpu = match Gpu::new(0) {
        Ok(gpu) => {
            let info = gpu.info();
            println!(
                "GPU: {} (compute capability {}.{}, {} PTX); timed with CUDA events around each batched call",
                info.name, info.compute_capability.0, info.compute_capability.1, info.ptx_arch
            );
            Some(gpu)
        }
        Err(e) => {
            println!("GPU part skipped: {e} (the CPU reference codec still gives the compression ratio)");
            None
        }
    };
    let input = match &gpu {
        Some(g) => match GpuInput::new(g, &data, chunk) {
            Ok(input) => Some(input),
            Err(e) => {
                println!("GPU part failed: {e}");
                gpu_failed = true;
                None
            }
        },
        None => None,
    };
    for (label, algorithm) in &variants {
        let mut row = Row::new(label, data_type_of(algorithm));
        // The CPU reference codec's chunks: the bytes every GPU compressor must write.
        let reference = cpu_compress(algorithm, &data, chunk, threads);
        match (&gpu, &input) {
            (Some(g), Some(input)) if !gpu_failed => {
                // A driver or launch error ends the GPU part; the rows so far and the baselines stay.
                if let Err(e) = gpu_variant(g, input, &data, algorithm, &reference, args.runs, threads, &mut row) {
                    println!("GPU part failed: {label}: {e}");
                    row.fail(format!("GPU error: {e}"));
                    gpu_failed = true;
                }
            }
            _ => cpu_only_variant(algorithm, &data, chunk, &reference, threads, &mut row),
        }
        rows.push(row);
    }
    let lz4 = matches!(variants.first(), Some((_, Algorithm::Lz4(_))));
    if args.baselines.unwrap_or(lz4) {
        println!("CPU baselines: {threads} threads (std::thread::scope, each a contiguous range of chunks)");
        rows.push(cpu_bench::<Lz4Flex>(&data, chunk, args.cpu_runs, threads));
        rows.push(cpu_bench::<Zstd1>(&data, chunk, args.cpu_runs, threads));
    }
    print_report(&name, &data, chunk, &rows, args.bandwidth);
    Ok(!gpu_failed && rows.iter().all(|r| r.ok))
}

fn print_report(name: &str, data: &[u8], chunk: usize, rows: &[Row], bandwidth: Option<f64>) {
    let bytes = data.len() as f64;
    let gbps = |s: Option<f64>| s.map(|s| bytes / s / 1e9);
    let ratio = |r: &Row| r.comp_bytes.map(|c| bytes / c as f64);
    let show = |x: Option<f64>, prec: usize| x.map_or("n/a".to_string(), |x| format!("{x:.prec$}"));
    if let Some(bw) = bandwidth {
        println!(
            "\nbound = {bw:.0} GB/s copy bandwidth (read + written) / (1 + 1/ratio); comp %, decomp %: of the bound"
        );
    }
    print!(
        "\n{:<24} {:<9} {:>12} {:>7} {:>10} {:>12}",
        "algo", "dtype", "comp_bytes", "ratio", "comp GB/s", "decomp GB/s"
    );
    if bandwidth.is_some() {
        print!("  {:>9} {:>8} {:>8}", "bound", "comp %", "decomp %");
    }
    println!("  ok");
    for r in rows {
        let ok = if r.ok { "ok" } else { "MISMATCH" };
        print!(
            "{:<24} {:<9} {:>12} {:>7} {:>10} {:>12}",
            r.algo,
            r.dtype.name(),
            r.comp_bytes.map_or("n/a".into(), |c| c.to_string()),
            show(ratio(r), 3),
            show(gbps(r.comp_s), 2),
            show(gbps(r.decomp_s), 2)
        );
        if let Some(bw) = bandwidth {
            let bound = ratio(r).map(|q| bw / (1.0 + 1.0 / q));
            let pct = |g: Option<f64>| g.zip(bound).map(|(g, b)| 100.0 * g / b);
            print!("  {:>9} {:>8} {:>8}", show(bound, 0), show(pct(gbps(r.comp_s)), 1), show(pct(gbps(r.decomp_s)), 1));
        }
        println!("  {ok}{}", if r.notes.is_empty() { String::new() } else { format!("  ({})", r.notes.join(" | ")) });
    }
    println!("\nalgo,file,dtype,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok");
    for r in rows {
        println!(
            "{},{name},{},{chunk},{},{},{},{},{},{}",
            r.algo,
            r.dtype.name(),
            data.len(),
            r.comp_bytes.map_or("n/a".into(), |c| c.to_string()),
            show(ratio(r), 3),
            show(gbps(r.comp_s), 2),
            show(gbps(r.decomp_s), 2),
            if r.ok { "ok" } else { "MISMATCH" }
        );
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs `f(i)` for `i in 0..n` on `threads` threads, each a contiguous range; results in order.
fn parallel_map<R: Send>(n: usize, threads: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let per = n.div_ceil(threads.max(1)).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let parts: Vec<_> = (0..n)
            .step_by(per)
            .map(|start| scope.spawn(move || (start..(start + per).min(n)).map(f).collect::<Vec<R>>()))
            .collect();
        parts.into_iter().flat_map(|p| p.join().expect("a worker thread panicked")).collect()
    })
}

/// Each chunk compressed by the CPU reference codec, or the first chunk's failure.
type Chunks = Result<Vec<Vec<u8>>, String>;

fn cpu_compress(algorithm: &Algorithm, data: &[u8], chunk: usize, threads: usize) -> Chunks {
    let t = Instant::now();
    let srcs: Vec<&[u8]> = data.chunks(chunk).collect();
    let largest = chunk.min(data.len());
    let bound = algorithm.max_compressed_chunk_size(chunk);
    let out = parallel_map(srcs.len(), threads, |i| {
        let mut buf = vec![0u8; bound];
        gpucomp::cpu::compress_chunk(algorithm, largest, srcs[i], &mut buf).map(|n| {
            buf.truncate(n);
            buf
        })
    });
    let chunks = out.into_iter().enumerate().map(|(i, r)| r.map_err(|s| format!("chunk {i}: {s}"))).collect();
    eprintln!(
        "CPU reference codec: compressed {} chunks in {:.2} s ({threads} threads)",
        srcs.len(),
        t.elapsed().as_secs_f64()
    );
    chunks
}

/// Decodes `chunks` with the CPU reference decoder; a description of the first difference from
/// `data`, if any.
fn cpu_check(algorithm: &Algorithm, data: &[u8], chunk: usize, chunks: &[&[u8]], threads: usize) -> Option<String> {
    let srcs: Vec<&[u8]> = data.chunks(chunk).collect();
    let bad = parallel_map(chunks.len(), threads, |i| {
        let mut out = vec![POISON; chunk];
        match gpucomp::cpu::decompress_chunk(algorithm, chunks[i], &mut out) {
            Ok(n) if out[..n] == *srcs[i] => None,
            Ok(n) => Some(format!("chunk {i} decodes to {n} bytes that differ from the input")),
            Err(s) => Some(format!("chunk {i}: {s}")),
        }
    });
    let failed: Vec<String> = bad.into_iter().flatten().collect();
    failed.first().map(|first| format!("{} chunks fail in the CPU decoder, first {first}", failed.len()))
}

/// Without a GPU (or without any GPU kernels for the algorithm): the CPU codec's ratio, and its
/// round trip checked.
fn cpu_only_variant(
    algorithm: &Algorithm,
    data: &[u8],
    chunk: usize,
    reference: &Chunks,
    threads: usize,
    row: &mut Row,
) {
    match reference {
        Ok(chunks) => {
            row.comp_bytes = Some(chunks.iter().map(|c| c.len() as u64).sum());
            let views: Vec<&[u8]> = chunks.iter().map(Vec::as_slice).collect();
            if let Some(e) = cpu_check(algorithm, data, chunk, &views, threads) {
                row.fail(format!("CPU codec round trip: {e}"));
            }
        }
        Err(e) => row.fail(format!("CPU codec failed: {e}")),
    }
    row.notes.push("GPU throughput n/a (no GPU); ratio from the CPU codec".into());
}

// ---------------------------------------------------------------------------------------------
// GPU

/// The file on the device and its chunk tables, shared by every variant.
struct GpuInput {
    n: usize,
    chunk: usize,
    in_ptrs: CudaSlice<u64>,
    in_bytes: CudaSlice<u64>,
    _input: CudaSlice<u8>,
}

impl GpuInput {
    fn new(gpu: &Gpu, data: &[u8], chunk: usize) -> Res<GpuInput> {
        let s = gpu.stream();
        let n = data.len().div_ceil(chunk);
        let input = s.clone_htod(data)?;
        let base = input.device_ptr(s).0;
        let ptrs: Vec<u64> = (0..n).map(|i| base + (i * chunk) as u64).collect();
        let bytes: Vec<u64> = data.chunks(chunk).map(|c| c.len() as u64).collect();
        Ok(GpuInput { n, chunk, in_ptrs: s.clone_htod(&ptrs)?, in_bytes: s.clone_htod(&bytes)?, _input: input })
    }
}

/// Output buffers of one variant, allocated outside all timing. Compressed chunk `i` lives at
/// `i * stride` (the queried bound rounded to 16, as nvbench does), decompressed chunk `i` at
/// `i * chunk`.
struct GpuOutput {
    stride: usize,
    comp: CudaSlice<u8>,
    comp_ptrs: CudaSlice<u64>,
    comp_bytes: CudaSlice<u64>,
    dec: CudaSlice<u8>,
    dec_ptrs: CudaSlice<u64>,
    dec_capacity: CudaSlice<u64>,
    dec_actual: CudaSlice<u64>,
    statuses: CudaSlice<i32>,
}

impl GpuOutput {
    fn new(gpu: &Gpu, input: &GpuInput, bound: usize) -> Res<GpuOutput> {
        let (s, n, chunk) = (gpu.stream(), input.n, input.chunk);
        let stride = bound.next_multiple_of(16);
        let comp = s.alloc_zeros::<u8>(n * stride)?;
        let dec = s.alloc_zeros::<u8>(n * chunk)?;
        let addresses = |buf: &CudaSlice<u8>, step: usize| {
            let base = buf.device_ptr(s).0;
            (0..n).map(|i| base + (i * step) as u64).collect::<Vec<u64>>()
        };
        Ok(GpuOutput {
            stride,
            comp_ptrs: s.clone_htod(&addresses(&comp, stride))?,
            comp_bytes: s.alloc_zeros(n)?,
            dec_ptrs: s.clone_htod(&addresses(&dec, chunk))?,
            dec_capacity: s.clone_htod(&vec![chunk as u64; n])?,
            dec_actual: s.alloc_zeros(n)?,
            statuses: s.alloc_zeros(n)?,
            comp,
            dec,
        })
    }
}

/// Times `call` WARMUP + runs times with a CUDA event pair; the median of the timed calls in
/// seconds. The first call's error is returned as is (e.g. `Unsupported`), before any timing.
fn time_calls(
    gpu: &Gpu,
    runs: usize,
    mut call: impl FnMut() -> gpucomp::Result<()>,
) -> Res<Result<f64, gpucomp::Error>> {
    let s = gpu.stream();
    let start = gpu.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
    let end = gpu.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
    let mut times = Vec::with_capacity(runs);
    for r in 0..WARMUP + runs {
        start.record(s)?;
        if let Err(e) = call() {
            if r == 0 {
                return Ok(Err(e));
            }
            return Err(e.into());
        }
        end.record(s)?;
        let ms = start.elapsed_ms(&end)?;
        if r >= WARMUP {
            times.push(ms as f64 / 1e3);
        }
    }
    Ok(Ok(median(times)))
}

/// Chunks that failed: their count and the first one's status, if any.
fn failed_statuses(statuses: &[i32]) -> Option<String> {
    let bad: Vec<usize> = (0..statuses.len()).filter(|&i| statuses[i] != Status::Success as i32).collect();
    bad.first().map(|&i| format!("{} chunks failed, first chunk {i}: {}", bad.len(), Status::from_raw(statuses[i])))
}

/// One variant on the GPU: compression (or the CPU codec's chunks where the GPU has no
/// compressor), then decompression, each timed and verified.
#[allow(clippy::too_many_arguments)]
fn gpu_variant(
    gpu: &Gpu,
    input: &GpuInput,
    data: &[u8],
    algorithm: &Algorithm,
    reference: &Chunks,
    runs: usize,
    threads: usize,
    row: &mut Row,
) -> Res<()> {
    let (s, n, chunk) = (gpu.stream(), input.n, input.chunk);
    let label = row.algo.clone();
    let codec: Box<dyn BatchedCodec> = match batched::for_algorithm(algorithm) {
        Ok(c) => c,
        Err(gpucomp::Error::Unsupported(reason)) => {
            cpu_only_variant(algorithm, data, chunk, reference, threads, row);
            row.notes.pop();
            row.notes.push(format!("GPU throughput n/a: {reason}; ratio from the CPU codec"));
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let mut out = GpuOutput::new(gpu, input, codec.max_compressed_chunk_size(chunk)?)?;
    let alloc_temp = |bytes: usize| (bytes > 0).then(|| s.alloc_zeros::<u8>(bytes)).transpose();
    let mut comp_temp = alloc_temp(codec.compress_temp_size(n, chunk)?)?;
    let mut dec_temp = alloc_temp(codec.decompress_temp_size(n, chunk)?)?;

    eprintln!("{label}: compressing on the GPU, {} calls ...", WARMUP + runs);
    let comp = time_calls(gpu, runs, || {
        // SAFETY: the pointer arrays address `n` chunks inside the input (in_bytes each) and
        // `out.comp` (stride >= the queried bound each), which outlive the call; time_calls
        // waits for each call's end event.
        unsafe {
            codec.compress_async(
                gpu,
                CompressBatch {
                    in_ptrs: &input.in_ptrs,
                    in_bytes: &input.in_bytes,
                    num_chunks: n,
                    max_uncompressed_chunk_bytes: chunk,
                    temp: comp_temp.as_mut(),
                    out_ptrs: &out.comp_ptrs,
                    out_bytes: &mut out.comp_bytes,
                    statuses: Some(&mut out.statuses),
                },
            )
        }
    })?;
    match comp {
        Ok(seconds) => {
            row.comp_s = Some(seconds);
            if let Some(e) = failed_statuses(&s.clone_dtoh(&out.statuses)?) {
                row.fail(format!("compress: {e}"));
                return Ok(());
            }
            let sizes: Vec<usize> = s.clone_dtoh(&out.comp_bytes)?.into_iter().map(|b| b as usize).collect();
            if let Some(i) = sizes.iter().position(|&b| b > out.stride) {
                row.fail(format!("chunk {i} compressed to {} bytes, over the bound {}", sizes[i], out.stride));
                return Ok(());
            }
            row.comp_bytes = Some(sizes.iter().sum::<usize>() as u64);
            check_gpu_chunks(
                algorithm,
                data,
                chunk,
                &s.clone_dtoh(&out.comp)?,
                out.stride,
                &sizes,
                reference,
                threads,
                row,
            );
        }
        Err(gpucomp::Error::Unsupported(reason)) => {
            row.notes.push(format!("compression n/a: {reason}; decompression of the CPU codec's chunks"));
            let chunks = match reference {
                Ok(c) => c,
                Err(e) => {
                    row.fail(format!("CPU codec failed: {e}"));
                    return Ok(());
                }
            };
            let mut host = vec![0u8; n * out.stride];
            for (i, c) in chunks.iter().enumerate() {
                host[i * out.stride..][..c.len()].copy_from_slice(c);
            }
            s.memcpy_htod(&host, &mut out.comp)?;
            let sizes: Vec<usize> = chunks.iter().map(Vec::len).collect();
            s.memcpy_htod(&sizes.iter().map(|&b| b as u64).collect::<Vec<u64>>(), &mut out.comp_bytes)?;
            row.comp_bytes = Some(sizes.iter().sum::<usize>() as u64);
        }
        Err(e) => return Err(e.into()),
    }

    eprintln!("{label}: decompressing on the GPU, {} calls ...", WARMUP + runs);
    let dec_addr = out.dec.device_ptr(s).0;
    let start = gpu.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
    let end = gpu.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
    let mut times = Vec::with_capacity(runs);
    for r in 0..WARMUP + runs {
        // SAFETY: `dec` holds n·chunk bytes; stream-ordered before the start event.
        unsafe { cudarc::driver::result::memset_d8_async(dec_addr, POISON, n * chunk, s.cu_stream())? };
        start.record(s)?;
        // SAFETY: `comp_ptrs`/`comp_bytes` describe the compressed chunks (GPU-written or
        // uploaded); `dec_ptrs` address `n` slots of `chunk` bytes in `dec`, as `dec_capacity`
        // says; the elapsed-time query waits for the call.
        unsafe {
            codec.decompress_async(
                gpu,
                DecompressBatch {
                    in_ptrs: &out.comp_ptrs,
                    in_bytes: &out.comp_bytes,
                    num_chunks: n,
                    max_uncompressed_chunk_bytes: chunk,
                    temp: dec_temp.as_mut(),
                    out_ptrs: &out.dec_ptrs,
                    out_capacity: &out.dec_capacity,
                    out_actual: Some(&mut out.dec_actual),
                    statuses: Some(&mut out.statuses),
                },
            )?
        };
        end.record(s)?;
        let ms = start.elapsed_ms(&end)?;
        if r >= WARMUP {
            times.push(ms as f64 / 1e3);
        }
    }
    row.decomp_s = Some(median(times));
    if let Some(e) = failed_statuses(&s.clone_dtoh(&out.statuses)?) {
        row.fail(format!("decompress: {e}"));
    }
    let actual: Vec<usize> = s.clone_dtoh(&out.dec_actual)?.into_iter().map(|b| b as usize).collect();
    if let Some(e) = diff_chunks(&s.clone_dtoh(&out.dec)?, chunk, &actual, data) {
        row.fail(format!("GPU decompression: {e}"));
    }
    Ok(())
}

/// Checks of the GPU's compressed chunks: the CPU decoder reads each back to its input (and
/// lz4_flex too for LZ4: they must be standard blocks), and whether they are the CPU codec's
/// bytes (a difference is a finding, reported, but not a failed round trip).
#[allow(clippy::too_many_arguments)]
fn check_gpu_chunks(
    algorithm: &Algorithm,
    data: &[u8],
    chunk: usize,
    host: &[u8],
    stride: usize,
    sizes: &[usize],
    reference: &Chunks,
    threads: usize,
    row: &mut Row,
) {
    let chunks: Vec<&[u8]> = sizes.iter().enumerate().map(|(i, &len)| &host[i * stride..][..len]).collect();
    if let Some(e) = cpu_check(algorithm, data, chunk, &chunks, threads) {
        row.fail(format!("GPU-compressed chunks: {e}"));
    }
    if matches!(algorithm, Algorithm::Lz4(_)) {
        let mut back = vec![POISON; chunks.len() * chunk];
        let mut out_sizes = vec![0; chunks.len()];
        for_each_chunk::<Lz4Flex>(threads, &chunks, &mut back, chunk, &mut out_sizes, Lz4Flex::decompress);
        if let Some(e) = diff_chunks(&back, chunk, &out_sizes, data) {
            row.fail(format!("lz4_flex on the GPU's chunks: {e}"));
        }
    }
    match reference {
        Ok(cpu) => {
            let differ = chunks.iter().zip(cpu).filter(|(g, c)| **g != c.as_slice()).count();
            if differ > 0 {
                let note = format!("{differ} of {} GPU chunks differ from the CPU codec's bytes", chunks.len());
                eprintln!("{}: {note}", row.algo);
                row.notes.push(note);
            }
        }
        Err(e) => row.notes.push(format!("CPU codec failed ({e}): GPU bytes not compared")),
    }
}

/// Where `out`, holding chunk `i` at `i * stride` with length `sizes[i]`, differs from `data`
/// split into chunks of `stride` bytes: None if nowhere.
fn diff_chunks(out: &[u8], stride: usize, sizes: &[usize], data: &[u8]) -> Option<String> {
    let bad: Vec<usize> = data
        .chunks(stride)
        .zip(sizes)
        .enumerate()
        .filter(|(i, (c, &len))| len != c.len() || out[i * stride..][..len] != **c)
        .map(|(i, _)| i)
        .collect();
    bad.first().map(|&i| format!("{} chunks differ from the input, first chunk {i} ({} bytes)", bad.len(), sizes[i]))
}

// ---------------------------------------------------------------------------------------------
// CPU baselines

/// A CPU codec applied chunk by chunk; one instance per thread (holds any per-thread context).
trait CpuCodec {
    const NAME: &'static str;
    fn new() -> Self;
    fn bound(chunk: usize) -> usize;
    /// Compresses `src` into `dst`; the size written, or `None` on failure.
    fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize>;
    fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize>;
}

/// `lz4_flex` raw LZ4 blocks (the same format as the GPU's chunks).
struct Lz4Flex;

impl CpuCodec for Lz4Flex {
    const NAME: &'static str = "lz4_flex";
    fn new() -> Self {
        Lz4Flex
    }
    fn bound(chunk: usize) -> usize {
        lz4_flex::block::get_maximum_output_size(chunk)
    }
    fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        lz4_flex::block::compress_into(src, dst).ok()
    }
    fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        lz4_flex::block::decompress_into(src, dst).ok()
    }
}

/// zstd level 1, one frame per chunk; contexts are made once per thread and run.
struct Zstd1 {
    c: zstd::bulk::Compressor<'static>,
    d: zstd::bulk::Decompressor<'static>,
}

impl CpuCodec for Zstd1 {
    const NAME: &'static str = "zstd-1";
    fn new() -> Self {
        Zstd1 { c: zstd::bulk::Compressor::new(1).unwrap(), d: zstd::bulk::Decompressor::new().unwrap() }
    }
    fn bound(chunk: usize) -> usize {
        zstd::zstd_safe::compress_bound(chunk)
    }
    fn compress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        self.c.compress_to_buffer(src, dst).ok()
    }
    fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        self.d.decompress_to_buffer(src, dst).ok()
    }
}

/// Runs `op` on every chunk: source `i` into `dst[i * stride..][..stride]`, its result into
/// `sizes[i]` (usize::MAX on failure). `threads` threads, each a contiguous range of chunks.
fn for_each_chunk<C: CpuCodec>(
    threads: usize,
    srcs: &[&[u8]],
    dst: &mut [u8],
    stride: usize,
    sizes: &mut [usize],
    op: fn(&mut C, &[u8], &mut [u8]) -> Option<usize>,
) {
    let per = srcs.len().div_ceil(threads);
    std::thread::scope(|scope| {
        for ((srcs, dst), sizes) in srcs.chunks(per).zip(dst.chunks_mut(per * stride)).zip(sizes.chunks_mut(per)) {
            scope.spawn(move || {
                let mut codec = C::new();
                for ((src, slot), size) in srcs.iter().zip(dst.chunks_mut(stride)).zip(sizes) {
                    *size = op(&mut codec, src, slot).unwrap_or(usize::MAX);
                }
            });
        }
    });
}

/// Times a CPU codec over the same chunks as the GPU, wall clock around all threads' work.
fn cpu_bench<C: CpuCodec>(data: &[u8], chunk: usize, runs: usize, threads: usize) -> Row {
    let mut row = Row::new(C::NAME, DataType::Char);
    let n = data.len().div_ceil(chunk);
    let stride = C::bound(chunk);
    let srcs: Vec<&[u8]> = data.chunks(chunk).collect();
    let mut comp = vec![0u8; n * stride];
    let mut comp_sizes = vec![0usize; n];
    eprintln!("{}: compressing on the CPU, {} runs ...", C::NAME, WARMUP + runs);
    let mut times = Vec::with_capacity(runs);
    for r in 0..WARMUP + runs {
        let t = Instant::now();
        for_each_chunk::<C>(threads, &srcs, &mut comp, stride, &mut comp_sizes, C::compress);
        if r >= WARMUP {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    row.comp_s = Some(median(times));
    if comp_sizes.iter().any(|&s| s > stride) {
        row.fail("a chunk failed to compress".into());
        return row;
    }
    row.comp_bytes = Some(comp_sizes.iter().sum::<usize>() as u64);

    let csrcs: Vec<&[u8]> = (0..n).map(|i| &comp[i * stride..][..comp_sizes[i]]).collect();
    let mut dec = vec![0u8; n * chunk];
    let mut dec_sizes = vec![0usize; n];
    eprintln!("{}: decompressing on the CPU, {} runs ...", C::NAME, WARMUP + runs);
    let mut times = Vec::with_capacity(runs);
    for r in 0..WARMUP + runs {
        dec.fill(POISON);
        let t = Instant::now();
        for_each_chunk::<C>(threads, &csrcs, &mut dec, chunk, &mut dec_sizes, C::decompress);
        if r >= WARMUP {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    row.decomp_s = Some(median(times));
    if let Some(e) = diff_chunks(&dec, chunk, &dec_sizes, data) {
        row.fail(format!("decompressed chunks: {e}"));
    }
    row
}

// ---------------------------------------------------------------------------------------------
// streams

/// Writes the streams of a job file; false if any job failed.
fn streams_command(jobs: &str) -> Res<bool> {
    let text = std::fs::read_to_string(jobs).map_err(|e| format!("{jobs}: {e}"))?;
    let device = match Gpu::new(0) {
        Ok(gpu) => {
            println!("device: GPU 0 ({}); algorithms without GPU compression run on the CPU codecs", gpu.info().name);
            Device::Gpu(gpu)
        }
        Err(e) => {
            println!("device: CPU ({e})");
            Device::Cpu
        }
    };
    let mut all_ok = true;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let out = fields.get(1).copied().unwrap_or("?");
        match write_stream(&fields, &device) {
            Ok(bytes) => println!("ok {out} {bytes}"),
            Err(e) => {
                all_ok = false;
                println!("error {out}: {}", e.to_string().replace('\n', " "));
            }
        }
    }
    Ok(all_ok)
}

/// One job: `INPUT OUTPUT ALGORITHM TYPE [key=value]...`; the stream's size.
fn write_stream(fields: &[&str], device: &Device) -> Res<usize> {
    let [input, output, algorithm, data_type, options @ ..] = fields else {
        return Err("a job needs INPUT OUTPUT ALGORITHM TYPE".into());
    };
    // One stream per job: LZ4 with gpucomp's encoder unless encoder=nvcomp is given.
    let mut args = AlgoArgs { lz4_encoders: Some(vec![Lz4Encoder::Gpucomp]), ..AlgoArgs::default() };
    args.set("type", data_type)?;
    let mut chunk = 65536;
    for option in options {
        let (key, value) = option.split_once('=').ok_or_else(|| format!("option {option}: KEY=VALUE"))?;
        if key == "chunk" {
            chunk = value.parse().map_err(|e| format!("chunk={value}: {e}"))?;
        } else if !args.set(key, value)? {
            return Err(format!("unknown option {key}").into());
        }
    }
    let variants = args.variants(algorithm)?;
    let [(_, algorithm)] = variants.as_slice() else {
        return Err(format!("{algorithm}: give one LZ4 encoder").into());
    };
    let device = match device {
        Device::Gpu(g) => Device::Gpu(g.clone()),
        _ => Device::Cpu,
    };
    let codec = Codec::on(*algorithm, device).with_chunk_size(chunk)?;
    let data = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let stream = codec.compress(&data)?;
    std::fs::write(output, &stream).map_err(|e| format!("{output}: {e}"))?;
    Ok(stream.len())
}
