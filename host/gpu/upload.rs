//! Writing host data to device memory through page-locked memory.
use std::sync::{Arc, Mutex};

use cudarc::driver::{result, CudaContext, CudaEvent, CudaStream, PinnedHostSlice};

use crate::error::Result;

/// Smallest page-locked buffer allocated: the uploads of a batch of 256 streams fit it.
const MIN_BYTES: usize = 64 << 10;

/// A page-locked host buffer that one stream's small uploads (a batch's descriptions and chunk
/// arrays) go through, grown on demand. A copy from pageable memory is staged by the driver,
/// which may wait for the stream first; from page-locked memory it is queued as is. The buffer
/// is reused once the previous upload's copy has run (an event recorded behind it). Where
/// page-locked memory cannot be had, uploads copy from the caller's memory.
#[derive(Default)]
pub(crate) struct Upload {
    buffer: Mutex<Option<PinnedHostSlice<u8>>>,
    /// Recorded behind the last copy out of `buffer`.
    copied: Mutex<Option<CudaEvent>>,
}

impl Upload {
    /// Queues a copy of `bytes` to device address `address` on `stream`; returns once the bytes
    /// are in page-locked memory (or, without it, once the driver took them).
    ///
    /// # Safety
    /// `address..address + bytes.len()` must be writable device memory of `ctx`'s device, not
    /// read or written by other work until `stream` has run the copy.
    pub(crate) unsafe fn write(
        &self,
        ctx: &Arc<CudaContext>,
        stream: &CudaStream,
        address: u64,
        bytes: &[u8],
    ) -> Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        ctx.bind_to_thread()?;
        let mut slot = self.buffer.lock().unwrap_or_else(|e| e.into_inner());
        let mut copied = self.copied.lock().unwrap_or_else(|e| e.into_inner());
        // The previous upload's copy reads the buffer until the stream has run it.
        if let Some(event) = copied.as_ref() {
            event.synchronize()?;
        }
        if slot.as_ref().is_none_or(|b| b.len() < bytes.len()) {
            *slot = None;
            let size = bytes.len().checked_next_power_of_two().unwrap_or(bytes.len()).max(MIN_BYTES);
            // Write-combined: the host only writes it, and the device reads it faster.
            // SAFETY: only the bytes written below are copied out.
            *slot = unsafe { ctx.alloc_pinned_with_flags::<u8>(size, sys_flags::WRITE_COMBINED) }.ok();
        }
        let Some(buffer) = slot.as_mut() else {
            // SAFETY: the destination per this function's contract; the driver stages pageable
            // memory before the call returns.
            unsafe { result::memcpy_htod_async(address, bytes, stream.cu_stream())? };
            return Ok(());
        };
        let staged = &mut buffer.as_mut_slice()?[..bytes.len()];
        staged.copy_from_slice(bytes);
        // SAFETY: the destination per this function's contract; `staged` is page-locked and not
        // written again before the event recorded below has been waited for.
        unsafe { result::memcpy_htod_async(address, &*staged, stream.cu_stream())? };
        let event = match copied.take() {
            Some(event) => event,
            None => ctx.new_event(None)?,
        };
        event.record(stream)?;
        *copied = Some(event);
        Ok(())
    }
}

/// `cuMemHostAlloc` flags.
mod sys_flags {
    /// `CU_MEMHOSTALLOC_WRITECOMBINED`.
    pub(super) const WRITE_COMBINED: u32 = 0x04;
}
