//! The cooperative scheduler of the CPU backend: logical GPU threads on workers, one running at a
//! time, control passing only at synchronizing primitives.
//!
//! A worker is a stackful coroutine ([`Fiber`]) of the OS thread that called [`launch`]: passing
//! the turn from one worker to another is a switch of stacks in user space, not a wake-up of
//! another OS thread (which costs two system calls and a trip through the kernel's scheduler, at
//! every barrier of every thread). The launch's driver loop resumes whichever worker holds the
//! turn; a worker that gives the turn away suspends back to it.
//!
//! Invariants (all under `Group::state`'s lock):
//! - `running` names the one worker (or the launcher) allowed to run; every other worker is
//!   suspended in [`Group::wait_turn`] (or not started).
//! - A worker is *idle* (in `idle`, no logical thread), *suspended* (in `suspended`: its logical
//!   thread waits in a rendezvous, or is in `ready` or `yielded`), or the running one.
//! - `live` counts logical threads started and not finished.

use std::boxed::Box;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::format;
use std::string::{String, ToString};
use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::vec::Vec;

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, Yielder};

use super::context::{self, Key, Rendezvous};
use super::{delinear, CpuKernel, SHARED_BYTES_PER_BLOCK};
use crate::ids::Dim3;

/// The order in which the scheduler starts a block's threads and resumes released ones.
///
/// Both are deterministic; running a kernel under both is a cheap way to expose a missing
/// barrier (a thread that reads what another has not yet written sees different data).
///
/// ```
/// use cute_rs_device::cpu::{CpuLaunch, Schedule};
/// let cfg = CpuLaunch::linear(1, 32).with_schedule(Schedule::Reverse);
/// assert_eq!(cfg.schedule, Schedule::Reverse);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Threads in increasing linear index.
    #[default]
    Forward,
    /// Threads in decreasing linear index.
    Reverse,
}

/// The shape of a launch on the CPU backend: grid, block, cluster, dynamic shared memory and the
/// schedule.
///
/// ```
/// use cute_rs_device::cpu::CpuLaunch;
/// let cfg = CpuLaunch::linear(4, 128).with_shared(1024);
/// assert_eq!((cfg.grid.x, cfg.block.x, cfg.dynamic_shared), (4, 128, 1024));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuLaunch {
    /// Blocks of the grid.
    pub grid: Dim3,
    /// Threads of a block.
    pub block: Dim3,
    /// Blocks of a cluster (1x1x1 without clusters).
    pub cluster: Dim3,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_shared: u32,
    /// The deterministic schedule.
    pub schedule: Schedule,
}

impl CpuLaunch {
    /// `blocks` blocks of `threads` threads along x.
    ///
    /// ```
    /// let cfg = cute_rs_device::cpu::CpuLaunch::linear(2, 64);
    /// assert_eq!(cfg.block.y, 1);
    /// ```
    pub fn linear(blocks: u32, threads: u32) -> CpuLaunch {
        CpuLaunch {
            grid: Dim3 { x: blocks, y: 1, z: 1 },
            block: Dim3 { x: threads, y: 1, z: 1 },
            cluster: Dim3 { x: 1, y: 1, z: 1 },
            dynamic_shared: 0,
            schedule: Schedule::Forward,
        }
    }

    /// The same launch with `bytes` of dynamic shared memory per block.
    ///
    /// ```
    /// assert_eq!(cute_rs_device::cpu::CpuLaunch::linear(1, 32).with_shared(64).dynamic_shared, 64);
    /// ```
    pub fn with_shared(mut self, bytes: u32) -> CpuLaunch {
        self.dynamic_shared = bytes;
        self
    }

    /// The same launch under `schedule`.
    ///
    /// ```
    /// use cute_rs_device::cpu::{CpuLaunch, Schedule};
    /// assert_eq!(CpuLaunch::linear(1, 32).with_schedule(Schedule::Reverse).schedule, Schedule::Reverse);
    /// ```
    pub fn with_schedule(mut self, schedule: Schedule) -> CpuLaunch {
        self.schedule = schedule;
        self
    }

