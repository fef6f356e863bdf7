//! The `gpucomp` command-line tool's code, as a library: the binary (`main.rs`) runs
//! [`commands::run`] on its arguments, and the fuzz crate (`fuzz/`) calls the same functions in
//! process: [`commands::parse`] on arbitrary argument lists, [`commands::inspect::report`] and
//! the decompression commands on arbitrary streams.
pub mod args;
pub mod commands;
mod device;
mod help;
mod inspect;
mod io;
mod progress;
mod table;
mod units;

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
