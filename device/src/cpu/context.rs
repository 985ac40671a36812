//! What a logical thread sees on the CPU backend: its ids, its block's shared memory, and the
//! synchronizing operations the device primitives are built on (barriers, warp exchanges,
//! mbarriers, spin polls). Device primitives call these on the host; kernels never do directly.

use std::boxed::Box;
use std::cell::Cell;
use std::format;
use std::string::String;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::vec::Vec;

use super::scheduler::{block_index, Group, Lt, State};
use super::{delinear, SHARED_BYTES_PER_BLOCK};
use crate::ids::{Dim3, WARP_SIZE};

/// The byte shared memory holds before anything is written to it: reads of unwritten shared
/// memory show as `0xDBDBDBDB` words.
pub(crate) const SHARED_POISON: u8 = 0xDB;

/// Words of one lane's contribution to a warp exchange (enough for an `mma` operand set).
pub const WARP_SLOT_WORDS: usize = 12;

/// One lane's contribution to a warp exchange.
pub type WarpSlot = [u32; WARP_SLOT_WORDS];

/// The logical thread running on this OS thread: ids, launch shape and block.
///
/// ```
/// // Outside a CPU-backend launch there is none:
/// assert!(std::panic::catch_unwind(|| cute_rs_device::cpu::thread().thread_idx()).is_err());
/// ```
pub struct CpuThread {
    group: Arc<Group>,
    worker: usize,
    lt: Lt,
    block_idx: Dim3,
    thread_idx: Dim3,
    shared_base: *mut u8,
    last_poll: Cell<usize>,
}

std::thread_local! {
    static CURRENT: Cell<*const CpuThread> = const { Cell::new(core::ptr::null()) };
}

/// Runs `f` with `ctx` as this OS thread's logical thread.
pub(crate) fn with_thread<R>(ctx: &CpuThread, f: impl FnOnce() -> R) -> R {
    let prev = CURRENT.with(|c| c.replace(ctx));
    let r = f();
    CURRENT.with(|c| c.set(prev));
    r
}

/// The logical thread running on this OS thread (null: none), which a worker saves and restores
/// around a switch to another worker.
pub(crate) fn current_ptr() -> *const CpuThread {
    CURRENT.with(|c| c.get())
}

/// Makes `thread` (from [`current_ptr`]) the logical thread running on this OS thread again.
pub(crate) fn set_current_ptr(thread: *const CpuThread) {
    CURRENT.with(|c| c.set(thread))
}

/// Whether a kernel is running on this OS thread (on the CPU backend).
///
/// ```
/// assert!(!cute_rs_device::cpu::in_kernel());
/// ```
pub fn in_kernel() -> bool {
    CURRENT.with(|c| !c.get().is_null())
}

/// The launch, block and thread of the kernel thread running on this OS thread, if any. Reads a
/// thread-local and plain fields only: async-signal-safe.
pub(crate) fn current_ids() -> Option<(&'static Group, Dim3, Dim3)> {
    let p = CURRENT.with(|c| c.get());
    if p.is_null() {
        return None;
    }
    // SAFETY: set for the duration of the kernel call on this OS thread (see `thread`).
    let t = unsafe { &*p };
    // SAFETY: the group outlives every thread of its launch.
    let group: &'static Group = unsafe { &*Arc::as_ptr(&t.group) };
    Some((group, t.block_idx, t.thread_idx))
}

/// The logical thread running here. Panics, naming the condition, outside a kernel launched on
/// the CPU backend.
///
/// ```
/// let outside = std::panic::catch_unwind(|| cute_rs_device::cpu::thread().worker_index());
/// assert!(outside.is_err());
/// ```
pub fn thread() -> &'static CpuThread {
    let p = CURRENT.with(|c| c.get());
    if p.is_null() {
        panic!("a device primitive ran outside a kernel: on the host, kernels run through the CPU backend's launch");
    }
    // SAFETY: set by `with_thread` for the duration of the kernel call on this OS thread; the
    // reference does not escape the kernel (device primitives use it and return).
    unsafe { &*p }
}

