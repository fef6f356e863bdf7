//! Fuzz target `differential`: see `gpucomp_fuzz::differential`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::differential(data));
