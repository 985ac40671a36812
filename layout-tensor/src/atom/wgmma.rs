//! wgmma's shared-memory operands: the canonical swizzled tile layouts wgmma reads, and the
//! matrix descriptors derived from a tile's layout instead of computed by hand.
//!
//! A `wgmma` instruction reads A (unless it comes from registers) and B from shared memory through
//! a 64-bit *matrix descriptor*: a start address, two byte offsets (leading and stride dimension)
//! and a swizzle mode. These describe a family of layouts: 8-row *core matrices* of 16 bytes
//! (no swizzle) or swizzle atoms of 8 rows x 32, 64 or 128 bytes, repeated at the two offsets.
//! [`make_gmma_desc`] takes the layout of the whole operand tile in shared memory, checks
//! element by element that every instruction's block of it is one of those layouts, and returns
//! a [`GmmaDesc`] from which the kernel makes the descriptor of block `(mn, k)` with one addition.
//! [`make_gmma_layout`] builds the canonical tiles (what a TMA load with the same swizzle writes),
//! as CuTe's `GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom` tiled to a shape does.
//!
//! ```
//! use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
//! use cute_rs_tensor::device::mma::{wgmma_descriptor, WgmmaSwizzle};
//! use cute_rs_tensor::layout::unwrap;
//! // A 128 x 64 bf16 tile of A, K-major, 128-byte swizzle; each wgmma reads 64 rows x 16 of K.
//! const A_TILE: cute_rs_tensor::layout::SwizzledLayout =
//!     unwrap!(make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 128, 64));
//! const A_DESC: cute_rs_tensor::atom::wgmma::GmmaDesc = unwrap!(make_gmma_desc(A_TILE, 2, Major::K, 64, 16));
//! // Rows 64.. (the second m64 block) at k 32.. (the third k16 block) of a tile at 0x400.
//! assert_eq!(A_DESC.at(0x400, 1, 2), wgmma_descriptor(0x400 + 64 * 128 + 2 * 32, 16, 1024, WgmmaSwizzle::B128));
//! ```

use cute_rs_layout::{tile_to_shape, IntTuple, Layout, LayoutError, Swizzle, SwizzledLayout};

use crate::device::mma::{wgmma_descriptor, WgmmaSwizzle};
use crate::device::numeric::{E4M3, E5M2};

/// Which of an operand's two modes is contiguous in shared memory: K (A row-major, B column-major;
/// CuTe's `GMMA::Major::K`) or M/N (wgmma's transposed operands; `GMMA::Major::MN`).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::Major;
/// assert_ne!(Major::K, Major::MN);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Major {
    /// K is the contiguous mode.
    K,
    /// M (for A) or N (for B) is the contiguous mode.
    MN,
}

/// How the instructions of a main loop address one operand tile in shared memory: the
/// descriptor's fixed fields (swizzle, leading and stride byte offsets) and the byte distances
/// between the instruction blocks of the tile, all derived from the tile's layout by
/// [`make_gmma_desc`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
/// use cute_rs_tensor::device::mma::WgmmaSwizzle;
/// // B N-major (transposed), 256 x 64 bf16, read 256 x 16 at a time.
/// let tile = make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, 256, 64).unwrap();
/// let d = make_gmma_desc(tile, 2, Major::MN, 256, 16).unwrap();
/// // Next 64-column swizzle atom along N 8 KiB further; next 8 rows of K 1 KiB further.
/// assert_eq!((d.leading_byte_offset(), d.stride_byte_offset()), (8192, 1024));
/// assert_eq!((d.mn_step(), d.k_step()), (0, 2048));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GmmaDesc {
    swizzle: WgmmaSwizzle,
    start: u32,
    lbo: u32,
    sbo: u32,
    mn: BlockSteps,
    k: BlockSteps,
}

/// Where the instruction blocks along one mode start, relative to the first: `run` blocks
/// `step` bytes apart, runs `outer` bytes apart (a K tile wider than the swizzle atom has runs of
/// the blocks inside one atom); `run == 0` when all blocks form one run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct BlockSteps {
    step: u32,
    run: u32,
    outer: u32,
}

impl BlockSteps {
    #[inline(always)]
    const fn offset(&self, block: u32) -> u32 {
        // Descriptors are constants of the kernel: the branch folds away.
        if self.run == 0 {
            block * self.step
        } else {
            block % self.run * self.step + block / self.run * self.outer
        }
    }
}

impl GmmaDesc {
    /// The descriptor of instruction block `(mn_block, k_block)` of the tile whose first byte is
    /// at shared-window address `tile_address`: the block's first element's (unswizzled) byte
    /// offset added to the start address, the other fields fixed.
    ///
    /// Args: `tile_address`, a shared-window address (`shared::generic_to_shared`) aligned to the
    /// swizzle's repeat (8 rows of its width: 1024 bytes for 128 B); `mn_block`, `k_block`, the
    /// block's position in units of the instruction's `mn` and `k`.
    ///
    /// Returns: the 64-bit matrix descriptor (see [`wgmma_descriptor`]).
    ///
    /// Constraints: the blocks stay inside the tile given to [`make_gmma_desc`] (not checked here,
    /// where this is one multiply-add per block in a kernel's main loop).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
    /// use cute_rs_tensor::device::mma::{wgmma_descriptor, WgmmaSwizzle};
    /// let tile = make_gmma_layout(Major::K, WgmmaSwizzle::None, 2, 64, 32).unwrap();
    /// let d = make_gmma_desc(tile, 2, Major::K, 64, 16).unwrap();
    /// // Core matrices (128 bytes) follow each other along M, then along K: the 8 of one
    /// // K column take 1024 bytes, and the second k16 block starts two columns further.
    /// assert_eq!(d.at(0, 0, 1), wgmma_descriptor(2048, 1024, 128, WgmmaSwizzle::None));
    /// ```
    #[inline(always)]
    pub const fn at(&self, tile_address: u32, mn_block: u32, k_block: u32) -> u64 {
        wgmma_descriptor(
            tile_address + self.start + self.mn.offset(mn_block) + self.k.offset(k_block),
            self.lbo,
            self.sbo,
            self.swizzle,
        )
    }

    /// The swizzle mode of the descriptors.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
    /// use cute_rs_tensor::device::mma::WgmmaSwizzle;
    /// let tile = make_gmma_layout(Major::K, WgmmaSwizzle::B64, 2, 64, 32).unwrap();
    /// assert_eq!(make_gmma_desc(tile, 2, Major::K, 64, 16).unwrap().swizzle(), WgmmaSwizzle::B64);
    /// ```
    pub const fn swizzle(&self) -> WgmmaSwizzle {
        self.swizzle
    }