impl CpuThread {
    pub(crate) fn new(group: Arc<Group>, worker: usize, lt: Lt, shared_base: *mut u8) -> CpuThread {
        let block_idx = block_index(lt, group.cfg.grid);
        let thread_idx = delinear(lt.1, group.cfg.block);
        CpuThread { group, worker, lt, block_idx, thread_idx, shared_base, last_poll: Cell::new(0) }
    }
    /// `threadIdx`.
    ///
    /// ```no_run
    /// // Inside a kernel running on the CPU backend:
    /// let v = cute_rs_device::cpu::thread().thread_idx().x;
    /// # let _ = v;
    /// ```
    pub fn thread_idx(&self) -> Dim3 {
        self.thread_idx
    }
    /// `blockIdx`.
    ///
    /// ```no_run
    /// // Inside a kernel running on the CPU backend:
    /// let v = cute_rs_device::cpu::thread().block_idx().x;
    /// # let _ = v;
    /// ```
    pub fn block_idx(&self) -> Dim3 {
        self.block_idx
    }
    /// `blockDim`.
    ///
    /// ```no_run
    /// // Inside a kernel running on the CPU backend:
    /// let v = cute_rs_device::cpu::thread().block_dim().x;
    /// # let _ = v;
    /// ```
    pub fn block_dim(&self) -> Dim3 {
        self.group.cfg.block
    }
    /// `gridDim`.
    ///
    /// ```no_run
    /// // Inside a kernel running on the CPU backend:
    /// let v = cute_rs_device::cpu::thread().grid_dim().x;
    /// # let _ = v;
    /// ```
    pub fn grid_dim(&self) -> Dim3 {
        self.group.cfg.grid
    }
    /// The cluster's shape in blocks.
    ///
    /// ```no_run
    /// // Inside a kernel running on the CPU backend:
    /// let v = cute_rs_device::cpu::thread().cluster_dim().x;
    /// # let _ = v;
    /// ```
    pub fn cluster_dim(&self) -> Dim3 {
        self.group.cfg.cluster
    }
    /// The linear index of the thread in its block.
    ///
    /// ```no_run
    /// // Inside a kernel running on the CPU backend:
    /// let v = cute_rs_device::cpu::thread().linear_thread();
    /// # let _ = v;
    /// ```
    pub fn linear_thread(&self) -> u32 {
        self.lt.1
    }
    /// The OS worker running this thread (diagnostics).
    ///
    /// ```no_run
    /// // Inside a kernel running on the CPU backend:
    /// let v = cute_rs_device::cpu::thread().worker_index();
    /// # let _ = v;
    /// ```
    pub fn worker_index(&self) -> usize {
        self.worker
    }
    /// "block (x,y,z), thread (x,y,z)" of this thread, for error messages.
    ///
    /// ```no_run
    /// // Inside a kernel running on the CPU backend:
    /// let v = cute_rs_device::cpu::thread().describe();
    /// # let _ = v;
    /// ```
    pub fn describe(&self) -> String {
        self.group.name_of(self.lt)
    }
    /// The kernel's name, for error messages.
    ///
    /// ```no_run
    /// // Inside a kernel running on the CPU backend:
    /// let v = cute_rs_device::cpu::thread().kernel_name();
    /// # let _ = v;
    /// ```
    pub fn kernel_name(&self) -> &'static str {
        self.group.kernel.name
    }
}

/// What a rendezvous gives each participant.
pub(crate) struct Outcome {
    pub(crate) count: u32,
    pub(crate) all: bool,
    pub(crate) any: bool,
    pub(crate) slots: Option<Box<[WarpSlot; 32]>>,
}

