//! `gpucomp inspect`: a stream's container, header fields, spec header, checksums and chunks.
//!
//! RAW and WITH_UNCOMPRESSED_SIZE streams are shown with the container module's description;
//! NVCOMP_NATIVE streams with its spec-header and checksum descriptions, plus a chunk table
//! limited to `--chunks` rows at each end and the chunk ratio statistics.
use gpucomp::container::{self, describe_spec_header, CheckOutcome, Kind, NativeStream, WithUncompressedSize};
use gpucomp::{Algorithm, Codec, Device};

use crate::args::Parsed;
use crate::progress::Progress;
use crate::table::{Align, Table};
use crate::units::ratio;
use crate::{io, CliError};

/// Prints the description of STREAM on stdout; an error if it is not a valid stream.
pub fn run(p: &Parsed) -> Result<(), CliError> {
    let [path] = p.positionals(["STREAM"])?;
    let rows = p.count("chunks", 8)?;
    let bytes = io::read(path, &Progress::new())?;
    let invalid = |e| CliError::lib(format!("{} is not a valid stream", io::name(path, "stdin")), e);
    let report = match container::detect(&bytes) {
        Kind::Native => {
            let stream = NativeStream::parse(&bytes).map_err(invalid)?;
            header(&stream) + &chunks(&stream, rows)
        }
        Kind::WithUncompressedSize => {
            WithUncompressedSize::parse(&bytes).map_err(invalid)?;
            container::describe(&bytes)
        }
        Kind::Raw => {
            // Nothing identifies a RAW stream: it is one only if it decodes (as LZ4, for now).
            let size = Codec::on(Algorithm::default(), Device::Cpu).decompressed_size(&bytes).map_err(|e| {
                CliError::lib(
                    format!("{} is not a stream (no header; not an LZ4 RAW chunk)", io::name(path, "stdin")),
                    e,
                )
            })?;
            let ratio = ratio(size, bytes.len() as u64);
            container::describe(&bytes) + &format!("  as LZ4: {size} bytes uncompressed; ratio {ratio}\n")
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
    let shown: Vec<usize> = if n > 2 * rows { (0..rows).chain(n - rows..n).collect() } else { (0..n).collect() };
    for (k, &i) in shown.iter().enumerate() {
        if k > 0 && shown[k - 1] + 1 != i {
            table.row(vec![format!("... {} chunks not shown ...", i - shown[k - 1] - 1)]);
        }
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
        table.row(row);
    }
    out += &table.to_string();
    out
}
