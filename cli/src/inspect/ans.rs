//! An ANS chunk as text: mode and sizes, where its parts lie, a summary of the frequency table,
//! the final states, and one row per sub-chunk.
use gpucomp::cpu::ans::describe;
use gpucomp::AnsMode;

use super::{fill, plural};
use crate::table::{Align, Table};

/// A symbol: `'e'` when the mode codes bytes and it is printable, else `0x65`.
fn symbol(s: u8, mode: AnsMode) -> String {
    if mode == AnsMode::Bytes && (s.is_ascii_graphic() || s == b' ') {
        format!("'{}'", s as char)
    } else {
        format!("{s:#04x}")
    }
}

/// The header, layout, table and final-state lines and the sub-chunk table of an ANS chunk, or
/// why it does not parse.
pub fn view(chunk: &[u8], rows: usize) -> String {
    let v = match describe::chunk(chunk) {
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

/// The mode's name: `bytes`, `FLOAT16`, `FLOAT8`, `FLOAT32`.
fn mode_name(mode: AnsMode) -> &'static str {
    match mode {
        AnsMode::Bytes => "bytes",
        AnsMode::Float16 => "FLOAT16",
        AnsMode::Float8 => "FLOAT8",
        AnsMode::Float32 => "FLOAT32",
    }
}
