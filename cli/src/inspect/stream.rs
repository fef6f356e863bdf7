//! A stream's container as text: the NVCOMP_NATIVE header fields, spec header, checksums and
//! chunk table; what WITH_UNCOMPRESSED_SIZE and RAW streams record.
use gpucomp::container::{spec_fields, CheckOutcome, NativeStream, SpecFields, WithUncompressedSize};
use gpucomp::{BitshuffleMode, DataType, Format};

use super::fill;
use crate::table::{Align, Table};
use crate::units::ratio;

/// The header fields, spec header, sizes, checksums and layout notes.
pub fn header(s: &NativeStream) -> String {
    let h = s.header();
    let n = s.num_chunks();
    let mut out = format!("NVCOMP_NATIVE stream, {} bytes\n", s.stream_len());
    out +=
        &format!("  version {}.{}, format {} ({})\n", h.major_version, h.minor_version, s.format().name(), h.format_id);
    out += &format!("  spec header: {}\n", spec_header(s.format(), s.spec_header()));
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
pub fn chunks(s: &NativeStream, rows: usize) -> String {
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

/// An `nvcompType_t` word: `uchar (1)`, or `unknown (42)`.
fn type_name(v: u32) -> String {
    match DataType::from_raw(v) {
        Some(t) => format!("{} ({v})", t.name()),
        None => format!("unknown ({v})"),
    }
}

/// The spec header's fields where the layout is known, then its bytes in hex, e.g.
/// `data_type uchar (1), bitshuffle none (0) [0100000000000000]`.
pub fn spec_header(format: Format, spec: &[u8]) -> String {
    let fields = spec_fields(format, spec).map(|f| match f {
        SpecFields::Lz4 { data_type, bitshuffle } => {
            let mode = match BitshuffleMode::from_raw(bitshuffle) {
                Some(BitshuffleMode::None) => "none",
                Some(BitshuffleMode::MsbFirst) => "msb_first",
                Some(BitshuffleMode::LsbFirst) => "lsb_first",
                None => "unknown",
            };
            format!("data_type {}, bitshuffle {mode} ({bitshuffle})", type_name(data_type))
        }
        SpecFields::Ans { ans_type, data_type, max_sub_chunk_count, states_per_lane, histogram_reduction_log2 } => {
            format!(
                "type {ans_type}{}, data_type {}, max_sub_chunk_count {max_sub_chunk_count}, states_per_lane {states_per_lane}, histogram_reduction_log2 {histogram_reduction_log2}",
                if ans_type == 0 { " (rANS)" } else { "" },
                type_name(data_type),
            )
        }
        SpecFields::Cascaded { data_type, mode, terminal, coarse, fine, level } => {
            let name = match mode {
                1 => "asymmetric",
                2 => "symmetric",
                _ => "unknown",
            };
            format!(
                "data_type {}, mode {name} ({mode}), terminal {terminal:#x}, coarse {coarse:#x}, fine {fine:#x}, level {level}",
                type_name(data_type)
            )
        }
        SpecFields::Bitcomp { algorithm, data_type, delta, mode } => {
            let name = match algorithm {
                0 => " (default)",
                1 => " (sparse)",
                _ => "",
            };
            let lossy = match mode {
                0 => "lossless",
                1 => "lossy_fp_to_signed",
                2 => "lossy_fp_to_unsigned",
                _ => "unknown",
            };
            format!("algorithm {algorithm}{name}, data_type {}, delta {delta}, mode {lossy} ({mode})", type_name(data_type))
        }
        SpecFields::Algorithm(a) => format!("algorithm {a}"),
        SpecFields::NoFields => "no fields".into(),
        SpecFields::Private { base } => {
            format!("gpucomp private format derived from {}", base.map_or("?", Format::name))
        }
        other => format!("{other:?}"),
    });
    let hex: String = spec.iter().map(|b| format!("{b:02x}")).collect();
    match fields {
        Some(f) => format!("{f} [{hex}]"),
        None => format!("[{hex}]"),
    }
}

/// What a WITH_UNCOMPRESSED_SIZE stream of `len` bytes records.
pub fn with_uncompressed_size(s: &WithUncompressedSize, len: usize) -> String {
    format!(
        "WITH_UNCOMPRESSED_SIZE stream, {len} bytes\n  uncompressed: {} bytes\n  compressed: one RAW chunk of {} bytes at offset 16; ratio {}\n  algorithm: not recorded (the caller must know it)\n",
        s.uncompressed_size(),
        s.payload().len(),
        ratio(s.uncompressed_size(), len as u64)
    )
}

/// What a RAW stream of `len` bytes records: nothing but its length.
pub fn raw(len: usize) -> String {
    format!("RAW stream (no header), {len} bytes: one chunk; algorithm and uncompressed size not recorded\n")
}
