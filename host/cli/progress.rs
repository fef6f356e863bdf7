//! Phase lines on stderr for large inputs: `gpucomp: [  0.41 s] compressing 1.00 GiB on ...`.
use std::cell::Cell;
use std::time::Instant;

/// Inputs or outputs of at least this many bytes turn the phase lines on (64 MiB).
pub const THRESHOLD: u64 = 64 << 20;

/// Prints each phase of a command, with the time elapsed since the command started, once a
/// size of at least [`THRESHOLD`] has been seen. Always on stderr, never on stdout.
pub struct Progress {
    start: Instant,
    on: Cell<bool>,
}

impl Progress {
    /// A clock started now, silent until [`size`](Self::size) sees a large size.
    pub fn new() -> Progress {
        Progress { start: Instant::now(), on: Cell::new(false) }
    }

    /// Notes the size of an input or output; from [`THRESHOLD`] bytes on, phases are shown.
    pub fn size(&self, bytes: u64) {
        if bytes >= THRESHOLD {
            self.on.set(true);
        }
    }

    /// Shows the start (or end) of a phase.
    pub fn phase(&self, what: impl std::fmt::Display) {
        if self.on.get() {
            eprintln!("gpucomp: [{:>7.2} s] {what}", self.start.elapsed().as_secs_f64());
        }
    }
}
