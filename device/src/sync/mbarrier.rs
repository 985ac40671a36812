//! Transaction barriers (`mbarrier`, sm_80+; transaction bytes sm_90), the barriers of
//! producer/consumer pipelines and of asynchronous copies (TMA loads complete on one).
//!
//! An [`Mbarrier`] is a 64-bit object in shared memory that counts *arrivals* and *transaction
//! bytes* for one *phase* at a time. [`Mbarrier::init`] sets the number of arrivals a phase
//! expects; a phase completes when all of them have arrived **and** every byte announced with
//! [`Mbarrier::arrive_expect_tx`] / [`Mbarrier::expect_tx`] has been delivered (TMA loads deliver
//! bytes with `complete_tx`). Then the barrier moves to the next phase, re-armed with the same
//! arrival count.
//!
//! Phases are waited for by **parity**: the first phase after `init` has parity 0, the next 1, then
//! 0 again, ... [`Mbarrier::try_wait_parity`]`(p)` is true once the phase of parity `p` is over:
//! it is true right away for the *immediately preceding* phase's parity (so right after `init`,
//! parity 1 counts as complete), and false for the current phase until it completes. A thread that
//! waits for phase after phase keeps a parity bit and flips it after each wait:
//!
//! ```
//! use cute_rs_device::sync::Mbarrier;
//! let bar = Mbarrier::new();
//! unsafe {
//!     bar.init(1);
//!     let mut phase = 0;
//!     for _ in 0..3 {
//!         assert!(!bar.try_wait_parity(phase)); // the current phase is pending
//!         bar.arrive();                          // its only arrival: it completes
//!         bar.wait_parity(phase);
//!         phase ^= 1;
//!     }
//! }
//! ```
//!
//! (The example runs the CPU model of the barrier: on targets other than `nvptx64` an `Mbarrier`
//! is a single-threaded simulation of the same state machine.)
//!

use core::cell::UnsafeCell;

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

use crate::shared::generic_to_shared;

/// `mbarrier.$op.parity.shared::cta.b64` (`try_wait` or `test_wait`) on `$bar` for the phase of
/// parity `$parity & 1`, as a `bool`.
#[cfg(target_arch = "nvptx64")]
macro_rules! parity_wait {
    ($bar:expr, $parity:expr, $op:literal) => {{
        let done: u32;
        asm!(
            "{{ .reg .pred p;",
            concat!("mbarrier.", $op, ".parity.shared::cta.b64 p, [{a}], {q};"),
            "selp.u32 {d}, 1, 0, p; }}",
            d = out(reg32) done,
            a = in(reg32) $bar.address(),
            q = in(reg32) $parity & 1,
            options(nostack),
        );
        done != 0
    }};
}

/// A transaction barrier (`mbarrier`, 8 bytes, 8-byte aligned) in shared memory.
///
/// On the GPU it must live in shared memory (the methods compute its shared-window address);
/// obtain one from a pointer into a shared array with [`Mbarrier::from_ptr`]. On other targets it
/// is a single-threaded model of the hardware state machine (arrivals, transaction bytes, phase
/// parity), for host-side tests and the CPU backend.
///
/// # Example
/// ```
/// use cute_rs_device::sync::Mbarrier;
/// let bar = Mbarrier::new();
/// unsafe {
///     bar.init(2);
///     bar.arrive();
///     assert!(!bar.try_wait_parity(0));
///     bar.arrive();
///     assert!(bar.try_wait_parity(0));
/// }
/// ```
#[repr(C, align(8))]
pub struct Mbarrier {
    state: UnsafeCell<u64>,
}

// SAFETY: the object is shared between the threads of a block by design; every access goes
// through mbarrier instructions (atomic in hardware).
unsafe impl Sync for Mbarrier {}

impl Default for Mbarrier {
    fn default() -> Self {
        Mbarrier::new()
    }
}

impl Mbarrier {
    /// A zeroed, uninitialized barrier (call [`Mbarrier::init`] before any other method). Useful
    /// on the host; on the GPU barriers are placed in shared memory instead.
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// unsafe { bar.init(1) };
    /// ```
    pub const fn new() -> Mbarrier {
        Mbarrier { state: UnsafeCell::new(0) }
    }

