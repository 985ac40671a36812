//! Hints that steer where the compiler keeps a kernel's values.
//!
//! # Why
//! LLVM's loop-invariant code motion computes a value that does not change inside a loop once,
//! before the loop, and keeps it in a register throughout. That is right for most loops, not for
//! a kernel whose loop already holds most of the register file in accumulators (a `wgmma`
//! pipeline's S, P and O): each invariant kept across the loop (an address, a 64-bit
//! descriptor, a row's bounds) takes a register the loop needs, and ptxas spills. Recomputing
//! such values where they are used costs a few integer instructions per iteration, and frees
//! their registers. [`recompute`] marks the point where that recomputation starts.

/// `x`, as a value the compiler cannot trace back to its origin: whatever derives from the
/// result is computed after the call, where the call is, not hoisted out of the loop around it.
///
/// Returns: `x`.
///
/// Call it inside the loop, on the invariant input (a thread index, a buffer's address, a
/// length) of the values to keep short-lived; it costs one `mov` that ptxas removes. On the GPU
/// it is inline assembly that the compiler must keep in place (it is not marked pure); on the
/// CPU backend, `x` itself.
///
/// # Example
/// ```
/// use cute_rs_device::hint::recompute;
/// let lane = 37u32;
/// for block in 0..4u32 {
///     // The row's address is computed in each iteration, not kept across the loop.
///     let row = recompute(lane) / 4 + 8 * block;
///     assert_eq!(row, 9 + 8 * block);
/// }
/// ```
#[inline(always)]
pub fn recompute(x: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let y: u32;
        // SAFETY: a register move; no memory, no other effect.
        unsafe { core::arch::asm!("mov.b32 {y}, {x};", x = in(reg32) x, y = out(reg32) y, options(nomem, nostack, preserves_flags)) };
        y
    }
    #[cfg(not(target_arch = "nvptx64"))]
    x
}
