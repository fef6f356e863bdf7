//! `gpucomp inspect`: a stream's container, header fields, spec header, checksums and chunks,
//! and with `--chunk I` the inside of one chunk.
//!
//! NVCOMP_NATIVE streams are shown with their spec-header and checksum descriptions, plus a chunk
//! table limited to `--chunks` rows at each end and the chunk ratio statistics. RAW and
//! WITH_UNCOMPRESSED_SIZE streams are shown with the container module's description and the
//! algorithm their one chunk decodes as: the one `--algorithm` names, or else the first of
//! Bitcomp, Cascaded, ANS and LZ4 whose CPU decoder accepts it (the self-identifying chunk
//! headers first: almost any bytes start like an LZ4 block).
//!
//! The chunk view says whether the chunk decodes (CPU codec, to the size the container records),
//! then what the algorithm's `cpu::*::describe` module parses: Cascaded blocks and pipelines,
//! Bitcomp blocks and modes, ANS's table, sub-chunks and final states (LZ4 has no such view yet).
//! Its tables are limited to `--blocks` rows at each end. A chunk that does not decode or parse
//! is an error line in the report, not a failure of the command: inspecting is how one looks at
//! broken streams.
use gpucomp::container::{self, describe_spec_header, BitstreamKind, CheckOutcome, NativeStream, WithUncompressedSize};
use gpucomp::cpu::{ans, bitcomp, cascaded};
use gpucomp::{
    cpu, Algorithm, AnsMode, AnsOptions, BitcompOptions, BitshuffleMode, CascadedMode, CascadedOptions, Lz4Options,
};

use crate::args::{describe_algorithm, Parsed};
use crate::progress::Progress;
use crate::table::{Align, Table};
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
    let name = io::name(path, "stdin");
    let invalid = |e| CliError::lib(format!("{name} is not a valid stream"), e);
    let report = match container::detect(&bytes) {
        BitstreamKind::Native => {
            let stream = NativeStream::parse(&bytes).map_err(invalid)?;
            let mut out = header(&stream) + &chunks(&stream, rows);
            if let Some(i) = index {
                out += &native_chunk(&stream, i, block_rows)?;
            }
            out
        }
        BitstreamKind::WithUncompressedSize => {
            let s = WithUncompressedSize::parse(&bytes).map_err(invalid)?;
            let one = One { name: &name, chunk: s.payload(), recorded: Some(s.uncompressed_size()), given };
            container::describe(&bytes) + &one.report(index, block_rows)?
        }
        BitstreamKind::Raw => {
            let one = One { name: &name, chunk: &bytes, recorded: None, given };
            container::describe(&bytes) + &one.report(index, block_rows)?
        }
    };
    io::print(&report)
}

/// The header fields, spec header, sizes, checksums and layout notes.
fn header(s: &NativeStream) -> String {
    let h = s.header();
    let n = s.num_chunks();
    let mut out = format!("NVCOMP_NATIVE stream, {} bytes\n", s.stream_len());
    out +=
        &format!("  version {}.{}, format {} ({})\n", h.major_version, h.minor_version, s.format().name(), h.format_id);
    out += &format!("  spec header: {}\n", describe_spec_header(s.format(), s.spec_header()));
    if let Err(e) = s.algorithm() {
        out += &format!("  algorithm: {e}\n");
    }
    let last = n.checked_sub(1).and_then(|i| s.chunk_uncompressed_size(i)).filter(|&l| l != h.uncomp_chunk_size);
    out += &format!(
        "  uncompressed: {} bytes in {n} chunk{} of {}{}\n",
        h.decomp_data_size,
        if n == 1 { "" } else { "s" },
        h.uncomp_chunk_size,
        last.map_or(String::new(), |l| format!(" (last {l})"))
    );
    out += &format!(
        "  compressed: {} bytes of data at offset {}, tables {:#x}..{:#x}; ratio {}\n",
        s.comp_data_size(),
        s.comp_data_offset(),
        s.tables_offset(),
        s.tables_end(),
        ratio(h.decomp_data_size, s.stream_len() as u64)
    );
    out += &if s.has_checksums() {
        format!("  checksums: header (0x30) {}; per-chunk tables present\n", s.check_header_checksum())
    } else {
        "  checksums: none\n".to_string()
    };
    for note in s.gpu_layout_deviations() {
        out += &format!("  note: {note}\n");
    }
    out
}