/// Where threads meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Key {
    /// A block barrier (`bar.sync id`).
    Barrier { block: u64, id: u32 },
    /// A warp collective (`shfl.sync`, `vote.sync`, `bar.warp.sync`, fragments) of the lanes of
    /// `mask`: disjoint groups of a warp synchronize independently.
    Warp { block: u64, warp: u32, mask: u32 },
}

/// A barrier or collective in progress.
pub(crate) struct Rendezvous {
    what: &'static str,
    expected: u32,
    mask: u32,
    arrived: Vec<u32>,
    waiters: Vec<usize>,
    count: u32,
    all: bool,
    any: bool,
    slots: Option<Box<[WarpSlot; 32]>>,
}

impl Rendezvous {
    /// Who waits and who never came, for a deadlock report.
    pub(crate) fn describe(&self, group: &Group, g: &State, key: Key) -> String {
        let (block, members): (u64, Vec<u32>) = match key {
            Key::Barrier { block, .. } => {
                let n = group.threads_per_block();
                (block, if self.expected == n { (0..n).collect() } else { Vec::new() })
            }
            Key::Warp { block, warp, .. } => (block, (0..32).filter(|l| self.mask >> l & 1 == 1).map(|l| warp * 32 + l).collect()),
        };
        let b = block_index((block, 0), group.cfg.grid);
        let missing: Vec<u32> = members.iter().copied().filter(|t| !self.arrived.contains(t)).collect();
        let list = |ts: &[u32]| {
            let mut s: Vec<String> = ts
                .iter()
                .take(6)
                .map(|&t| {
                    let d = delinear(t, group.cfg.block);
                    let exited = g.blocks.get(&block).map(|bs| bs.finished[t as usize]).unwrap_or(true);
                    format!("({},{},{}){}", d.x, d.y, d.z, if exited { " exited" } else { "" })
                })
                .collect();
            if ts.len() > 6 {
                s.push(format!("and {} more", ts.len() - 6));
            }
            s.join(", ")
        };
        let place = match key {
            Key::Barrier { id, .. } => format!("barrier {id} ({})", self.what),
            Key::Warp { warp, .. } => format!("warp {warp}'s {} (mask {:#010x})", self.what, self.mask),
        };
        let mut s = format!(
            "in block ({},{},{}), {} of {} threads wait at {place} [{}]",
            b.x,
            b.y,
            b.z,
            self.arrived.len(),
            self.expected,
            list(&self.arrived)
        );
        if !missing.is_empty() {
            s.push_str(&format!("; never reached by threads {}", list(&missing)));
        }
        s
    }
}

/// Joins a rendezvous: counts `pred`, deposits `slot` at `index` (warps), and, if `wait`, returns
/// once `expected` threads have joined.
#[allow(clippy::too_many_arguments)]
fn rendezvous(
    key: Key,
    what: &'static str,
    expected: u32,
    mask: u32,
    pred: bool,
    slot: Option<(usize, WarpSlot)>,
    wait: bool,
) -> Option<Arc<Outcome>> {
    let t = thread();
    let group = &t.group;
    let mut g = group.lock();
    let r = g.rendezvous.entry(key).or_insert_with(|| Rendezvous {
        what,
        expected,
        mask,
        arrived: Vec::new(),
        waiters: Vec::new(),
        count: 0,
        all: true,
        any: false,
        slots: slot.map(|_| Box::new([[0u32; WARP_SLOT_WORDS]; 32])),
    });
    if r.what != what || r.expected != expected || r.mask != mask {
        let msg = format!(
            "{}: reached {what} (expecting {expected} threads, mask {mask:#010x}) while others wait at {} (expecting {} threads, mask {:#010x}): threads disagree on the barrier",
            t.describe(),
            r.what,
            r.expected,
            r.mask
        );
        fail(group, g, msg);
    }
    r.arrived.push(t.lt.1);
    r.count += pred as u32;
    r.all &= pred;
    r.any |= pred;
    if let (Some((i, s)), Some(slots)) = (slot, r.slots.as_mut()) {
        slots[i] = s;
    }
    group.progress.fetch_add(1, Ordering::Relaxed);
    if r.arrived.len() as u32 == expected {
        let r = g.rendezvous.remove(&key).expect("present");
        let outcome = Arc::new(Outcome { count: r.count, all: r.all, any: r.any, slots: r.slots });
        group.release(&mut g, &r.waiters, &outcome);
        return Some(outcome);
    }
    if !wait {
        return None;
    }
    r.waiters.push(t.worker);
    let mut g = group.suspend(g, t.worker);
    group.take_outcome(&mut g, t.worker)
}