    /// The leading-dimension byte offset: between core matrices adjacent in K (no swizzle,
    /// K-major), between swizzle atoms adjacent in M/N (MN-major); 16 where the instructions
    /// never use it (swizzled K-major).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
    /// use cute_rs_tensor::device::mma::WgmmaSwizzle;
    /// let tile = make_gmma_layout(Major::K, WgmmaSwizzle::None, 2, 64, 64).unwrap();
    /// // The next core matrix along K is after the 8 core matrices (8 x 128 bytes) along M.
    /// assert_eq!(make_gmma_desc(tile, 2, Major::K, 64, 16).unwrap().leading_byte_offset(), 1024);
    /// ```
    pub const fn leading_byte_offset(&self) -> u32 {
        self.lbo
    }

    /// The stride-dimension byte offset: between 8-row groups along M/N (K-major), between
    /// 8-row groups along K (MN-major).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
    /// use cute_rs_tensor::device::mma::WgmmaSwizzle;
    /// let tile = make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 64, 64).unwrap();
    /// assert_eq!(make_gmma_desc(tile, 2, Major::K, 64, 16).unwrap().stride_byte_offset(), 1024);
    /// ```
    pub const fn stride_byte_offset(&self) -> u32 {
        self.sbo
    }

    /// Bytes from one instruction block to the next along M/N (0 where the tile holds one; from
    /// the last block of a swizzle atom to the next atom's first, see [`GmmaDesc::at`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
    /// use cute_rs_tensor::device::mma::WgmmaSwizzle;
    /// let tile = make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 128, 64).unwrap();
    /// assert_eq!(make_gmma_desc(tile, 2, Major::K, 64, 16).unwrap().mn_step(), 64 * 128);
    /// ```
    pub const fn mn_step(&self) -> u32 {
        self.mn.step
    }

    /// Bytes from one instruction block to the next along K (0 where the tile holds one; from
    /// the last block of a swizzle atom to the next atom's first, see [`GmmaDesc::at`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
    /// use cute_rs_tensor::device::mma::WgmmaSwizzle;
    /// let tile = make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 128, 64).unwrap();
    /// assert_eq!(make_gmma_desc(tile, 2, Major::K, 64, 16).unwrap().k_step(), 32);
    /// ```
    pub const fn k_step(&self) -> u32 {
        self.k.step
    }
}

/// Byte offset of element `(m, k)` of `tile` (`tile_mn` rows, `e`-byte elements) before the
/// swizzle: what a descriptor's start address and offsets count.
const fn at(tile: SwizzledLayout, tile_mn: i64, e: i64, m: i64, k: i64) -> i64 {
    (tile.offset() + tile.layout().call(m + tile_mn * k)) * e
}

/// The [`BlockSteps`] of `blocks` instruction blocks `(dm, dk)` elements apart, read off the
/// tile: the first step, the length of the first run of evenly spaced blocks, and where the next
/// run starts. Whether all blocks follow it is checked with the elements.
const fn block_steps(tile: SwizzledLayout, tile_mn: i64, e: i64, dm: i64, dk: i64, blocks: i64) -> Result<BlockSteps, LayoutError> {
    if blocks == 1 {
        return Ok(BlockSteps { step: 0, run: 0, outer: 0 });
    }
    let origin = at(tile, tile_mn, e, 0, 0);
    let step = tri!(descriptor_offset(at(tile, tile_mn, e, dm, dk) - origin));
    let mut run = 2;
    while run < blocks && at(tile, tile_mn, e, run * dm, run * dk) - origin == run * step {
        run += 1;
    }
    if run == blocks {
        return Ok(BlockSteps { step: step as u32, run: 0, outer: 0 });
    }
    let outer = tri!(descriptor_offset(at(tile, tile_mn, e, run * dm, run * dk) - origin));
    Ok(BlockSteps { step: step as u32, run: run as u32, outer: outer as u32 })
}

/// `bytes` if a descriptor can hold it as an offset: a multiple of 16 in `[0, 256 KiB)`.
const fn descriptor_offset(bytes: i64) -> Result<i64, LayoutError> {
    if bytes < 0 || bytes % 16 != 0 || bytes >= 1 << 18 {
        return Err(invalid("make_gmma_desc", "descriptor offsets must be multiples of 16 bytes in [0, 256 KiB)", bytes));
    }
    Ok(bytes)
}

const fn invalid(op: &'static str, condition: &'static str, value: i64) -> LayoutError {
    LayoutError::InvalidArgument { op, condition, value }
}

/// log2 of an element size of 1, 2 or 4 bytes (wgmma's operand types: fp8, 16-bit, tf32).
const fn element_shift(op: &'static str, element_bytes: i64) -> Result<u32, LayoutError> {
    match element_bytes {
        1 => Ok(0),
        2 => Ok(1),
        4 => Ok(2),
        _ => Err(invalid(op, "element size: wgmma operands are 1, 2 or 4 bytes", element_bytes)),
    }
}

/// Bytes of one row of the swizzle atom (16: a core matrix row, without a swizzle).
const fn row_bytes(swizzle: WgmmaSwizzle) -> i64 {
    match swizzle {
        WgmmaSwizzle::None => 16,
        WgmmaSwizzle::B32 => 32,
        WgmmaSwizzle::B64 => 64,
        WgmmaSwizzle::B128 => 128,
    }
}

/// The swizzle on element offsets that wgmma's swizzle `mode` is on byte offsets
/// (`Sw<B,4,3>` on bytes; none for [`WgmmaSwizzle::None`]).
const fn element_swizzle(mode: WgmmaSwizzle, shift: u32) -> Result<Swizzle, LayoutError> {
    let bits = match mode {
        WgmmaSwizzle::None => 0,
        WgmmaSwizzle::B32 => 1,
        WgmmaSwizzle::B64 => 2,
        WgmmaSwizzle::B128 => 3,
    };
    Swizzle::new(bits, 4 - shift, 3)
}