/// Adds rows `0..n` to `table` (`row(i)` makes row `i`), or only the first and last `limit`
/// with a `... k {what} not shown ...` row between when there are more than `2 * limit`.
fn fill(table: &mut Table, n: usize, limit: usize, what: &str, row: impl Fn(usize) -> Vec<String>) {
    let shown: Vec<usize> = if n > 2 * limit { (0..limit).chain(n - limit..n).collect() } else { (0..n).collect() };
    for (k, &i) in shown.iter().enumerate() {
        if k > 0 && shown[k - 1] + 1 != i {
            table.row(vec![format!("... {} {what} not shown ...", i - shown[k - 1] - 1)]);
        }
        table.row(row(i));
    }
}

/// Totals, min / median / max chunk ratio, and the chunk table: the first and last `rows`
/// chunks with an ellipsis between when there are more than `2 * rows`.
fn chunks(s: &NativeStream, rows: usize) -> String {
    let n = s.num_chunks();
    if n == 0 {
        return String::new();
    }
    let uncompressed = |i| s.chunk_uncompressed_size(i).unwrap_or(0);
    let compressed = |i| s.chunk_size(i).unwrap_or(0) as u64;
    let mut ratios: Vec<f64> = (0..n).map(|i| uncompressed(i) as f64 / compressed(i).max(1) as f64).collect();
    ratios.sort_by(f64::total_cmp);
    let total: u64 = (0..n).map(compressed).sum();
    let mut out = format!(
        "  chunks: {n}, {total} payload bytes (ratio {}); chunk ratio min {:.2}, median {:.2}, max {:.2}\n",
        ratio(s.uncompressed_size(), total),
        ratios[0],
        ratios[n / 2],
        ratios[n - 1],
    );
    let r = Align::Right;
    let mut columns = vec![("chunk", r), ("offset", r), ("compressed", r), ("uncompressed", r), ("ratio", r)];
    if s.has_checksums() {
        columns.extend([("compressed checksum", Align::Left), ("uncompressed checksum", Align::Left)]);
    }
    let mut table = Table::new(&columns);
    fill(&mut table, n, rows, "chunks", |i| {
        let mut row = vec![
            i.to_string(),
            s.chunk_offset(i).unwrap_or(0).to_string(),
            compressed(i).to_string(),
            uncompressed(i).to_string(),
            ratio(uncompressed(i), compressed(i)),
        ];
        if let (Some(check), Some(info)) = (s.check_chunk_checksum(i), s.chunk_info(i)) {
            row.push(check.to_string());
            row.push(match info.decomp_checksum {
                Some(0) => CheckOutcome::NotStored.to_string(),
                Some(u) => format!("{u:08x}"),
                None => "-".into(),
            });
        }
        row
    });
    out += &table.to_string();
    out
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
            // Bitcomp ("NVZ") and Cascaded headers are checked first, LZ4 (no header) last.
            None => vec![
                Algorithm::Bitcomp(BitcompOptions::default()),
                Algorithm::Cascaded(CascadedOptions::default()),
                Algorithm::Ans(AnsOptions::default()),
                Algorithm::Lz4(Lz4Options::default()),
            ],
        };
        let name = |a: &Algorithm| if self.given.is_some() { describe_algorithm(a) } else { a.format().name().into() };
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
                None => "not a Bitcomp, Cascaded, ANS or LZ4 chunk".into(),
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
        Algorithm::Cascaded(_) => cascaded_view(chunk, rows),
        Algorithm::Bitcomp(_) => bitcomp_view(chunk, rows),
        Algorithm::Ans(_) => ans_view(chunk, rows),
        Algorithm::Lz4(o) => format!(
            "  LZ4 chunk: one raw LZ4 block{}\n",
            match o.bitshuffle {
                BitshuffleMode::None => String::new(),
                _ => format!(" of bitshuffled {} elements", o.data_type.name()),
            }
        ),
        other => format!("  no chunk view for {}\n", other.format().name()),
    };
    out
}

/// `1 block`, `3 blocks`.
fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// `a ×3, b ×1`.
fn counted<T>(items: &[(T, usize)], name: impl Fn(&T) -> String) -> String {
    items.iter().map(|(t, c)| format!("{} ×{c}", name(t))).collect::<Vec<_>>().join(", ")
}

