//! The steps that led to the Hopper attention of `cute-rs-kernels` (`attention_sm90`), bf16 with
//! the standard tiles at head dimensions 64 and 128, each an entry so that the GPU suite can check
//! and time it against the operations' kernels (FlashAttention-3's steps; `docs/performance.md`
//! has what each gave):
//!
//! 1. warp specialization alone: each consumer warpgroup waits for each product before the
//!    softmax that follows it (`_serial`);
//! 2. the softmax of a key block overlapping the previous block's `P V` inside each warpgroup
//!    (`_overlap`).
//!
//! The operations' entries add the two consumer warpgroups taking turns at the tensor cores. The
//! steps take the parameters of the operations' Hopper entries and launch as they do, one block
//! per tile; `cute_rs_ops::attention::Attention::sm90_kernel` runs them in place of the
//! operations' kernel.

// On the host only the kernels' typed constants exist (`#[kernel(gpu_only)]`).
#![cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports))]

#[cfg(target_arch = "nvptx64")]
use cute_rs_kernels::attention_sm90::attention_sm90_bf16_standard;
use cute_rs_kernels::attention_sm90::AttentionParams;
use cute_rs_tensor::device::tma::TmaDescriptorParam;
use cute_rs_tensor::kernel;

/// The steps' entries: a name, the head dimension, and whether the softmax overlaps `P V`.
macro_rules! attention_sm90_steps {
    ($($(#[$attr:meta])* $name:ident: $d:literal, $overlap:literal;)*) => {$(
        $(#[$attr])*
        #[kernel(launch_bounds(384, 1), gpu_only)]
        pub fn $name(q_map: TmaDescriptorParam, k_map: TmaDescriptorParam, v_map: TmaDescriptorParam, o_map: TmaDescriptorParam, p: AttentionParams) {
            let maps = [q_map.as_ptr(), k_map.as_ptr(), v_map.as_ptr(), o_map.as_ptr()];
            attention_sm90_bf16_standard::<$d, $overlap, false>(maps, p);
        }
    )*};
}

attention_sm90_steps! {
    /// Attention forward, bf16, head dimension 64, each product waited for before the softmax
    /// that follows it.
    attention_sm90_bf16_d64_serial: 64, false;
    /// [`attention_sm90_bf16_d64_serial`] for head dimension 128.
    attention_sm90_bf16_d128_serial: 128, false;
    /// Attention forward, bf16, head dimension 64, the softmax of a key block overlapping the
    /// previous block's `P V`.
    attention_sm90_bf16_d64_overlap: 64, true;
    /// [`attention_sm90_bf16_d64_overlap`] for head dimension 128.
    attention_sm90_bf16_d128_overlap: 128, true;
}
