//! The few device primitives the first kernels need (thread and block ids).
//!
//! On `nvptx64` they read the PTX special registers; on other targets they are stand-ins (a CPU
//! backend will give them meaning) so that kernel code type-checks everywhere. They belong to
//! `layout-tensor`'s device-primitive module once it exists; kernels call them through this module
//! meanwhile.

/// The thread's index in the whole grid along x: `threadIdx.x + blockIdx.x * blockDim.x`.
///
/// Computed in `u64` from the unsigned special registers, so that LLVM knows it is non-negative:
/// divisions and remainders of it by powers of two then fold to shifts and masks.
#[inline(always)]
pub fn global_thread_index_x() -> u64 {
    thread_idx_x() as u64 + block_idx_x() as u64 * block_dim_x() as u64
}

/// `threadIdx.x` (`%tid.x`).
#[inline(always)]
pub fn thread_idx_x() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reading a special register has no preconditions.
    unsafe {
        core::arch::nvptx::_thread_idx_x() as u32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    0
}

/// `blockIdx.x` (`%ctaid.x`).
#[inline(always)]
pub fn block_idx_x() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reading a special register has no preconditions.
    unsafe {
        core::arch::nvptx::_block_idx_x() as u32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    0
}

/// `blockDim.x` (`%ntid.x`).
#[inline(always)]
pub fn block_dim_x() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: reading a special register has no preconditions.
    unsafe {
        core::arch::nvptx::_block_dim_x() as u32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    1
}

/// Aborts the kernel (PTX `trap`): the launch fails with an error the host sees.
#[inline(always)]
pub fn trap() -> ! {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: `trap` has no preconditions; it ends the kernel.
    unsafe {
        core::arch::nvptx::trap()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    loop {}
}