fn cascaded_view(chunk: &[u8], rows: usize) -> String {
    use cascaded::describe::{stages_text, Body};
    let v = match cascaded::describe::chunk(chunk) {
        Ok(v) => v,
        Err(s) => return format!("  error: not a valid Cascaded chunk: {s}\n"),
    };
    let h = v.header;
    let mode = match (h.mode, h.raw) {
        (_, true) => "asymmetric, raw fallback",
        (CascadedMode::Asymmetric, false) => "asymmetric",
        (CascadedMode::Symmetric, false) => "symmetric",
    };
    let mut out = format!(
        "  Cascaded chunk: {mode}, type {}, {} bytes uncompressed, {} compressed\n",
        h.data_type.name(),
        h.uncompressed_bytes,
        v.bytes
    );
    let r = Align::Right;
    let l = Align::Left;
    match &v.body {
        Body::Raw => out += "  the input bytes stored as they are, zero-padded to a multiple of 4\n",
        Body::Blocks(blocks) => {
            let pipelines = counted(&v.pipeline_counts(), |p| stages_text(*p));
            out += &format!(
                "  {} of 4 KiB (offsets in the chunk); pipelines: {pipelines}\n",
                plural(blocks.len(), "block")
            );
            let mut t = Table::new(&[
                ("block", r),
                ("offset", r),
                ("bytes", r),
                ("elements", r),
                ("slots", l),
                ("pipeline", l),
                ("reference", r),
                ("RLE runs", r),
            ]);
            fill(&mut t, blocks.len(), rows, "blocks", |i| {
                let b = &blocks[i];
                let slots: Vec<String> = b.stages.iter().map(|s| s.slot().to_string()).collect();
                let runs: Vec<String> = b.runs().iter().map(usize::to_string).collect();
                let dash = |v: Vec<String>, sep| if v.is_empty() { "-".into() } else { v.join(sep) };
                vec![
                    i.to_string(),
                    b.offset.to_string(),
                    b.size.to_string(),
                    b.elements.to_string(),
                    dash(slots, ","),
                    b.pipeline_text(),
                    b.last.reference.to_string(),
                    dash(runs, "/"),
                ]
            });
            out += &t.to_string();
        }
        Body::Symmetric(blocks) => {
            let subs: usize = blocks.iter().map(|b| b.sub_streams.len()).sum();
            let mut forms: Vec<(cascaded::describe::Form, usize)> = vec![];
            for (f, c) in blocks.iter().flat_map(|b| b.form_counts()) {
                match forms.iter_mut().find(|(g, _)| *g == f) {
                    Some((_, total)) => *total += c,
                    None => forms.push((f, c)),
                }
            }
            forms.sort();
            out += &format!(
                "  {} of 8 KiB, {} (offsets in the chunk); forms: {}\n",
                plural(blocks.len(), "block"),
                plural(subs, "sub-stream"),
                counted(&forms, |f| f.to_string())
            );
            let mut t = Table::new(&[
                ("block", r),
                ("offset", r),
                ("bytes", r),
                ("elements", r),
                ("sub-streams", r),
                ("forms", l),
            ]);
            fill(&mut t, blocks.len(), rows, "blocks", |i| {
                let b = &blocks[i];
                vec![
                    i.to_string(),
                    b.offset.to_string(),
                    b.size.to_string(),
                    b.elements.to_string(),
                    b.sub_streams.len().to_string(),
                    counted(&b.form_counts(), |f| f.to_string()),
                ]
            });
            out += &t.to_string();
        }
    }
    out
}

