//! Fuzz target `cascaded`: see `gpucomp_fuzz::cascaded`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::cascaded(data));
