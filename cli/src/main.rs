//! `gpucomp`: compress, decompress, inspect, verify and benchmark nvCOMP-compatible streams from
//! the command line, on the GPU when one is present and on the CPU reference codecs otherwise.
//! `gpucomp FILE` / `gpucomp -d FILE.nvc` work as zstd's do; the subcommands give every option.
//!
//! Every failure is one line on stderr and a non-zero exit status: 2 for bad arguments, 1 for
//! I/O, stream and verification errors. Panics (bugs) are reported the same way, without a
//! backtrace.
use gpucomp_cli::{commands, CliError};
use std::process::ExitCode;

fn main() -> ExitCode {
    // Silence the default panic message: the library catches driver panics internally, and any
    // other panic is reported below as one line.
    std::panic::set_hook(Box::new(|_| {}));
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = std::panic::catch_unwind(|| commands::run(&argv)).unwrap_or_else(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(CliError::Failed(format!("internal error (a bug in gpucomp): {what}")))
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Usage(msg)) => {
            eprintln!("gpucomp: error: {msg}");
            ExitCode::from(2)
        }
        Err(CliError::Failed(msg)) => {
            eprintln!("gpucomp: error: {msg}");
            ExitCode::FAILURE
        }
    }
}
