//! A Cascaded chunk as text: its mode and type, then one row per block (asymmetric: offset,
//! bytes, elements, stage slots, pipeline, reference, RLE runs; symmetric: sub-streams and their
//! forms).
use gpucomp::cpu::cascaded::describe::{self, BlockView, Body, Form, Pipeline, StageKind, Transform};
use gpucomp::CascadedMode;

use super::{counted, fill, plural};
use crate::table::{Align, Table};

/// The lines and block table of a Cascaded chunk, or why it does not parse.
pub fn view(chunk: &[u8], rows: usize) -> String {
    let v = match describe::chunk(chunk) {
        Ok(v) => v,
        Err(s) => return format!("  error: not a valid Cascaded chunk: {s}\n"),
    };
    let h = &v;
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
            let pipelines = counted(&v.pipeline_counts(), stages);
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
                    pipeline(b),
                    b.last.reference.to_string(),
                    dash(runs, "/"),
                ]
            });
            out += &t.to_string();
        }
        Body::Symmetric(blocks) => {
            let subs: usize = blocks.iter().map(|b| b.sub_streams.len()).sum();
            let mut forms: Vec<(Form, usize)> = vec![];
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
                counted(&forms, |f| form(*f))
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
                    counted(&b.form_counts(), |f| form(*f)),
                ]
            });
            out += &t.to_string();
        }
    }
    out
}

/// A stage's name in pipelines.
fn stage(kind: StageKind) -> &'static str {
    match kind {
        StageKind::Rle => "RLE",
        StageKind::Delta => "DELTA",
    }
}

/// The stages of a pipeline in slot order, e.g. `RLE → DELTA`, or `none`.
fn stages(p: &Pipeline) -> String {
    if p.is_empty() {
        return "none".into();
    }
    p.iter().map(|&(_, k)| stage(k)).collect::<Vec<_>>().join(" → ")
}

/// A block's stages ending with its terminal stream, e.g. `RLE → DELTA → FOR+bitpack(5 bits)`.
fn pipeline(b: &BlockView) -> String {
    let mut s = String::new();
    for st in &b.stages {
        s += stage(st.kind());
        s += " → ";
    }
    s + &format!("FOR+bitpack({} bits)", b.last.bits)
}

/// A symmetric sub-stream's form: `FOR`, `RLE zigzag DELTA`, `unknown form 0x05`.
fn form(f: Form) -> String {
    let rle = if f.rle() { "RLE " } else { "" };
    match f.transform() {
        Some(Transform::For) => format!("{rle}FOR"),
        Some(Transform::Delta) => format!("{rle}DELTA"),
        Some(Transform::ZigzagDelta) => format!("{rle}zigzag DELTA"),
        Some(Transform::DeltaFor) => format!("{rle}DELTA+FOR"),
        None => format!("unknown form {:#04x}", f.0),
    }
}
