//! Reading device memory back to the host through page-locked memory.
use std::sync::{Arc, Mutex};

use cudarc::driver::{result, CudaContext, CudaEvent, CudaStream, PinnedHostSlice};

use crate::error::Result;

/// Smallest page-locked buffer allocated: the read-backs of small batches fit it.
const MIN_BYTES: usize = 64 << 10;

/// A page-locked host buffer that one stream's read-backs go through, grown on demand and held
/// for one read at a time. A copy into pageable memory goes through the driver's bounce buffers;
/// into page-locked memory it runs at bus speed (a batch's header read, 256 KiB for 256 streams,
/// took 58 instead of 80 µs on an H200 machine). Where page-locked memory cannot be had, reads
/// go to pageable memory.
#[derive(Default)]
pub(crate) struct ReadBack {
    buffer: Mutex<Option<PinnedHostSlice<u8>>>,
    /// Recorded after a read's copy, when work is queued behind it.
    copied: Mutex<Option<CudaEvent>>,
}

impl ReadBack {
    /// Copies `len` bytes at device address `address` to the host on `stream`, waits for the
    /// copy, and passes the bytes to `f`.
    ///
    /// # Safety
    /// `address..address + len` must be readable device memory of `ctx`'s device, its contents
    /// final once `stream` reaches the copy.
    pub(crate) unsafe fn read<R>(
        &self,
        ctx: &Arc<CudaContext>,
        stream: &CudaStream,
        address: u64,
        len: usize,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        // SAFETY: this function's contract.
        unsafe { self.read_then(ctx, stream, address, len, None::<fn() -> Result<()>>, f) }
    }

    /// [`read`](Self::read), with `then` (when given) called once the copy is queued, to queue
    /// more work on `stream` behind it: the wait is for the copy alone, so that work runs while
    /// the host goes on.
    ///
    /// # Safety
    /// As [`read`](Self::read).
    pub(crate) unsafe fn read_then<R>(
        &self,
        ctx: &Arc<CudaContext>,
        stream: &CudaStream,
        address: u64,
        len: usize,
        then: Option<impl FnOnce() -> Result<()>>,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        if len == 0 {
            if let Some(then) = then {
                then()?;
            }
            return Ok(f(&[]));
        }
        ctx.bind_to_thread()?;
        let mut slot = self.buffer.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_none_or(|b| b.len() < len) {
            // The old buffer goes first: what replaces it is larger.
            *slot = None;
            let size = len.checked_next_power_of_two().unwrap_or(len).max(MIN_BYTES);
            // Flags 0: cached memory (cudarc's default, write-combined, is slow for the host to read).
            // SAFETY: only the bytes the copy below writes are read.
            *slot = unsafe { ctx.alloc_pinned_with_flags::<u8>(size, 0) }.ok();
        }
        let mut pageable;
        let host: &mut [u8] = match slot.as_mut() {
            Some(buffer) => &mut buffer.as_mut_slice()?[..len],
            None => {
                pageable = vec![0u8; len];
                &mut pageable
            }
        };
        // SAFETY: the source range is readable (this function's contract) and `host` holds `len`
        // bytes that stay borrowed until the stream has run the copy (synchronised below).
        unsafe { result::memcpy_dtoh_async(host, address, stream.cu_stream())? };
        match then {
            None => stream.synchronize()?,
            Some(then) => {
                let mut copied = self.copied.lock().unwrap_or_else(|e| e.into_inner());
                let event = match copied.take() {
                    Some(event) => event,
                    None => ctx.new_event(None)?,
                };
                event.record(stream)?;
                let queued = then();
                // Waited for even when `then` failed: `host` is borrowed until the copy ran.
                event.synchronize()?;
                *copied = Some(event);
                queued?;
            }
        }
        Ok(f(host))
    }
}
