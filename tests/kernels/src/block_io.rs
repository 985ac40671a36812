//! Check kernels of the cooperative loads and stores (`cute_rs_tensor::block_io`): one kernel per
//! case of `block_io_cases.rs` (method x element type x block size x items per thread; block
//! sizes 32 to 1024, including 48 and 96, which are not multiples of 32).
//!
//! Each kernel works on the tile of its block, `base = block * TILE`, with `valid = n - base`
//! (saturating): it loads the tile guarded (offsets past `valid` become `oob`), dumps each thread's
//! registers to `regs[(block * THREADS + t) * ITEMS + i]`, passes the block barrier that storage
//! reuse needs, and stores the registers back guarded into `output`. A launch of three blocks with
//! `TILE < n < 2 TILE` covers a full tile (vectorized where allowed), a partial one and an empty one.
//! Warp cases do the same per logical warp of `THREADS` lanes in a block of 64 threads.
//!
//! Blocks of two and three dimensions have their own table (`block_io_nd_cases.rs`): every method,
//! every load and store call, and the block exchanges (see `block_io_nd_cases!`).
//!
//! rocPRIM's documented `block_load` examples (128 threads, `int`, 8 items, `offset = blockIdx.x *
//! 128 * 8`; plain, with storage, with `valid`, with `valid` and `out_of_bounds`) have one kernel per
//! documented method (`rocprim_documented_examples!`).

use cute_rs_tensor::kernel;
use cute_rs_tensor::block_io::{method, BlockExchange, BlockLoad, WarpLoad};
use cute_rs_tensor::device::ids::{block_idx_x, thread_idx_x};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::{block_storage, half, shared_array};

/// Threads per block of the warp cases (several logical warps per block).
pub const WARP_CASE_BLOCK: u32 = 64;

macro_rules! block_io_cases {
    ($($name:ident: $kind:ident, $m:ident, $($t:ident)::+, $threads:literal, $items:literal;)*) => {$(
        block_io_cases!(@one $kind, $name, $m, $($t)::+, $threads, $items);
    )*};
    (@one block, $name:ident, $m:ident, $t:ty, $threads:literal, $items:literal) => {
        #[doc = concat!("`BlockLoad<", stringify!($t), ", ", $threads, ", ", $items, ", ", stringify!($m), ">` load/store round trip (see the module docs).")]
        #[kernel]
        pub fn $name(input: *const $t, regs: *mut $t, output: *mut $t, n: u32, oob: $t) {
            type L = BlockLoad<$t, $threads, $items, method::$m>;
            let io = L::new().with_storage(block_storage!($name: L));
            let b = block_idx_x() as usize;
            let base = b * L::TILE;
            let valid = (n as usize).saturating_sub(base);
            let mut items = [oob; $items];
            io.load_guarded(input.wrapping_add(base), &mut items, valid, oob);
            let t = thread_idx_x() as usize;
            for i in 0..$items {
                *regs.add((b * $threads + t) * $items + i) = items[i];
            }
            sync_threads();
            io.store_guarded(output.wrapping_add(base), &items, valid);
        }
    };
    (@one warp, $name:ident, $m:ident, $t:ty, $threads:literal, $items:literal) => {
        #[doc = concat!("`WarpLoad<", stringify!($t), ", ", $items, ", ", $threads, ", ", stringify!($m), ">` load/store round trip per logical warp (see the module docs).")]
        #[kernel]
        pub fn $name(input: *const $t, regs: *mut $t, output: *mut $t, n: u32, oob: $t) {
            type L = WarpLoad<$t, $items, $threads, method::$m>;
            const PER_BLOCK: usize = WARP_CASE_BLOCK as usize / $threads;
            const STORE: usize = if L::STORAGE_LEN == 0 { 1 } else { L::STORAGE_LEN };
            let all = shared_array!($name: [$t; STORE * PER_BLOCK], align 16);
            let t = thread_idx_x() as usize;
            let w = block_idx_x() as usize * PER_BLOCK + t / $threads;
            let io = L::new().with_storage(cute_rs_tensor::device::shared::SharedArray::<$t, STORE>::from_raw(
                all.as_mut_ptr().add((t / $threads) * STORE),
            ));
            let base = w * L::TILE;
            let valid = (n as usize).saturating_sub(base);
            let mut items = [oob; $items];
            io.load_guarded(input.wrapping_add(base), &mut items, valid, oob);
            let lane = t % $threads;
            for i in 0..$items {
                *regs.add((w * $threads + lane) * $items + i) = items[i];
            }
            sync_threads();
            io.store_guarded(output.wrapping_add(base), &items, valid);
        }
    };
}

