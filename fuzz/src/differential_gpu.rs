//! The differential target on a GPU: the same comparison as [`crate::differential`], with the
//! kernel decoders run on the device through the batched API (`gpucomp::batched`, which also
//! queues LZ4's inverse bitshuffle) instead of the simulator, so that it runs at thousands of
//! executions a second. It needs a CUDA device: the GPU bundle runs it (`scripts/gpu/fuzz.sh`).
//!
//! Each execution is one upload (arrays, chunk, poisoned output), the size query and the
//! decompression, and one read-back. Jobs in parallel processes share the GPU by time slices,
//! so a few processes run about as many executions as many (measured in `benches/notes/fuzz.md`).
use std::sync::OnceLock;

use cudarc::driver::DevicePtrMut;
use gpucomp::batched::{self, DecompressBatchAt};
use gpucomp::gpu::Gpu;
use gpucomp::Algorithm;

use super::differential::{compare, Kernel, Kernels, Verdict, POISON, SLACK};

/// One chunk, the simulator's comparison on the GPU (input layout: [`crate::differential`]).
pub fn differential_gpu(data: &[u8]) {
    compare(&OnDevice(device()), data)
}

/// Opens the process's GPU (the target's `init`); without one the target cannot run at all.
pub fn open_gpu() {
    device();
}

/// The process's GPU, opened once.
fn device() -> &'static Gpu {
    static GPU: OnceLock<Gpu> = OnceLock::new();
    GPU.get_or_init(|| {
        Gpu::new(0).unwrap_or_else(|e| {
            eprintln!("differential_gpu needs a CUDA device: {e}");
            std::process::exit(2)
        })
    })
}

struct OnDevice(&'static Gpu);

/// Bytes from one part of the execution's buffer to the next: keeps every part 16-byte aligned.
fn part(len: usize) -> usize {
    len.next_multiple_of(256)
}

impl Kernels for OnDevice {
    fn run(&self, kernel: Kernel, algorithm: &Algorithm, chunk: &[u8], cap: usize, shift: (usize, usize)) -> Verdict {
        let g = self.0;
        let stream = g.stream();
        let codec = batched::for_algorithm(algorithm).expect("the target's option sets have a batched codec");
        // Layout: 8 words (arrays and results), the chunk, the output and its guard.
        let input_at = 256;
        let output_at = input_at + part(shift.0 + chunk.len() + 16);
        let out_len = shift.1 + cap + SLACK;
        let total = output_at + part(out_len);
        let mut host = vec![0u8; total];
        // SAFETY: every byte is written by the upload below.
        let mut buf = unsafe { g.alloc::<u8>(total) }.expect("device allocation");
        let base = buf.device_ptr_mut(stream).0;
        let words = [
            base + (input_at + shift.0) as u64,
            chunk.len() as u64,
            base + (output_at + shift.1) as u64,
            cap as u64,
            u64::MAX, // size
            u64::MAX, // out_actual
            u64::MAX, // status (low half)
        ];
        for (k, w) in words.iter().enumerate() {
            host[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
        }
        host[input_at + shift.0..input_at + shift.0 + chunk.len()].copy_from_slice(chunk);
        host[output_at..output_at + out_len].fill(POISON);
        stream.memcpy_htod(&host, &mut buf).expect("upload");
        let word = |k: u64| base + 8 * k;
        let temp_size = codec.decompress_temp_size(1, cap.max(1)).expect("temp size");
        let mut temp = (temp_size > 0).then(|| g.alloc_zeros::<u8>(temp_size).expect("temp"));
        // SAFETY: the arrays hold one entry each; the chunk is readable for its length, the
        // size, actual and status words writable, the output for `cap` bytes (the guard after
        // it is ours too), overlapping nothing; all in `buf`, alive until the read-back.
        unsafe {
            codec.decompressed_size_async_at(g, word(0), word(1), 1, word(4)).expect("size query");
            codec
                .decompress_async_at(
                    g,
                    DecompressBatchAt {
                        in_ptrs: word(0),
                        in_bytes: word(1),
                        num_chunks: 1,
                        max_uncompressed_chunk_bytes: cap.max(1),
                        temp: temp.as_mut(),
                        out_ptrs: word(2),
                        out_capacity: word(3),
                        out_actual: word(5),
                        statuses: word(6),
                    },
                )
                .expect("decompression launch");
        }
        let back = stream.clone_dtoh(&buf).expect("read-back");
        let w = |k: usize| u64::from_le_bytes(back[8 * k..8 * k + 8].try_into().expect("8 bytes"));
        let (size, actual) = (w(4), w(5));
        let status = i32::from_le_bytes(back[48..52].try_into().expect("4 bytes"));
        let out = &back[output_at + shift.1..output_at + out_len];
        assert!(actual <= cap as u64, "{kernel:?}: out_actual {actual} > capacity {cap}");
        assert!(out[cap..].iter().all(|&b| b == POISON), "{kernel:?}: wrote past the output capacity {cap}");
        (size, status, actual, out[..actual as usize].to_vec())
    }
}
