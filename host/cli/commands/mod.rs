//! The commands, and dispatch from the command line.
mod bench;
mod compress;
mod decompress;
mod inspect;
mod verify;

use crate::args::{Parsed, Spec, BENCH_OPTIONS, CODEC_FLAGS, CODEC_OPTIONS, INSPECT_OPTIONS};
use crate::{help, io, CliError};

type Command = fn(&Parsed) -> Result<(), CliError>;

/// Runs the command line (without the program name).
pub fn run(argv: &[String]) -> Result<(), CliError> {
    let Some((name, rest)) = argv.split_first() else {
        return Err(CliError::Usage("no command given (see 'gpucomp help')".into()));
    };
    match name.as_str() {
        "help" | "--help" | "-h" => return show_help(rest.first().map_or("help", String::as_str)),
        "--version" | "-V" => {
            return io::print(&format!("gpucomp {}\n", env!("CARGO_PKG_VERSION")));
        }
        _ => {}
    }
    let Some((spec, command)) = lookup(name) else {
        return Err(CliError::Usage(format!("unknown command '{name}' (see 'gpucomp help')")));
    };
    if rest.iter().take_while(|a| *a != "--").any(|a| a == "--help" || a == "-h") {
        return show_help(name);
    }
    command(&spec.parse(rest)?)
}

fn show_help(name: &str) -> Result<(), CliError> {
    let text = help::command(name)
        .ok_or_else(|| CliError::Usage(format!("no help for unknown command '{name}' (see 'gpucomp help')")))?;
    io::print(&text)
}

fn lookup(name: &str) -> Option<(Spec, Command)> {
    let spec = |command, flags, options| Spec { command, flags, options };
    Some(match name {
        "compress" => (spec("compress", CODEC_FLAGS, CODEC_OPTIONS), compress::run as Command),
        "decompress" => (
            spec("decompress", &["cpu", "gpu", "verify-checksums"], &["algorithm", "data-type", "bitshuffle"]),
            decompress::run,
        ),
        "inspect" => (spec("inspect", &[], INSPECT_OPTIONS), inspect::run),
        "verify" => (spec("verify", CODEC_FLAGS, CODEC_OPTIONS), verify::run),
        "bench" => (spec("bench", CODEC_FLAGS, BENCH_OPTIONS), bench::run),
        _ => return None,
    })
}
