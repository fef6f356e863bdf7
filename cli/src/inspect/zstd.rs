//! A Zstd chunk as text: one line per frame (zstd or skippable: offset, length, window, content
//! size, checksum, dictionary), then one row per block of the zstd frames (offset, kind, bytes
//! in the chunk, bytes out for raw and RLE blocks).
use gpucomp::cpu::zstd::{frames, BlockKind, Frame};

use super::{fill, plural};
use crate::table::{Align, Table};

/// The frame lines and block table of a Zstd chunk, or why its framing does not parse.
pub fn view(chunk: &[u8], rows: usize) -> String {
    let frames = match frames(chunk) {
        Ok(f) => f,
        Err(e) => return format!("  error: not a valid Zstd chunk: {e}\n"),
    };
    let mut out = format!("  Zstd chunk: {}, {} bytes\n", plural(frames.len(), "frame"), chunk.len());
    let mut blocks = vec![];
    for (i, f) in frames.iter().enumerate() {
        match f {
            Frame::Skippable { offset, variant, payload_len } => {
                out += &format!(
                    "  frame {i}: skippable (magic 0x184D2A5{variant:X}) at {offset}, {payload_len} bytes of payload\n"
                );
            }
            Frame::Zstd { offset, len, header, blocks: b } => {
                let size = header.content_size.map_or("not recorded".into(), |s| format!("{s} bytes"));
                out += &format!(
                    "  frame {i}: zstd at {offset}, {len} bytes, window {}{}, content size {size}, checksum {}, {}\n",
                    header.window_size,
                    if header.single_segment { " (single segment)" } else { "" },
                    if header.checksum { "XXH64" } else { "none" },
                    plural(b.len(), "block"),
                );
                blocks.extend(b.iter().enumerate().map(|(n, b)| (i, n, *b)));
            }
        }
    }
    if blocks.is_empty() {
        return out;
    }
    let r = Align::Right;
    let mut t =
        Table::new(&[("frame", r), ("block", r), ("offset", r), ("kind", Align::Left), ("bytes", r), ("out", r)]);
    fill(&mut t, blocks.len(), rows, "blocks", |k| {
        let (frame, n, b) = blocks[k];
        let kind = match b.kind {
            BlockKind::Raw => "raw",
            BlockKind::Rle => "RLE",
            BlockKind::Compressed => "compressed",
        };
        vec![
            frame.to_string(),
            n.to_string(),
            b.offset.to_string(),
            kind.into(),
            (3 + b.compressed_len).to_string(),
            b.decoded_len.map_or("-".into(), |d| d.to_string()),
        ]
    });
    out + &t.to_string()
}