/// Records `message` as the launch's error and unwinds this thread.
fn fail(group: &Arc<Group>, mut g: std::sync::MutexGuard<'_, State>, message: String) -> ! {
    group.set_error(&mut g, message);
    drop(g);
    std::panic::resume_unwind(Box::new(super::scheduler::Cancelled))
}

/// Reports a misuse of a primitive by this thread as the launch's error and unwinds it.
///
/// ```should_panic
/// // Outside a launch this panics instead.
/// cute_rs_device::cpu::misuse("mbarrier", "not initialized".into());
/// ```
pub fn misuse(primitive: &str, why: String) -> ! {
    let t = thread();
    let g = t.group.lock();
    fail(&t.group, g, format!("{}: {primitive}: {why}", t.describe()))
}

/// A block barrier: `bar.sync id, count` (`wait`) or `bar.arrive id, count` (not `wait`); `count`
/// `None` means every thread of the block. `what` names the primitive in reports.
///
/// ```should_panic
/// cute_rs_device::cpu::barrier(0, None, true, "sync_threads"); // outside a launch
/// ```
pub fn barrier(id: u32, count: Option<u32>, wait: bool, what: &'static str) {
    let t = thread();
    let n = count.unwrap_or_else(|| t.group.threads_per_block());
    rendezvous(Key::Barrier { block: t.lt.0, id }, what, n, 0, false, None, wait);
}

/// `bar.red` over the whole block on barrier 0: (threads with `pred`, all of them, any of them).
///
/// ```should_panic
/// cute_rs_device::cpu::block_reduce(true, "sync_threads_count"); // outside a launch
/// ```
pub fn block_reduce(pred: bool, what: &'static str) -> (u32, bool, bool) {
    let t = thread();
    let n = t.group.threads_per_block();
    let o = rendezvous(Key::Barrier { block: t.lt.0, id: 0 }, what, n, 0, pred, None, true).expect("waited");
    (o.count, o.all, o.any)
}

/// A warp collective over the lanes of `mask`: every lane of `mask` deposits `slot` and gets all
/// of them back (entries of lanes outside `mask` are zero), plus the count of `pred`.
///
/// Errors (the launch fails naming them): this lane not in `mask`, `mask` naming lanes the warp
/// does not have, lanes disagreeing on `mask`, and lanes that never arrive (deadlock).
///
/// ```should_panic
/// cute_rs_device::cpu::warp_exchange(u32::MAX, [0; 12], false, "shuffle"); // outside a launch
/// ```
pub fn warp_exchange(mask: u32, slot: WarpSlot, pred: bool, what: &'static str) -> (Box<[WarpSlot; 32]>, u32) {
    let t = thread();
    let lane = t.lt.1 % WARP_SIZE;
    let warp = t.lt.1 / WARP_SIZE;
    let n = t.group.threads_per_block();
    let lanes_here = (n - warp * WARP_SIZE).min(WARP_SIZE);
    let existing = if lanes_here == 32 { u32::MAX } else { (1u32 << lanes_here) - 1 };
    if mask >> lane & 1 == 0 {
        misuse(what, format!("lane {lane} is not in its own mask {mask:#010x}"));
    }
    if mask & !existing != 0 {
        misuse(what, format!("mask {mask:#010x} names lanes warp {warp} does not have (it has {lanes_here} lanes)"));
    }
    let o = rendezvous(
        Key::Warp { block: t.lt.0, warp, mask },
        what,
        mask.count_ones(),
        mask,
        pred,
        Some((lane as usize, slot)),
        true,
    )
    .expect("waited");
    (o.slots.clone().expect("warp slots"), o.count)
}

