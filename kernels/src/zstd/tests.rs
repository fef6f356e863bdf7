//! Hand-made frames through [`frame::decode_chunk`] and the kernel body in the simulator; the
//! frames libzstd writes are tested in `tests/sim_zstd_decompress.rs`.
use std::boxed::Box;
use std::vec;
use std::vec::Vec;

use super::*;
use crate::sim::launch;

fn workspace() -> Box<Workspace> {
    // SAFETY: all-zero bytes are a valid `Workspace` (arrays of integers).
    unsafe { Box::new(core::mem::zeroed()) }
}

fn decode(input: &[u8], cap: usize) -> Result<Vec<u8>, i32> {
    let mut out = vec![0u8; cap];
    let n = frame::decode_chunk(input, &mut out, &mut workspace())?;
    out.truncate(n);
    Ok(out)
}

/// A frame header: single segment, content size `n` (< 256), no checksum.
fn header(n: u8) -> Vec<u8> {
    vec![0x28, 0xB5, 0x2F, 0xFD, 0x20, n]
}

/// A frame header: a 1 KiB window, no content size, no checksum (blocks larger than their
/// content need a window larger than the content).
fn windowed() -> Vec<u8> {
    vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00]
}

/// A block header.
fn block(last: bool, kind: u32, size: u32) -> [u8; 3] {
    let h = last as u32 | kind << 1 | size << 3;
    [h as u8, (h >> 8) as u8, (h >> 16) as u8]
}

#[test]
fn raw_rle_and_skippable_frames() {
    let mut f = header(7);
    f.extend(block(false, 0, 3));
    f.extend(b"abc");
    f.extend(block(true, 1, 4));
    f.push(b'z');
    assert_eq!(decode(&f, 7).unwrap(), b"abczzzz");
    // Content size mismatch, output too small, truncation.
    assert_eq!(decode(&f, 6), Err(status::CANNOT_DECOMPRESS));
    assert_eq!(decode(&f[..f.len() - 1], 7), Err(status::CANNOT_DECOMPRESS));
    let mut bad = f.clone();
    bad[5] = 8;
    assert_eq!(decode(&bad, 8), Err(status::CANNOT_DECOMPRESS));
    // A skippable frame, then the frame twice.
    let mut two = vec![0x5A, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 9, 9];
    two.extend(&f);
    two.extend(&f);
    assert_eq!(decode(&two, 14).unwrap(), b"abczzzzabczzzz");
    assert_eq!(decode(&[], 1), Err(status::CANNOT_DECOMPRESS));
    assert_eq!(decode(&[1, 2, 3], 1), Err(status::CANNOT_DECOMPRESS));
    // Dictionaries are not supported.
    let mut dict = vec![0x28, 0xB5, 0x2F, 0xFD, 0x21, 7, 0];
    dict.extend(block(true, 0, 0));
    assert_eq!(decode(&dict, 8), Err(status::NOT_SUPPORTED));
}

#[test]
fn compressed_blocks_of_literals_only() {
    // Raw literals and no sequences (libzstd's frames with sequences are the integration tests').
    let mut f = windowed();
    f.extend(block(true, 2, 5));
    f.extend([3 << 3, b'x', b'y', b'z', 0]);
    assert_eq!(decode(&f, 3).unwrap(), b"xyz");
    // Bytes after a zero sequence count are refused.
    let mut g = windowed();
    g.extend(block(true, 2, 6));
    g.extend([3 << 3, b'x', b'y', b'z', 0, 0]);
    assert_eq!(decode(&g, 3), Err(status::CANNOT_DECOMPRESS));
    // RLE literals.
    let mut h = windowed();
    h.extend(block(true, 2, 3));
    h.extend([5 << 3 | 1, b'q', 0]);
    assert_eq!(decode(&h, 5).unwrap(), b"qqqqq");
}

