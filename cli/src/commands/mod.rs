//! The commands, and dispatch from the command line: a known command name first selects that
//! command; anything else is the zstd-style command ([`files`]).
mod bench;
mod compress;
mod decompress;
mod files;
mod inspect;
mod verify;

use crate::args::{Parsed, Spec, BENCH_OPTIONS, CODEC_FLAGS, CODEC_OPTIONS, INSPECT_OPTIONS};
use crate::{help, io, CliError};

type Command = fn(&Parsed) -> Result<(), CliError>;

/// Flags of `compress` (the codec flags and `--force`).
const COMPRESS_FLAGS: &[&str] = &["checksums", "cpu", "gpu", "force"];
/// Flags of `decompress`.
const DECOMPRESS_FLAGS: &[&str] = &["cpu", "gpu", "verify-checksums", "force"];
/// Options of the zstd-style command: the codec options, `--output` and `--max-size`.
const FILES_OPTIONS: &[&[&str]] = &[CODEC_OPTIONS, &["output", "max-size"]];

/// Runs the command line (without the program name).
pub fn run(argv: &[String]) -> Result<(), CliError> {
    let Some((name, rest)) = argv.split_first() else {
        eprint!("{}", help::MAIN);
        return Err(CliError::Usage("no FILE or command given".into()));
    };
    match name.as_str() {
        "help" | "--help" | "-h" => return show_help(rest.first().map_or("help", String::as_str)),
        "--version" | "-V" => {
            return io::print(&format!("gpucomp {}\n", env!("CARGO_PKG_VERSION")));
        }
        _ => {}
    }
    let (spec, command, rest) = match lookup(name) {
        Some((spec, command)) => (spec, command, rest),
        None => (
            Spec { command: "", flags: files::FLAGS, options: FILES_OPTIONS, short: files::SHORT },
            files::run as Command,
            argv,
        ),
    };
    if rest.iter().take_while(|a| *a != "--").any(|a| a == "--help" || a == "-h") {
        return show_help(if spec.command.is_empty() { "help" } else { name });
    }
    command(&spec.parse(rest)?)
}

fn show_help(name: &str) -> Result<(), CliError> {
    let text = help::command(name)
        .ok_or_else(|| CliError::Usage(format!("no help for unknown command '{name}' (see 'gpucomp help')")))?;
    io::print(&text)
}

fn lookup(name: &str) -> Option<(Spec, Command)> {
    let spec = |command, flags, options, short| Spec { command, flags, options, short };
    const FORCE: &[(char, &str)] = &[('f', "force")];
    Some(match name {
        "compress" => (spec("compress", COMPRESS_FLAGS, &[CODEC_OPTIONS], FORCE), compress::run as Command),
        "decompress" => (
            spec("decompress", DECOMPRESS_FLAGS, &[&["algorithm", "data-type", "bitshuffle", "max-size"]], FORCE),
            decompress::run,
        ),
        "inspect" => (spec("inspect", &[], &[INSPECT_OPTIONS], &[]), inspect::run),
        "verify" => (spec("verify", CODEC_FLAGS, &[CODEC_OPTIONS], &[]), verify::run),
        "bench" => (spec("bench", CODEC_FLAGS, BENCH_OPTIONS, &[]), bench::run),
        _ => return None,
    })
}
