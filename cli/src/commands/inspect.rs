//! `gpucomp inspect`: a stream's container, header fields, spec header, checksums and chunks,
//! and with `--chunk I` the inside of one chunk.
//!
//! NVCOMP_NATIVE streams are shown with their spec-header and checksum descriptions, plus a chunk
//! table limited to `--chunks` rows at each end and the chunk ratio statistics. RAW and
//! WITH_UNCOMPRESSED_SIZE streams are shown with the container module's description and the
//! algorithm their one chunk decodes as: the one `--algorithm` names, or else the first of
//! Zstd, Bitcomp, Cascaded, ANS and LZ4 whose CPU decoder accepts it (the self-identifying chunk
//! headers first: almost any bytes start like an LZ4 block).
//!
//! The chunk view says whether the chunk decodes (CPU codec, to the size the container records),
//! then what the algorithm's `cpu::*::describe` module parses, as [`crate::inspect`] lays it out:
//! Cascaded blocks and pipelines, Bitcomp blocks and modes, ANS's table, sub-chunks and final
//! states, Zstd frames and blocks (LZ4 has no such view yet).
//! Its tables are limited to `--blocks` rows at each end. A chunk that does not decode or parse
//! is an error line in the report, not a failure of the command: inspecting is how one looks at
//! broken streams.
use gpucomp::container::{self, BitstreamKind, NativeStream, WithUncompressedSize};
use gpucomp::{cpu, Algorithm, AnsOptions, BitcompOptions, BitshuffleMode, CascadedOptions, Lz4Options, ZstdOptions};

use crate::args::{describe_algorithm, Parsed};
use crate::inspect::{ans, bitcomp, cascaded, stream, zstd};
use crate::progress::Progress;
use crate::units::ratio;
use crate::{io, CliError};

/// The largest chunk any decoder produces (nvCOMP's decompression limit, ANS and Bitcomp); a
/// chunk or container declaring more is corrupt, and is not allocated.
const MAX_DECODED: usize = 1 << 25;

/// Prints the description of STREAM on stdout; an error if it is not a valid stream.
pub fn run(p: &Parsed) -> Result<(), CliError> {
    let [path] = p.positionals(["STREAM"])?;
    let rows = p.count("chunks", 8)?;
    let block_rows = p.count("blocks", 8)?;
    let index = p.index("chunk")?;
    let given = p.option("algorithm").map(|_| p.algorithm()).transpose()?;
    let bytes = io::read(path, &Progress::new())?;
    io::print(&report(&bytes, &io::name(path, "stdin"), rows, block_rows, index, given)?)
}

/// The description `run` prints of the stream `bytes` (called `name` in errors): chunk tables
/// limited to `rows` (`--chunks`) and `block_rows` (`--blocks`) rows at each end, chunk `index`
/// (`--chunk`) shown inside, a RAW or WITH_UNCOMPRESSED_SIZE chunk read as `given`
/// (`--algorithm`) or else detected.
pub fn report(
    bytes: &[u8],
    name: &str,
    rows: usize,
    block_rows: usize,
    index: Option<usize>,
    given: Option<Algorithm>,
) -> Result<String, CliError> {
    let invalid = |e| CliError::lib(format!("{name} is not a valid stream"), e);
    Ok(match container::detect(bytes) {
        BitstreamKind::Native => {
            let native = NativeStream::parse(bytes).map_err(invalid)?;
            let mut out = stream::header(&native) + &stream::chunks(&native, rows);
            if let Some(i) = index {
                out += &native_chunk(&native, i, block_rows)?;
            }
            out
        }
        BitstreamKind::WithUncompressedSize => {
            let s = WithUncompressedSize::parse(bytes).map_err(invalid)?;
            let one = One { name, chunk: s.payload(), recorded: Some(s.uncompressed_size()), given };
            stream::with_uncompressed_size(&s, bytes.len()) + &one.report(index, block_rows)?
        }
        BitstreamKind::Raw => {
            let one = One { name, chunk: bytes, recorded: None, given };
            stream::raw(bytes.len()) + &one.report(index, block_rows)?
        }
    })
}

/// Chunk `i` of a native stream, or a usage error naming the stream's chunk count.
fn native_chunk(s: &NativeStream, i: usize, rows: usize) -> Result<String, CliError> {
    let (Some(data), Some(size), Some(offset)) = (s.chunk(i), s.chunk_uncompressed_size(i), s.chunk_offset(i)) else {
        let n = s.num_chunks();
        return Err(CliError::Usage(format!("--chunk {i}: the stream has {n} chunk{}", if n == 1 { "" } else { "s" })));
    };
    let mut out = format!("\nchunk {i}: {} bytes at offset {offset}, {size} bytes uncompressed\n", data.len());
    out += &match s.algorithm() {
        Ok(a) => chunk_view(&a, data, decode(&a, data, Some(size)), rows),
        Err(e) => format!("  error: cannot read its chunks: {e}\n"),
    };
    Ok(out)
}

