//! Fuzz target `differential_gpu`: see `gpucomp_fuzz::differential_gpu` (needs a CUDA device).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    // The device and its kernels (a JIT compilation of the PTX) before the first input, so
    // that libFuzzer's per-input timeout measures executions only.
    init: gpucomp_fuzz::open_gpu(),
    |data: &[u8]| gpucomp_fuzz::differential_gpu(data)
);
