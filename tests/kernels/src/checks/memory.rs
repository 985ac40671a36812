//! GPU check kernels: `cute_rs_tensor::device::memory` (32/64/128-bit global loads and stores with
//! every cache operator, L1 eviction priority, non-coherent loads, L2 policies and volatile
//! accesses).
//!
//! Each kernel copies `src` to `dst` in segments of `words` 32-bit words (a multiple of 4), one
//! segment per variant of the access: segment `k` is copied with variant `k` of the lists below,
//! in units of the kernel's access width, by a grid-stride loop. A variant that moves the wrong
//! bytes shows in its segment. Checked by `cute_rs::gpu_suite` (`memory/*`), which names the
//! variants in the same order.
//!
//! Load variants (`memory_loads_*`, 27; the store is a plain one):
//! 0-4 `load` with `Ca`, `Cg`, `Cs`, `Lu`, `Cv`; 5-9 `load` with `EvictNormal`,
//! `EvictUnchanged`, `EvictFirst`, `EvictLast`, `NoAllocate`; 10-17 `load_nc` with `Ca`, `Cg`,
//! `Cs`, `EvictNormal`, `EvictUnchanged`, `EvictFirst`, `EvictLast`, `NoAllocate`; 18-21
//! `load_with_policy` with (`Ca`, L2 evict_first), (`Cg`, evict_last), (`EvictLast`,
//! evict_normal), (`Cv`, evict_unchanged); 22-25 `load_nc_with_policy` with (`Ca`, evict_last),
//! (`Cs`, evict_first), (`EvictFirst`, evict_normal), (`NoAllocate`, evict_unchanged); 26
//! `load_volatile`.
//!
//! Store variants (`memory_stores_*`, 14; the load is a plain one):
//! 0-3 `store` with `Wb`, `Cg`, `Cs`, `Wt`; 4-8 `store` with `EvictNormal`, `EvictUnchanged`,
//! `EvictFirst`, `EvictLast`, `NoAllocate`; 9-12 `store_with_policy` with (`Wb`, evict_first),
//! (`Cs`, evict_last), (`EvictFirst`, evict_normal), (`Wt`, evict_unchanged); 13
//! `store_volatile`.

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::{block_dim_x, global_thread_index_x, grid_dim_x};
use cute_rs_tensor::device::memory::*;

/// Number of load variants (segments) of the `memory_loads_*` kernels.
pub const LOAD_VARIANTS: u32 = 27;
/// Number of store variants (segments) of the `memory_stores_*` kernels.
pub const STORE_VARIANTS: u32 = 14;

/// Copies segment `k` (of `words` words) from `src` to `dst` in units of `T`, reading with `load`
/// and writing with `store`.
#[inline(always)]
unsafe fn copy_segment<T: GlobalValue>(
    src: *const u32,
    dst: *mut u32,
    words: u32,
    k: u32,
    load: impl Fn(*const T) -> T,
    store: impl Fn(*mut T, T),
) {
    let units = words as usize * 4 / core::mem::size_of::<T>();
    let base = k as usize * words as usize;
    let (s, d) = (src.add(base) as *const T, dst.add(base) as *mut T);
    let stride = grid_dim_x() as usize * block_dim_x() as usize;
    let mut i = global_thread_index_x() as usize;
    while i < units {
        store(d.add(i), load(s.add(i)));
        i += stride;
    }
}