include!("block_io_cases.rs");

/// The `BlockExchange` kernels: one block of `BX x BY x BZ` threads (rank `x + BX (y + BY z)`)
/// loads the tile blocked (`Direct`), then exchanges it blocked -> striped -> blocked (and, for
/// `warp` rows, -> warp-striped -> blocked), writing each arrangement to `out[k * TILE ..]` where
/// it says the elements are: every part must equal the input.
macro_rules! block_exchange_cases {
    ($($name:ident: $kind:ident, $($t:ident)::+, $bx:literal, $by:literal, $bz:literal, $items:literal;)*) => {$(
        block_exchange_cases!(@one $kind, $name, $($t)::+, $bx, $by, $bz, $items);
    )*};
    (@one $kind:ident, $name:ident, $t:ty, $bx:literal, $by:literal, $bz:literal, $items:literal) => {
        #[doc = concat!("`BlockExchange<", stringify!($t), ", ", $bx, ", ", $items, ", ", $by, ", ", $bz, ">` on one block, ",
            "exchanges `", stringify!($kind), "` (see `block_exchange_cases!`).")]
        #[kernel]
        pub fn $name(input: *const $t, out: *mut $t) {
            type X = BlockExchange<$t, $bx, $items, $by, $bz>;
            const THREADS: usize = $bx * $by * $bz;
            const TILE: usize = THREADS * $items;
            let s = block_storage!($name: X);
            let id = cute_rs_tensor::device::ids::thread_idx();
            let t = id.x as usize + $bx * (id.y as usize + $by * id.z as usize);
            let mut items = [input.read(); $items];
            BlockLoad::<$t, $bx, $items, method::Direct, $by, $bz>::new().load(input, &mut items);
            X::new().blocked_to_striped(&mut items, s);
            for i in 0..$items {
                *out.add(i * THREADS + t) = items[i];
            }
            sync_threads();
            X::new().striped_to_blocked(&mut items, s);
            for i in 0..$items {
                *out.add(TILE + t * $items + i) = items[i];
            }
            block_exchange_cases!(@warp $kind, X, $items, items, s, out, t, TILE);
        }
    };
    (@warp striped, $x:ty, $items:literal, $v:ident, $s:ident, $out:ident, $t:ident, $tile:ident) => {};
    (@warp warp, $x:ty, $items:literal, $v:ident, $s:ident, $out:ident, $t:ident, $tile:ident) => {
        let (w, l) = ($t / 32, $t % 32);
        sync_threads();
        <$x>::new().blocked_to_warp_striped(&mut $v, $s);
        for i in 0..$items {
            *$out.add(2 * $tile + w * 32 * $items + i * 32 + l) = $v[i];
        }
        sync_threads();
        <$x>::new().warp_striped_to_blocked(&mut $v, $s);
        for i in 0..$items {
            *$out.add(3 * $tile + $t * $items + i) = $v[i];
        }
    };
}

block_exchange_cases! {
    block_exchange_u32_64x3: warp, u32, 64, 1, 1, 3;
    block_exchange_u32_128x4: warp, u32, 128, 1, 1, 4;
}

