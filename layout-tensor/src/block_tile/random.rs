//! Counter-based random numbers for block tiles: Philox-4x32-10 (Salmon et al., "Parallel random
//! numbers: as easy as 1, 2, 3", SC 2011), the generator of Triton's `tl.rand`/`tl.randint`,
//! cuRAND and Random123. Each element's numbers depend only on the seed and its offset, so a
//! kernel regenerates them wherever it needs them (Triton's "low-memory dropout") and the host
//! computes the same ones.
//!
//! ```
//! use cute_rs_tensor::block_tile::random::{philox, uniform};
//! // Random123's known answer for a zero counter and key.
//! assert_eq!(philox([0; 4], [0; 2]), [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
//! assert!((0.0..1.0).contains(&uniform(philox([7, 0, 0, 0], [42, 0])[0])));
//! ```

use super::{BlockTile, TvLayout};

const MUL_A: u32 = 0xD251_1F53;
const MUL_B: u32 = 0xCD9E_8D57;
const WEYL_A: u32 = 0x9E37_79B9;
const WEYL_B: u32 = 0xBB67_AE85;

/// The high and low words of `a * b` (`mul.hi.u32`, `mul.lo.u32` on the GPU).
#[inline(always)]
fn mul_hi_lo(a: u32, b: u32) -> (u32, u32) {
    (crate::device::math::mul_hi_u32(a, b), a.wrapping_mul(b))
}

/// Philox-4x32 with 10 rounds: the four output words of `counter` under `key`.
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::philox;
/// assert_eq!(philox([!0; 4], [!0; 2]), [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]);
/// ```
#[inline(always)]
pub fn philox(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let [mut c0, mut c1, mut c2, mut c3] = counter;
    let [mut k0, mut k1] = key;
    for _ in 0..10 {
        let (hi_b, lo_b) = mul_hi_lo(MUL_B, c2);
        let (hi_a, lo_a) = mul_hi_lo(MUL_A, c0);
        (c0, c1, c2, c3) = (hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a);
        k0 = k0.wrapping_add(WEYL_A);
        k1 = k1.wrapping_add(WEYL_B);
    }
    [c0, c1, c2, c3]
}

/// A uniform `f32` in `[0, 1)` from 32 random bits, as Triton's `tl.rand` makes it: the bits as an
/// `i32`, folded to non-negative (`x < 0 ? -x - 1 : x`), times `2^-31`.
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::random::uniform;
/// assert_eq!(uniform(0), 0.0);
/// assert!(uniform(u32::MAX) < 1e-9); // -1 folds to 0
/// assert!(uniform(0x7fff_ffff) < 1.0);
/// ```
#[inline(always)]
pub fn uniform(bits: u32) -> f32 {
    let x = bits as i32;
    let x = if x < 0 { -x - 1 } else { x };
    x as f32 * 4.656_612_7e-10
}

/// Random 32-bit integers, one per element: the first word of Philox of the counter
/// `(offset, 0, 0, 0)` under the key `(seed low, seed high)` (`tl.randint(seed, offsets)`).
///
/// # Example
/// ```
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{philox, randint, BlockTile};
/// blocked_layout!(V = shape [32], size_per_thread [1], threads_per_warp [32], warps_per_cta [1], order [0]);
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// let r = randint(7, BlockTile::<i32, V>::arange(0));
/// assert_eq!(r.values(), &[philox([0; 4], [7, 0])[0]]);
/// # }).unwrap();
/// ```
#[inline(always)]
pub fn randint<L: TvLayout>(seed: u64, offsets: BlockTile<i32, L>) -> BlockTile<u32, L> {
    let key = [seed as u32, (seed >> 32) as u32];
    offsets.map(|o| philox([o as u32, 0, 0, 0], key)[0])
}

/// Uniform random `f32`s in `[0, 1)`, one per element (`tl.rand(seed, offsets)`): [`uniform`] of
/// [`randint`].
///
/// # Example
/// ```
/// use cute_rs_tensor::blocked_layout;
/// use cute_rs_tensor::block_tile::{rand, BlockTile};
/// blocked_layout!(V = shape [64], size_per_thread [2], threads_per_warp [32], warps_per_cta [1], order [0]);
/// # cute_rs_tensor::device::cpu::run_block(1, &|| {
/// let r = rand(123, BlockTile::<i32, V>::arange(0));
/// assert!(r.values().iter().all(|x| (0.0..1.0).contains(x)));
/// # }).unwrap();
/// ```
#[inline(always)]
pub fn rand<L: TvLayout>(seed: u64, offsets: BlockTile<i32, L>) -> BlockTile<f32, L> {
    randint(seed, offsets).map(uniform)
}