#[test]
fn kernel_body_in_the_simulator() {
    let mut f = header(4);
    f.extend(block(true, 1, 4));
    f.push(7);
    let chunks = [f.clone(), vec![0u8; 3], f];
    let mut outs = [[0u8; 4]; 3];
    let in_ptrs: Vec<*const u8> = chunks.iter().map(|c| c.as_ptr()).collect();
    let in_bytes: Vec<u64> = chunks.iter().map(|c| c.len() as u64).collect();
    let out_ptrs: Vec<*mut u8> = outs.iter_mut().map(|o| o.as_mut_ptr()).collect();
    let caps = [4u64; 3];
    let (mut actual, mut statuses) = ([9u64; 3], [9i32; 3]);
    let args = batch::DecompressArgs {
        in_ptrs: in_ptrs.as_ptr(),
        in_bytes: in_bytes.as_ptr(),
        num_chunks: 3,
        out_ptrs: out_ptrs.as_ptr(),
        out_capacity: caps.as_ptr(),
        out_actual: actual.as_mut_ptr(),
        statuses: statuses.as_mut_ptr(),
    };
    // With a literal buffer and without one.
    let mut lits = vec![0u8; 3 * 16];
    for (p, stride) in [(lits.as_mut_ptr(), 16u64), (core::ptr::null_mut(), 0)] {
        let (p, st) = (p as usize, stride);
        (actual, statuses) = ([9u64; 3], [9i32; 3]);
        outs = [[0u8; 4]; 3];
        let args = batch::DecompressArgs { out_actual: actual.as_mut_ptr(), statuses: statuses.as_mut_ptr(), ..args };
        launch::<DecompressShared, _>(decompress_grid_dim(3), DECOMPRESS_BLOCK, |t, s| unsafe {
            decompress(t, s, args, p as *mut u8, st)
        });
        assert_eq!(statuses, [status::SUCCESS, status::CANNOT_DECOMPRESS, status::SUCCESS]);
        assert_eq!(actual, [4, 0, 4]);
        assert_eq!(outs[0], [7; 4]);
        assert_eq!(outs[2], [7; 4]);
    }
}

#[test]
fn sizes_from_content_sizes_or_counted() {
    let size = |c: &[u8]| frame::chunk_size(c, &mut workspace());
    // A content size is taken from the header (blocks walked, not decoded).
    let mut f = header(7);
    f.extend(block(false, 0, 3));
    f.extend(b"abc");
    f.extend(block(true, 1, 4));
    f.push(b'z');
    assert_eq!(size(&f), Ok(7));
    let mut bad = f.clone();
    bad[5] = 9;
    assert_eq!(size(&bad), Ok(9));
    assert_eq!(size(&f[..f.len() - 1]), Err(status::CANNOT_DECOMPRESS));
    // Without one, the frame is decoded to count its bytes.
    let mut g = windowed();
    g.extend(block(false, 2, 5));
    g.extend([3 << 3, b'x', b'y', b'z', 0]);
    g.extend(block(true, 1, 40));
    g.push(b'q');
    assert_eq!(size(&g), Ok(43));
    // Both, and a skippable frame; a corrupt counted block.
    let mut both = vec![0x50, 0x2A, 0x4D, 0x18, 1, 0, 0, 0, 9];
    both.extend(&f);
    both.extend(&g);
    assert_eq!(size(&both), Ok(50));
    let mut h = windowed();
    h.extend(block(true, 2, 6));
    h.extend([3 << 3, b'x', b'y', b'z', 0, 0]);
    assert_eq!(size(&h), Err(status::CANNOT_DECOMPRESS));
    // A content size beyond 2^15 times the chunk's length is refused, as by the CPU codec.
    let mut big = vec![0x28, 0xB5, 0x2F, 0xFD, 0xA0, 0, 0, 0, 0x10];
    big.extend(block(true, 0, 0));
    assert_eq!(size(&big), Err(status::CANNOT_DECOMPRESS));
    assert_eq!(size(&[]), Err(status::CANNOT_DECOMPRESS));
}