    /// The barrier at `ptr`.
    ///
    /// # Safety
    /// `ptr` is 8-byte aligned, valid for 8 bytes for `'a`, and (on the GPU) in shared memory.
    ///
    /// # Example
    /// ```
    /// use cute_rs_device::sync::Mbarrier;
    /// let mut word = 0u64;
    /// let bar = unsafe { Mbarrier::from_ptr(&mut word as *mut u64 as *mut u8) };
    /// unsafe { bar.init(1) };
    /// ```
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(ptr: *mut u8) -> &'a Mbarrier {
        // SAFETY: the caller guarantees alignment, validity and lifetime.
        unsafe { &*(ptr as *const Mbarrier) }
    }

    /// The barrier's 32-bit shared-window address (what the PTX instructions take).
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// assert_eq!(bar.address() % 8, 0);
    /// ```
    #[inline(always)]
    pub fn address(&self) -> u32 {
        generic_to_shared(self.state.get())
    }

    /// Initializes the barrier for `count` arrivals per phase, phase parity 0, no pending
    /// transaction bytes (`mbarrier.init.shared::cta.b64`).
    ///
    /// # Safety
    /// `1 <= count < 2^20`. Exactly one thread initializes the barrier, before any other thread uses
    /// it: follow with [`fence_mbarrier_init`] and a block barrier. No phase may be in progress
    /// (re-initializing a barrier others wait on is undefined).
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// unsafe { bar.init(128) };
    /// ```
    #[inline(always)]
    pub unsafe fn init(&self, count: u32) {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            asm!(
                "mbarrier.init.shared::cta.b64 [{a}], {c};",
                a = in(reg32) self.address(),
                c = in(reg32) count,
                options(nostack),
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            let c = count as u64 & cpu_state::FIELD;
            *self.state.get() = c | (c << cpu_state::EXPECTED);
        }
    }

    /// Arrives on the barrier (`mbarrier.arrive.shared::cta.b64`, release semantics at CTA scope):
    /// counts one of the current phase's arrivals. Returns the barrier's state token from before
    /// the arrival (opaque: for `mbarrier.test_wait` with a token; parity waits do not need it).
    ///
    /// # Safety
    /// The barrier is initialized; the current phase still expects an arrival (arriving more often
    /// than `count` per phase is undefined).
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     let _token = bar.arrive();
    ///     assert!(bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn arrive(&self) -> u64 {
        #[cfg(target_arch = "nvptx64")]
        {
            let token: u64;
            unsafe {
                asm!(
                    "mbarrier.arrive.shared::cta.b64 {t}, [{a}];",
                    t = out(reg64) token,
                    a = in(reg32) self.address(),
                    options(nostack),
                );
            }
            token
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            crate::cpu::progress();
            cpu_state::arrive(&mut *self.state.get(), 0)
        }
    }

    /// Announces `bytes` transaction bytes for the current phase, then arrives
    /// (`mbarrier.arrive.expect_tx.shared::cta.b64`): the phase now also waits for `bytes` bytes of
    /// asynchronous copies (TMA loads) completing on this barrier. Returns the state token like
    /// [`Mbarrier::arrive`].
    ///
    /// # Safety
    /// As [`Mbarrier::arrive`], and `bytes < 2^20`; the copies that deliver the bytes target this
    /// barrier in this phase.
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     bar.arrive_expect_tx(64);
    ///     assert!(!bar.try_wait_parity(0)); // 64 bytes still to come
    ///     bar.complete_tx(64);              // (what a TMA load does on completion)
    ///     assert!(bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn arrive_expect_tx(&self, bytes: u32) -> u64 {
        #[cfg(target_arch = "nvptx64")]
        {
            let token: u64;
            unsafe {
                asm!(
                    "mbarrier.arrive.expect_tx.shared::cta.b64 {t}, [{a}], {b};",
                    t = out(reg64) token,
                    a = in(reg32) self.address(),
                    b = in(reg32) bytes,
                    options(nostack),
                );
            }
            token
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            crate::cpu::progress();
            cpu_state::arrive(&mut *self.state.get(), bytes)
        }
    }

    /// Announces `bytes` more transaction bytes for the current phase without arriving
    /// (`mbarrier.expect_tx.relaxed.cta.shared::cta.b64`).
    ///
    /// # Safety
    /// The barrier is initialized and its current phase is not complete; `bytes < 2^20`.
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     bar.expect_tx(16);
    ///     bar.arrive();
    ///     assert!(!bar.try_wait_parity(0));
    ///     bar.complete_tx(16);
    ///     assert!(bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn expect_tx(&self, bytes: u32) {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            asm!(
                "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [{a}], {b};",
                a = in(reg32) self.address(),
                b = in(reg32) bytes,
                options(nostack),
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            crate::cpu::progress();
            cpu_state::add_tx(&mut *self.state.get(), bytes as i64)
        }
    }

    /// Marks `bytes` transaction bytes of the current phase as delivered
    /// (`mbarrier.complete_tx.relaxed.cta.shared::cta.b64`), as a TMA load does when its data has
    /// landed. For producers that deliver data by other means.
    ///
    /// # Safety
    /// The barrier is initialized; the bytes were announced for the current phase.
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     bar.arrive_expect_tx(8);
    ///     bar.complete_tx(8);
    ///     assert!(bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn complete_tx(&self, bytes: u32) {
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            asm!(
                "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [{a}], {b};",
                a = in(reg32) self.address(),
                b = in(reg32) bytes,
                options(nostack),
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        unsafe {
            crate::cpu::progress();
            cpu_state::add_tx(&mut *self.state.get(), -(bytes as i64))
        }
    }

    /// Whether the phase of parity `parity & 1` is complete (`mbarrier.try_wait.parity.shared::cta.b64`,
    /// acquire semantics at CTA scope): true for the immediately preceding phase's parity, and for
    /// the current phase once it has completed. May suspend the thread for a short, system-defined
    /// time before answering false; loop on it, or use [`Mbarrier::wait_parity`].
    ///
    /// When it returns true, the writes released by the phase's arrivals and the bytes of its TMA
    /// loads are visible to this thread.
    ///
    /// # Safety
    /// The barrier is initialized. `parity` names the current or the immediately preceding phase
    /// (a phase two or more behind cannot be told from the current one).
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     assert!(bar.try_wait_parity(1));  // "the phase before the first" is complete
    ///     assert!(!bar.try_wait_parity(0));
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn try_wait_parity(&self, parity: u32) -> bool {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: forwarded preconditions.
        unsafe {
            parity_wait!(self, parity, "try_wait")
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.cpu_phase_done(parity)
    }

    /// [`Mbarrier::try_wait_parity`] without suspending: answers at once
    /// (`mbarrier.test_wait.parity.shared::cta.b64`).
    ///
    /// # Safety
    /// As [`Mbarrier::try_wait_parity`].
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     assert!(!bar.test_wait_parity(0));
    ///     bar.arrive();
    ///     assert!(bar.test_wait_parity(0));
    ///     assert!(!bar.test_wait_parity(1)); // the next phase has begun
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn test_wait_parity(&self, parity: u32) -> bool {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: forwarded preconditions.
        unsafe {
            parity_wait!(self, parity, "test_wait")
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.cpu_phase_done(parity)
    }

    /// The CPU backend's test of both waits: whether the phase of parity `parity & 1` is
    /// complete; a `false` is a poll, so that the other threads run meanwhile.
    #[cfg(not(target_arch = "nvptx64"))]
    fn cpu_phase_done(&self, parity: u32) -> bool {
        // SAFETY: the state is this barrier's own word; one CPU-backend thread runs at a time.
        let done = cpu_state::parity(unsafe { *self.state.get() }) != (parity & 1);
        if !done && crate::cpu::in_kernel() {
            crate::cpu::spin_poll(self.state.get() as usize);
        }
        done
    }

    /// Waits until the phase of parity `parity & 1` is complete: [`Mbarrier::try_wait_parity`] in
    /// a loop.
    ///
    /// # Safety
    /// As [`Mbarrier::try_wait_parity`]; the phase must eventually complete (or the thread hangs).
    ///
    /// # Example
    /// ```
    /// let bar = cute_rs_device::sync::Mbarrier::new();
    /// unsafe {
    ///     bar.init(1);
    ///     bar.arrive();
    ///     bar.wait_parity(0);
    /// }
    /// ```
    #[inline(always)]
    pub unsafe fn wait_parity(&self, parity: u32) {
        // SAFETY: forwarded preconditions.
        while !unsafe { self.try_wait_parity(parity) } {}
    }
}

/// The CPU model of an mbarrier's 64-bit state: pending arrivals (bits 0..21), expected arrivals
/// (21..42), pending transaction bytes (42..63, two's complement) and the phase parity (bit 63).
#[cfg(not(target_arch = "nvptx64"))]
mod cpu_state {
    pub(super) const FIELD: u64 = (1 << 21) - 1;
    pub(super) const EXPECTED: u32 = 21;
    const TX: u32 = 42;

    pub(super) fn parity(s: u64) -> u32 {
        (s >> 63) as u32
    }

    fn tx(s: u64) -> i64 {
        // Sign-extend the 21-bit field.
        ((((s >> TX) & FIELD) << 43) as i64) >> 43
    }

    /// Completes the phase when nothing is pending.
    fn settle(s: u64) -> u64 {
        if s & FIELD == 0 && tx(s) == 0 {
            let expected = (s >> EXPECTED) & FIELD;
            ((s ^ (1 << 63)) & !FIELD) | expected
        } else {
            s
        }
    }

    pub(super) fn add_tx(s: &mut u64, bytes: i64) {
        let t = ((tx(*s) + bytes) as u64) & FIELD;
        *s = settle((*s & !(FIELD << TX)) | (t << TX));
    }

    pub(super) fn arrive(s: &mut u64, tx_bytes: u32) -> u64 {
        let old = *s;
        let t = ((tx(*s) + tx_bytes as i64) as u64) & FIELD;
        let pending = (*s & FIELD).wrapping_sub(1) & FIELD;
        *s = settle((*s & !(FIELD << TX) & !FIELD) | (t << TX) | pending);
        old
    }
}

/// Makes a barrier's [`Mbarrier::init`] visible to the other threads of the cluster and to the
/// asynchronous proxy (TMA) (`fence.mbarrier_init.release.cluster`). Called by the initializing
/// thread after its `init`s, before the block (or cluster) barrier that publishes them. A no-op on
/// the CPU backend.
///
/// # Example
/// ```
/// cute_rs_device::sync::fence_mbarrier_init();
/// ```
#[inline(always)]
pub fn fence_mbarrier_init() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a fence has no preconditions.
    unsafe {
        asm!("fence.mbarrier_init.release.cluster;", options(nostack));
    }
}