    /// The same launch in clusters of `cluster` blocks.
    ///
    /// ```
    /// use cute_rs_device::{cpu::CpuLaunch, ids::Dim3};
    /// let cfg = CpuLaunch::linear(4, 32).with_cluster(Dim3 { x: 2, y: 1, z: 1 });
    /// assert_eq!(cfg.cluster.x, 2);
    /// ```
    pub fn with_cluster(mut self, cluster: Dim3) -> CpuLaunch {
        self.cluster = cluster;
        self
    }

    fn blocks(&self) -> u64 {
        self.grid.x as u64 * self.grid.y as u64 * self.grid.z as u64
    }
}

/// Why a launch on the CPU backend failed: the kernel's name and what happened (which block and
/// thread, which barrier, which condition).
///
/// ```
/// let e = cute_rs_device::cpu::CpuError { kernel: "k".into(), message: "boom".into() };
/// assert_eq!(e.to_string(), "kernel `k` on the CPU backend: boom");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuError {
    /// The kernel's name.
    pub kernel: String,
    /// What went wrong.
    pub message: String,
}

impl core::fmt::Display for CpuError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "kernel `{}` on the CPU backend: {}", self.kernel, self.message)
    }
}

impl std::error::Error for CpuError {}

/// The panic payload that unwinds a logical thread when its launch is cancelled (another thread
/// failed): not an error of its own.
pub(crate) struct Cancelled;

/// The worker id of the thread that called [`launch`].
const LAUNCHER: usize = usize::MAX;
/// Workers one launch may hold at once (one per waiting logical thread, each with its stack).
const MAX_WORKERS: usize = 8 * 1024;
/// Past this many workers, spinning threads are resumed before new threads are started (a
/// kernel that spins on what a not-yet-started thread will do still progresses, more slowly).
const SOFT_WORKERS: usize = 1024;
/// Spin polls in a row with no progress anywhere before a launch is declared stuck.
const SPIN_LIMIT: u64 = 1 << 16;

/// A logical thread: (linear block, linear thread in the block).
pub(crate) type Lt = (u64, u32);

/// A block's shared memory: one allocation of [`SHARED_BYTES_PER_BLOCK`] bytes, 1024-aligned.
pub(crate) struct Region(*mut u8);

// SAFETY: the region is plain memory owned by the launch; access is serialized by the scheduler.
unsafe impl Send for Region {}

const REGION_LAYOUT: std::alloc::Layout =
    match std::alloc::Layout::from_size_align(SHARED_BYTES_PER_BLOCK as usize, 1024) {
        Ok(l) => l,
        Err(_) => panic!("shared region layout"),
    };

impl Region {
    fn new() -> Region {
        // SAFETY: non-zero size.
        let p = unsafe { std::alloc::alloc(REGION_LAYOUT) };
        if p.is_null() {
            std::alloc::handle_alloc_error(REGION_LAYOUT);
        }
        Region(p)
    }
    pub(crate) fn base(&self) -> *mut u8 {
        self.0
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: allocated with the same layout.
        unsafe { std::alloc::dealloc(self.0, REGION_LAYOUT) }
    }
}

/// A started block.
pub(crate) struct BlockState {
    pub(crate) region: Region,
    /// Static shared arrays placed so far: site name -> offset.
    pub(crate) statics: HashMap<&'static str, usize>,
    /// First free byte of the region.
    pub(crate) end: usize,
    /// Threads of the block not finished.
    live: u32,
    /// Which threads finished.
    pub(crate) finished: Vec<bool>,
}

/// A worker: a coroutine on its own stack, which runs logical threads one after another and keeps
/// one suspended while it waits. It only ever runs on the OS thread of its launch's driver.
type Fiber = Coroutine<(), (), (), DefaultStack>;

