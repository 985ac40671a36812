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

macro_rules! exchange_kernels {
    ($($name:ident: $threads:literal, $items:literal;)*) => {$(
        #[doc = concat!("`BlockExchange<u32, ", $threads, ", ", $items, ">` on one block: the tile loaded blocked, then exchanged ",
            "blocked -> striped -> blocked -> warp-striped -> blocked, each arrangement written to `out[k * TILE ..]` ",
            "where it says the elements are (every part must equal the input).")]
        #[kernel]
        pub fn $name(input: *const u32, out: *mut u32) {
            type X = BlockExchange<u32, $threads, $items>;
            let s = block_storage!($name: X);
            const TILE: usize = $threads * $items;
            let t = thread_idx_x() as usize;
            let (w, l) = (t / 32, t % 32);
            let mut items = [0u32; $items];
            BlockLoad::<u32, $threads, $items, method::Direct>::new().load(input, &mut items);
            X::new().blocked_to_striped(&mut items, s);
            for i in 0..$items {
                *out.add(i * $threads + t) = items[i];
            }
            sync_threads();
            X::new().striped_to_blocked(&mut items, s);
            for i in 0..$items {
                *out.add(TILE + t * $items + i) = items[i];
            }
            sync_threads();
            X::new().blocked_to_warp_striped(&mut items, s);
            for i in 0..$items {
                *out.add(2 * TILE + w * 32 * $items + i * 32 + l) = items[i];
            }
            sync_threads();
            X::new().warp_striped_to_blocked(&mut items, s);
            for i in 0..$items {
                *out.add(3 * TILE + t * $items + i) = items[i];
            }
        }
    )*};
}

exchange_kernels! {
    block_exchange_u32_64x3: 64, 3;
    block_exchange_u32_128x4: 128, 4;
}

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
