//! cuTile-style `load`/`store` kernels (`cute_rs_tensor::tile_space`): the examples of cuTile's
//! `load`/`store` documentation (each run by one thread, as its `ct.launch(stream, (1,), ...)`: a tile is a register
//! fragment of the thread), a memory-order exercise and a tiled load/store copy.

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::{block_idx_x, thread_idx_x};
use cute_rs_tensor::tile_space::{load_scalar, store_scalar, LoadOptions, MemoryOrder, MemoryScope, Order, Padding, StoreOptions};
use cute_rs_tensor::{static_layout, Fragment, LayoutTensor, Static, Vector};

static_layout!(
    /// `torch.arange(10)`.
    X10 = "10:1"
);
static_layout!(
    /// A 1-D tile of 4.
    T4 = "4:1"
);
static_layout!(
    /// `torch.arange(16).reshape(4, 4)`.
    X4x4 = "(4,4):(4,1)"
);
static_layout!(
    /// A `(1, 4)` tile, row-major in registers.
    T1x4 = "(1,4):(4,1)"
);
static_layout!(
    /// `torch.arange(8).reshape(2, 2, 2)`.
    X2x2x2 = "(2,2,2):(4,2,1)"
);
static_layout!(
    /// A `(1, 2, 2)` tile, row-major in registers.
    T1x2x2 = "(1,2,2):(4,2,1)"
);
static_layout!(
    /// `torch.zeros(6)`.
    X6 = "6:1"
);
static_layout!(
    /// `torch.zeros(4).reshape(2, 2)`.
    X2x2 = "(2,2):(2,1)"
);

pub use crate::cutile_sizes::{COPY_THREADS, COPY_TILE, COPY_VECTORS};

static_layout!(
    /// The copied array as `(256, 2^16)` column-major vectors: row `t` is what thread `t` of the
    /// blocks walks, so each tile column is one coalesced 4 KiB access of the block.
    CopyArray = "(256,65536):(1,256)"
);
static_layout!(
    /// A thread's tile: 1 x 4 vectors (64 bytes in registers).
    CopyTile = "(1,4):(4,1)"
);

/// Stores `v` to `out[k]`.
#[inline(always)]
unsafe fn put<T: Copy, const N: usize>(out: *mut T, k: usize, v: [T; N]) {
    for i in 0..N {
        *out.add(k + i) = v[i];
    }
}

/// cuTile's documented 1-D loads: `out[0..12]` = tiles 0, 1 (undetermined padding: whole tiles) and 2
/// (zero padding) of `x` = `arange(10)` with tile shape 4 (`[0..4], [4..8], [8, 9, 0, 0]`).
///
/// Preconditions: `x` holds 10 values, `out` 12; one thread.
#[kernel]
pub fn cutile_seed_load_1d(x: *const i64, out: *mut i64) {
    let s = LayoutTensor::<i64, _>::from_ptr(x as *mut i64, Static::<X10>::new()).tile_space::<T4, 1>(Order::C);
    put(out, 0, s.load::<4>([0], LoadOptions::default()).data);
    put(out, 4, s.load::<4>([1], LoadOptions::default()).data);
    put(out, 8, s.load::<4>([2], LoadOptions::default().padding(Padding::Zero)).data);
}

/// cuTile's documented 2-D loads in "F" order: `out[4i..4i+4]` = tile `(i, 0)` of shape `(1, 4)` of
/// `arange(16).reshape(4, 4)` (column `i`).
///
/// Preconditions: `x` holds 16 values, `out` 16; one thread.
#[kernel]
pub fn cutile_seed_load_2d_f(x: *const i64, out: *mut i64) {
    let s = LayoutTensor::<i64, _>::from_ptr(x as *mut i64, Static::<X4x4>::new()).tile_space::<T1x4, 2>(Order::F);
    for i in 0..4 {
        put(out, 4 * i, s.load::<4>([i as i64, 0], LoadOptions::default()).data);
    }
}

/// cuTile's documented 3-D loads with order `(0, 2, 1)`: `out[0..4]`, `out[4..8]` = tiles `(0,0,0)` and
/// `(1,0,0)` of shape `(1, 2, 2)` of `arange(8).reshape(2, 2, 2)`, row-major.
///
/// Preconditions: `x` holds 8 values, `out` 8; one thread.
#[kernel]
pub fn cutile_seed_load_3d(x: *const i64, out: *mut i64) {
    let s = LayoutTensor::<i64, _>::from_ptr(x as *mut i64, Static::<X2x2x2>::new()).tile_space::<T1x2x2, 3>(Order::Perm([0, 2, 1]));
    put(out, 0, s.load::<4>([0, 0, 0], LoadOptions::default()).data);
    put(out, 4, s.load::<4>([1, 0, 0], LoadOptions::default()).data);
}