std::thread_local! {
    /// The yielder of the worker running on this OS thread (null in a launch's driver): what
    /// [`to_driver`] suspends.
    static YIELDER: Cell<*const Yielder<(), ()>> = const { Cell::new(core::ptr::null()) };
}

/// Suspends the running worker back to its launch's driver, which resumes the worker holding the
/// turn. The worker's thread-locals (its yielder, its logical thread) are its own again when it is
/// resumed.
fn to_driver() {
    let yielder = YIELDER.with(Cell::get);
    let thread = context::current_ptr();
    assert!(!yielder.is_null(), "the CPU backend's driver waited for its turn as a worker");
    // SAFETY: set by this worker's coroutine when it started, and valid as long as it runs.
    unsafe { (*yielder).suspend(()) };
    YIELDER.with(|y| y.set(yielder));
    context::set_current_ptr(thread);
}

#[derive(Default)]
struct WorkerSlot {
    /// The worker's coroutine, while it is not running (the driver takes it out to resume it).
    fiber: Option<Fiber>,
    /// The logical thread to start when this (idle) worker is handed the turn.
    assign: Option<Lt>,
    /// What a rendezvous this worker's thread waited in produced.
    outcome: Option<Arc<context::Outcome>>,
    /// The logical thread this worker runs or holds suspended.
    current: Option<Lt>,
}

pub(crate) struct State {
    running: usize,
    workers: Vec<WorkerSlot>,
    idle: Vec<usize>,
    ready: VecDeque<usize>,
    yielded: VecDeque<usize>,
    suspended: BTreeSet<usize>,
    pending: VecDeque<Lt>,
    next_block: u64,
    live: u64,
    pub(crate) blocks: HashMap<u64, BlockState>,
    pub(crate) rendezvous: HashMap<Key, Rendezvous>,
    free_regions: Vec<Region>,
    error: Option<String>,
    done: bool,
    shutdown: bool,
    spins: u64,
    progress_seen: u64,
    soft_progress: u64,
}

/// One launch.
pub(crate) struct Group {
    pub(crate) kernel: CpuKernel,
    pub(crate) cfg: CpuLaunch,
    args: Vec<Vec<u8>>,
    state: Mutex<State>,
    /// Bumped by every event that can unblock a spinning thread (atomic writes, arrivals).
    pub(crate) progress: AtomicU64,
    /// The first access of a guard page by this launch's threads (see [`note_fault`]).
    pub(crate) fault: Fault,
}

/// The first guard-page access of a launch: the address (0: none), then the block and thread.
#[derive(Default)]
pub(crate) struct Fault {
    address: AtomicUsize,
    ids: [AtomicU32; 6],
}

/// How the host describes a faulting address (which buffer it missed, and by how much).
static DESCRIBE_FAULT: std::sync::OnceLock<fn(usize) -> String> = std::sync::OnceLock::new();

/// Sets how a launch's error describes an address its kernel accessed outside the buffers (the
/// host runtime says which buffer it missed and by how much). The first call wins.
///
/// ```
/// fn describe(address: usize) -> String { format!("near {address:#x}") }
/// cute_rs_device::cpu::describe_faults_with(describe);
/// ```
pub fn describe_faults_with(describe: fn(usize) -> String) {
    let _ = DESCRIBE_FAULT.set(describe);
}

/// Records that the kernel thread running on this OS thread accessed `address` outside the
/// buffers (a guard page); whether a kernel was running here. Async-signal-safe: a fault handler
/// calls it, then lets the access complete, and the launch fails with the report.
///
/// ```
/// // Outside a kernel there is nothing to record.
/// assert!(!cute_rs_device::cpu::note_fault(0x1000));
/// ```
pub fn note_fault(address: usize) -> bool {
    let Some((group, block, thread)) = super::context::current_ids() else { return false };
    let f = &group.fault;
    if f.address.compare_exchange(0, address, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
        for (slot, v) in f.ids.iter().zip([block.x, block.y, block.z, thread.x, thread.y, thread.z]) {
            slot.store(v, Ordering::Relaxed);
        }
    }
    true
}

