//! The attention kernels by configuration: one table from a key to its typed kernel, for each
//! element type, read by [`Attention::run`](crate::Attention::run). No kernel is named anywhere
//! else in the call.

use cute_rs_host::KernelFn;
use cute_rs_kernels::attention as portable;
use cute_rs_kernels::attention_bwd as backward;
use cute_rs_kernels::attention_bwd_sm90 as backward_sm90;
use cute_rs_kernels::attention_sm90 as sm90;
use cute_rs_tensor::device::tma::TmaDescriptorParam;
use cute_rs_tensor::half::{bf16, f16};

use crate::attention::AttentionSchedule;

/// A Hopper attention kernel (`cute_rs_kernels::attention_sm90`): the tensor maps of Q, K, V and
/// O, then the rest in an `AttentionParams`.
pub type Sm90Kernel = KernelFn<(TmaDescriptorParam, TmaDescriptorParam, TmaDescriptorParam, TmaDescriptorParam, sm90::AttentionParams)>;

/// A portable attention kernel on elements `T` (`cute_rs_kernels::attention`): one
/// `AttentionParams<T>`.
pub type PortableKernel<T> = KernelFn<(portable::AttentionParams<T>,)>;

/// A portable backward kernel on elements `T` (`cute_rs_kernels::attention_bwd`): one
/// `AttentionBwdParams<T>`.
pub type BackwardKernel<T> = KernelFn<(backward::AttentionBwdParams<T>,)>;

/// A Hopper backward kernel (`cute_rs_kernels::attention_bwd_sm90`): the tensor maps of Q, K, V,
/// dO, the row statistics, the dQ accumulator, dK and dV, then an `AttentionBwdSm90Params`.
pub type BackwardSm90Kernel = KernelFn<(
    TmaDescriptorParam,
    TmaDescriptorParam,
    TmaDescriptorParam,
    TmaDescriptorParam,
    TmaDescriptorParam,
    TmaDescriptorParam,
    TmaDescriptorParam,
    TmaDescriptorParam,
    backward_sm90::AttentionBwdSm90Params,
)>;

/// The tiles of a Hopper kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sm90Tile {
    /// 128 query rows (two consumer warpgroups), the head dimension's keys per step.
    Standard,
    /// 192 query rows (three consumer warpgroups), at head dimension 64.
    Wide,
    /// 80 keys per step, at head dimension 256.
    Long,
}

/// What picks a Hopper kernel: the head dimension, the tiles and the schedule of its steps
/// ([`AttentionSchedule::Persistent`] runs the [`PingPong`](AttentionSchedule::PingPong) kernels,
/// on another grid, and the wide and long ones).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sm90Key {
    /// The head dimension.
    pub d: u32,
    /// The tiles.
    pub tile: Sm90Tile,
    /// The schedule of the steps.
    pub schedule: AttentionSchedule,
}

/// The kernels of one element type.
pub trait AttentionKernels: Sized + 'static {
    /// The Hopper kernels, by key.
    const SM90: &'static [(Sm90Key, Sm90Kernel)];
    /// The portable kernels, by head dimension.
    const PORTABLE: &'static [(u32, PortableKernel<Self>)];
    /// The backward's three kernels (`D` and the accumulator's zeros; dK and dV; dQ), by head
    /// dimension.
    const BACKWARD: &'static [(u32, [BackwardKernel<Self>; 3])];
    /// The Hopper backward kernels, by head dimension (between the portable first and third
    /// kernels).
    const BACKWARD_SM90: &'static [(u32, BackwardSm90Kernel)];
}

/// The key of a Hopper kernel with a `Persistent` schedule.
const fn persistent(d: u32, tile: Sm90Tile) -> Sm90Key {
    Sm90Key { d, tile, schedule: AttentionSchedule::Persistent }
}

/// The key of a Hopper kernel with `schedule` and the standard tiles.
const fn standard(d: u32, schedule: AttentionSchedule) -> Sm90Key {
    Sm90Key { d, tile: Sm90Tile::Standard, schedule }
}

use AttentionSchedule::PingPong;
use Sm90Tile::{Long, Standard, Wide};

impl AttentionKernels for bf16 {
    const SM90: &'static [(Sm90Key, Sm90Kernel)] = &[
        (persistent(64, Wide), sm90::attention_sm90_bf16_d64_wide),
        (persistent(256, Long), sm90::attention_sm90_bf16_d256_long),
        (persistent(64, Standard), sm90::attention_sm90_bf16_d64),
        (persistent(128, Standard), sm90::attention_sm90_bf16_d128),
        (persistent(256, Standard), sm90::attention_sm90_bf16_d256),
        (standard(64, PingPong), sm90::attention_sm90_bf16_d64),
        (standard(128, PingPong), sm90::attention_sm90_bf16_d128),
        (standard(256, PingPong), sm90::attention_sm90_bf16_d256),
    ];
    const PORTABLE: &'static [(u32, PortableKernel<bf16>)] =
        &[(64, portable::attention_fwd_bf16_d64), (128, portable::attention_fwd_bf16_d128), (256, portable::attention_fwd_bf16_d256)];
    const BACKWARD: &'static [(u32, [BackwardKernel<bf16>; 3])] = &[
        (64, [backward::attention_bwd_prep_bf16_d64, backward::attention_bwd_kv_bf16_d64, backward::attention_bwd_dq_bf16_d64]),
        (128, [backward::attention_bwd_prep_bf16_d128, backward::attention_bwd_kv_bf16_d128, backward::attention_bwd_dq_bf16_d128]),
    ];
    const BACKWARD_SM90: &'static [(u32, BackwardSm90Kernel)] = &[(64, backward_sm90::attention_bwd_sm90_bf16_d64), (128, backward_sm90::attention_bwd_sm90_bf16_d128)];
}

