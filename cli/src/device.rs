//! Choosing where to run: the GPU when one opens, else the CPU with a note saying why;
//! `--cpu` forces the CPU and `--gpu` requires a GPU.
use gpucomp::gpu::Gpu;
use gpucomp::Device;

use crate::args::Parsed;
use crate::progress::Progress;
use crate::CliError;

/// The device the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// GPU 0 if it opens, else the CPU.
    Auto,
    /// `--cpu`.
    Cpu,
    /// `--gpu`.
    Gpu,
}

impl Choice {
    /// From the `--cpu` / `--gpu` flags (at most one of them).
    pub fn from(p: &Parsed) -> Result<Choice, CliError> {
        match (p.flag("cpu"), p.flag("gpu")) {
            (true, true) => Err(CliError::Usage("--cpu and --gpu exclude each other".into())),
            (true, false) => Ok(Choice::Cpu),
            (false, true) => Ok(Choice::Gpu),
            (false, false) => Ok(Choice::Auto),
        }
    }

    /// GPU 0, or why there is none to use: `Ok(Err(reason))` when the choice allows running
    /// without it, `Err` when `--gpu` demanded one.
    pub fn gpu(self) -> Result<Result<Gpu, String>, CliError> {
        match self {
            Choice::Cpu => Ok(Err("--cpu given".into())),
            Choice::Auto => Ok(Gpu::new(0).map_err(|e| e.to_string())),
            Choice::Gpu => Gpu::new(0).map(Ok).map_err(|e| CliError::Failed(format!("--gpu: {e}"))),
        }
    }

    /// The device to run on; when a GPU was wanted but none opened, a note on stderr says why
    /// (unless `progress` is quiet).
    pub fn select(self, progress: &Progress) -> Result<Device, CliError> {
        Ok(match self.gpu()? {
            Ok(gpu) => Device::Gpu(gpu),
            Err(reason) => {
                if self == Choice::Auto {
                    progress.say(format!("note: running on the CPU: {reason}"));
                }
                Device::Cpu
            }
        })
    }
}

/// `GPU 0 (NVIDIA H100 80GB HBM3)` or `CPU (16 threads)`.
pub fn describe(device: &Device) -> String {
    match device {
        Device::Gpu(g) => format!("GPU {} ({})", g.info().ordinal, g.info().name),
        Device::Cpu => {
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            format!("CPU ({threads} thread{})", if threads == 1 { "" } else { "s" })
        }
    }
}