impl Fault {
    /// The report of the recorded access, if any.
    fn report(&self) -> Option<String> {
        let address = self.address.load(Ordering::Acquire);
        if address == 0 {
            return None;
        }
        let id = |i: usize| self.ids[i].load(Ordering::Relaxed);
        let described = DESCRIBE_FAULT.get().map(|d| format!(" ({})", d(address))).unwrap_or_default();
        Some(format!(
            "out-of-bounds access through a raw pointer: block ({},{},{}), thread ({},{},{}) accessed address \
             {address:#x}{described}; on a GPU this is an illegal memory access (the CPU backend let the access \
             complete in a guard page to report it)",
            id(0),
            id(1),
            id(2),
            id(3),
            id(4),
            id(5)
        ))
    }
}

enum Next {
    Resume(usize),
    Start(Lt),
    Nothing,
}

/// Runs `kernel` over the grid of `cfg` on the CPU, with `args` (one byte slice per parameter,
/// exactly its size). Returns when every thread has finished, or with the first error.
///
/// Errors: bad launch shapes (zero extents, more than 1,024 threads per block, a cluster that does
/// not divide the grid, too much shared memory), wrong argument count or sizes, and everything the
/// [module docs](super) list.
///
/// ```
/// use cute_rs_device::cpu::{launch, CpuKernel, CpuLaunch};
/// unsafe fn entry(_: &[&[u8]]) {}
/// let k = CpuKernel { name: "empty", params: &[4], entry };
/// let err = launch(&k, &CpuLaunch::linear(1, 1), &[]).unwrap_err();
/// assert!(err.message.contains("1 parameter"), "{err}");
/// ```
pub fn launch(kernel: &CpuKernel, cfg: &CpuLaunch, args: &[&[u8]]) -> Result<(), CpuError> {
    let err = |message: String| CpuError { kernel: kernel.name.to_string(), message };
    check_shape(cfg).map_err(err)?;
    if args.len() != kernel.params.len() {
        return Err(err(format!(
            "the kernel takes {} parameter(s), the launch gives {} argument(s)",
            kernel.params.len(),
            args.len()
        )));
    }
    for (i, (a, &want)) in args.iter().zip(kernel.params).enumerate() {
        if a.len() != want {
            return Err(err(format!("argument {i} has {} bytes, the parameter has {want}", a.len())));
        }
    }
    let group = Arc::new(Group {
        kernel: *kernel,
        cfg: *cfg,
        args: args.iter().map(|a| a.to_vec()).collect(),
        state: Mutex::new(State {
            running: LAUNCHER,
            workers: Vec::new(),
            idle: Vec::new(),
            ready: VecDeque::new(),
            yielded: VecDeque::new(),
            suspended: BTreeSet::new(),
            pending: VecDeque::new(),
            next_block: 0,
            live: 0,
            blocks: HashMap::new(),
            rendezvous: HashMap::new(),
            free_regions: Vec::new(),
            error: None,
            done: false,
            shutdown: false,
            spins: 0,
            progress_seen: 0,
            soft_progress: u64::MAX,
        }),
        progress: AtomicU64::new(0),
        fault: Fault::default(),
    });
    {
        let mut g = group.lock();
        match group.pick_next(&mut g) {
            Next::Start(lt) => group.start_on_worker(&mut g, lt),
            _ => g.done = true,
        }
    }
    // The driver: resumes the worker holding the turn until the turn comes back here. A worker
    // leaves its thread-locals set when it suspends: the driver's own come back after each turn.
    let outer = (YIELDER.with(Cell::get), context::current_ptr());
    let resume = |fiber: &mut Fiber| {
        fiber.resume(());
        YIELDER.with(|y| y.set(outer.0));
        context::set_current_ptr(outer.1);
    };
    while let Some((w, mut fiber)) = group.take_running() {
        resume(&mut fiber);
        group.lock().workers[w].fiber = Some(fiber);
    }
    // Every worker returns from its wait for the turn, and ends.
    let fibers: Vec<Fiber> = {
        let mut g = group.lock();
        debug_assert!(g.done);
        g.shutdown = true;
        g.workers.iter_mut().filter_map(|w| w.fiber.take()).collect()
    };
    for mut fiber in fibers {
        while !fiber.done() {
            resume(&mut fiber);
        }
    }
    let error = group.lock().error.take();
    // A guard-page access comes first: whatever else went wrong may follow from it.
    match group.fault.report().or(error) {
        None => Ok(()),
        Some(message) => Err(err(message)),
    }
}