/// The 27 load variants, in order, with plain stores.
#[inline(always)]
unsafe fn load_variants<T: GlobalValue>(src: *const u32, dst: *mut u32, words: u32) {
    let plain = |p: *mut T, v: T| p.write(v);
    macro_rules! seg {
        ($k:expr, |$p:ident| $load:expr) => {
            copy_segment::<T>(src, dst, words, $k, |$p: *const T| $load, plain)
        };
    }
    seg!(0, |p| load(p, Ca));
    seg!(1, |p| load(p, Cg));
    seg!(2, |p| load(p, Cs));
    seg!(3, |p| load(p, Lu));
    seg!(4, |p| load(p, Cv));
    seg!(5, |p| load(p, EvictNormal));
    seg!(6, |p| load(p, EvictUnchanged));
    seg!(7, |p| load(p, EvictFirst));
    seg!(8, |p| load(p, EvictLast));
    seg!(9, |p| load(p, NoAllocate));
    seg!(10, |p| load_nc(p, Ca));
    seg!(11, |p| load_nc(p, Cg));
    seg!(12, |p| load_nc(p, Cs));
    seg!(13, |p| load_nc(p, EvictNormal));
    seg!(14, |p| load_nc(p, EvictUnchanged));
    seg!(15, |p| load_nc(p, EvictFirst));
    seg!(16, |p| load_nc(p, EvictLast));
    seg!(17, |p| load_nc(p, NoAllocate));
    seg!(18, |p| load_with_policy(p, Ca, L2Policy::evict_first()));
    seg!(19, |p| load_with_policy(p, Cg, L2Policy::evict_last()));
    seg!(20, |p| load_with_policy(p, EvictLast, L2Policy::evict_normal()));
    seg!(21, |p| load_with_policy(p, Cv, L2Policy::evict_unchanged()));
    seg!(22, |p| load_nc_with_policy(p, Ca, L2Policy::evict_last()));
    seg!(23, |p| load_nc_with_policy(p, Cs, L2Policy::evict_first()));
    seg!(24, |p| load_nc_with_policy(p, EvictFirst, L2Policy::evict_normal()));
    seg!(25, |p| load_nc_with_policy(p, NoAllocate, L2Policy::evict_unchanged()));
    seg!(26, |p| load_volatile(p));
}

/// The 14 store variants, in order, with plain loads.
#[inline(always)]
unsafe fn store_variants<T: GlobalValue>(src: *const u32, dst: *mut u32, words: u32) {
    let plain = |p: *const T| p.read();
    macro_rules! seg {
        ($k:expr, |$p:ident, $v:ident| $store:expr) => {
            copy_segment::<T>(src, dst, words, $k, plain, |$p: *mut T, $v: T| $store)
        };
    }
    seg!(0, |p, v| store(p, v, Wb));
    seg!(1, |p, v| store(p, v, Cg));
    seg!(2, |p, v| store(p, v, Cs));
    seg!(3, |p, v| store(p, v, Wt));
    seg!(4, |p, v| store(p, v, EvictNormal));
    seg!(5, |p, v| store(p, v, EvictUnchanged));
    seg!(6, |p, v| store(p, v, EvictFirst));
    seg!(7, |p, v| store(p, v, EvictLast));
    seg!(8, |p, v| store(p, v, NoAllocate));
    seg!(9, |p, v| store_with_policy(p, v, Wb, L2Policy::evict_first()));
    seg!(10, |p, v| store_with_policy(p, v, Cs, L2Policy::evict_last()));
    seg!(11, |p, v| store_with_policy(p, v, EvictFirst, L2Policy::evict_normal()));
    seg!(12, |p, v| store_with_policy(p, v, Wt, L2Policy::evict_unchanged()));
    seg!(13, |p, v| store_volatile(p, v));
}

/// The 27 load variants as 32-bit accesses (`f32`, `.b32`).
#[kernel]
pub fn memory_loads_b32(src: *const u32, dst: *mut u32, words: u32) {
    load_variants::<f32>(src, dst, words);
}

/// The 27 load variants as 64-bit accesses (`[i32; 2]`, `.b64`).
#[kernel]
pub fn memory_loads_b64(src: *const u32, dst: *mut u32, words: u32) {
    load_variants::<[i32; 2]>(src, dst, words);
}

/// The 27 load variants as 128-bit accesses (`[f32; 4]`, `.v4.b32`).
#[kernel]
pub fn memory_loads_b128(src: *const u32, dst: *mut u32, words: u32) {
    load_variants::<[f32; 4]>(src, dst, words);
}

/// The 14 store variants as 32-bit accesses (`u32`).
#[kernel]
pub fn memory_stores_b32(src: *const u32, dst: *mut u32, words: u32) {
    store_variants::<u32>(src, dst, words);
}

/// The 14 store variants as 64-bit accesses (`f64`).
#[kernel]
pub fn memory_stores_b64(src: *const u32, dst: *mut u32, words: u32) {
    store_variants::<f64>(src, dst, words);
}

/// The 14 store variants as 128-bit accesses (`[u64; 2]`).
#[kernel]
pub fn memory_stores_b128(src: *const u32, dst: *mut u32, words: u32) {
    store_variants::<[u64; 2]>(src, dst, words);
}