/// The canonical wgmma tile of `mn x k` elements of `element_bytes` bytes for `major` and
/// `swizzle`, as a function `(mn, k) -> element offset`: swizzle atoms of 8 rows of the swizzle's
/// width (16 bytes without one) repeated over the tile, along M/N first for a K-major tile and
/// along K first for an MN-major one, which is what TMA loads of boxes one swizzle width wide
/// write (K-major: one box of `mn` rows; MN-major: one box of `width x k` per atom column).
///
/// Parameters: `major`, the contiguous mode; `swizzle`, wgmma's swizzle mode; `element_bytes`,
/// 1, 2 or 4.
///
/// Returns: the tile's [`SwizzledLayout`], rank 2 `(mn, k)`.
///
/// # Errors
/// [`LayoutError::InvalidArgument`] for another element size or an MN-major tile without a
/// swizzle (not supported here); [`LayoutError::ShapeDivisibility`] unless the atom divides
/// `(mn, k)`.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{make_gmma_layout, Major};
/// use cute_rs_tensor::device::mma::WgmmaSwizzle;
/// let k_major = make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 64, 64).unwrap();
/// assert_eq!(k_major.to_string(), "Sw<3,3,3> o 0 o ((8,8),(64,1)):((64,512),(1,0))");
/// let mn_major = make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, 128, 64).unwrap();
/// assert_eq!(mn_major.to_string(), "Sw<3,3,3> o 0 o ((64,2),(8,8)):((1,4096),(64,512))");
/// let refused = make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 60, 64).unwrap_err();
/// assert!(refused.to_string().contains("8 does not divide 60"));
/// ```
pub const fn make_gmma_layout(
    major: Major,
    swizzle: WgmmaSwizzle,
    element_bytes: i64,
    mn: i64,
    k: i64,
) -> Result<SwizzledLayout, LayoutError> {
    const OP: &str = "make_gmma_layout";
    let shift = tri!(element_shift(OP, element_bytes));
    let width = row_bytes(swizzle) >> shift;
    let (atom, order) = match major {
        Major::K => (
            tri!(Layout::new(
                tri!(IntTuple::from_slice(&[8, width])),
                tri!(IntTuple::from_slice(&[width, 1])),
            )),
            tri!(IntTuple::from_slice(&[0, 1])),
        ),
        Major::MN => {
            if matches!(swizzle, WgmmaSwizzle::None) {
                return Err(invalid(OP, "an MN-major wgmma tile needs a swizzle (32, 64 or 128 bytes)", 0));
            }
            (
                tri!(Layout::new(
                    tri!(IntTuple::from_slice(&[width, 8])),
                    tri!(IntTuple::from_slice(&[1, width])),
                )),
                tri!(IntTuple::from_slice(&[1, 0])),
            )
        }
    };
    let tile = tri!(tile_to_shape(atom, tri!(IntTuple::from_slice(&[mn, k])), Some(order)));
    Ok(SwizzledLayout::new(tri!(element_swizzle(swizzle, shift)), 0, tile))
}

/// The descriptor family of a wgmma operand tile: checks that each `mn x k` instruction block of
/// `tile` (a rank-2 `(MN, K)` layout of the operand in shared memory, in elements) is a layout a
/// matrix descriptor can describe, and derives the descriptor's fields and the blocks' distances
/// from it (CuTe's `make_gmma_desc`).
///
/// The check is on the function, element by element: with `W` the swizzle's row bytes, block
/// offsets `o(m, k)` relative to the block's first element must be, in bytes,
/// - K-major with a swizzle: `(m / 8) SBO + (m % 8) W + k e`;
/// - K-major without one: `(m / 8) SBO + (m % 8) 16 + (k e / 16) LBO + k e % 16`;
/// - MN-major (swizzled): `(m / T) LBO + (m % T) e + (k / 8) SBO + (k % 8) W`, `T = W / e`,
///
/// and the tile's swizzle on element offsets must be wgmma's `Sw<B,4,3>` on bytes. The blocks'
/// first elements must add up mode by mode (`start(mn_block, k_block) = start(mn_block, 0) +
/// start(0, k_block)`), each mode's in runs of evenly spaced blocks at evenly spaced runs.
///
/// Parameters: `element_bytes`, 1, 2 or 4; `major`, the contiguous mode; `mn`, `k`, one
/// instruction's operand block (64 x 16 for a bf16 A, N x 16 for B; k is 32 bytes).
///
/// Returns: the [`GmmaDesc`].
///
/// # Errors
/// [`LayoutError::InvalidArgument`] naming the first violated condition (rank, divisibility,
/// swizzle, offsets, or the element where the layout leaves the descriptor's family).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
/// use cute_rs_tensor::device::mma::WgmmaSwizzle;
/// use cute_rs_tensor::layout::{Layout, Swizzle, SwizzledLayout};
/// let tile = make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 64, 64).unwrap();
/// assert!(make_gmma_desc(tile, 2, Major::K, 64, 16).is_ok());
/// // Rows of 64 elements without the swizzle are not a 128-byte-swizzled tile.
/// let plain = SwizzledLayout::new(Swizzle::new(0, 4, 3).unwrap(), 0, Layout::parse("(64,64):(64,1)").unwrap());
/// let e = make_gmma_desc(plain, 2, Major::K, 64, 16).unwrap_err();
/// assert!(e.to_string().contains("8 rows of 16 bytes"), "{e}");
/// ```
pub const fn make_gmma_desc(tile: SwizzledLayout, element_bytes: i64, major: Major, mn: i64, k: i64) -> Result<GmmaDesc, LayoutError> {
    const OP: &str = "make_gmma_desc";
    let e = element_bytes;
    let shift = tri!(element_shift(OP, e));
    let inner = tile.layout();
    if inner.rank() != 2 {
        return Err(invalid(OP, "the tile must have rank 2 (MN, K)", inner.rank() as i64));
    }
    let (tile_mn, tile_k) = (tri!(inner.mode(0)).size(), tri!(inner.mode(1)).size());
    if mn < 8 || mn % 8 != 0 || tile_mn % mn != 0 {
        return Err(invalid(OP, "the instruction's MN must be a multiple of 8 that divides the tile's MN", mn));
    }
    if k * e != 32 || tile_k % k != 0 {
        return Err(invalid(OP, "the instruction's K must be 32 bytes and divide the tile's K", k));
    }
    let sw = tile.swizzle();
    let mode = match (sw.bits(), sw.base() + shift, sw.shift()) {
        (0, _, _) => WgmmaSwizzle::None,
        (1, 4, 3) => WgmmaSwizzle::B32,
        (2, 4, 3) => WgmmaSwizzle::B64,
        (3, 4, 3) => WgmmaSwizzle::B128,
        _ => return Err(invalid(OP, "the tile's swizzle must be Sw<B,4,3> on byte offsets (B = 0..=3)", sw.bits() as i64)),
    };
    if matches!(major, Major::MN) && matches!(mode, WgmmaSwizzle::None) {
        return Err(invalid(OP, "an MN-major wgmma tile needs a swizzle (32, 64 or 128 bytes)", 0));
    }
    let w = row_bytes(mode);
    let origin = at(tile, tile_mn, e, 0, 0);
    // The fields, read off the layout where the instructions use them.
    let (lbo, sbo) = match major {
        Major::K => {
            let sbo = if tile_mn > 8 { at(tile, tile_mn, e, 8, 0) - origin } else { 8 * w };
            let lbo = if matches!(mode, WgmmaSwizzle::None) { at(tile, tile_mn, e, 0, 16 / e) - origin } else { 16 };
            (lbo, sbo)
        }
        Major::MN => {
            let t = w / e;
            let lbo = if tile_mn > t { at(tile, tile_mn, e, t, 0) - origin } else { 16 };
            let sbo = if tile_k > 8 { at(tile, tile_mn, e, 0, 8) - origin } else { 16 };
            (lbo, sbo)
        }
    };
    let mn_steps = tri!(block_steps(tile, tile_mn, e, mn, 0, tile_mn / mn));
    let k_steps = tri!(block_steps(tile, tile_mn, e, 0, k, tile_k / k));
    // The blocks' steps were checked by `block_steps`.
    tri!(descriptor_offset(origin));
    tri!(descriptor_offset(lbo));
    tri!(descriptor_offset(sbo));
    let mut mb = 0;
    while mb < tile_mn / mn {
        let mut kb = 0;
        while kb < tile_k / k {
            let (m0, k0) = (mb * mn, kb * k);
            let start = at(tile, tile_mn, e, m0, k0);
            if start != origin + mn_steps.offset(mb as u32) as i64 + k_steps.offset(kb as u32) as i64 {
                return Err(invalid(OP, "the instruction blocks must start in evenly spaced runs, evenly spaced", start));
            }
            let mut m = 0;
            while m < mn {
                let mut kk = 0;
                while kk < k {
                    let want = match major {
                        Major::K if matches!(mode, WgmmaSwizzle::None) => {
                            (m / 8) * sbo + (m % 8) * 16 + (kk * e / 16) * lbo + (kk * e) % 16
                        }
                        Major::K => (m / 8) * sbo + (m % 8) * w + kk * e,
                        Major::MN => (m / (w / e)) * lbo + (m % (w / e)) * e + (kk / 8) * sbo + (kk % 8) * w,
                    };
                    if at(tile, tile_mn, e, m0 + m, k0 + kk) - start != want {
                        return Err(invalid(
                            OP,
                            match mode {
                                WgmmaSwizzle::None => "the tile must be core matrices of 8 rows of 16 bytes at the descriptor's offsets",
                                _ => "the tile must be swizzle atoms of 8 rows of the swizzle's width at the descriptor's offsets",
                            },
                            m0 + m + tile_mn * (k0 + kk),
                        ));
                    }
                    kk += 1;
                }
                m += 1;
            }
            kb += 1;
        }
        mb += 1;
    }
    Ok(GmmaDesc {
        swizzle: mode,
        start: origin as u32,
        lbo: lbo as u32,
        sbo: sbo as u32,
        mn: mn_steps,
        k: k_steps,
    })
}