fn check_shape(cfg: &CpuLaunch) -> Result<(), String> {
    let (g, b, c) = (cfg.grid, cfg.block, cfg.cluster);
    if g.x == 0 || g.y == 0 || g.z == 0 {
        return Err(format!("grid ({},{},{}) has a zero extent", g.x, g.y, g.z));
    }
    if b.x == 0 || b.y == 0 || b.z == 0 {
        return Err(format!("block ({},{},{}) has a zero extent", b.x, b.y, b.z));
    }
    let threads = b.x as u64 * b.y as u64 * b.z as u64;
    if threads > 1024 {
        return Err(format!("block ({},{},{}) has {threads} threads, more than 1024", b.x, b.y, b.z));
    }
    if c.x == 0 || c.y == 0 || c.z == 0 || g.x % c.x != 0 || g.y % c.y != 0 || g.z % c.z != 0 {
        return Err(format!(
            "cluster divisibility: cluster ({},{},{}) does not divide grid ({},{},{})",
            c.x, c.y, c.z, g.x, g.y, g.z
        ));
    }
    if c.product() > 16 {
        return Err(format!("cluster ({},{},{}) has more than 16 blocks", c.x, c.y, c.z));
    }
    if cfg.dynamic_shared > SHARED_BYTES_PER_BLOCK {
        return Err(format!(
            "{} bytes of dynamic shared memory, more than the {SHARED_BYTES_PER_BLOCK} a block has",
            cfg.dynamic_shared
        ));
    }
    Ok(())
}

impl Group {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The worker holding the turn and its coroutine, taken out to be resumed; `None` once the
    /// turn is back with the launcher.
    fn take_running(&self) -> Option<(usize, Fiber)> {
        let mut g = self.lock();
        if g.running == LAUNCHER {
            return None;
        }
        let w = g.running;
        let fiber = g.workers[w].fiber.take().expect("the worker holding the turn is suspended");
        Some((w, fiber))
    }

    /// Waits, suspended, until the worker `me` holds the turn (or the launch shuts down).
    fn wait_turn<'a>(&'a self, mut g: MutexGuard<'a, State>, me: usize) -> MutexGuard<'a, State> {
        while g.running != me && !g.shutdown {
            drop(g);
            to_driver();
            g = self.lock();
        }
        g
    }

    fn hand_to(&self, g: &mut State, w: usize) {
        g.running = w;
    }

    pub(crate) fn threads_per_block(&self) -> u32 {
        self.cfg.block.product()
    }

    fn pick_next(&self, g: &mut State) -> Next {
        if let Some(w) = g.ready.pop_front() {
            g.suspended.remove(&w);
            return Next::Resume(w);
        }
        // Past the soft limit, a spinning thread goes before a new thread (which would need a new
        // worker) once per change anywhere: spins that wait for running threads end without
        // more workers, spins that wait for new threads still get them.
        let progress = self.progress.load(Ordering::Relaxed);
        if g.idle.is_empty() && g.workers.len() >= SOFT_WORKERS && g.soft_progress != progress {
            if let Some(w) = g.yielded.pop_front() {
                g.soft_progress = progress;
                g.suspended.remove(&w);
                return Next::Resume(w);
            }
        }
        if g.pending.is_empty() && g.next_block < self.cfg.blocks() {
            self.start_block(g);
        }
        if let Some(lt) = g.pending.pop_front() {
            return Next::Start(lt);
        }
        if let Some(w) = g.yielded.pop_front() {
            g.suspended.remove(&w);
            return Next::Resume(w);
        }
        Next::Nothing
    }

