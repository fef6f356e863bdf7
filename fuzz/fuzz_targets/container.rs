//! Fuzz target `container`: see `gpucomp_fuzz::container`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::container(data));
