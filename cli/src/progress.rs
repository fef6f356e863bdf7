//! Phase lines on stderr for large inputs: `gpucomp: [  0.41 s] compressing 1.00 GiB on ...`.
use std::cell::Cell;
use std::time::Instant;

/// Inputs or outputs of at least this many bytes turn the phase lines on (64 MiB).
pub const THRESHOLD: u64 = 64 << 20;

/// How much a command says on stderr besides errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verbosity {
    /// `-q`: errors only.
    Quiet,
    /// The summary line of each file, notes, and phase lines for large files.
    Normal,
    /// `-v`: also the phase lines of small files.
    Verbose,
}

/// Prints each phase of a command, with the time elapsed since the command started, once a
/// size of at least [`THRESHOLD`] has been seen (always with [`Verbosity::Verbose`], never with
/// [`Verbosity::Quiet`]). Always on stderr, never on stdout.
pub struct Progress {
    start: Instant,
    verbosity: Verbosity,
    on: Cell<bool>,
}

impl Progress {
    /// A clock started now, silent until [`size`](Self::size) sees a large size.
    pub fn new() -> Progress {
        Progress::with(Verbosity::Normal)
    }

    /// A clock started now, saying as much as `verbosity` asks.
    pub fn with(verbosity: Verbosity) -> Progress {
        Progress { start: Instant::now(), verbosity, on: Cell::new(verbosity == Verbosity::Verbose) }
    }

    /// Notes the size of an input or output; from [`THRESHOLD`] bytes on, phases are shown.
    pub fn size(&self, bytes: u64) {
        if bytes >= THRESHOLD && self.verbosity != Verbosity::Quiet {
            self.on.set(true);
        }
    }

    /// Shows the start (or end) of a phase.
    pub fn phase(&self, what: impl std::fmt::Display) {
        if self.on.get() {
            eprintln!("gpucomp: [{:>7.2} s] {what}", self.start.elapsed().as_secs_f64());
        }
    }

    /// Shows a summary or a note, unless quiet.
    pub fn say(&self, what: impl std::fmt::Display) {
        if self.verbosity != Verbosity::Quiet {
            eprintln!("gpucomp: {what}");
        }
    }
}
