//! Fuzz target `bitcomp`: see `gpucomp_fuzz::bitcomp`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::bitcomp(data));