/// The cases of blocks of two and three dimensions (`block_io_nd_cases.rs`): a launch of three
/// blocks of `BX x BY x BZ` threads, thread rank `r = x + BX (y + BY z)` (rocPRIM's), block `b`
/// working on tile `b` of the input and outputs shifted by `shift` elements (1 misaligns the
/// vectors of `Vectorize`, which must then fall back), `valid = n - b * TILE` (saturating).
///
/// `regs` has four sections of `3 * TILE` elements, item `i` of thread `r` of block `b` at
/// `k * 3 * TILE + (b * THREADS + r) * ITEMS + i`; each thread starts its items from its slots
/// (the host fills them with markers) and writes back what the calls left:
/// 0. `load` (the whole tile, whatever `n`);
/// 1. `load_guarded` with `oob` (every item must be written);
/// 2. `load_valid` (items past `valid` keep their markers);
/// 3. `load_from` a function reading the same tile (the method's pattern, never vectors).
///
/// Then `store` writes section 0's items to `stored` (all of it) and `store_guarded` section 1's
/// items to `output` (only below `valid`). Block barriers separate the calls (storage reuse).
macro_rules! block_io_nd_cases {
    ($($name:ident: $m:ident, $($t:ident)::+, $bx:literal, $by:literal, $bz:literal, $items:literal;)*) => {$(
        block_io_nd_cases!(@one $name, $m, $($t)::+, $bx, $by, $bz, $items);
    )*};
    (@one $name:ident, $m:ident, $t:ty, $bx:literal, $by:literal, $bz:literal, $items:literal) => {
        #[doc = concat!("`BlockLoad<", stringify!($t), ", ", $bx, ", ", $items, ", ", stringify!($m), ", ", $by, ", ", $bz,
            ">`: every load and store of a block of ", $bx, "x", $by, "x", $bz, " threads (see `block_io_nd_cases!`).")]
        #[kernel]
        pub fn $name(input: *const $t, regs: *mut $t, stored: *mut $t, output: *mut $t, n: u32, oob: $t, shift: u32) {
            type L = BlockLoad<$t, $bx, $items, method::$m, $by, $bz>;
            const THREADS: usize = $bx * $by * $bz;
            let io = L::new().with_storage(block_storage!($name: L));
            let b = block_idx_x() as usize;
            let total = cute_rs_tensor::device::ids::grid_dim_x() as usize * L::TILE;
            let id = cute_rs_tensor::device::ids::thread_idx();
            let r = id.x as usize + $bx * (id.y as usize + $by * id.z as usize);
            let base = shift as usize + b * L::TILE;
            let (input, stored, output) = (input.wrapping_add(base), stored.wrapping_add(base), output.wrapping_add(base));
            let valid = (n as usize).saturating_sub(b * L::TILE);
            let slot = |k: usize, i: usize| regs.add(k * total + (b * THREADS + r) * $items + i);
            let (mut full, mut guarded, mut kept, mut from) = ([oob; $items], [oob; $items], [oob; $items], [oob; $items]);
            for i in 0..$items {
                full[i] = *slot(0, i);
                guarded[i] = *slot(1, i);
                kept[i] = *slot(2, i);
                from[i] = *slot(3, i);
            }
            io.load(input, &mut full);
            sync_threads();
            io.load_guarded(input, &mut guarded, valid, oob);
            sync_threads();
            io.load_valid(input, &mut kept, valid);
            sync_threads();
            io.load_from(cute_rs_tensor::block_io::FromFn(|j| *input.add(j)), &mut from);
            for i in 0..$items {
                *slot(0, i) = full[i];
                *slot(1, i) = guarded[i];
                *slot(2, i) = kept[i];
                *slot(3, i) = from[i];
            }
            sync_threads();
            io.store(stored, &full);
            sync_threads();
            io.store_guarded(output, &guarded, valid);
        }
    };
}

include!("block_io_nd_cases.rs");

/// The register marker of a 3-D case's item `i` of thread rank `r`: what `load_valid` must leave
/// in place past `valid`.
pub const fn block_io_3d_marker(rank: u32, i: u32) -> u32 {
    0xdead_0000 + rank * 4 + i
}

