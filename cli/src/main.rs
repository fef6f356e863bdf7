//! `gpucomp`: compress, decompress, inspect, verify and benchmark nvCOMP-compatible streams from
//! the command line, on the GPU when one is present and on the CPU reference codecs otherwise.
//! `gpucomp FILE` / `gpucomp -d FILE.nvc` work as zstd's do; the subcommands give every option.
//!
//! Every failure is one line on stderr and a non-zero exit status: 2 for bad arguments, 1 for
//! I/O, stream and verification errors. Panics (bugs) are reported the same way, without a
//! backtrace.
mod args;
mod commands;
mod device;
mod help;
mod inspect;
mod io;
mod progress;
mod table;
mod units;

use std::process::ExitCode;

/// Why a command failed; decides the exit status.
#[derive(Debug)]
pub enum CliError {
    /// Bad arguments (exit status 2).
    Usage(String),
    /// I/O, stream, device or verification failure (exit status 1).
    Failed(String),
}

impl CliError {
    /// The message, without the kind.
    pub fn message(&self) -> &str {
        match self {
            CliError::Usage(m) | CliError::Failed(m) => m,
        }
    }

    /// A [`CliError::Failed`] for a library error, with what was being done.
    pub fn lib(context: impl std::fmt::Display, e: gpucomp::Error) -> CliError {
        CliError::Failed(format!("{context}: {e}"))
    }
}

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
