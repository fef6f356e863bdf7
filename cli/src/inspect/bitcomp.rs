//! A Bitcomp chunk as text: its header fields, then one row per 8 KiB block (word offset, words,
//! bytes, padding, mode, ratio).
use gpucomp::cpu::bitcomp::describe::{self, BlockMode};
use gpucomp::BitcompAlgorithm;

use super::{fill, plural};
use crate::table::{Align, Table};
use crate::units::ratio;

/// The header line and block table of a Bitcomp chunk, or why it does not parse.
pub fn view(chunk: &[u8], rows: usize) -> String {
    let v = match describe::chunk(chunk) {
        Ok(v) => v,
        Err(s) => return format!("  error: not a valid Bitcomp chunk: {s}\n"),
    };
    let h = &v;
    let coded = mode(BlockMode::Coded(h.algorithm));
    // As Bitcomp records the type: `u8`, `i16`, ... (floats are stored as unsigned).
    let element = format!("{}{}", if h.signed { "i" } else { "u" }, 8 * h.element_bytes);
    let mut out = format!(
        "  Bitcomp chunk: {element}, algorithm {} ({coded}), {} bytes uncompressed in {} of 8 KiB ({} raw, {} {coded}), {} payload words, {} compressed\n",
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
            mode(b.mode).into(),
            ratio(b.uncompressed as u64, b.bytes() as u64),
        ]
    });
    out += &t.to_string();
    out
}

/// How a block is stored: `raw`, `default`, `sparse`.
fn mode(m: BlockMode) -> &'static str {
    match m {
        BlockMode::Raw => "raw",
        BlockMode::Coded(BitcompAlgorithm::Default) => "default",
        BlockMode::Coded(BitcompAlgorithm::Sparse) => "sparse",
    }
}
