//! Human-readable descriptions for `gpucomp inspect`.
use super::checksum::CheckOutcome;
use super::detect::{detect, BitstreamKind};
use super::native::{le_u32, le_u64, NativeStream};
use super::raw::{RawStream, WithUncompressedSize};
use crate::types::{BitshuffleMode, DataType, Format};
use std::fmt::{self, Write as _};

/// Chunk tables longer than this are shown as their first [`HEAD_ROWS`] and last [`TAIL_ROWS`] rows.
const MAX_ROWS: usize = 24;
const HEAD_ROWS: usize = 16;
const TAIL_ROWS: usize = 4;

fn type_name(v: u32) -> String {
    match DataType::from_raw(v) {
        Some(t) => format!("{} ({v})", t.name()),
        None => format!("unknown ({v})"),
    }
}

fn ratio(uncompressed: u64, compressed: u64) -> String {
    if compressed == 0 {
        "-".into()
    } else {
        format!("{:.2}", uncompressed as f64 / compressed as f64)
    }
}

/// The spec header's fields, decoded where the layout is known (FORMATS A.2), e.g.
/// `data_type uchar (1), bitshuffle none (0)` for LZ4; the raw bytes otherwise.
pub fn describe_spec_header(format: Format, spec: &[u8]) -> String {
    let u32_at = |at| le_u32(spec, at);
    let byte = |at: usize| spec.get(at).copied();
    let fields = match format {
        Format::Lz4 => (|| {
            let t = u32_at(0)?;
            let m = u32_at(4)?;
            let mode = match BitshuffleMode::from_raw(m) {
                Some(BitshuffleMode::None) => "none",
                Some(BitshuffleMode::MsbFirst) => "msb_first",
                Some(BitshuffleMode::LsbFirst) => "lsb_first",
                None => "unknown",
            };
            Some(format!("data_type {}, bitshuffle {mode} ({m})", type_name(t)))
        })(),
        Format::Ans => (|| {
            Some(format!(
                "type {}{}, data_type {}, max_sub_chunk_count {}, states_per_lane {}, histogram_reduction_log2 {}",
                u32_at(0)?,
                if u32_at(0)? == 0 { " (rANS)" } else { "" },
                type_name(u32_at(4)?),
                byte(8)?,
                byte(9)?,
                byte(10)?
            ))
        })(),
        Format::Cascaded => (|| {
            let mode = match u32_at(4)? {
                1 => "asymmetric",
                2 => "symmetric",
                _ => "unknown",
            };
            Some(format!(
                "data_type {}, mode {mode} ({}), terminal {:#x}, coarse {:#x}, fine {:#x}, level {}",
                type_name(u32_at(0)?),
                u32_at(4)?,
                le_u64(spec, 8)?,
                le_u64(spec, 16)?,
                le_u64(spec, 24)?,
                byte(32)?
            ))
        })(),
        Format::Bitcomp => (|| {
            let alg = u32_at(0)? as i32;
            let name = match alg {
                0 => " (default)",
                1 => " (sparse)",
                _ => "",
            };
            let mode = match u32_at(16)? {
                0 => "lossless",
                1 => "lossy_fp_to_signed",
                2 => "lossy_fp_to_unsigned",
                _ => "unknown",
            };
            Some(format!(
                "algorithm {alg}{name}, data_type {}, delta {}, mode {mode} ({})",
                type_name(u32_at(4)?),
                f64::from_bits(le_u64(spec, 8)?),
                u32_at(16)?
            ))
        })(),
        Format::GDeflate | Format::Deflate | Format::Gzip => u32_at(0).map(|a| format!("algorithm {}", a as i32)),
        Format::Snappy | Format::Zstd => Some("no fields".into()),
        Format::Private(id) => Some(format!(
            "gpucomp private format derived from {}",
            Format::from_raw(id.wrapping_sub(0x80)).map_or("?", Format::name)
        )),
    };
    let hex: String = spec.iter().map(|b| format!("{b:02x}")).collect();
    match fields {
        Some(f) => format!("{f} [{hex}]"),
        None => format!("[{hex}]"),
    }
}

