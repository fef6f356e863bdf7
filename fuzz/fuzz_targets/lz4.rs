//! Fuzz target `lz4`: see `gpucomp_fuzz::lz4`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::lz4(data));
