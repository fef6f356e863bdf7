//! LZ4 throughput on one file: gpucomp's batched GPU LZ4 (both encoders) and CPU baselines
//! (lz4_flex, zstd level 1), measured the way nvCOMP's anchors were (benches/nvcomp/nvbench.cu):
//! the file split into chunks, one batched call per direction, warm-up calls, then the median of
//! many calls timed with CUDA events. Throughput is uncompressed bytes per second, GB = 10^9 bytes.
//!
//! ```text
//! cargo bench --bench lz4 -- corpus DIR [SF] [TEXT_MB]           TPC-H lineitem text (default 2, 256)
//! cargo bench --bench lz4 -- run FILE [--chunk 65536] [--runs 15]
//! ```
//!
//! `corpus` writes `lineitem.tbl` and `lineitem_comment.txt` byte for byte as `shared/tools/corpus`
//! does with the same arguments (crate `tpchgen` 4.0.0). `run` prints a table and CSV lines
//! `algo,file,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok`; without a GPU it runs the CPU
//! baselines and says why the GPU part was skipped. Exit status 1 if any result failed to verify.
use std::error::Error;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaSlice, DevicePtr};
use gpucomp::batched::lz4::Lz4;
use gpucomp::batched::{BatchedCodec, CompressBatch, DecompressBatch};
use gpucomp::gpu::Gpu;
use gpucomp::{Lz4Encoder, Lz4Options, Status};

const USAGE: &str = "usage: lz4 corpus DIR [SF=2] [TEXT_MB=256]\n       lz4 run FILE [--chunk 65536] [--runs 15]";
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