    fn start_block(&self, g: &mut State) {
        let b = g.next_block;
        g.next_block += 1;
        let n = self.threads_per_block();
        let region = g.free_regions.pop().unwrap_or_else(Region::new);
        // The dynamic shared memory comes first (1024-aligned, like the region), static arrays
        // after it; both are poisoned so that a read before any write shows.
        let dynamic = self.cfg.dynamic_shared as usize;
        // SAFETY: within the region.
        unsafe { core::ptr::write_bytes(region.base(), context::SHARED_POISON, dynamic) };
        g.blocks.insert(b, BlockState { region, statics: HashMap::new(), end: dynamic, live: n, finished: std::vec![false; n as usize] });
        g.live += n as u64;
        match self.cfg.schedule {
            Schedule::Forward => g.pending.extend((0..n).map(|t| (b, t))),
            Schedule::Reverse => g.pending.extend((0..n).rev().map(|t| (b, t))),
        }
        self.progress.fetch_add(1, Ordering::Relaxed);
    }

    /// Starts `lt` on an idle worker (or a new one) and hands it the turn.
    fn start_on_worker(self: &Arc<Self>, g: &mut State, lt: Lt) {
        let w = match g.idle.pop() {
            Some(w) => w,
            None => {
                if g.workers.len() >= MAX_WORKERS {
                    self.set_error(g, format!(
                        "more than {MAX_WORKERS} threads wait at once (the CPU backend holds a stack per waiting GPU thread): use a smaller grid"
                    ));
                    self.cancel_next(g);
                    return;
                }
                let stack = match DefaultStack::new(stack_size()) {
                    Ok(stack) => stack,
                    Err(e) => {
                        self.set_error(g, format!("cannot allocate a stack for a GPU thread: {e}"));
                        self.cancel_next(g);
                        return;
                    }
                };
                let id = g.workers.len();
                let group = self.clone();
                let fiber = Coroutine::with_stack(stack, move |yielder: &Yielder<(), ()>, ()| {
                    YIELDER.with(|y| y.set(yielder));
                    worker_main(group, id)
                });
                g.workers.push(WorkerSlot { fiber: Some(fiber), ..WorkerSlot::default() });
                id
            }
        };
        g.workers[w].assign = Some(lt);
        self.hand_to(g, w);
    }

    pub(crate) fn set_error(&self, g: &mut State, message: String) {
        if g.error.is_none() {
            g.error = Some(message);
        }
    }

    /// After an error: hands the turn to one suspended worker so that it unwinds, or to the
    /// launcher when none is left.
    fn cancel_next(&self, g: &mut State) {
        g.ready.clear();
        g.yielded.clear();
        g.pending.clear();
        g.next_block = self.cfg.blocks();
        match g.suspended.iter().next().copied() {
            Some(w) => {
                g.suspended.remove(&w);
                self.hand_to(g, w);
            }
            None => {
                g.done = true;
                self.hand_to(g, LAUNCHER);
            }
        }
    }

    /// Suspends the running logical thread of worker `me` (already registered as waiting in a
    /// rendezvous or in `yielded`), runs others until it is resumed, and returns the lock. Unwinds
    /// with [`Cancelled`] if the launch failed meanwhile.
    pub(crate) fn suspend<'a>(self: &'a Arc<Self>, mut g: MutexGuard<'a, State>, me: usize) -> MutexGuard<'a, State> {
        g.suspended.insert(me);
        match self.pick_next(&mut g) {
            Next::Resume(w) if w == me => return g,
            Next::Resume(w) => self.hand_to(&mut g, w),
            Next::Start(lt) => self.start_on_worker(&mut g, lt),
            Next::Nothing => {
                g.suspended.remove(&me);
                let why = self.deadlock(&g);
                self.set_error(&mut g, why);
                drop(g);
                std::panic::resume_unwind(Box::new(Cancelled));
            }
        }
        let g = self.wait_turn(g, me);
        if g.error.is_some() {
            drop(g);
            std::panic::resume_unwind(Box::new(Cancelled));
        }
        g
    }