impl fmt::Display for NativeStream<'_> {
    /// Header fields, the decoded spec header and the chunk table (index, offset, compressed and
    /// uncompressed size, ratio, checksums), abbreviated beyond 24 chunks.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = self.header();
        let n = self.num_chunks();
        writeln!(f, "NVCOMP_NATIVE stream, {} bytes", self.stream_len())?;
        writeln!(
            f,
            "  version {}.{}, format {} ({})",
            h.major_version,
            h.minor_version,
            self.format().name(),
            h.format_id
        )?;
        writeln!(f, "  spec header: {}", describe_spec_header(self.format(), self.spec_header()))?;
        if let Err(e) = self.algorithm() {
            writeln!(f, "  algorithm: {e}")?;
        }
        let last = if n > 0 { self.chunk_uncompressed_size(n - 1).unwrap_or(0) } else { 0 };
        writeln!(
            f,
            "  uncompressed: {} bytes in {n} chunk{} of {}{}",
            h.decomp_data_size,
            if n == 1 { "" } else { "s" },
            h.uncomp_chunk_size,
            if n > 0 && last != h.uncomp_chunk_size { format!(" (last {last})") } else { String::new() }
        )?;
        writeln!(
            f,
            "  compressed: {} bytes of data at offset {} (tables {:#x}..{:#x}); ratio {}",
            self.comp_data_size(),
            self.comp_data_offset(),
            self.tables_offset(),
            self.tables_end(),
            ratio(h.decomp_data_size, self.stream_len() as u64)
        )?;
        if self.has_checksums() {
            writeln!(f, "  checksums: header (0x30) {}", self.check_header_checksum())?;
        } else {
            writeln!(f, "  checksums: none")?;
        }
        for d in self.gpu_layout_deviations() {
            writeln!(f, "  note: {d}")?;
        }
        if n > 0 {
            let sizes = self.chunk_sizes();
            let min = sizes.iter().min().copied().unwrap_or(0);
            let max = sizes.iter().max().copied().unwrap_or(0);
            let total: u128 = sizes.iter().map(|&s| s as u128).sum();
            writeln!(f, "  chunk sizes: min {min}, mean {}, max {max}", total / n as u128)?;
            let mut header =
                format!("  {:>7} {:>10} {:>10} {:>10} {:>7}", "chunk", "offset", "comp", "uncomp", "ratio");
            if self.has_checksums() {
                let _ = write!(header, "  {:<32} uncomp checksum", "comp checksum");
            }
            writeln!(f, "{}", header.trim_end())?;
            let rows: Vec<usize> =
                if n > MAX_ROWS { (0..HEAD_ROWS).chain(n - TAIL_ROWS..n).collect() } else { (0..n).collect() };
            for (k, &i) in rows.iter().enumerate() {
                if k > 0 && rows[k - 1] + 1 != i {
                    writeln!(f, "  {:>7} ({} chunks not shown)", "...", i - rows[k - 1] - 1)?;
                }
                let Some(c) = self.chunk_info(i) else { continue };
                let mut line = format!(
                    "  {:>7} {:>10} {:>10} {:>10} {:>7}",
                    i,
                    c.offset,
                    c.data.len(),
                    c.uncompressed_size,
                    ratio(c.uncompressed_size, c.data.len() as u64)
                );
                if let (Some(check), Some(u)) = (self.check_chunk_checksum(i), c.decomp_checksum) {
                    let u = if u == 0 { CheckOutcome::NotStored.to_string() } else { format!("{u:08x}") };
                    let _ = write!(line, "  {:<32} {u}", check.to_string());
                }
                writeln!(f, "{line}")?;
            }
        }
        Ok(())
    }
}

/// Describe any buffer: [`detect`] its kind, then the native stream (or why it is invalid), the
/// WITH_UNCOMPRESSED_SIZE prefix, or the RAW chunk's length.
pub fn describe(bytes: &[u8]) -> String {
    match detect(bytes) {
        BitstreamKind::Native => match NativeStream::parse(bytes) {
            Ok(s) => s.to_string(),
            Err(e) => format!("NVCOMP_NATIVE magic, but not a valid stream ({} bytes): {e}\n", bytes.len()),
        },
        BitstreamKind::WithUncompressedSize => match WithUncompressedSize::parse(bytes) {
            Ok(s) => format!(
                "WITH_UNCOMPRESSED_SIZE stream, {} bytes\n  uncompressed: {} bytes\n  compressed: one RAW chunk of {} bytes at offset 16; ratio {}\n  algorithm: not recorded (the caller must know it)\n",
                bytes.len(),
                s.uncompressed_size(),
                s.payload().len(),
                ratio(s.uncompressed_size(), bytes.len() as u64)
            ),
            Err(e) => format!("WITH_UNCOMPRESSED_SIZE prefix, but invalid: {e}\n"),
        },
        BitstreamKind::Raw => format!(
            "RAW stream (no header), {} bytes: one chunk; algorithm and uncompressed size not recorded\n",
            RawStream::new(bytes).payload().len()
        ),
    }
}
