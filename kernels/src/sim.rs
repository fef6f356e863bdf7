//! CPU simulator: runs kernel bodies written against [`Thread`] on OS threads.
//!
//! * One OS thread per GPU thread; the blocks of a launch run one after another.
//! * `sync_threads` is a block-wide barrier that, like `bar.sync`, only waits for threads that
//!   have not exited.
//! * Warp collectives go through a per-warp exchange array and one warp barrier; all 32 lanes
//!   must take part (full mask), otherwise the waiting lanes panic. The array is double-buffered
//!   by the collective's parity: a lane can write the buffer of collective `k + 2` only after
//!   every lane has passed the barrier of `k + 1`, so after all have read collective `k`.
//! * No wait hangs: a barrier that does not complete within 10 s panics, and a panicking thread
//!   breaks the barriers it belongs to, so a kernel bug fails its test fast.
//!
//! Inter-block races are not modelled (blocks are sequential), and shared memory starts zeroed
//! where the GPU's is undefined: kernels must store before they load, as on the GPU.
use std::boxed::Box;
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};
use std::sync::{Condvar, Mutex};
use std::time::Duration;
use std::vec::Vec;

use crate::Thread;

/// How long a simulated barrier waits before calling the kernel's barriers divergent. Generous: a
/// block is 128 OS threads, and a debug build on a loaded 2-core machine (CI beside other builds)
/// was seen to keep one from its barrier for over 10 s.
const BARRIER_TIMEOUT: Duration = Duration::from_secs(120);

/// Block barrier (`shrink_on_exit`: exited threads stop counting, like `bar.sync`) or warp
/// barrier (a lane that exits while others wait is a bug: the waiters panic).
struct Barrier {
    state: Mutex<BarrierState>,
    cv: Condvar,
    shrink_on_exit: bool,
}

struct BarrierState {
    parties: u32,
    arrived: u32,
    generation: u64,
    broken: bool,
}

impl Barrier {
    fn new(parties: u32, shrink_on_exit: bool) -> Self {
        let state = BarrierState { parties, arrived: 0, generation: 0, broken: false };
        Barrier { state: Mutex::new(state), cv: Condvar::new(), shrink_on_exit }
    }

    fn release(s: &mut BarrierState, cv: &Condvar) {
        s.arrived = 0;
        s.generation += 1;
        cv.notify_all();
    }

    fn wait(&self, what: &str) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        assert!(!s.broken, "simulated {what}: a lane of this warp has already exited");
        let gen = s.generation;
        s.arrived += 1;
        if s.arrived == s.parties {
            return Self::release(&mut s, &self.cv);
        }
        let (s, _) = self
            .cv
            .wait_timeout_while(s, BARRIER_TIMEOUT, |s| s.generation == gen && !s.broken)
            .unwrap_or_else(|e| e.into_inner());
        if s.generation == gen {
            assert!(!s.broken, "simulated {what}: a thread exited or panicked while the others waited");
            panic!("simulated {what}: not all threads arrived within {BARRIER_TIMEOUT:?} (divergent barrier?)");
        }
    }

    /// A participating thread has returned from the kernel (or panicked).
    fn leave(&self, panicked: bool) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if self.shrink_on_exit && !panicked {
            s.parties -= 1;
            if s.parties > 0 && s.arrived == s.parties {
                Self::release(&mut s, &self.cv);
            }
        } else {
            s.broken = true;
            self.cv.notify_all();
        }
    }
}

struct Block {
    block: Barrier,
    warps: Vec<Barrier>,
    /// Two slots per thread: `exchange[2 * tid + parity]`.
    exchange: Vec<AtomicU32>,
}

/// A simulated GPU thread, handed to the kernel body as its [`Thread`].
pub struct SimThread<'a> {
    tid: u32,
    bid: u32,
    bdim: u32,
    gdim: u32,
    blk: &'a Block,
    /// Collectives this thread has taken part in (its parity picks the exchange buffer).
    collectives: Cell<u32>,
}