    /// Takes what the rendezvous worker `me` waited in produced.
    pub(crate) fn take_outcome(&self, g: &mut State, me: usize) -> Option<Arc<context::Outcome>> {
        g.workers[me].outcome.take()
    }

    /// Marks workers released by a rendezvous: each gets `outcome` and becomes ready.
    pub(crate) fn release(&self, g: &mut State, waiters: &[usize], outcome: &Arc<context::Outcome>) {
        for &w in waiters {
            g.workers[w].outcome = Some(outcome.clone());
            g.ready.push_back(w);
        }
        self.progress.fetch_add(1, Ordering::Relaxed);
    }

    /// Puts the running thread (worker `me`) behind every other runnable one; `Err` with the
    /// reason when threads have spun for too long with no progress anywhere.
    pub(crate) fn yield_now(self: &Arc<Self>, me: usize) {
        let mut g = self.lock();
        let p = self.progress.load(Ordering::Relaxed);
        if p != g.progress_seen {
            g.progress_seen = p;
            g.spins = 0;
        }
        g.spins += 1;
        if g.spins > SPIN_LIMIT {
            let mut why = format!("threads spun {SPIN_LIMIT} times (polling an mbarrier or an atomic) with no progress: ");
            why.push_str(&self.deadlock(&g));
            self.set_error(&mut g, why);
            drop(g);
            std::panic::resume_unwind(Box::new(Cancelled));
        }
        g.yielded.push_back(me);
        let _g = self.suspend(g, me);
    }

    /// Describes why nothing can run.
    fn deadlock(&self, g: &State) -> String {
        let mut parts: Vec<String> = Vec::new();
        let mut keys: Vec<&Key> = g.rendezvous.keys().collect();
        keys.sort();
        for k in keys {
            parts.push(g.rendezvous[k].describe(self, g, *k));
        }
        if !g.yielded.is_empty() || parts.is_empty() {
            parts.push(format!("{} thread(s) spin on an mbarrier or atomic that nothing can change", g.suspended.len()));
        }
        format!("deadlock: {}", parts.join("; "))
    }

    /// Block and thread of `lt` as the GPU names them.
    pub(crate) fn name_of(&self, lt: Lt) -> String {
        let b = delinear64(lt.0, self.cfg.grid);
        let t = delinear(lt.1, self.cfg.block);
        format!("block ({},{},{}), thread ({},{},{})", b.x, b.y, b.z, t.x, t.y, t.z)
    }

    fn finish_thread(&self, g: &mut State, lt: Lt) {
        g.live -= 1;
        self.progress.fetch_add(1, Ordering::Relaxed);
        let done = match g.blocks.get_mut(&lt.0) {
            Some(b) => {
                b.live -= 1;
                b.finished[lt.1 as usize] = true;
                b.live == 0
            }
            None => false,
        };
        if done {
            if let Some(b) = g.blocks.remove(&lt.0) {
                g.free_regions.push(b.region);
            }
        }
    }

    fn run_thread(self: &Arc<Self>, me: usize, lt: Lt) -> Result<(), String> {
        let base = {
            let mut g = self.lock();
            g.workers[me].current = Some(lt);
            g.blocks[&lt.0].region.base()
        };
        let ctx = context::CpuThread::new(self.clone(), me, lt, base);
        let args: Vec<&[u8]> = self.args.iter().map(|a| a.as_slice()).collect();
        let entry = self.kernel.entry;
        let result = context::with_thread(&ctx, || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // SAFETY: argument sizes were checked by `launch`; the caller of `launch` vouches
                // for the kernel's contract.
                unsafe { entry(&args) }
            }))
        });
        match result {
            Ok(()) => Ok(()),
            Err(payload) if payload.is::<Cancelled>() => Ok(()),
            Err(payload) => {
                let msg = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".to_string());
                Err(format!("{}: panicked: {msg}", self.name_of(lt)))
            }
        }
    }
}

