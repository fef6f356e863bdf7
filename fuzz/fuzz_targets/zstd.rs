//! Fuzz target `zstd`: see `gpucomp_fuzz::zstd`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::zstd(data));