/// The storage order of a wgmma operand in shared memory, as a type: [`KMajor`] or [`MnMajor`]
/// (the template parameters `GMMA::Major::K` and `GMMA::Major::MN` of CuTe's wgmma atoms).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{Major, MajorMode, MnMajor};
/// assert_eq!(MnMajor::MAJOR, Major::MN);
/// ```
pub trait MajorMode: Copy + Default {
    /// The order.
    const MAJOR: Major;
}

/// K contiguous (A row-major, B column-major).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{KMajor, Major, MajorMode};
/// assert_eq!(KMajor::MAJOR, Major::K);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct KMajor;

/// M (for A) or N (for B) contiguous: wgmma reads the operand transposed.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{Major, MajorMode, MnMajor};
/// assert_eq!(MnMajor::MAJOR, Major::MN);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct MnMajor;

impl MajorMode for KMajor {
    const MAJOR: Major = Major::K;
}
impl MajorMode for MnMajor {
    const MAJOR: Major = Major::MN;
}

/// One `wgmma.mma_async` instruction reading A and B from shared memory ("SS"): a warpgroup
/// (128 threads) computes `C = A B (+ C)` on a `64 x N x K` block, A and B given by matrix
/// descriptors ([`GmmaDesc::at`]), C in registers, f32, thread `t`'s value `v` at
/// [`LAYOUT_C`](Self::LAYOUT_C)`(t + 128 v)` (as `m + 64 n`).
///
/// [`call`](Self::call) exists only in GPU builds (`nvptx64`): wgmma has no CPU implementation,
/// and a kernel calling it does not compile for the host. The layouts and sizes exist everywhere.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{KMajor, MnMajor, WgmmaAtom, SM90_64x256x16_F32BF16BF16_SS};
/// type Atom = SM90_64x256x16_F32BF16BF16_SS<KMajor, MnMajor>;
/// assert_eq!((Atom::M, Atom::N, Atom::K, Atom::VALUES_C), (64, 256, 16, 128));
/// // Thread 5 (warp 0, lane 5), value 2: row 5 / 4 + 8, column 2 * (5 % 4).
/// assert_eq!(Atom::LAYOUT_C.call(5 + 128 * 2), 9 + 64 * 2);
/// ```
pub trait WgmmaAtom: Copy + Default {
    /// A's elements in shared memory.
    type A: crate::Element;
    /// B's elements in shared memory.
    type B: crate::Element;
    /// How A is stored.
    type MajorA: MajorMode;
    /// How B is stored.
    type MajorB: MajorMode;
    /// Rows of A and C.
    const M: i64 = 64;
    /// Columns of B and C.
    const N: i64;
    /// Columns of A, rows of B (32 bytes of elements).
    const K: i64;
    /// The warpgroup.
    const THREADS: i64 = 128;
    /// `(thread, value) -> m + 64 n` in C.
    const LAYOUT_C: Layout;
    /// C's values per thread (`N / 2`).
    const VALUES_C: usize;

    /// `C = A B + (scale_d ? C : 0)` with A and B at the descriptors `a` and `b`, `c` pointing at
    /// this thread's [`VALUES_C`](Self::VALUES_C) accumulators.
    ///
    /// # Safety
    /// Those of the instruction (`device::mma::wgmma_m64n256k16_f32`): the warpgroup executes it
    /// together after `wgmma_fence`, the descriptors describe shared memory holding the operands,
    /// `c` is read only after the group is committed and waited for.
    #[cfg(target_arch = "nvptx64")]
    unsafe fn call(a: u64, b: u64, c: *mut f32, scale_d: bool);
}

/// A 16-bit wgmma atom family whose operands may be stored either way: the same instruction with
/// the storage orders `A2` and `B2` (CuTe's atoms are templates on `GMMA::Major`). Lets a caller
/// that chooses the shared-memory layouts itself (the block tiles' `dot`) take an atom by name
/// and fix its orders.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{KMajor, Major, MajorMode, MnMajor, WgmmaAtom, WgmmaMajors, SM90_64x128x16_F32F16F16_SS};
/// type Transposed = <SM90_64x128x16_F32F16F16_SS as WgmmaMajors>::With<KMajor, MnMajor>;
/// assert_eq!(<Transposed as WgmmaAtom>::MajorB::MAJOR, Major::MN);
/// ```
pub trait WgmmaMajors: WgmmaAtom {
    /// The atom with A stored `A2`, B stored `B2`.
    type With<A2: MajorMode, B2: MajorMode>: WgmmaAtom<A = Self::A, B = Self::B>;
}