fn delinear64(i: u64, dims: Dim3) -> Dim3 {
    let (x, y) = (dims.x as u64, dims.y as u64);
    Dim3 { x: (i % x) as u32, y: ((i / x) % y) as u32, z: (i / (x * y)) as u32 }
}

pub(crate) fn block_index(lt: Lt, grid: Dim3) -> Dim3 {
    delinear64(lt.0, grid)
}

/// The bytes of a worker's stack: 512 KiB, or `CUTE_CPU_STACK_BYTES`.
fn stack_size() -> usize {
    std::env::var("CUTE_CPU_STACK_BYTES").ok().and_then(|s| s.parse().ok()).unwrap_or(512 << 10)
}

fn worker_main(group: Arc<Group>, me: usize) {
    let mut g = group.wait_turn(group.lock(), me);
    loop {
        if g.shutdown {
            return;
        }
        let Some(mut lt) = g.workers[me].assign.take() else {
            // Woken for nothing (cannot happen): wait again.
            g.idle.push(me);
            g = group.wait_turn(g, me);
            continue;
        };
        // Run logical threads on this worker as long as the next one is a fresh start.
        loop {
            drop(g);
            let result = group.run_thread(me, lt);
            g = group.lock();
            g.workers[me].current = None;
            group.finish_thread(&mut g, lt);
            if let Err(e) = result {
                group.set_error(&mut g, e);
            }
            if g.error.is_some() {
                group.cancel_next(&mut g);
                break;
            }
            match group.pick_next(&mut g) {
                Next::Start(next) => lt = next,
                Next::Resume(w) => {
                    group.hand_to(&mut g, w);
                    break;
                }
                Next::Nothing if g.live == 0 => {
                    g.done = true;
                    group.hand_to(&mut g, LAUNCHER);
                    break;
                }
                Next::Nothing => {
                    let why = group.deadlock(&g);
                    group.set_error(&mut g, why);
                    group.cancel_next(&mut g);
                    break;
                }
            }
        }
        g.idle.push(me);
        g = group.wait_turn(g, me);
    }
}

/// Runs `f` as one block of `threads` threads on the CPU backend (each logical thread calls it,
/// with its own `threadIdx`): device code without a kernel entry, for examples and tests of
/// block-wide operations. Returns when every thread has finished, or with the first error (a
/// panic in `f` included).
///
/// ```
/// use core::sync::atomic::{AtomicU32, Ordering};
/// use cute_rs_device::{cpu::run_block, ids::thread_idx_x, sync::sync_threads};
/// let sum = AtomicU32::new(0);
/// run_block(64, &|| {
///     sum.fetch_add(thread_idx_x(), Ordering::Relaxed);
///     sync_threads();
///     assert_eq!(sum.load(Ordering::Relaxed), 64 * 63 / 2);
/// })
/// .unwrap();
/// assert!(run_block(32, &|| assert!(thread_idx_x() < 31)).is_err());
/// ```
pub fn run_block(threads: u32, f: &(dyn Fn() + Sync)) -> Result<(), CpuError> {
    /// The kernel entry: its one argument is the address of `f`.
    unsafe fn entry(args: &[&[u8]]) {
        let mut bytes = [0u8; core::mem::size_of::<usize>()];
        bytes.copy_from_slice(args[0]);
        // SAFETY: the address of the `&dyn Fn` below, alive until `launch` returns.
        let f = &*(usize::from_ne_bytes(bytes) as *const &(dyn Fn() + Sync));
        f()
    }
    let kernel = CpuKernel { name: "run_block", params: &[core::mem::size_of::<usize>()], entry };
    let address = (&f as *const &(dyn Fn() + Sync)) as usize;
    launch(&kernel, &CpuLaunch::linear(1, threads), &[&address.to_ne_bytes()])
}