/// The one chunk of a RAW or WITH_UNCOMPRESSED_SIZE stream.
struct One<'a> {
    /// The stream's name, for errors.
    name: &'a str,
    /// The chunk (the whole RAW stream, or the WITH_UNCOMPRESSED_SIZE payload).
    chunk: &'a [u8],
    /// The uncompressed size the container records (WITH_UNCOMPRESSED_SIZE).
    recorded: Option<u64>,
    /// `--algorithm` and its options, if given.
    given: Option<Algorithm>,
}

impl One<'_> {
    /// Which algorithm the chunk decodes as (an error if none), and the chunk view if asked for.
    fn report(&self, index: Option<usize>, rows: usize) -> Result<String, CliError> {
        if let Some(i) = index.filter(|&i| i != 0) {
            return Err(CliError::Usage(format!(
                "--chunk {i}: a stream without NVCOMP_NATIVE header has one chunk (0)"
            )));
        }
        let tried = match self.given {
            Some(a) => vec![a],
            // Zstd (magic number), Bitcomp ("NVZ") and Cascaded headers are checked first, LZ4
            // (no header) last.
            None => vec![
                Algorithm::Zstd(ZstdOptions::default()),
                Algorithm::Bitcomp(BitcompOptions::default()),
                Algorithm::Cascaded(CascadedOptions::default()),
                Algorithm::Ans(AnsOptions::default()),
                Algorithm::Lz4(Lz4Options::default()),
            ],
        };
        let name = |a: &Algorithm| if self.given.is_some() { describe_algorithm(a) } else { a.name().into() };
        let mut decoded = vec![];
        let mut why = vec![];
        for a in &tried {
            match decode(a, self.chunk, self.recorded) {
                Ok(n) => decoded.push((a, n)),
                Err(e) => why.push(e),
            }
        }
        let Some(&(algorithm, size)) = decoded.first() else {
            let what = match self.given {
                Some(a) => format!("does not decode as {}: {}", name(&a), why.join("; ")),
                None => "not a Zstd, Bitcomp, Cascaded, ANS or LZ4 chunk".into(),
            };
            return Err(CliError::Failed(format!("{} is not a stream (no header; {what})", self.name)));
        };
        let also: Vec<String> = decoded[1..].iter().map(|(a, _)| name(a)).collect();
        let mut out = format!(
            "  as {}: {size} bytes uncompressed; ratio {}{}\n",
            name(algorithm),
            ratio(size as u64, self.chunk.len() as u64),
            if also.is_empty() { String::new() } else { format!(" (also decodes as {})", also.join(", ")) }
        );
        if index.is_some() {
            out += &format!("\nchunk 0: {} bytes, {size} bytes uncompressed\n", self.chunk.len());
            out += &chunk_view(algorithm, self.chunk, Ok(size), rows);
        }
        Ok(out)
    }
}

/// Decodes `chunk` with the CPU codec: its decoded size, or why it does not decode (including a
/// size other than the `expected` one the container records).
fn decode(a: &Algorithm, chunk: &[u8], expected: Option<u64>) -> Result<usize, String> {
    let declared = cpu::decompressed_chunk_size(a, chunk).map_err(|s| s.to_string())?;
    let expected = expected.map(|e| usize::try_from(e).unwrap_or(usize::MAX));
    let capacity = declared.max(expected.unwrap_or(0));
    if capacity > MAX_DECODED {
        return Err(format!("{capacity} bytes declared, more than any chunk holds ({MAX_DECODED})"));
    }
    let mut out = vec![0u8; capacity];
    let n = cpu::decompress_chunk(a, chunk, &mut out).map_err(|s| s.to_string())?;
    match expected {
        Some(e) if e != n => Err(format!("decodes to {n} bytes, but the container records {e}")),
        _ => Ok(n),
    }
}

/// Whether the chunk decodes (`decoded`: what [`decode`] said), then the algorithm's view of it.
fn chunk_view(a: &Algorithm, chunk: &[u8], decoded: Result<usize, String>, rows: usize) -> String {
    let mut out = match decoded {
        Ok(n) => format!("  decodes: yes, {n} bytes\n"),
        Err(e) => format!("  decodes: no: {e}\n"),
    };
    out += &match a {
        Algorithm::Cascaded(_) => cascaded::view(chunk, rows),
        Algorithm::Bitcomp(_) => bitcomp::view(chunk, rows),
        Algorithm::Ans(_) => ans::view(chunk, rows),
        Algorithm::Zstd(_) => zstd::view(chunk, rows),
        Algorithm::Lz4(o) => format!(
            "  LZ4 chunk: one raw LZ4 block{}\n",
            match o.bitshuffle {
                BitshuffleMode::None => String::new(),
                _ => format!(" of bitshuffled {} elements", o.data_type.name()),
            }
        ),
        other => format!("  no chunk view for {}\n", other.name()),
    };
    out
}
