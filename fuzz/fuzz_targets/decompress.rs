//! Fuzz target `decompress`: see `gpucomp_fuzz::decompress`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::decompress(data));
