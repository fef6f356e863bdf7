//! `gpucomp [OPTIONS] FILE...`: the zstd-style command. Each FILE is compressed to `FILE.nvc`, or
//! with `-d` decompressed from `FILE.nvc` to `FILE`; `-o OUT` names the output of a single FILE,
//! `-c` writes to stdout, `-` (or no FILE with `-c` or `-o`) reads stdin. Inputs are kept unless
//! `--rm`; existing outputs are replaced only with `-f`. A FILE that fails is reported and the
//! others still run; the exit status is then 1.
use std::io::IsTerminal;

use crate::args::{CodecArgs, Parsed};
use crate::commands::{compress, decompress};
use crate::device::Choice;
use crate::progress::{Progress, Verbosity};
use crate::{io, CliError};

/// The suffix of compressed files.
pub const SUFFIX: &str = ".nvc";

/// Flags of the zstd-style command (the codec flags, `--verify-checksums`, and the file flags).
pub const FLAGS: &[&str] =
    &["checksums", "cpu", "gpu", "verify-checksums", "decompress", "stdout", "keep", "rm", "force", "quiet", "verbose"];

/// One-letter names of the zstd-style command's flags and `--output`.
pub const SHORT: &[(char, &str)] = &[
    ('d', "decompress"),
    ('c', "stdout"),
    ('k', "keep"),
    ('f', "force"),
    ('q', "quiet"),
    ('v', "verbose"),
    ('o', "output"),
];

/// Options that only compression reads.
const COMPRESS_ONLY: [&str; 3] = ["chunk-size", "kind", "encoder"];

/// Compresses or decompresses each FILE (see the module docs).
pub fn run(p: &Parsed) -> Result<(), CliError> {
    let decompressing = p.flag("decompress");
    let force = p.flag("force");
    let to_stdout = p.flag("stdout");
    let remove = p.last_flag(&["keep", "rm"]) == Some("rm");
    let verbosity = match p.last_flag(&["quiet", "verbose"]) {
        Some("quiet") => Verbosity::Quiet,
        Some(_) => Verbosity::Verbose,
        None => Verbosity::Normal,
    };
    let output = p.option("output");
    if to_stdout && output.is_some() {
        return Err(CliError::Usage("-c (--stdout) and -o (--output) exclude each other".into()));
    }
    let mut files: Vec<&str> = p.files().iter().map(String::as_str).collect();
    if files.is_empty() {
        if !to_stdout && output.is_none() {
            return Err(CliError::Usage("no FILE given (use - or -c for stdin; see 'gpucomp --help')".into()));
        }
        files.push("-");
    }
    if output.is_some() && files.len() > 1 {
        return Err(CliError::Usage(format!("-o names one output, but {} FILEs were given", files.len())));
    }
    let codec = if decompressing {
        if let Some(name) = COMPRESS_ONLY.iter().find(|o| p.option(o).is_some()) {
            return Err(CliError::Usage(format!("--{name} applies to compression, not to -d")));
        }
        if p.flag("checksums") {
            return Err(CliError::Usage(
                "--checksums applies to compression (-d reads them with --verify-checksums)".into(),
            ));
        }
        None
    } else {
        if p.flag("verify-checksums") {
            return Err(CliError::Usage("--verify-checksums applies to decompression (-d)".into()));
        }
        if p.option("max-size").is_some() {
            return Err(CliError::Usage("--max-size applies to decompression (-d)".into()));
        }
        if to_stdout && files.len() > 1 {
            return Err(CliError::Usage("-c with several FILEs would join their streams into one output".into()));
        }
        Some(CodecArgs::from(p)?)
    };
    let reading = decompress::Reading::from(p)?;
    let choice = Choice::from(p)?;

    // Every output is planned and checked before any work, so that usage errors come first.
    let mut plan = Vec::with_capacity(files.len());
    for &input in &files {
        let out = match (output, to_stdout || input == "-") {
            (Some(o), _) => Ok(o.to_string()),
            (None, true) => Ok("-".to_string()),
            (None, false) if decompressing => match input.strip_suffix(SUFFIX).filter(|s| !s.is_empty()) {
                Some(stem) => Ok(stem.to_string()),
                None => Err(CliError::Failed(format!("'{input}' does not end in {SUFFIX} (use -o or -c)"))),
            },
            (None, false) => Ok(format!("{input}{SUFFIX}")),
        };
        plan.push((input, out));
    }
    if !decompressing
        && !force
        && plan.iter().any(|(_, o)| matches!(o.as_deref(), Ok("-")))
        && std::io::stdout().is_terminal()
    {
        return Err(CliError::Failed("will not write compressed data to a terminal (use -f to force)".into()));
    }

    let progress = Progress::with(verbosity);
    let device = choice.select(&progress)?;
    let mut failures = vec![];
    for (input, out) in plan {
        let result = out.and_then(|out| {
            io::check_output(&out, force)?;
            if input != "-" && out != "-" && same_file(input, &out) {
                return Err(CliError::Failed(format!("'{input}' would be both input and output")));
            }
            match &codec {
                Some(args) => compress::file(args, &device, input, &out, &progress)?,
                None => decompress::file(&reading, &device, input, &out, &progress)?,
            }
            if remove && input != "-" && out != "-" {
                std::fs::remove_file(input)
                    .map_err(|e| CliError::Failed(format!("cannot remove '{input}' (--rm): {e}")))?;
            }
            Ok(())
        });
        if let Err(e) = result {
            failures.push(not_a_command(input, e));
        }
    }
    match failures.len() {
        0 => Ok(()),
        1 if files.len() == 1 => Err(failures.remove(0)),
        n => {
            for e in &failures {
                eprintln!("gpucomp: error: {}", e.message());
            }
            Err(CliError::Failed(format!("{n} of {} FILEs failed", files.len())))
        }
    }
}

/// A missing FILE named like a word may be a mistyped command: the error says so.
fn not_a_command(input: &str, e: CliError) -> CliError {
    let word = !input.is_empty() && input.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    match e {
        CliError::Failed(m) if word && !std::path::Path::new(input).exists() => {
            CliError::Failed(format!("{m}; nor is '{input}' a command (see 'gpucomp help')"))
        }
        e => e,
    }
}

/// Whether two paths name one existing file (`-f -o FILE FILE` would destroy its input).
fn same_file(a: &str, b: &str) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}
