//! Fuzz target `round_trip`: see `gpucomp_fuzz::round_trip`.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| gpucomp_fuzz::round_trip(data));