impl SimThread<'_> {
    /// Publishes `v`, waits for the warp, and returns what `read` makes of the 32 values the
    /// lanes published (indexed by lane).
    fn warp_exchange<R>(&self, v: u32, read: impl FnOnce(&dyn Fn(u32) -> u32) -> R) -> R {
        let w = self.tid / 32;
        let parity = self.collectives.get() & 1;
        self.collectives.set(self.collectives.get() + 1);
        let slot = |tid: u32| &self.blk.exchange[(2 * tid + parity) as usize];
        slot(self.tid).store(v, Relaxed);
        self.blk.warps[w as usize].wait("warp collective");
        read(&|lane| slot(w * 32 + (lane & 31)).load(Relaxed))
    }
}

impl Thread for SimThread<'_> {
    fn thread_idx(&self) -> u32 {
        self.tid
    }
    fn block_idx(&self) -> u32 {
        self.bid
    }
    fn block_dim(&self) -> u32 {
        self.bdim
    }
    fn grid_dim(&self) -> u32 {
        self.gdim
    }
    fn sync_threads(&self) {
        self.blk.block.wait("__syncthreads")
    }
    fn sync_warp(&self) {
        self.blk.warps[(self.tid / 32) as usize].wait("__syncwarp")
    }
    fn shfl_idx(&self, v: u32, src_lane: u32) -> u32 {
        self.warp_exchange(v, |x| x(src_lane))
    }
    fn shfl_up(&self, v: u32, delta: u32) -> u32 {
        let lane = self.tid % 32;
        self.warp_exchange(v, |x| if lane >= delta { x(lane - delta) } else { v })
    }
    fn shfl_down(&self, v: u32, delta: u32) -> u32 {
        let lane = self.tid % 32;
        self.warp_exchange(v, |x| if lane + delta < 32 { x(lane + delta) } else { v })
    }
    fn shfl_xor(&self, v: u32, lane_mask: u32) -> u32 {
        let lane = self.tid % 32;
        self.warp_exchange(v, |x| x(lane ^ lane_mask))
    }
    fn ballot(&self, pred: bool) -> u32 {
        self.warp_exchange(pred as u32, |x| (0..32).fold(0, |bits, l| bits | (x(l) & 1) << l))
    }
    fn match_any(&self, v: u32) -> u32 {
        self.warp_exchange(v, |x| (0..32).fold(0, |bits, l| bits | ((x(l) == v) as u32) << l))
    }
    fn reduce_or(&self, v: u32) -> u32 {
        self.warp_exchange(v, |x| (0..32).fold(0, |acc, l| acc | x(l)))
    }
    fn reduce_max(&self, v: u32) -> u32 {
        self.warp_exchange(v, |x| (0..32).map(x).max().unwrap_or(0))
    }
}

/// Runs `kernel` for every thread of a `grid x block` launch. `S` is the block's shared-memory
/// type; each block gets a fresh zeroed `S`.
///
/// # Panics
/// If `block` is not a multiple of 32 in 32..=1024, or a simulated thread panics or deadlocks.
pub fn launch<S, F>(grid: u32, block: u32, kernel: F)
where
    S: Sync,
    F: Fn(&SimThread<'_>, *mut S) + Sync,
{
    assert!(
        block.is_multiple_of(32) && (32..=1024).contains(&block),
        "block_dim must be a multiple of 32 in 32..=1024"
    );
    for bid in 0..grid {
        let blk = Block {
            block: Barrier::new(block, true),
            warps: (0..block / 32).map(|_| Barrier::new(32, false)).collect(),
            exchange: (0..2 * block).map(|_| AtomicU32::new(0)).collect(),
        };
        let mut smem: Box<core::mem::MaybeUninit<S>> = Box::new_zeroed();
        let smem = SendPtr(smem.as_mut_ptr());
        std::thread::scope(|s| {
            for tid in 0..block {
                let (blk, kernel) = (&blk, &kernel);
                std::thread::Builder::new()
                    .stack_size(256 << 10)
                    .spawn_scoped(s, move || {
                        let _exit = ExitGuard { blk, warp: (tid / 32) as usize };
                        let t = SimThread { tid, bid, bdim: block, gdim: grid, blk, collectives: Cell::new(0) };
                        kernel(&t, smem.get());
                    })
                    .expect("spawn simulated GPU thread");
            }
        });
    }
}

/// Leaves the barriers when a simulated thread returns, or breaks them if it panicked, so that
/// the other threads fail fast instead of waiting for the timeout.
struct ExitGuard<'a> {
    blk: &'a Block,
    warp: usize,
}