/// cuTile's documented scalar (0-d tile) loads: `out[i] = load(x, (i,), shape=())` for `i < 10`.
///
/// Preconditions: `x` holds 10 values, `out` 10; one thread.
#[kernel]
pub fn cutile_seed_load_scalar(x: *const i64, out: *mut i64) {
    let a = LayoutTensor::<i64, _>::from_ptr(x as *mut i64, Static::<X10>::new());
    for i in 0..10 {
        *out.add(i) = load_scalar(&a, [i as i64], Order::C, LoadOptions::default());
    }
}

/// cuTile's documented partial out-of-bounds store: tile `ones(4)` at index 0, `2 * ones(4)` at index 1
/// of a 6-element array (the last two elements of the second tile are dropped).
///
/// Preconditions: `x` holds 6 values (what follows is never written); one thread.
#[kernel]
pub fn cutile_seed_store_partial(x: *mut i32) {
    let s = LayoutTensor::<i32, _>::from_ptr(x, Static::<X6>::new()).tile_space::<T4, 1>(Order::C);
    let mut tile = Fragment::<i32, T4, 4>::new();
    tile.data = [1; 4];
    s.store([0], &tile, StoreOptions::default());
    tile.data = [2; 4];
    s.store([1], &tile, StoreOptions::default());
}

/// cuTile's documented scalar broadcast stores: `store(x, (i, j), tile=2i+j)` into a 2 x 2 array.
///
/// Preconditions: `x` holds 4 values; one thread.
#[kernel]
pub fn cutile_seed_store_scalar(x: *mut i32) {
    let a = LayoutTensor::<i32, _>::from_ptr(x, Static::<X2x2>::new());
    store_scalar(&a, [0, 0], 0, Order::C, StoreOptions::default());
    store_scalar(&a, [0, 1], 1, Order::C, StoreOptions::default());
    store_scalar(&a, [1, 0], 2, Order::C, StoreOptions::default());
    store_scalar(&a, [1, 1], 3, Order::C, StoreOptions::default());
}

/// Memory orders and padding modes: loads tile 2 of `x` (10 floats, tile 4) with every padding
/// mode (`out[4k..4k+4]`, k = zero, NaN, +inf, -inf, -0) — relaxed/block, acquire/device,
/// acquire/system, weak, relaxed/device — then stores `-1` tiles with release/device at tile 0
/// and relaxed/block at tile 2 of `x`.
///
/// Preconditions: `x` holds 10 floats, `out` 20; one thread.
#[kernel]
pub fn cutile_orders_f32(x: *mut f32, out: *mut f32) {
    let s = LayoutTensor::<f32, _>::from_ptr(x, Static::<X10>::new()).tile_space::<T4, 1>(Order::C);
    let o = LoadOptions::default();
    put(out, 0, s.load::<4>([2], o.padding(Padding::Zero).memory(MemoryOrder::Relaxed, MemoryScope::Block)).data);
    put(out, 4, s.load::<4>([2], o.padding(Padding::Nan).memory(MemoryOrder::Acquire, MemoryScope::Device)).data);
    put(out, 8, s.load::<4>([2], o.padding(Padding::PosInf).memory(MemoryOrder::Acquire, MemoryScope::System)).data);
    put(out, 12, s.load::<4>([2], o.padding(Padding::NegInf)).data);
    put(out, 16, s.load::<4>([2], o.padding(Padding::NegZero).memory(MemoryOrder::Relaxed, MemoryScope::Device)).data);
    let mut t = Fragment::<f32, T4, 4>::new();
    t.data = [-1.0; 4];
    s.store([0], &t, StoreOptions::default().memory(MemoryOrder::Release, MemoryScope::Device));
    s.store([2], &t, StoreOptions::default().memory(MemoryOrder::Relaxed, MemoryScope::Block));
}

static_layout!(
    /// Two flags: the round block 0 sent, the round block 1 received.
    Flags = "2:1"
);

/// The message of round `r` in [`cutile_message_passing`].
#[inline(always)]
pub fn message_of_round(r: u32) -> [u32; 4] {
    [r, r.wrapping_mul(3), r.wrapping_mul(5) ^ 0x55, !r]
}

