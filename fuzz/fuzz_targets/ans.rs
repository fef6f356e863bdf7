//! Fuzz target `ans`: see `gpucomp_fuzz::ans`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::ans(data));