/// An atom type with two type parameters (the operands' storage orders or formats) and no data:
/// `Copy` and `Default` whatever the parameters.
macro_rules! atom_type {
    ($(#[$attr:meta])* $name:ident<A = $a:ty, B = $b:ty>) => {
        $(#[$attr])*
        #[allow(non_camel_case_types)]
        #[derive(Debug)]
        pub struct $name<A = $a, B = $b>(core::marker::PhantomData<(A, B)>);
        impl<A, B> Clone for $name<A, B> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<A, B> Copy for $name<A, B> {}
        impl<A, B> Default for $name<A, B> {
            fn default() -> Self {
                $name(core::marker::PhantomData)
            }
        }
    };
}

macro_rules! wgmma_ss_atoms {
    ($(
        $(#[$attr:meta])*
        $name:ident: $ty:ty, $n:literal, $regs:literal, $general:ident, $f16:literal;
    )*) => {$(
        atom_type!($(#[$attr])* $name<A = KMajor, B = KMajor>);
        impl<A: MajorMode, B: MajorMode> WgmmaMajors for $name<A, B> {
            type With<A2: MajorMode, B2: MajorMode> = $name<A2, B2>;
        }
        impl<A: MajorMode, B: MajorMode> WgmmaAtom for $name<A, B> {
            type A = $ty;
            type B = $ty;
            type MajorA = A;
            type MajorB = B;
            const N: i64 = $n;
            const K: i64 = 16;
            const LAYOUT_C: Layout = cute_rs_layout::unwrap!(crate::device::mma::wgmma_accumulator_layout($n));
            const VALUES_C: usize = $regs;
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn call(a: u64, b: u64, c: *mut f32, scale_d: bool) {
                use crate::device::mma::$general;
                let d = unsafe { &mut *(c as *mut [f32; $regs]) };
                // The transposes are immediates of the instruction: one arm survives.
                unsafe {
                    match (matches!(A::MAJOR, Major::MN), matches!(B::MAJOR, Major::MN)) {
                        (false, false) => $general::<$f16, false, false>(d, a, b, scale_d),
                        (false, true) => $general::<$f16, false, true>(d, a, b, scale_d),
                        (true, false) => $general::<$f16, true, false>(d, a, b, scale_d),
                        (true, true) => $general::<$f16, true, true>(d, a, b, scale_d),
                    }
                }
            }
        }
    )*};
}

macro_rules! wgmma_tf32_atoms {
    ($(
        $(#[$attr:meta])*
        $name:ident: $n:literal, $regs:literal, $instr:ident;
    )*) => {$(
        $(#[$attr])*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;
        impl WgmmaAtom for $name {
            type A = f32;
            type B = f32;
            type MajorA = KMajor;
            type MajorB = KMajor;
            const N: i64 = $n;
            const K: i64 = 8;
            const LAYOUT_C: Layout = cute_rs_layout::unwrap!(crate::device::mma::wgmma_accumulator_layout($n));
            const VALUES_C: usize = $regs;
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn call(a: u64, b: u64, c: *mut f32, scale_d: bool) {
                unsafe { crate::device::mma::$instr(&mut *(c as *mut [f32; $regs]), a, b, scale_d) }
            }
        }
    )*};
}

wgmma_ss_atoms! {
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16`, A and B in shared memory with the
    /// storage orders `A` and `B` ([`KMajor`] or [`MnMajor`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x64x16_F32BF16BF16_SS};
    /// assert_eq!(<SM90_64x64x16_F32BF16BF16_SS>::VALUES_C, 32);
    /// ```
    SM90_64x64x16_F32BF16BF16_SS: crate::half::bf16, 64, 32, wgmma_m64n64k16_f32, false;
    /// The m64n16k16 bf16 atom (see [`SM90_64x64x16_F32BF16BF16_SS`]): the narrow tiles of
    /// decode-shaped products computed transposed (the few rows of A as wgmma's N).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x16x16_F32BF16BF16_SS};
    /// assert_eq!(<SM90_64x16x16_F32BF16BF16_SS>::VALUES_C, 8);
    /// ```
    SM90_64x16x16_F32BF16BF16_SS: crate::half::bf16, 16, 8, wgmma_m64n16k16_f32, false;
    /// The m64n32k16 bf16 atom (see [`SM90_64x16x16_F32BF16BF16_SS`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x32x16_F32BF16BF16_SS};
    /// assert_eq!(<SM90_64x32x16_F32BF16BF16_SS>::VALUES_C, 16);
    /// ```
    SM90_64x32x16_F32BF16BF16_SS: crate::half::bf16, 32, 16, wgmma_m64n32k16_f32, false;
    /// The m64n128k16 bf16 atom (see [`SM90_64x64x16_F32BF16BF16_SS`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x128x16_F32BF16BF16_SS};
    /// assert_eq!(<SM90_64x128x16_F32BF16BF16_SS>::VALUES_C, 64);
    /// ```
    SM90_64x128x16_F32BF16BF16_SS: crate::half::bf16, 128, 64, wgmma_m64n128k16_f32, false;
    /// The m64n256k16 bf16 atom (see [`SM90_64x64x16_F32BF16BF16_SS`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x256x16_F32BF16BF16_SS};
    /// assert_eq!(<SM90_64x256x16_F32BF16BF16_SS>::VALUES_C, 128);
    /// ```
    SM90_64x256x16_F32BF16BF16_SS: crate::half::bf16, 256, 128, wgmma_m64n256k16_f32, false;
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16` (see [`SM90_64x64x16_F32BF16BF16_SS`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x64x16_F32F16F16_SS};
    /// assert_eq!(<SM90_64x64x16_F32F16F16_SS>::N, 64);
    /// ```
    SM90_64x64x16_F32F16F16_SS: crate::half::f16, 64, 32, wgmma_m64n64k16_f32, true;
    /// The m64n32k16 f16 atom.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x32x16_F32F16F16_SS};
    /// assert_eq!(<SM90_64x32x16_F32F16F16_SS>::N, 32);
    /// ```
    SM90_64x32x16_F32F16F16_SS: crate::half::f16, 32, 16, wgmma_m64n32k16_f32, true;
    /// The m64n128k16 f16 atom.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x128x16_F32F16F16_SS};
    /// assert_eq!(<SM90_64x128x16_F32F16F16_SS>::N, 128);
    /// ```
    SM90_64x128x16_F32F16F16_SS: crate::half::f16, 128, 64, wgmma_m64n128k16_f32, true;
    /// The m64n256k16 f16 atom.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x256x16_F32F16F16_SS};
    /// assert_eq!(<SM90_64x256x16_F32F16F16_SS>::N, 256);
    /// ```
    SM90_64x256x16_F32F16F16_SS: crate::half::f16, 256, 128, wgmma_m64n256k16_f32, true;
    /// The m64n80k16 bf16 atom: 80 columns, for products whose N is 80 (the attention kernels'
    /// key blocks at head dimension 256, where 128-key tiles would not fit shared memory).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x80x16_F32BF16BF16_SS};
    /// assert_eq!(<SM90_64x80x16_F32BF16BF16_SS>::VALUES_C, 40);
    /// ```
    SM90_64x80x16_F32BF16BF16_SS: crate::half::bf16, 80, 40, wgmma_m64n80k16_f32, false;
    /// The m64n80k16 f16 atom (see [`SM90_64x80x16_F32BF16BF16_SS`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x80x16_F32F16F16_SS};
    /// assert_eq!(<SM90_64x80x16_F32F16F16_SS>::N, 80);
    /// ```
    SM90_64x80x16_F32F16F16_SS: crate::half::f16, 80, 40, wgmma_m64n80k16_f32, true;
    /// The m64n176k16 bf16 atom: 176 columns (FlashAttention-3's key blocks at head dimension
    /// 128, the widest that keeps `S`, `P` and `O` in a consumer warpgroup's 240 registers).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x176x16_F32BF16BF16_SS};
    /// assert_eq!(<SM90_64x176x16_F32BF16BF16_SS>::VALUES_C, 88);
    /// ```
    SM90_64x176x16_F32BF16BF16_SS: crate::half::bf16, 176, 88, wgmma_m64n176k16_f32, false;
    /// The m64n176k16 f16 atom (see [`SM90_64x176x16_F32BF16BF16_SS`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x176x16_F32F16F16_SS};
    /// assert_eq!(<SM90_64x176x16_F32F16F16_SS>::N, 176);
    /// ```
    SM90_64x176x16_F32F16F16_SS: crate::half::f16, 176, 88, wgmma_m64n176k16_f32, true;
}

wgmma_tf32_atoms! {
    /// `wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32`: A and B K-major (wgmma has no
    /// transpose for 32-bit elements), `f32` values of which the tensor cores use the tf32 part.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x64x8_F32TF32TF32_SS_TN};
    /// assert_eq!(SM90_64x64x8_F32TF32TF32_SS_TN::K, 8);
    /// ```
    SM90_64x64x8_F32TF32TF32_SS_TN: 64, 32, wgmma_m64n64k8_f32_tf32;
    /// The m64n128k8 tf32 atom.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x128x8_F32TF32TF32_SS_TN};
    /// assert_eq!(SM90_64x128x8_F32TF32TF32_SS_TN::N, 128);
    /// ```
    SM90_64x128x8_F32TF32TF32_SS_TN: 128, 64, wgmma_m64n128k8_f32_tf32;
    /// The m64n256k8 tf32 atom.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x256x8_F32TF32TF32_SS_TN};
    /// assert_eq!(SM90_64x256x8_F32TF32TF32_SS_TN::N, 256);
    /// ```
    SM90_64x256x8_F32TF32TF32_SS_TN: 256, 128, wgmma_m64n256k8_f32_tf32;
}

/// An 8-bit float format of the wgmma fp8 atoms: [`E4M3`] or [`E5M2`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::Fp8;
/// use cute_rs_tensor::device::numeric::{E4M3, E5M2};
/// assert!(!E4M3::IS_E5M2 && E5M2::IS_E5M2);
/// ```
pub trait Fp8: crate::Element + Default {
    /// Whether the format is e5m2 (else e4m3).
    const IS_E5M2: bool;
}
impl Fp8 for E4M3 {
    const IS_E5M2: bool = false;
}
impl Fp8 for E5M2 {
    const IS_E5M2: bool = true;
}

macro_rules! wgmma_fp8_atoms {
    ($(
        $(#[$attr:meta])*
        $name:ident: $n:literal, $regs:literal, $instr:ident, [$($alias:ident = <$a:ty, $b:ty>),*];
    )*) => {$(
        atom_type!($(#[$attr])* $name<A = E4M3, B = E4M3>);
        impl<A: Fp8, B: Fp8> WgmmaAtom for $name<A, B> {
            type A = A;
            type B = B;
            type MajorA = KMajor;
            type MajorB = KMajor;
            const N: i64 = $n;
            const K: i64 = 32;
            const LAYOUT_C: Layout = cute_rs_layout::unwrap!(crate::device::mma::wgmma_accumulator_layout($n));
            const VALUES_C: usize = $regs;
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn call(a: u64, b: u64, c: *mut f32, scale_d: bool) {
                use crate::device::mma::$instr;
                let d = unsafe { &mut *(c as *mut [f32; $regs]) };
                // The formats are part of the instruction: one arm survives.
                unsafe {
                    match (A::IS_E5M2, B::IS_E5M2) {
                        (false, false) => $instr::<false, false>(d, a, b, scale_d),
                        (false, true) => $instr::<false, true>(d, a, b, scale_d),
                        (true, false) => $instr::<true, false>(d, a, b, scale_d),
                        (true, true) => $instr::<true, true>(d, a, b, scale_d),
                    }
                }
            }
        }
        $(
            #[doc = concat!("CuTe's name for [`", stringify!($name), "`]`<", stringify!($a), ", ", stringify!($b), ">`.")]
            #[allow(non_camel_case_types)]
            pub type $alias = $name<$a, $b>;
        )*
    )*};
}

wgmma_fp8_atoms! {
    /// `wgmma.mma_async.sync.aligned.m64n64k32.f32.{e4m3,e5m2}.{e4m3,e5m2}`: A and B 8-bit floats
    /// of the formats `A` and `B` ([`E4M3`] or [`E5M2`]), K-major in shared memory (wgmma has no
    /// transpose for 8-bit elements), f32 accumulators.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x64x32_F32E4M3E5M2_SS_TN};
    /// assert_eq!((SM90_64x64x32_F32E4M3E5M2_SS_TN::K, SM90_64x64x32_F32E4M3E5M2_SS_TN::VALUES_C), (32, 32));
    /// ```
    SM90_64x64x32_F32F8F8_SS_TN: 64, 32, wgmma_m64n64k32_f32_f8, [
        SM90_64x64x32_F32E4M3E4M3_SS_TN = <E4M3, E4M3>, SM90_64x64x32_F32E4M3E5M2_SS_TN = <E4M3, E5M2>,
        SM90_64x64x32_F32E5M2E4M3_SS_TN = <E5M2, E4M3>, SM90_64x64x32_F32E5M2E5M2_SS_TN = <E5M2, E5M2>
    ];
    /// The m64n128k32 fp8 atom (see [`SM90_64x64x32_F32F8F8_SS_TN`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x128x32_F32E4M3E4M3_SS_TN};
    /// assert_eq!(SM90_64x128x32_F32E4M3E4M3_SS_TN::N, 128);
    /// ```
    SM90_64x128x32_F32F8F8_SS_TN: 128, 64, wgmma_m64n128k32_f32_f8, [
        SM90_64x128x32_F32E4M3E4M3_SS_TN = <E4M3, E4M3>, SM90_64x128x32_F32E4M3E5M2_SS_TN = <E4M3, E5M2>,
        SM90_64x128x32_F32E5M2E4M3_SS_TN = <E5M2, E4M3>, SM90_64x128x32_F32E5M2E5M2_SS_TN = <E5M2, E5M2>
    ];
    /// The m64n256k32 fp8 atom (see [`SM90_64x64x32_F32F8F8_SS_TN`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaAtom, SM90_64x256x32_F32E5M2E5M2_SS_TN};
    /// assert_eq!(SM90_64x256x32_F32E5M2E5M2_SS_TN::VALUES_C, 128);
    /// ```
    SM90_64x256x32_F32F8F8_SS_TN: 256, 128, wgmma_m64n256k32_f32_f8, [
        SM90_64x256x32_F32E4M3E4M3_SS_TN = <E4M3, E4M3>, SM90_64x256x32_F32E4M3E5M2_SS_TN = <E4M3, E5M2>,
        SM90_64x256x32_F32E5M2E4M3_SS_TN = <E5M2, E4M3>, SM90_64x256x32_F32E5M2E5M2_SS_TN = <E5M2, E5M2>
    ];
}

/// One `wgmma.mma_async` instruction with A in registers ("RS"): a warpgroup computes
/// `C = A B (+ C)` on a `64 x N x 16` block of 16-bit inputs, A as each thread's
/// [`LAYOUT_A`](Self::LAYOUT_A) values packed two per register, B in shared memory through its
/// descriptor, C as for [`WgmmaAtom`]. The A operand of attention's second GEMM (P V) comes this
/// way, straight from the first GEMM's accumulators.
///
/// [`call`](Self::call) exists only in GPU builds, as for [`WgmmaAtom`].
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{WgmmaRsAtom, SM90_64x128x16_F32BF16BF16_RS};
/// type Atom = SM90_64x128x16_F32BF16BF16_RS;
/// assert_eq!((Atom::N, Atom::VALUES_A, Atom::VALUES_C), (128, 8, 64));
/// // Thread 0 holds A's row 0, columns 0 and 1 in its first register.
/// assert_eq!((Atom::LAYOUT_A.call(0), Atom::LAYOUT_A.call(128)), (0, 64));
/// ```
pub trait WgmmaRsAtom: Copy + Default {
    /// A's elements (in registers, two per 32-bit register).
    type A: crate::Element;
    /// B's elements in shared memory.
    type B: crate::Element;
    /// How B is stored.
    type MajorB: MajorMode;
    /// Columns of B and C.
    const N: i64;
    /// Columns of A, rows of B.
    const K: i64 = 16;
    /// `(thread, value) -> m + 64 k` in A.
    const LAYOUT_A: Layout = crate::device::mma::WGMMA_64X16_A_B16;
    /// A's values per thread.
    const VALUES_A: usize = 8;
    /// `(thread, value) -> m + 64 n` in C.
    const LAYOUT_C: Layout;
    /// C's values per thread (`N / 2`).
    const VALUES_C: usize;

    /// `C = A B + (scale_d ? C : 0)`: `a` this thread's A values packed in pairs (value `2 j` in the
    /// low half of register `j`), `b` B's descriptor, `c` this thread's accumulators.
    ///
    /// # Safety
    /// Those of [`WgmmaAtom::call`]; `a`'s registers are read asynchronously.
    #[cfg(target_arch = "nvptx64")]
    unsafe fn call(a: [u32; 4], b: u64, c: *mut f32, scale_d: bool);
}

macro_rules! wgmma_rs_atoms {
    ($(
        $(#[$attr:meta])*
        $name:ident: $ty:ty, $n:literal, $regs:literal, $instr:ident, $f16:literal;
    )*) => {$(
        atom_type!($(#[$attr])* $name<A = KMajor, B = KMajor>);
        // A from registers is K-major: the atom exists for that order only.
        impl<B: MajorMode> WgmmaRsAtom for $name<KMajor, B> {
            type A = $ty;
            type B = $ty;
            type MajorB = B;
            const N: i64 = $n;
            const LAYOUT_C: Layout = cute_rs_layout::unwrap!(crate::device::mma::wgmma_accumulator_layout($n));
            const VALUES_C: usize = $regs;
            #[cfg(target_arch = "nvptx64")]
            #[inline(always)]
            unsafe fn call(a: [u32; 4], b: u64, c: *mut f32, scale_d: bool) {
                use crate::device::mma::$instr;
                let d = unsafe { &mut *(c as *mut [f32; $regs]) };
                unsafe {
                    if matches!(B::MAJOR, Major::MN) {
                        $instr::<$f16, true>(d, a, b, scale_d)
                    } else {
                        $instr::<$f16, false>(d, a, b, scale_d)
                    }
                }
            }
        }
    )*};
}

wgmma_rs_atoms! {
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16` with A in registers (K-major: `A`
    /// is [`KMajor`]), B in shared memory stored as `B` ([`KMajor`] or [`MnMajor`]).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaRsAtom, SM90_64x64x16_F32BF16BF16_RS};
    /// assert_eq!(<SM90_64x64x16_F32BF16BF16_RS>::VALUES_C, 32);
    /// ```
    SM90_64x64x16_F32BF16BF16_RS: crate::half::bf16, 64, 32, wgmma_m64n64k16_f32_rs, false;
    /// The m64n128k16 bf16 RS atom.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaRsAtom, SM90_64x128x16_F32BF16BF16_RS};
    /// assert_eq!(<SM90_64x128x16_F32BF16BF16_RS>::N, 128);
    /// ```
    SM90_64x128x16_F32BF16BF16_RS: crate::half::bf16, 128, 64, wgmma_m64n128k16_f32_rs, false;
    /// The m64n256k16 bf16 RS atom.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaRsAtom, SM90_64x256x16_F32BF16BF16_RS};
    /// assert_eq!(<SM90_64x256x16_F32BF16BF16_RS>::N, 256);
    /// ```
    SM90_64x256x16_F32BF16BF16_RS: crate::half::bf16, 256, 128, wgmma_m64n256k16_f32_rs, false;
    /// `wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16` with A in registers.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaRsAtom, SM90_64x64x16_F32F16F16_RS};
    /// assert_eq!(<SM90_64x64x16_F32F16F16_RS>::N, 64);
    /// ```
    SM90_64x64x16_F32F16F16_RS: crate::half::f16, 64, 32, wgmma_m64n64k16_f32_rs, true;
    /// The m64n128k16 f16 RS atom.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaRsAtom, SM90_64x128x16_F32F16F16_RS};
    /// assert_eq!(<SM90_64x128x16_F32F16F16_RS>::N, 128);
    /// ```
    SM90_64x128x16_F32F16F16_RS: crate::half::f16, 128, 64, wgmma_m64n128k16_f32_rs, true;
    /// The m64n256k16 f16 RS atom.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::atom::wgmma::{WgmmaRsAtom, SM90_64x256x16_F32F16F16_RS};
    /// assert_eq!(<SM90_64x256x16_F32F16F16_RS>::N, 256);
    /// ```
    SM90_64x256x16_F32F16F16_RS: crate::half::f16, 256, 128, wgmma_m64n256k16_f32_rs, true;
}

/// The A operand of register-A wgmmas read from a previous wgmma's f32 accumulators, rounded to
/// 16 bits (bf16, or f16 if `F16`): `C = A B` of `64 x N` becomes the `A` of `64 x K` with
/// `K = N`, `KB = N / 16` k-blocks of four registers each (FlashAttention-3's re-layout of P
/// between its two GEMMs).
///
/// No data moves between threads: the accumulator layout's values `8 kb .. 8 kb + 8` of a thread
/// are exactly its A values of k-block `kb` in order, `LAYOUT_C(t, 8 kb + v) = LAYOUT_A(t, v) +
/// 64 * 16 kb` (checked for every thread, value and width by the tests), so each register packs
/// two neighbouring accumulators.
///
/// Constraints: `R == 8 * KB` (checked at compile time).
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::accumulators_as_a;
/// use cute_rs_tensor::device::numeric::pack_b16x2;
/// let acc: [f32; 16] = core::array::from_fn(|i| i as f32);
/// let a = accumulators_as_a::<2, 16, false>(&acc);
/// // k-block 1, register 0: accumulators 8 and 9 as bf16 (0x4100 = 8.0, 0x4110 = 9.0).
/// assert_eq!(a[1][0], pack_b16x2(0x4100, 0x4110));
/// ```
#[inline(always)]
pub fn accumulators_as_a<const KB: usize, const R: usize, const F16: bool>(acc: &[f32; R]) -> [[u32; 4]; KB] {
    const { assert!(R == 8 * KB, "a k-block of A takes 8 accumulators: R must be 8 * KB") };
    let pair = |i: usize| {
        if F16 {
            crate::device::numeric::f32x2_to_f16x2(acc[i], acc[i + 1])
        } else {
            crate::device::numeric::f32x2_to_bf16x2(acc[i], acc[i + 1])
        }
    };
    core::array::from_fn(|kb| core::array::from_fn(|j| pair(8 * kb + 2 * j)))
}

/// A warpgroup's operand in shared memory: the descriptor of its first k-block (of a tile's
/// [`GmmaDesc`], at the tile's shared-window address, in the instruction block along M/N this
/// warpgroup reads) and the byte distances to the others; its k-blocks are what [`gemm`]
/// iterates over (CuTe's partitioned tensor of descriptors, `tCrA(_, _, k)`).
///
/// A k-block's descriptor is the first one with the block's offset added to its start-address
/// field: one 32-bit add per instruction of a main loop, rather than a full encoding from the
/// address (a 64-bit shift, masks and field insertions) between the instructions it issues. The field holds address bits 4 to 17, so the sum stays inside it
/// (and equals [`GmmaDesc::at`]) while the tile lies in the first 256 KiB of the shared window,
/// as the shared memory of a block on sm_90 (at most 227 KiB) does.
///
/// # Example
/// ```
/// use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, Major};
/// use cute_rs_tensor::device::mma::WgmmaSwizzle;
/// let desc = make_gmma_desc(make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 128, 64).unwrap(), 2, Major::K, 64, 16).unwrap();
/// let a = desc.operand(0x800, 1); // the second m64 block of the tile at 0x800
/// assert_eq!(a.k_block(3), desc.at(0x800, 1, 3));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct SmemOperand {
    first: u64,
    k: BlockSteps,
}

impl GmmaDesc {
    /// The operand of instruction block `mn_block` (along M/N) of the tile at `tile_address`.
    ///
    /// Constraints: the tile ends within the first 256 KiB of the shared window (any tile of a
    /// block's shared memory on sm_90), so that [`SmemOperand::k_block`] equals [`Self::at`].
    ///
    /// # Example
    /// See [`SmemOperand`].
    #[inline(always)]
    pub const fn operand(&self, tile_address: u32, mn_block: u32) -> SmemOperand {
        SmemOperand { first: self.at(tile_address, mn_block, 0), k: self.k }
    }
}

impl SmemOperand {
    /// The descriptor of k-block `k`: the first k-block's, its start-address field (the low 14
    /// bits, in 16-byte units) advanced by the block's offset.
    ///
    /// A loop that issues the same operand (the same tile address) in each iteration may have
    /// its k-blocks' 64-bit descriptors computed once and held across the loop: where the
    /// accumulators need those registers, pass the tile's address through
    /// [`recompute`](crate::device::hint::recompute) inside the loop.
    ///
    /// # Example
    /// See [`SmemOperand`].
    #[inline(always)]
    pub const fn k_block(&self, k: u32) -> u64 {
        // Block offsets are multiples of 16 bytes; the field does not carry (see the type).
        let low = (self.first as u32).wrapping_add(self.k.offset(k) >> 4);
        (self.first & !0xffff_ffff) | low as u64
    }
}

/// `C = A B + (accumulate ? C : 0)` over `KB` k-blocks of shared-memory operands with the wgmma
/// atom `W` (CuTe's `gemm(tiled_mma, tCrA, tCrB, tCrC)` for an SS wgmma): the first k-block
/// scales C by `accumulate`, the others accumulate. The instructions are asynchronous: the
/// caller fences before (`wgmma_fence`), commits and waits after, as CuTe's kernels do.
///
/// # Safety
/// Those of [`WgmmaAtom::call`] for each k-block; `acc` holds this thread's `W::VALUES_C`
/// accumulators (`R == W::VALUES_C`, checked at compile time).
///
/// # Example
/// ```ignore
/// wgmma_fence();
/// gemm::<SM90_64x256x16_F32BF16BF16_SS, 4, 128>(A_DESC.operand(a0, slice), B_DESC.operand(b0, 0), &mut acc, k_tile > 0);
/// wgmma_commit_group();
/// wgmma_wait_group::<0>();
/// ```
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn gemm<W: WgmmaAtom, const KB: u32, const R: usize>(a: SmemOperand, b: SmemOperand, acc: &mut [f32; R], accumulate: bool) {
    const { assert!(R == W::VALUES_C, "the accumulators must be the atom's VALUES_C values") };
    for k in 0..KB {
        unsafe { W::call(a.k_block(k), b.k_block(k), acc.as_mut_ptr(), accumulate || k > 0) };
    }
}

/// `C = A B + (accumulate ? C : 0)` over `KB` k-blocks with A in registers and B in shared memory,
/// with the register-A wgmma atom `W` (CuTe's `gemm(tiled_mma, tCrA, tCrB, tCrC)` for an RS
/// wgmma): `a` holds this thread's A values of each k-block packed in pairs (as
/// [`accumulators_as_a`] makes them from a previous product's accumulators), `b` B's tile. The
/// first k-block scales C by `accumulate`, the others accumulate. Asynchronous, as for [`gemm`]:
/// the caller fences before, commits and waits after.
///
/// # Safety
/// Those of [`WgmmaRsAtom::call`] for each k-block; `acc` holds this thread's `W::VALUES_C`
/// accumulators (`R == W::VALUES_C`, checked at compile time); `a`'s registers stay untouched
/// until the wgmmas complete.
///
/// # Example
/// ```ignore
/// // O += P V: P (64 x 128) from the accumulators of S = Q K^T, V (128 x 128) MN-major.
/// let p = accumulators_as_a::<8, 64, false>(&s);
/// wgmma_fence();
/// gemm_rs::<SM90_64x128x16_F32BF16BF16_RS<KMajor, MnMajor>, 8, 64>(&p, V_DESC.operand(v0, 0), &mut o, true);
/// wgmma_commit_group();
/// wgmma_wait_group::<0>();
/// ```
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn gemm_rs<W: WgmmaRsAtom, const KB: usize, const R: usize>(a: &[[u32; 4]; KB], b: SmemOperand, acc: &mut [f32; R], accumulate: bool) {
    const { assert!(R == W::VALUES_C, "the accumulators must be the atom's VALUES_C values") };
    for (k, a) in a.iter().enumerate() {
        unsafe { W::call(*a, b.k_block(k as u32), acc.as_mut_ptr(), accumulate || k > 0) };
    }
}