/// A block of 16 x 4 x 2 threads (`BlockLoad<u32, 16, 4, _, 4, 2>`, rank `x + 16 (y + 4 z)`):
/// `Transpose` loads the tile with `load_valid` (items past `n` keep their markers) and stores it
/// back guarded; `Direct` loads it again with `load_valid`, without storage. Registers are dumped to
/// `regs[rank * 4 + i]` (`Transpose`) and `regs[512 + rank * 4 + i]` (`Direct`).
#[kernel]
pub fn block_io_3d_valid(input: *const u32, regs: *mut u32, output: *mut u32, n: u32) {
    type Transposing = BlockLoad<u32, 16, 4, method::Transpose, 4, 2>;
    type Direct = BlockLoad<u32, 16, 4, method::Direct, 4, 2>;
    let storage = block_storage!(BLOCK_IO_3D: Transposing);
    let t = cute_rs_tensor::device::ids::thread_idx();
    let rank = t.x + 16 * (t.y + 4 * t.z);
    let mut items = [0u32; 4];
    let mut direct = [0u32; 4];
    for i in 0..4 {
        items[i] = block_io_3d_marker(rank, i as u32);
        direct[i] = block_io_3d_marker(rank, i as u32);
    }
    let transposing = Transposing::new().with_storage(storage);
    transposing.load_valid(input, &mut items, n as usize);
    Direct::new().load_valid(input, &mut direct, n as usize);
    for i in 0..4 {
        *regs.add((rank * 4) as usize + i) = items[i];
        *regs.add(512 + (rank * 4) as usize + i) = direct[i];
    }
    sync_threads();
    transposing.store_guarded(output, &items, n as usize);
}

/// Loads from functions of the tile offset (`FromFn`, rocPRIM's input iterators): `Transpose`
/// reads a counting input `j * j` into blocked items, `Striped` reads the bytes of `input`
/// converted to `f32`. A block of 64 threads dumps them to `squares[t * 4 + i]` and
/// `converted[t * 4 + i]`.
#[kernel]
pub fn block_io_from_fn(input: *const u8, squares: *mut u32, converted: *mut f32) {
    type Counting = BlockLoad<u32, 64, 4, method::Transpose>;
    type Converting = BlockLoad<f32, 64, 4, method::Striped>;
    let storage = block_storage!(BLOCK_IO_FROM_FN: Counting);
    let t = thread_idx_x() as usize;
    let (mut a, mut b) = ([0u32; 4], [0f32; 4]);
    Counting::new().with_storage(storage).load_from(cute_rs_tensor::block_io::FromFn(|j| (j * j) as u32), &mut a);
    Converting::new().load_from(cute_rs_tensor::block_io::FromFn(|j| *input.add(j) as f32), &mut b);
    for i in 0..4 {
        *squares.add(t * 4 + i) = a[i];
        *converted.add(t * 4 + i) = b[i];
    }
}

/// Warp loads from a function and with `valid` only: each logical warp of 16 lanes
/// (`WarpLoad<u32, 4, 16, Transpose>`) reads the counting input `(64 w + j)^2` of its tile into
/// blocked items (`squares[t * 4 + i]`); each warp of 32 lanes with the default method
/// (`WarpLoad<u32, 2>`, direct, no storage) reads its 64-element tile of `input` below `valid`,
/// keeping the marker `!(t * 2 + i)` past it (`kept[t * 2 + i]`). A block of 64 threads.
#[kernel]
pub fn warp_io_from_fn_valid(input: *const u32, squares: *mut u32, kept: *mut u32, valid: u32) {
    type Counting = WarpLoad<u32, 4, 16, method::Transpose>;
    const STORE: usize = Counting::STORAGE_LEN;
    let all = shared_array!(WARP_IO_FROM_FN: [u32; STORE * 4], align 16);
    let t = thread_idx_x() as usize;
    let (w16, w32) = (t / 16, t / 32);
    let mut a = [0u32; 4];
    let mine = cute_rs_tensor::device::shared::SharedArray::<u32, STORE>::from_raw(all.as_mut_ptr().add(w16 * STORE));
    Counting::new().with_storage(mine).load_from(cute_rs_tensor::block_io::FromFn(|j| ((64 * w16 + j) * (64 * w16 + j)) as u32), &mut a);
    let mut b = [!(t as u32 * 2), !(t as u32 * 2 + 1)];
    let tile_valid = (valid as usize).saturating_sub(64 * w32);
    WarpLoad::<u32, 2>::new().load_valid(input.add(64 * w32), &mut b, tile_valid);
    for i in 0..4 {
        *squares.add(t * 4 + i) = a[i];
    }
    for i in 0..2 {
        *kept.add(t * 2 + i) = b[i];
    }
}