impl Drop for ExitGuard<'_> {
    fn drop(&mut self) {
        let panicked = std::thread::panicking();
        self.blk.block.leave(panicked);
        self.blk.warps[self.warp].leave(panicked);
    }
}

/// A raw pointer that may cross into the simulator's threads, as a kernel argument does.
pub struct SendPtr<T>(pub *mut T);

impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}
// SAFETY: the simulator hands the same buffers to all GPU threads, exactly as a kernel launch
// does; data-race freedom is the kernel's contract, as on the GPU.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The wrapped pointer.
    pub fn get(self) -> *mut T {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;

    #[test]
    fn collectives_match_their_definitions() {
        const N: usize = 10;
        let mut out = vec![0u32; 64 * N];
        let o = SendPtr(out.as_mut_ptr());
        launch::<(), _>(1, 64, |t, _| {
            let l = t.lane();
            let r = [
                t.shfl_idx(l * 10, 31 - l),
                t.shfl_up(l, 3),
                t.shfl_down(l, 3),
                t.shfl_xor(l, 5),
                t.ballot(l % 3 == 0),
                t.match_any(l % 3),
                t.reduce_or(1 << (l / 4)),
                t.reduce_max((l * 7) % 32),
                t.any(l == 17) as u32 + 2 * t.any(l == 40) as u32,
                t.lanemask_lt(),
            ];
            for (k, v) in r.into_iter().enumerate() {
                // SAFETY: each thread writes its own N slots.
                unsafe { *o.get().add(t.thread_idx() as usize * N + k) = v };
            }
        });
        let mask_of = |f: &dyn Fn(u32) -> bool| (0..32).filter(|&l| f(l)).fold(0u32, |b, l| b | 1 << l);
        for tid in 0..64u32 {
            let l = tid % 32;
            let want = [
                (31 - l) * 10,
                if l >= 3 { l - 3 } else { l },
                if l + 3 < 32 { l + 3 } else { l },
                l ^ 5,
                mask_of(&|x| x % 3 == 0),
                mask_of(&|x| x % 3 == l % 3),
                0xff,
                31,
                1,
                (1 << l) - 1,
            ];
            assert_eq!(out[tid as usize * N..][..N], want, "thread {tid}");
        }
    }

    #[test]
    fn barrier_ignores_exited_threads() {
        let mut out = vec![0u32; 64];
        let o = SendPtr(out.as_mut_ptr());
        launch::<[u32; 64], _>(2, 64, |t, smem| {
            if t.thread_idx() >= 32 {
                return;
            }
            // SAFETY: thread i writes slot i, then reads slot i ^ 1 after the barrier.
            unsafe {
                (*smem)[t.thread_idx() as usize] = t.thread_idx() + 100 * t.block_idx();
                t.sync_threads();
                *o.get().add((t.block_idx() * 32 + t.thread_idx()) as usize) = (*smem)[(t.thread_idx() ^ 1) as usize];
            }
        });
        for b in 0..2u32 {
            for i in 0..32u32 {
                assert_eq!(out[(b * 32 + i) as usize], (i ^ 1) + 100 * b);
            }
        }
    }

    #[test]
    #[should_panic]
    fn panic_in_one_thread_fails_fast() {
        launch::<(), _>(1, 64, |t, _| {
            assert!(t.thread_idx() != 3, "boom");
            t.sync_threads();
        });
    }

    #[test]
    #[should_panic]
    fn divergent_shuffle_is_reported() {
        launch::<(), _>(1, 32, |t, _| {
            if t.lane() < 16 {
                t.shfl_xor(1, 1);
            }
        });
    }
}