/// Message passing between two blocks of one thread through cuTile's memory orders, `rounds`
/// times. Block 0 stores round `r`'s message ([`message_of_round`]) as a weak tile into `data`
/// (4 values), publishes `r` in `flags[0]` with a release store at device scope, and waits for
/// block 1's acknowledgement in `flags[1]` (acquire loads). Block 1 waits for `r` in `flags[0]`
/// (acquire loads), loads the tile (weak), counts the rounds whose tile differs from the message
/// in `out[0]`, and acknowledges with a release store of `r` in `flags[1]`. Without the orders,
/// block 1 could read a tile older than the flag; with them, `out[0]` is 0. `out[1..5]` is the
/// last tile block 1 read.
///
/// Preconditions: grid `(2, 1, 1)`, block `(1, 1, 1)`; `flags` zero; `out` holds 5 values.
#[kernel]
pub fn cutile_message_passing(data: *mut u32, flags: *mut u32, out: *mut u32, rounds: u32) {
    let tiles = LayoutTensor::<u32, _>::from_ptr(data, Static::<T4>::new()).tile_space::<T4, 1>(Order::C);
    let flags = LayoutTensor::<u32, _>::from_ptr(flags, Static::<Flags>::new());
    let acquire = LoadOptions::default().memory(MemoryOrder::Acquire, MemoryScope::Device);
    let release = StoreOptions::default().memory(MemoryOrder::Release, MemoryScope::Device);
    if block_idx_x() == 0 {
        let mut message = Fragment::<u32, T4, 4>::new();
        for r in 1..=rounds {
            message.data = message_of_round(r);
            tiles.store([0], &message, StoreOptions::default());
            store_scalar(&flags, [0], r, Order::C, release);
            while load_scalar(&flags, [1], Order::C, acquire) != r {}
        }
    } else {
        let mut wrong = 0u32;
        let mut last = [0u32; 4];
        for r in 1..=rounds {
            while load_scalar(&flags, [0], Order::C, acquire) != r {}
            last = tiles.load::<4>([0], LoadOptions::default()).data;
            wrong += (last != message_of_round(r)) as u32;
            store_scalar(&flags, [1], r, Order::C, release);
        }
        unsafe {
            *out = wrong;
            put(out, 1, last);
        }
    }
}

/// cuTile-style tiled copy `dst = src` of [`COPY_VECTORS`] vectors of 4 floats: thread `t` of
/// block `b` loads tile `(t, b)` of shape `(1, 4)` of the [`CopyArray`] view (a register
/// fragment of 4 vectors), then stores it at the same index of `dst`.
///
/// Preconditions: `src`, `dst` 16-byte aligned, `4 * COPY_VECTORS` floats; block `(256,1,1)`,
/// grid `(COPY_VECTORS / (256 * 4), 1, 1)`.
#[kernel]
pub fn cutile_copy_f32(src: *const Vector<f32, 4>, dst: *mut Vector<f32, 4>) {
    let s = LayoutTensor::<Vector<f32, 4>, _>::from_ptr(src as *mut Vector<f32, 4>, Static::<CopyArray>::new())
        .tile_space::<CopyTile, 2>(Order::C);
    let d = LayoutTensor::<Vector<f32, 4>, _>::from_ptr(dst, Static::<CopyArray>::new()).tile_space::<CopyTile, 2>(Order::C);
    let index = [thread_idx_x() as i64, block_idx_x() as i64];
    let tile = s.load::<4>(index, LoadOptions::default());
    d.store(index, &tile, StoreOptions::default());
}

/// Memory orders on narrow elements: the tile of 4 bytes of `x8` is loaded with acquire loads at
/// device scope and stored back plus one with release stores at system scope; the tile of 4
/// `f16` of `x16` is negated through relaxed loads and stores at block scope.
///
/// Preconditions: `x8` and `x16` hold 4 values each; one thread.
#[kernel]
pub fn cutile_orders_narrow(x8: *mut u8, x16: *mut cute_rs_tensor::half::f16) {
    let s8 = LayoutTensor::<u8, _>::from_ptr(x8, Static::<T4>::new()).tile_space::<T4, 1>(Order::C);
    let s16 = LayoutTensor::<cute_rs_tensor::half::f16, _>::from_ptr(x16, Static::<T4>::new()).tile_space::<T4, 1>(Order::C);
    let mut t8 = s8.load::<4>([0], LoadOptions::default().memory(MemoryOrder::Acquire, MemoryScope::Device));
    t8.data = t8.data.map(|v| v.wrapping_add(1));
    s8.store([0], &t8, StoreOptions::default().memory(MemoryOrder::Release, MemoryScope::System));
    let relaxed = LoadOptions::default().memory(MemoryOrder::Relaxed, MemoryScope::Block);
    let mut t16 = s16.load::<4>([0], relaxed);
    t16.data = t16.data.map(|v| -v);
    s16.store([0], &t16, StoreOptions::default().memory(MemoryOrder::Relaxed, MemoryScope::Block));
}
