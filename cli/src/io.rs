//! Reading inputs and writing outputs: files, or stdin / stdout for `-`.
use std::io::{Read, Write};

use crate::progress::Progress;
use crate::units::bytes;
use crate::CliError;

/// How a path is named in messages: `stdin` / `stdout` for `-`.
pub fn name(path: &str, dash: &'static str) -> String {
    if path == "-" {
        dash.into()
    } else {
        format!("'{path}'")
    }
}

/// Reads a whole file, or stdin for `-`.
pub fn read(path: &str, progress: &Progress) -> Result<Vec<u8>, CliError> {
    let fail = |e: std::io::Error| CliError::Failed(format!("cannot read {}: {e}", name(path, "stdin")));
    if path == "-" {
        let mut data = Vec::new();
        std::io::stdin().lock().read_to_end(&mut data).map_err(fail)?;
        progress.size(data.len() as u64);
        progress.phase(format!("read {} from stdin", bytes(data.len() as u64)));
        return Ok(data);
    }
    let len = std::fs::metadata(path).map_err(fail)?.len();
    progress.size(len);
    progress.phase(format!("reading {} from {}", bytes(len), name(path, "stdin")));
    std::fs::read(path).map_err(fail)
}

/// Prints a report on stdout. A closed pipe (`gpucomp inspect X | head`) ends it quietly.
pub fn print(report: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(report.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::Failed(format!("cannot write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// Refuses to replace an existing file unless `force` (`-f`); stdout (`-`) is always writable.
/// Called before any work, so that a refusal costs nothing.
pub fn check_output(path: &str, force: bool) -> Result<(), CliError> {
    if path != "-" && !force && std::fs::symlink_metadata(path).is_ok() {
        return Err(CliError::Failed(format!("'{path}' already exists (use -f to overwrite it)")));
    }
    Ok(())
}

/// Writes `data` to a file (created or truncated), or to stdout for `-`.
pub fn write(path: &str, data: &[u8], progress: &Progress) -> Result<(), CliError> {
    progress.size(data.len() as u64);
    progress.phase(format!("writing {} to {}", bytes(data.len() as u64), name(path, "stdout")));
    let result = if path == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(data).and_then(|()| out.flush())
    } else {
        std::fs::write(path, data)
    };
    result.map_err(|e| CliError::Failed(format!("cannot write {}: {e}", name(path, "stdout"))))
}
