//! The high-level API's CPU path: the reference codecs, chunks spread over all cores.
#![forbid(unsafe_code)]
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::algorithm::Algorithm;
use crate::cpu;
use crate::error::{Error, Result, Status};

/// Compresses each of `chunks`; `max_chunk` is the stream's chunk size (encoders size their
/// tables by it).
pub(crate) fn compress_chunks(algorithm: &Algorithm, chunks: &[&[u8]], max_chunk: usize) -> Result<Vec<Vec<u8>>> {
    parallel(chunks.len(), |i| {
        let mut out = vec![0u8; algorithm.max_compressed_chunk_size(chunks[i].len())];
        let n = cpu::compress_chunk(algorithm, max_chunk, chunks[i], &mut out)
            .map_err(|status| Error::Chunk { chunk: i, status })?;
        out.truncate(n);
        Ok(out)
    })
}

/// Decompresses chunk `i` into `out[i * chunk_size..]`; each chunk must fill its part exactly.
pub(crate) fn decompress_into(
    algorithm: &Algorithm,
    chunks: &[&[u8]],
    chunk_size: usize,
    out: &mut [u8],
) -> Result<()> {
    let parts: Vec<Mutex<&mut [u8]>> = out.chunks_mut(chunk_size).map(Mutex::new).collect();
    if parts.len() != chunks.len() {
        return Err(Error::stream(format!("{} chunks for {} chunks of output", chunks.len(), parts.len())));
    }
    parallel(chunks.len(), |i| {
        let mut part = parts[i].lock().unwrap_or_else(|e| e.into_inner());
        match cpu::decompress_chunk(algorithm, chunks[i], &mut part) {
            Ok(n) if n == part.len() => Ok(()),
            Ok(_) => Err(Error::Chunk { chunk: i, status: Status::CannotDecompress }),
            Err(status) => Err(Error::Chunk { chunk: i, status }),
        }
    })
    .map(drop)
}

/// Runs `f(i)` for `i` in `0..n` on all cores; results in index order, the first error wins.
fn parallel<T: Send>(n: usize, f: impl Fn(usize) -> Result<T> + Sync) -> Result<Vec<T>> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n.max(1));
    let next = AtomicUsize::new(0);
    let results: Vec<Mutex<Option<Result<T>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let r = f(i);
                *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).unwrap_or(Err(Error::stream("worker lost"))))
        .collect()
}

/// The uncompressed size of a RAW stream (one chunk), read from the chunk.
pub(crate) fn raw_size(algorithm: &Algorithm, stream: &[u8]) -> Result<u64> {
    cpu::decompressed_chunk_size(algorithm, stream)
        .map(|n| n as u64)
        .map_err(|status| Error::Chunk { chunk: 0, status })
}
