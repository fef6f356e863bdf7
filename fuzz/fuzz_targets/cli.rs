//! Fuzz target `cli`: see `gpucomp_fuzz::cli`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::cli(data));