/// The register marker of item `i` of thread `t` of block `b` in rocPRIM's example kernels: what
/// `load_valid` must leave in place past `valid` (negative; the inputs are not).
pub const fn rocprim_example_marker(b: u32, t: u32, i: u32) -> i32 {
    i32::MIN + (b * 1024 + t * 8 + i) as i32
}

/// Elements of each section of `regs` in rocPRIM's example kernels (two blocks of 1024).
pub const ROCPRIM_EXAMPLE_SECTION: usize = 2 * 128 * 8;

macro_rules! rocprim_documented_examples {
    ($($name:ident: $m:ident, $bind:ident;)*) => {$(
        #[doc = concat!(
            "rocPRIM's `block_load` examples with `load_method = block_load_", stringify!($m),
            "`: blocks of 128 threads, `int`, 8 items per thread, block `b` at `offset = b * 128 * 8`, the \
             registers of thread `t` dumped to `regs[k * ROCPRIM_EXAMPLE_SECTION + (b * 128 + t) * 8 + i]` for \
             the `k`-th example: (0) `blockload.load(input + offset, items)` (the loader without storage where \
             the method needs none); (1) `bload.load(..., items, storage)`; (2) `bload.load(..., items, valid, \
             storage)` (items start as `rocprim_example_marker`); (3) `bload.load(..., items, valid, out_of_bounds, \
             storage)`; `valid = n - offset` (saturating), block barriers between uses of the storage.\n\n\
             Preconditions: `input` holds 2048 values, `regs` `4 * ROCPRIM_EXAMPLE_SECTION`; grid 2, block 128."
        )]
        #[kernel]
        pub fn $name(input: *const i32, regs: *mut i32, n: u32, out_of_bounds: i32) {
            type L = BlockLoad<i32, 128, 8, method::$m>;
            let b = block_idx_x();
            let t = thread_idx_x();
            let offset = (b * 128 * 8) as usize;
            let valid = (n as usize).saturating_sub(offset);
            let storage = block_storage!($name: L);
            let bload = L::new().with_storage(storage);
            let dump = |k: usize, items: &[i32; 8]| {
                for i in 0..8 {
                    *regs.add(k * ROCPRIM_EXAMPLE_SECTION + (b as usize * 128 + t as usize) * 8 + i) = items[i];
                }
            };
            let mut items = [0i32; 8];
            rocprim_documented_examples!(@load $bind, L, bload, input.add(offset), &mut items);
            dump(0, &items);
            sync_threads();
            let mut items = [0i32; 8];
            bload.load(input.add(offset), &mut items);
            dump(1, &items);
            sync_threads();
            let mut items: [i32; 8] = core::array::from_fn(|i| rocprim_example_marker(b, t, i as u32));
            bload.load_valid(input.add(offset), &mut items, valid);
            dump(2, &items);
            sync_threads();
            let mut items = [0i32; 8];
            bload.load_guarded(input.add(offset), &mut items, valid, out_of_bounds);
            dump(3, &items);
        }
    )*};
    (@load none, $l:ty, $bound:ident, $input:expr, $items:expr) => {
        <$l>::new().load($input, $items)
    };
    (@load storage, $l:ty, $bound:ident, $input:expr, $items:expr) => {
        $bound.load($input, $items)
    };
}

rocprim_documented_examples! {
    rocprim_example_direct: Direct, none;
    rocprim_example_striped: Striped, none;
    rocprim_example_vectorize: Vectorize, none;
    rocprim_example_transpose: Transpose, storage;
    rocprim_example_warp_transpose: WarpTranspose, storage;
}
