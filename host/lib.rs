//! placeholder
pub static PTX_SM90: &str = include_str!(concat!(env!("OUT_DIR"), "/gpucomp_sm_90.ptx"));
