//! The results of a device-batch call: every buffer of the batch in one device allocation.
use std::ops::Range;

use cudarc::driver::{CudaSlice, DevicePtr};

use super::DeviceRange;
use crate::error::{Error, Result};
use crate::gpu::Gpu;

/// Where each buffer starts in the allocation is a multiple of this, as `cudaMalloc` aligns its
/// allocations: a stream or an output read as wider words sits where a buffer of its own would.
pub const BUFFER_ALIGNMENT: usize = 256;

/// The buffers a device-batch call of [`Codec`](super::Codec) returns, laid end to end in one
/// device allocation (each at a multiple of [`BUFFER_ALIGNMENT`]): a batch of hundreds of
/// buffers costs one allocation instead of hundreds. The memory is freed, in order on the
/// stream of the call, when this value is dropped.
pub struct DeviceBuffers {
    memory: CudaSlice<u8>,
    ranges: Vec<Range<usize>>,
}

impl std::fmt::Debug for DeviceBuffers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffers").field("base", &self.base()).field("ranges", &self.ranges).finish()
    }
}

impl DeviceBuffers {
    /// An allocation holding buffers of `lens` bytes, uninitialised.
    ///
    /// # Safety
    /// Every byte of every buffer must be written before it is read.
    pub(crate) unsafe fn alloc(gpu: &Gpu, lens: &[usize]) -> Result<DeviceBuffers> {
        let mut end = 0usize;
        let mut ranges = Vec::with_capacity(lens.len());
        for &len in lens {
            let start = end
                .checked_next_multiple_of(BUFFER_ALIGNMENT)
                .and_then(|s| s.checked_add(len))
                .ok_or_else(|| Error::invalid(format!("{} buffers: their total size overflows", lens.len())))?
                - len;
            end = start + len;
            ranges.push(start..end);
        }
        // SAFETY: this function's contract; the gaps between buffers are never read.
        let memory = unsafe { gpu.alloc::<u8>(end)? };
        Ok(DeviceBuffers { memory, ranges })
    }

    /// The number of buffers.
    pub fn len(&self) -> usize {
        self.ranges.len()
    }

    /// Whether the batch had no buffer.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Buffer `i`'s device range. Panics if `i >= self.len()`.
    pub fn range(&self, i: usize) -> DeviceRange {
        let r = &self.ranges[i];
        DeviceRange { address: self.base() + r.start as u64, len: r.len() }
    }

    /// Every buffer's device range, in order.
    pub fn ranges(&self) -> Vec<DeviceRange> {
        (0..self.len()).map(|i| self.range(i)).collect()
    }

    /// Buffer `i`'s bytes copied to the host (waits for the stream). Panics if `i >= self.len()`.
    pub fn to_host(&self, i: usize) -> Result<Vec<u8>> {
        let r = self.ranges[i].clone();
        if r.is_empty() {
            return Ok(Vec::new());
        }
        Ok(self.memory.stream().clone_dtoh(&self.memory.slice(r))?)
    }

    /// The allocation and each buffer's byte range in it, for callers that hand the buffers on
    /// (the allocation must outlive every use of them).
    pub fn into_parts(self) -> (CudaSlice<u8>, Vec<Range<usize>>) {
        (self.memory, self.ranges)
    }

    /// Shortens buffer `i` to `lens[i]` bytes (at most its length) for every `i`; the
    /// allocation stays as it is.
    pub(crate) fn truncate_each(&mut self, lens: &[usize]) {
        for (r, &len) in self.ranges.iter_mut().zip(lens) {
            r.end = r.start + len.min(r.len());
        }
    }

    /// The first buffer as a slice of its own length, owning the whole allocation.
    pub(crate) fn into_first(self) -> CudaSlice<u8> {
        let len = self.ranges.first().map_or(0, |r| r.end);
        let stream = self.memory.stream().clone();
        let address = self.memory.leak();
        // SAFETY: the allocation just released by `leak`, at least `len` bytes long (the first
        // buffer starts at 0); it is freed on the slice's drop in order on the same stream.
        unsafe { stream.upgrade_device_ptr::<u8>(address, len) }
    }

    fn base(&self) -> u64 {
        self.memory.device_ptr(self.memory.stream()).0
    }
}