fn bitcomp_view(chunk: &[u8], rows: usize) -> String {
    use bitcomp::describe::{type_name, BlockMode};
    let v = match bitcomp::describe::chunk(chunk) {
        Ok(v) => v,
        Err(s) => return format!("  error: not a valid Bitcomp chunk: {s}\n"),
    };
    let h = v.header;
    let coded = format!("{}", BlockMode::Coded(h.algorithm));
    let mut out = format!(
        "  Bitcomp chunk: {}, algorithm {} ({coded}), {} bytes uncompressed in {} of 8 KiB ({} raw, {} {coded}), {} payload words, {} compressed\n",
        type_name(h.element),
        h.algorithm as u32,
        h.uncompressed_bytes,
        plural(v.blocks.len(), "block"),
        v.raw_blocks(),
        v.blocks.len() - v.raw_blocks(),
        h.payload_words,
        v.bytes
    );
    let r = Align::Right;
    let mut t = Table::new(&[
        ("block", r),
        ("word offset", r),
        ("words", r),
        ("bytes", r),
        ("padding", r),
        ("uncompressed", r),
        ("mode", Align::Left),
        ("ratio", r),
    ]);
    fill(&mut t, v.blocks.len(), rows, "blocks", |i| {
        let b = &v.blocks[i];
        vec![
            i.to_string(),
            b.word_offset.to_string(),
            b.words.to_string(),
            b.bytes().to_string(),
            b.padding.to_string(),
            b.uncompressed.to_string(),
            b.mode.to_string(),
            ratio(b.uncompressed as u64, b.bytes() as u64),
        ]
    });
    out += &t.to_string();
    out
}

/// A symbol: `'e'` when the mode codes bytes and it is printable, else `0x65`.
fn symbol(s: u8, mode: AnsMode) -> String {
    if mode == AnsMode::Bytes && (s.is_ascii_graphic() || s == b' ') {
        format!("'{}'", s as char)
    } else {
        format!("{s:#04x}")
    }
}

fn ans_view(chunk: &[u8], rows: usize) -> String {
    use ans::describe::mode_name;
    let v = match ans::describe::chunk(chunk) {
        Ok(v) => v,
        Err(s) => return format!("  error: not a valid ANS chunk: {s}\n"),
    };
    let h = v.header;
    let spl = h.states_per_lane as usize;
    let mut out = format!(
        "  ANS chunk: mode {} ({}), {} bytes uncompressed in {} of {}, {} per lane ({} per sub-chunk), {} compressed\n",
        mode_name(h.mode),
        h.mode as u8,
        h.uncompressed_size,
        plural(v.sub_chunks.len(), "sub-chunk"),
        h.sub_chunk_size,
        plural(spl, "state"),
        32 * spl,
        v.bytes
    );
    let l = &v.layout;
    out += &format!(
        "  layout: sub-chunk sizes at 16, raw section {}..{} ({} bytes), frequency table {}..{}, sub-chunks from {}\n",
        l.raw.start,
        l.raw.end,
        l.raw.len(),
        l.table.start,
        l.table.end,
        l.data
    );
    let t = &v.table;
    out += &format!(
        "  table: symbols {}..={}, {} entr{}, {} used ({} at frequency 1), table log {} (M = {}), entropy {:.3} bits/symbol\n",
        symbol(h.min_symbol, h.mode),
        symbol(h.max_symbol, h.mode),
        t.entries,
        if t.entries == 1 { "y" } else { "ies" },
        t.symbols,
        t.rare,
        t.probability_bits,
        1u32 << t.probability_bits,
        t.entropy_bits
    );
    let top: Vec<String> = t.top.iter().map(|&(s, f)| format!("{} {f}", symbol(s, h.mode))).collect();
    out += &format!("  top symbols (frequency of M): {}\n", top.join(", "));
    let (lo, hi) =
        v.sub_chunks.iter().map(|s| s.state_range()).fold((u32::MAX, 0), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)));
    if !v.sub_chunks.is_empty() {
        out += &format!("  final states: {:#010x} ..= {hi:#010x} over all lanes and sub-chunks\n", lo);
    }
    let r = Align::Right;
    let mut table = Table::new(&[
        ("sub-chunk", r),
        ("offset", r),
        ("bytes", r),
        ("symbols", r),
        ("words", r),
        ("bits/symbol", r),
        ("lane 0 states", Align::Left),
        ("min state", r),
        ("max state", r),
    ]);
    fill(&mut table, v.sub_chunks.len(), rows, "sub-chunks", |i| {
        let s = &v.sub_chunks[i];
        let (lo, hi) = s.state_range();
        let lane0: Vec<String> = s.states.iter().take(spl).map(|x| format!("{x:#010x}")).collect();
        vec![
            i.to_string(),
            s.offset.to_string(),
            s.bytes.to_string(),
            s.symbols.to_string(),
            s.words.to_string(),
            format!("{:.3}", s.bits_per_symbol()),
            lane0.join(" "),
            format!("{lo:#010x}"),
            format!("{hi:#010x}"),
        ]
    });
    out += &table.to_string();
    out
}