impl AttentionKernels for f16 {
    const SM90: &'static [(Sm90Key, Sm90Kernel)] = &[
        (persistent(64, Wide), sm90::attention_sm90_f16_d64_wide),
        (persistent(256, Long), sm90::attention_sm90_f16_d256_long),
        (persistent(64, Standard), sm90::attention_sm90_f16_d64),
        (persistent(128, Standard), sm90::attention_sm90_f16_d128),
        (persistent(256, Standard), sm90::attention_sm90_f16_d256),
        (standard(64, PingPong), sm90::attention_sm90_f16_d64),
        (standard(128, PingPong), sm90::attention_sm90_f16_d128),
        (standard(256, PingPong), sm90::attention_sm90_f16_d256),
    ];
    const PORTABLE: &'static [(u32, PortableKernel<f16>)] =
        &[(64, portable::attention_fwd_f16_d64), (128, portable::attention_fwd_f16_d128), (256, portable::attention_fwd_f16_d256)];
    const BACKWARD: &'static [(u32, [BackwardKernel<f16>; 3])] = &[
        (64, [backward::attention_bwd_prep_f16_d64, backward::attention_bwd_kv_f16_d64, backward::attention_bwd_dq_f16_d64]),
        (128, [backward::attention_bwd_prep_f16_d128, backward::attention_bwd_kv_f16_d128, backward::attention_bwd_dq_f16_d128]),
    ];
    const BACKWARD_SM90: &'static [(u32, BackwardSm90Kernel)] = &[(64, backward_sm90::attention_bwd_sm90_f16_d64), (128, backward_sm90::attention_bwd_sm90_f16_d128)];
}

/// The Hopper kernel of elements `T` under `key`, if there is one.
pub fn sm90_kernel<T: AttentionKernels>(key: Sm90Key) -> Option<Sm90Kernel> {
    T::SM90.iter().find(|(k, _)| *k == key).map(|&(_, kernel)| kernel)
}

/// The portable kernel of elements `T` for head dimension `d`, if there is one.
pub fn portable_kernel<T: AttentionKernels>(d: u32) -> Option<PortableKernel<T>> {
    T::PORTABLE.iter().find(|(dim, _)| *dim == d).map(|&(_, kernel)| kernel)
}

/// The backward's kernels of elements `T` for head dimension `d`, if there are.
pub fn backward_kernels<T: AttentionKernels>(d: u32) -> Option<[BackwardKernel<T>; 3]> {
    T::BACKWARD.iter().find(|(dim, _)| *dim == d).map(|&(_, kernels)| kernels)
}

/// The Hopper backward kernel of elements `T` for head dimension `d`, if there is one.
pub fn backward_sm90_kernel<T: AttentionKernels>(d: u32) -> Option<BackwardSm90Kernel> {
    T::BACKWARD_SM90.iter().find(|(dim, _)| *dim == d).map(|&(_, kernel)| kernel)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each key names one kernel, and each kernel's name says its element type, head dimension
    /// and variant: the table is the names' configurations, not a second guess of them.
    fn check_sm90<T: AttentionKernels>(element: &str) {
        for (i, (key, kernel)) in T::SM90.iter().enumerate() {
            assert!(T::SM90[..i].iter().all(|(k, _)| k != key), "{key:?} twice");
            let name = kernel.name();
            assert!(name.starts_with(&format!("attention_sm90_{element}_d{}", key.d)), "{key:?}: {name}");
            let suffix = match (key.tile, key.schedule) {
                (Wide, _) => "_wide",
                (Long, _) => "_long",
                (Standard, _) => "",
            };
            assert!(name.ends_with(&format!("_d{}{suffix}", key.d)), "{key:?}: {name}");
        }
        // The default schedule has a kernel at every head dimension.
        for d in [64, 128, 256] {
            assert!(sm90_kernel::<T>(persistent(d, Standard)).is_some(), "{element} d{d}");
        }
    }

    #[test]
    fn every_key_names_its_kernel() {
        check_sm90::<bf16>("bf16");
        check_sm90::<f16>("f16");
        for d in [64, 128, 256] {
            assert_eq!(portable_kernel::<bf16>(d).map(|k| k.name()), Some(format!("attention_fwd_bf16_d{d}")).as_deref());
            assert_eq!(portable_kernel::<f16>(d).map(|k| k.name()), Some(format!("attention_fwd_f16_d{d}")).as_deref());
        }
        assert!(portable_kernel::<bf16>(96).is_none());
        for d in backward_sm90::ATTENTION_BWD_SM90_HEAD_DIMS {
            assert_eq!(backward_sm90_kernel::<bf16>(d).map(|k| k.name()), Some(format!("attention_bwd_sm90_bf16_d{d}")).as_deref());
            assert_eq!(backward_sm90_kernel::<f16>(d).map(|k| k.name()), Some(format!("attention_bwd_sm90_f16_d{d}")).as_deref());
        }
        assert!(sm90_kernel::<f16>(standard(96, PingPong)).is_none());
    }
}
