//! The commands, and dispatch from the command line: a known command name first selects that
//! command; anything else is the zstd-style command ([`files`]).
mod bench;
mod compress;
pub mod decompress;
mod files;
pub mod inspect;
mod verify;

use crate::args::{Parsed, Spec, BENCH_OPTIONS, CODEC_FLAGS, CODEC_OPTIONS, INSPECT_OPTIONS};
use crate::{help, io, CliError};

/// A command's body, run on its parsed arguments.
pub type Command = fn(&Parsed) -> Result<(), CliError>;

/// Flags of `compress` (the codec flags and `--force`).
const COMPRESS_FLAGS: &[&str] = &["checksums", "cpu", "gpu", "force"];
/// Flags of `decompress`.
const DECOMPRESS_FLAGS: &[&str] = &["cpu", "gpu", "verify-checksums", "force"];
/// Options of the zstd-style command: the codec options, `--output` and `--max-size`.
const FILES_OPTIONS: &[&[&str]] = &[CODEC_OPTIONS, &["output", "max-size"]];

/// What a command line asks for, parsed but not run.
pub enum Invocation {
    /// `help [COMMAND]`, `--help` or `-h` (also among a command's arguments): the help of the
    /// command named (`help`: the main help).
    Help(String),
    /// `--version` or `-V`.
    Version,
    /// A command and its parsed arguments.
    Run(Command, Parsed),
}

/// Runs the command line (without the program name).
pub fn run(argv: &[String]) -> Result<(), CliError> {
    if argv.is_empty() {
        eprint!("{}", help::MAIN);
    }
    match parse(argv)? {
        Invocation::Help(name) => show_help(&name),
        Invocation::Version => io::print(&format!("gpucomp {}\n", env!("CARGO_PKG_VERSION"))),
        Invocation::Run(command, parsed) => command(&parsed),
    }
}

/// Parses the command line (without the program name): which command, and its arguments.
pub fn parse(argv: &[String]) -> Result<Invocation, CliError> {
    let Some((name, rest)) = argv.split_first() else {
        return Err(CliError::Usage("no FILE or command given".into()));
    };
    match name.as_str() {
        "help" | "--help" | "-h" => return Ok(Invocation::Help(rest.first().map_or("help", String::as_str).into())),
        "--version" | "-V" => return Ok(Invocation::Version),
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
        return Ok(Invocation::Help(if spec.command.is_empty() { "help".into() } else { name.clone() }));
    }
    Ok(Invocation::Run(command, spec.parse(rest)?))
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