/// The two text files of `shared/tools/corpus OUT SF TEXT_MB`, same rule: whole lines until
/// TEXT_MB MiB are reached. Stops generating once both are full (the columns are not written).
fn write_corpus(dir: &Path, sf: f64, text_mb: usize) -> Res<()> {
    std::fs::create_dir_all(dir)?;
    let create = |name: &str| -> Res<BufWriter<std::fs::File>> {
        Ok(BufWriter::with_capacity(1 << 20, std::fs::File::create(dir.join(name))?))
    };
    let (mut tbl, mut comment) = (create("lineitem.tbl")?, create("lineitem_comment.txt")?);
    let limit = text_mb << 20;
    let (mut tbl_bytes, mut comment_bytes, mut rows) = (0usize, 0usize, 0u64);
    eprintln!("corpus: TPC-H lineitem at scale factor {sf}, {text_mb} MiB of text each, into {}", dir.display());
    let t0 = Instant::now();
    for li in tpchgen::generators::LineItemGenerator::new(sf, 1, 1).iter() {
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
        if rows % 2_000_000 == 0 {
            eprintln!("corpus: {rows} rows, {} / {} MiB of text ...", tbl_bytes >> 20, comment_bytes >> 20);
        }
        if tbl_bytes >= limit && comment_bytes >= limit {
            break;
        }
    }
    tbl.flush()?;
    comment.flush()?;
    eprintln!(
        "corpus: {rows} rows in {:.1} s: lineitem.tbl {tbl_bytes} bytes, lineitem_comment.txt {comment_bytes} bytes",
        t0.elapsed().as_secs_f64()
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// run

/// One line of the report.
struct Row {
    algo: String,
    comp_bytes: u64,
    /// Median seconds of one compression / decompression of the whole file.
    comp_s: f64,
    decomp_s: f64,
    ok: bool,
}

fn run_command(file: &str, opts: &[&str]) -> Res<bool> {
    let (mut chunk, mut runs) = (65536usize, 15usize);
    let mut it = opts.iter();
    while let Some(opt) = it.next() {
        let value = it.next().ok_or_else(|| format!("{opt} needs a value\n{USAGE}"))?;
        match *opt {
            "--chunk" => chunk = value.parse().map_err(|e| format!("--chunk: {e}"))?,
            "--runs" => runs = value.parse().map_err(|e| format!("--runs: {e}"))?,
            _ => return Err(format!("unknown option {opt}\n{USAGE}").into()),
        }
    }
    if chunk == 0 || runs == 0 {
        return Err("--chunk and --runs must be positive".into());
    }
    let data = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    if data.is_empty() {
        return Err(format!("{file} is empty").into());
    }
    let name = Path::new(file).file_name().map_or(file.into(), |n| n.to_string_lossy().into_owned());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunks = data.len().div_ceil(chunk);
    println!(
        "{name}: {} bytes, {chunks} chunks of {chunk} bytes; median of {runs} runs after {WARMUP} warm-up runs",
        data.len()
    );

    let mut rows = Vec::new();
    let mut gpu_failed = false;
    match Gpu::new(0) {
        Ok(gpu) => {
            let info = gpu.info();
            println!(
                "GPU: {} (compute capability {}.{}, {} PTX); timed with CUDA events around each batched call",
                info.name, info.compute_capability.0, info.compute_capability.1, info.ptx_arch
            );
            // A driver or launch error ends the GPU part; the CPU baselines still run.
            if let Err(e) = gpu_bench(&gpu, &data, chunk, runs, threads, &mut rows) {
                println!("GPU part failed: {e}");
                gpu_failed = true;
            }
        }
        Err(e) => println!("GPU part skipped: {e}"),
    }
    println!("CPU baselines: {threads} threads (std::thread::scope, each a contiguous range of chunks)");
    rows.push(cpu_bench::<Lz4Flex>(&data, chunk, runs, threads));
    rows.push(cpu_bench::<Zstd1>(&data, chunk, runs, threads));

    let bytes = data.len() as f64;
    let gbps = |s: f64| bytes / s / 1e9;
    println!("\n{:<20} {:>12} {:>7} {:>10} {:>12}  ok", "algo", "comp_bytes", "ratio", "comp GB/s", "decomp GB/s");
    for r in &rows {
        let ratio = bytes / r.comp_bytes as f64;
        let ok = if r.ok { "ok" } else { "MISMATCH" };
        println!(
            "{:<20} {:>12} {ratio:>7.3} {:>10.2} {:>12.2}  {ok}",
            r.algo,
            r.comp_bytes,
            gbps(r.comp_s),
            gbps(r.decomp_s)
        );
    }
    println!("\nalgo,file,chunk,bytes,comp_bytes,ratio,comp_GBps,decomp_GBps,ok");
    for r in &rows {
        println!(
            "{},{name},{chunk},{},{},{:.3},{:.2},{:.2},{}",
            r.algo,
            data.len(),
            r.comp_bytes,
            bytes / r.comp_bytes as f64,
            gbps(r.comp_s),
            gbps(r.decomp_s),
            if r.ok { "ok" } else { "MISMATCH" }
        );
    }
    Ok(!gpu_failed && rows.iter().all(|r| r.ok))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

// ---------------------------------------------------------------------------------------------
// GPU

/// Both encoders of gpucomp's batched LZ4 on the same buffers.
fn gpu_bench(gpu: &Gpu, data: &[u8], chunk: usize, runs: usize, threads: usize, rows: &mut Vec<Row>) -> Res<()> {
    let mut batch = GpuBatch::new(gpu, data, chunk)?;
    for (algo, encoder) in [("gpucomp-lz4", Lz4Encoder::Gpucomp), ("gpucomp-lz4-nvenc", Lz4Encoder::Nvcomp)] {
        rows.push(batch.bench(gpu, data, algo, encoder, runs, threads)?);
    }
    Ok(())
}

/// Device buffers of one file's batch, allocated once, outside all timing.
struct GpuBatch {
    n: usize,
    chunk: usize,
    /// Bytes reserved for each compressed chunk (the bound, rounded to 16 as nvbench does).
    stride: usize,
    in_ptrs: CudaSlice<u64>,
    in_bytes: CudaSlice<u64>,
    comp: CudaSlice<u8>,
    comp_ptrs: CudaSlice<u64>,
    comp_bytes: CudaSlice<u64>,
    dec: CudaSlice<u8>,
    dec_ptrs: CudaSlice<u64>,
    dec_capacity: CudaSlice<u64>,
    dec_actual: CudaSlice<u64>,
    statuses: CudaSlice<i32>,
    _input: CudaSlice<u8>,
}

impl GpuBatch {
    fn new(gpu: &Gpu, data: &[u8], chunk: usize) -> Res<GpuBatch> {
        let s = gpu.stream();
        let n = data.len().div_ceil(chunk);
        let stride = Lz4Options::max_compressed_chunk_size(chunk).next_multiple_of(16);
        let input = s.clone_htod(data)?;
        let comp = s.alloc_zeros::<u8>(n * stride)?;
        let dec = s.alloc_zeros::<u8>(n * chunk)?;
        let addresses = |buf: &CudaSlice<u8>, step: usize| {
            let base = buf.device_ptr(s).0;
            (0..n).map(|i| base + (i * step) as u64).collect::<Vec<u64>>()
        };
        let sizes: Vec<u64> = data.chunks(chunk).map(|c| c.len() as u64).collect();
        Ok(GpuBatch {
            n,
            chunk,
            stride,
            in_ptrs: s.clone_htod(&addresses(&input, chunk))?,
            in_bytes: s.clone_htod(&sizes)?,
            comp_ptrs: s.clone_htod(&addresses(&comp, stride))?,
            comp_bytes: s.alloc_zeros(n)?,
            dec_ptrs: s.clone_htod(&addresses(&dec, chunk))?,
            dec_capacity: s.clone_htod(&vec![chunk as u64; n])?,
            dec_actual: s.alloc_zeros(n)?,
            statuses: s.alloc_zeros(n)?,
            comp,
            dec,
            _input: input,
        })
    }

    /// Times compression and decompression of the whole batch with one encoder, then verifies:
    /// every status, every size, the decompressed bytes, and the compressed chunks decoded by
    /// lz4_flex on the CPU (they must be standard LZ4 blocks).
    fn bench(
        &mut self,
        gpu: &Gpu,
        data: &[u8],
        algo: &str,
        encoder: Lz4Encoder,
        runs: usize,
        threads: usize,
    ) -> Res<Row> {
        let (s, n, chunk) = (gpu.stream(), self.n, self.chunk);
        let lz4 = Lz4::new(Lz4Options { encoder, ..Default::default() })?;
        let alloc_temp = |bytes: usize| (bytes > 0).then(|| s.alloc_zeros::<u8>(bytes)).transpose();
        let mut comp_temp = alloc_temp(lz4.compress_temp_size(n, chunk)?)?;
        let mut dec_temp = alloc_temp(lz4.decompress_temp_size(n, chunk)?)?;
        let start = gpu.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = gpu.context().new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let mut ok = true;

        eprintln!("{algo}: compressing on the GPU, {} calls ...", WARMUP + runs);
        let mut times = Vec::with_capacity(runs);
        for r in 0..WARMUP + runs {
            start.record(s)?;
            // SAFETY: the pointer arrays address `n` chunks inside `_input` (in_bytes each) and
            // `comp` (stride >= the queried bound each), which live as long as `self`; the
            // elapsed-time query below waits for the call to finish.
            unsafe {
                lz4.compress_async(
                    gpu,
                    CompressBatch {
                        in_ptrs: &self.in_ptrs,
                        in_bytes: &self.in_bytes,
                        num_chunks: n,
                        max_uncompressed_chunk_bytes: chunk,
                        temp: comp_temp.as_mut(),
                        out_ptrs: &self.comp_ptrs,
                        out_bytes: &mut self.comp_bytes,
                        statuses: Some(&mut self.statuses),
                    },
                )?
            };
            end.record(s)?;
            let ms = start.elapsed_ms(&end)?;
            if r >= WARMUP {
                times.push(ms as f64 / 1e3);
            }
        }
        ok &= all_success(algo, "compress", &s.clone_dtoh(&self.statuses)?);
        let comp_sizes: Vec<usize> = s.clone_dtoh(&self.comp_bytes)?.into_iter().map(|b| b as usize).collect();
        if let Some(i) = comp_sizes.iter().position(|&b| b > self.stride) {
            eprintln!("{algo}: chunk {i} compressed to {} bytes, over the bound {}", comp_sizes[i], self.stride);
            return Ok(Row { algo: algo.into(), comp_bytes: 0, comp_s: f64::NAN, decomp_s: f64::NAN, ok: false });
        }
        let comp_total = comp_sizes.iter().sum::<usize>() as u64;
        let comp_s = median(times);

        // Independent check of the compressed chunks: lz4_flex must decode each to its input.
        let host_comp = s.clone_dtoh(&self.comp)?;
        let srcs: Vec<&[u8]> = (0..n).map(|i| &host_comp[i * self.stride..][..comp_sizes[i]]).collect();
        let mut back = vec![POISON; n * chunk];
        let mut sizes = vec![0; n];
        for_each_chunk::<Lz4Flex>(threads, &srcs, &mut back, chunk, &mut sizes, Lz4Flex::decompress);
        if !same_chunks(&back, chunk, &sizes, data) {
            eprintln!("{algo}: lz4_flex does not decode the GPU's compressed chunks to the input");
            ok = false;
        }

        eprintln!("{algo}: decompressing on the GPU, {} calls ...", WARMUP + runs);
        let dec_addr = self.dec.device_ptr(s).0;
        let mut times = Vec::with_capacity(runs);
        for r in 0..WARMUP + runs {
            // SAFETY: `dec` holds n·chunk bytes; stream-ordered before the start event.
            unsafe { cudarc::driver::result::memset_d8_async(dec_addr, POISON, n * chunk, s.cu_stream())? };
            start.record(s)?;
            // SAFETY: `comp_ptrs`/`comp_bytes` describe the chunks just compressed; `dec_ptrs`
            // address `n` slots of `chunk` bytes in `dec`, as `dec_capacity` says.
            unsafe {
                lz4.decompress_async(
                    gpu,
                    DecompressBatch {
                        in_ptrs: &self.comp_ptrs,
                        in_bytes: &self.comp_bytes,
                        num_chunks: n,
                        max_uncompressed_chunk_bytes: chunk,
                        temp: dec_temp.as_mut(),
                        out_ptrs: &self.dec_ptrs,
                        out_capacity: &self.dec_capacity,
                        out_actual: Some(&mut self.dec_actual),
                        statuses: Some(&mut self.statuses),
                    },
                )?
            };
            end.record(s)?;
            let ms = start.elapsed_ms(&end)?;
            if r >= WARMUP {
                times.push(ms as f64 / 1e3);
            }
        }
        ok &= all_success(algo, "decompress", &s.clone_dtoh(&self.statuses)?);
        let actual: Vec<usize> = s.clone_dtoh(&self.dec_actual)?.into_iter().map(|b| b as usize).collect();
        if !same_chunks(&s.clone_dtoh(&self.dec)?, chunk, &actual, data) {
            eprintln!("{algo}: the GPU's decompressed chunks differ from the input");
            ok = false;
        }
        Ok(Row { algo: algo.into(), comp_bytes: comp_total, comp_s, decomp_s: median(times), ok })
    }
}

fn all_success(algo: &str, what: &str, statuses: &[i32]) -> bool {
    let bad: Vec<usize> = (0..statuses.len()).filter(|&i| statuses[i] != Status::Success as i32).collect();
    if let Some(&i) = bad.first() {
        eprintln!("{algo}: {what}: {} chunks failed, first chunk {i}: {}", bad.len(), Status::from_raw(statuses[i]));
    }
    bad.is_empty()
}

/// Whether `out`, holding chunk `i` at `i * stride` with length `sizes[i]`, equals `data`
/// split into chunks of `stride` bytes.
fn same_chunks(out: &[u8], stride: usize, sizes: &[usize], data: &[u8]) -> bool {
    data.chunks(stride).zip(sizes).enumerate().all(|(i, (c, &len))| len == c.len() && out[i * stride..][..len] == *c)
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
    let comp_s = median(times);
    if comp_sizes.iter().any(|&s| s > stride) {
        eprintln!("{}: a chunk failed to compress", C::NAME);
        return Row { algo: C::NAME.into(), comp_bytes: 0, comp_s, decomp_s: f64::NAN, ok: false };
    }
    let comp_bytes = comp_sizes.iter().sum::<usize>() as u64;

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
    let ok = same_chunks(&dec, chunk, &dec_sizes, data);
    if !ok {
        eprintln!("{}: decompressed chunks differ from the input", C::NAME);
    }
    Row { algo: C::NAME.into(), comp_bytes, comp_s, decomp_s: median(times), ok }
}