/// The lanes of this thread's warp that have not exited (what `activemask` gives on the CPU
/// backend, where no two lanes are ever converged mid-instruction).
///
/// ```should_panic
/// cute_rs_device::cpu::live_lanes(); // outside a launch
/// ```
pub fn live_lanes() -> u32 {
    let t = thread();
    let warp = t.lt.1 / WARP_SIZE;
    let g = t.group.lock();
    let b = &g.blocks[&t.lt.0];
    (0..32u32)
        .filter(|l| b.finished.get((warp * 32 + l) as usize).map(|f| !f).unwrap_or(false))
        .fold(0, |m, l| m | 1 << l)
}

/// The block's shared memory: (base, bytes). Shared-state addresses are offsets from the base.
///
/// ```should_panic
/// cute_rs_device::cpu::shared_window(); // outside a launch
/// ```
pub fn shared_window() -> (*mut u8, usize) {
    (thread().shared_base, SHARED_BYTES_PER_BLOCK as usize)
}

/// The block's copy of the static shared array `site` (`bytes` bytes aligned to `align`), placed
/// (and poisoned) on its first use in the block.
///
/// ```should_panic
/// cute_rs_device::cpu::shared_static("X", 4, 4); // outside a launch
/// ```
pub fn shared_static(site: &'static str, bytes: usize, align: usize) -> *mut u8 {
    let t = thread();
    let mut g = t.group.lock();
    let b = g.blocks.get_mut(&t.lt.0).expect("running block");
    let offset = match b.statics.get(site) {
        Some(&o) => o,
        None => {
            let o = b.end.next_multiple_of(align);
            if o + bytes > SHARED_BYTES_PER_BLOCK as usize {
                let used = b.end;
                fail(
                    &t.group,
                    g,
                    format!(
                        "{}: shared_array!({site}): {bytes} more bytes of shared memory after {used} do not fit in the block's {SHARED_BYTES_PER_BLOCK}",
                        t.describe()
                    ),
                );
            }
            // SAFETY: within the region.
            unsafe { core::ptr::write_bytes(b.region.base().add(o), SHARED_POISON, bytes) };
            b.statics.insert(site, o);
            b.end = o + bytes;
            o
        }
    };
    // SAFETY: within the region.
    unsafe { t.shared_base.add(offset) }
}

/// The block's dynamic shared memory: (pointer, bytes of the launch).
///
/// ```should_panic
/// cute_rs_device::cpu::shared_dynamic(); // outside a launch
/// ```
pub fn shared_dynamic() -> (*mut u8, u32) {
    let t = thread();
    (t.shared_base, t.group.cfg.dynamic_shared)
}

/// A spin-wait hint: the thread polled `addr` (an atomic or an mbarrier) and did not see what it
/// waits for. Polling the same address twice in a row yields to the other threads, so that
/// spin loops make progress; a launch that only spins fails instead of hanging.
///
/// ```should_panic
/// cute_rs_device::cpu::spin_poll(0x1000); // outside a launch
/// ```
pub fn spin_poll(addr: usize) {
    let t = thread();
    if t.last_poll.replace(addr) == addr {
        t.group.yield_now(t.worker);
    }
}

/// Something other threads may be polling for changed (an atomic write).
pub(crate) fn progress() {
    let p = CURRENT.with(|c| c.get());
    if !p.is_null() {
        // SAFETY: as in `thread`.
        let t = unsafe { &*p };
        t.group.progress.fetch_add(1, Ordering::Relaxed);
        t.last_poll.set(0);
    }
}
