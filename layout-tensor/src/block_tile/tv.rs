//! Thread-value layouts of block tiles: which thread of the block holds which element of a tile,
//! in which of its registers.
//!
//! A [`TvMap`] maps a pair (thread `t`, value `v`) to a coordinate of a tile of up to
//! [`MAX_RANK`] dimensions. Like a CuTe TV layout it is a sum of independent modes ("leaves"):
//! the thread index and the value index are each split colexicographically into leaves, and each
//! leaf moves along one dimension of the tile with a constant step, or is *replicated* (step 0:
//! the threads or values that differ only in that leaf hold the same element). So the
//! coordinate of `(t, v)` is `thread_coord(t) + value_coord(v)`, dimension by dimension, without
//! carries: a kernel computes the thread's part once and the value's part folds to a constant.
//!
//! Maps come from Triton's blocked layout ([`TvMap::blocked`], the default of a block tile) or
//! from any TV layout of the algebra ([`TvMap::from_layout`]), and derive new ones:
//! [`TvMap::slice`] collapses a dimension to extent 1 (the layout of a reduction's result, and of
//! the operands broadcast along that dimension, as Triton's `SliceLayout`).
//!
//! Tiles are numbered row-major (the last dimension fastest), as in Triton, cuTile and NumPy;
//! [`TvMap::layout`] gives the map as a CuTe layout from `(thread, value)` to that row-major index.
//!
//! ```
//! use cute_rs_tensor::block_tile::TvMap;
//! // A 4 x 64 tile over 2 warps: each thread holds 4 consecutive columns of one row, 16 threads
//! // span a row, a warp spans 2 rows and the two warps the other 2.
//! let m = TvMap::blocked(&[4, 64], &[1, 4], &[2, 16], &[2, 1], &[1, 0]).unwrap();
//! assert_eq!((m.threads(), m.values()), (64, 4));
//! assert_eq!(m.coord(17, 2), [1, 6, 0, 0, 0]); // thread 17: row 1, columns 4..8
//! assert_eq!(m.layout().unwrap().to_string(), "((16,2,2),4):((4,64,128),1)");
//! ```

use core::fmt;
use cute_rs_layout::{IntTuple, Layout};

/// The largest rank of a block tile.
pub const MAX_RANK: usize = 5;
/// The most leaves a thread or value index splits into.
pub const MAX_TV_LEAVES: usize = 16;
/// The `dim` of a replicated leaf.
pub const REPLICATED: usize = usize::MAX;

/// Why a thread-value map cannot be built, with the values at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TvError {
    /// The rank is 0 or above [`MAX_RANK`], or the parameter lists differ in length.
    Rank {
        /// The tile's rank.
        rank: usize,
        /// The length of the list at fault.
        len: usize,
    },
    /// A size, extent or count is not a positive power of two.
    NotPowerOfTwo {
        /// Which parameter.
        what: &'static str,
        /// Its dimension.
        dim: usize,
        /// Its value.
        value: i64,
    },
    /// Triton's `threads_per_warp` must multiply to the warp size.
    ThreadsPerWarp {
        /// Their product.
        product: i64,
    },
    /// `order` is not a permutation of the dimensions.
    Order {
        /// The dimension missing or repeated.
        dim: usize,
    },
    /// More leaves than [`MAX_TV_LEAVES`].
    TooManyLeaves,
    /// A leaf of a TV layout moves along no single dimension of the tile.
    Leaf {
        /// The leaf's size.
        size: i64,
        /// The leaf's stride.
        stride: i64,
    },
    /// The leaves along a dimension do not tile it exactly once.
    Coverage {
        /// The dimension.
        dim: usize,
    },
    /// The layout is not of rank 2 (thread, value).
    NotThreadValue {
        /// The layout's rank.
        rank: usize,
    },
    /// An axis past the rank.
    Axis {
        /// The axis.
        axis: usize,
        /// The tile's rank.
        rank: usize,
    },
}

impl TvError {
    /// The violated condition, as a constant message (what a failed `const` evaluation shows).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::block_tile::{TvError, TvMap};
    /// let e = TvMap::blocked(&[4, 64], &[1, 4], &[4, 4], &[1, 1], &[1, 0]).unwrap_err();
    /// assert_eq!(e, TvError::ThreadsPerWarp { product: 16 });
    /// assert_eq!(e.message(), "blocked layout: threads_per_warp must multiply to the warp size 32");
    /// ```
    pub const fn message(&self) -> &'static str {
        match self {
            TvError::Rank { .. } => "thread-value layout: the rank must be 1 to 5, the same for every parameter",
            TvError::NotPowerOfTwo { .. } => "thread-value layout: sizes, extents and counts must be powers of two",
            TvError::ThreadsPerWarp { .. } => "blocked layout: threads_per_warp must multiply to the warp size 32",
            TvError::Order { .. } => "blocked layout: order must be a permutation of the dimensions",
            TvError::TooManyLeaves => "thread-value layout: more than 16 leaves in the thread or value index",
            TvError::Leaf { .. } => "thread-value layout: a leaf must move along a single dimension of the tile",
            TvError::Coverage { .. } => "thread-value layout: the leaves along a dimension must cover it exactly once",
            TvError::NotThreadValue { .. } => "thread-value layout: the layout must have two modes, (thread, value)",
            TvError::Axis { .. } => "thread-value layout: the axis is past the tile's rank",
        }
    }
}

impl fmt::Display for TvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.message())?;
        match *self {
            TvError::Rank { rank, len } => write!(f, " (rank {rank}, a list of {len})"),
            TvError::NotPowerOfTwo { what, dim, value } => write!(f, " ({what} {value} along dimension {dim})"),
            TvError::ThreadsPerWarp { product } => write!(f, " (they multiply to {product})"),
            TvError::Order { dim } => write!(f, " (dimension {dim} is missing or repeated)"),
            TvError::TooManyLeaves => Ok(()),
            TvError::Leaf { size, stride } => write!(f, " (leaf {size}:{stride})"),
            TvError::Coverage { dim } => write!(f, " (dimension {dim})"),
            TvError::NotThreadValue { rank } => write!(f, " (rank {rank})"),
            TvError::Axis { axis, rank } => write!(f, " (axis {axis}, rank {rank})"),
        }
    }
}

/// Unwraps a `Result<_, TvError>` in a `const` context: an error stops compilation with its
/// message.
#[doc(hidden)]
#[macro_export]
macro_rules! __tv_unwrap {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => panic!("{}", e.message()),
        }
    };
}
use crate::__tv_unwrap as tv_unwrap;

/// The leaves of one index (thread or value), fastest first: leaf `j` has `size[j]` and moves
/// along dimension `dim[j]` by `step[j]` (or is [`REPLICATED`], step 0).
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::TvMap;
/// let m = TvMap::blocked(&[8], &[2], &[32], &[1], &[0]).unwrap(); // wraps: 64 > 8 elements
/// assert_eq!(m.threads.len, 2); // 4 lanes along the tile, then 8 replicas (one warp)
/// assert_eq!((m.threads.size[0], m.threads.step[0]), (4, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaves {
    /// Number of leaves.
    pub len: usize,
    /// Extent of each leaf.
    pub size: [i64; MAX_TV_LEAVES],
    /// The dimension each leaf moves along, or [`REPLICATED`].
    pub dim: [usize; MAX_TV_LEAVES],
    /// The coordinate step of each leaf along its dimension (0 when replicated).
    pub step: [i64; MAX_TV_LEAVES],
}

impl Leaves {
    const EMPTY: Leaves = Leaves { len: 0, size: [1; MAX_TV_LEAVES], dim: [REPLICATED; MAX_TV_LEAVES], step: [0; MAX_TV_LEAVES] };

    /// Appends a leaf (leaves of size 1 are dropped).
    const fn push(mut self, size: i64, dim: usize, step: i64) -> Result<Leaves, TvError> {
        if size == 1 {
            return Ok(self);
        }
        if self.len == MAX_TV_LEAVES {
            return Err(TvError::TooManyLeaves);
        }
        self.size[self.len] = size;
        self.dim[self.len] = dim;
        self.step[self.len] = if dim == REPLICATED { 0 } else { step };
        self.len += 1;
        Ok(self)
    }

    /// Appends a leaf of a tile of extent `extent` along `dim`, replicating the part of it that
    /// wraps past the extent (Triton's blocked layouts wrap a tile smaller than their coverage).
    const fn push_wrapped(self, size: i64, dim: usize, step: i64, extent: i64) -> Result<Leaves, TvError> {
        if step >= extent {
            self.push(size, REPLICATED, 0)
        } else if step * size > extent {
            let inside = extent / step;
            match self.push(inside, dim, step) {
                Ok(l) => l.push(size / inside, REPLICATED, 0),
                Err(e) => Err(e),
            }
        } else {
            self.push(size, dim, step)
        }
    }

    /// The product of the sizes: the index's extent.
    ///
    /// # Example
    /// ```
    /// let m = cute_rs_tensor::block_tile::TvMap::blocked(&[64], &[4], &[32], &[2], &[0]).unwrap();
    /// assert_eq!((m.threads.count(), m.values.count()), (64, 4));
    /// ```
    pub const fn count(&self) -> i64 {
        product(&self.size, self.len)
    }

    /// The per-dimension coordinate of index `i`.
    #[inline(always)]
    const fn coord(&self, i: i64) -> [i64; MAX_RANK] {
        let mut c = [0; MAX_RANK];
        let mut rest = i;
        let mut j = 0;
        while j < self.len {
            let k = rest % self.size[j];
            rest /= self.size[j];
            if self.dim[j] != REPLICATED {
                c[self.dim[j]] += k * self.step[j];
            }
            j += 1;
        }
        c
    }
}

/// The product of the first `n` entries of `xs`.
const fn product(xs: &[i64], n: usize) -> i64 {
    let mut p = 1;
    let mut i = 0;
    while i < n {
        p *= xs[i];
        i += 1;
    }
    p
}

const fn is_pow2(x: i64) -> bool {
    x > 0 && x & (x - 1) == 0
}

/// A thread-value map: a tile's shape and how the block's threads hold its elements (see the
/// [module docs](self)).
///
/// # Example
/// ```
/// use cute_rs_tensor::block_tile::TvMap;
/// let m = TvMap::blocked(&[1024], &[4], &[32], &[4], &[0]).unwrap(); // Triton's vector add
/// assert_eq!((m.threads(), m.values()), (128, 8));
/// assert_eq!(m.coord(1, 0)[0], 4);   // thread 1 starts at element 4
/// assert_eq!(m.coord(1, 4)[0], 516); // its second vector of 4 lies 512 further
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TvMap {
    /// Number of dimensions.
    pub rank: usize,
    /// The tile's extents (1 past the rank).
    pub shape: [i64; MAX_RANK],
    /// The thread index's leaves.
    pub threads: Leaves,
    /// The value index's leaves.
    pub values: Leaves,
}

impl TvMap {
    /// Triton's `BlockedLayout` of a tile of `shape`: each thread holds `size_per_thread`
    /// contiguous elements, a warp's 32 threads are arranged `threads_per_warp`, the block's warps
    /// `warps_per_cta`, all in `order` (the fastest dimension first), and this block-wide pattern
    /// repeats over the tile (or wraps, replicating elements, where the tile is smaller).
    ///
    /// # Args
    /// - `shape`, `size_per_thread`, `threads_per_warp`, `warps_per_cta`: one entry per dimension
    ///   (rank 1 to 5), powers of two.
    /// - `order`: the dimensions from fastest to slowest (`[1, 0]`: row-major).
    ///
    /// # Returns
    /// The map, with `prod(threads_per_warp) * prod(warps_per_cta)` threads.
    ///
    /// # Errors
    /// [`TvError`] naming the violated condition: ranks, powers of two, 32 threads per warp,
    /// `order` a permutation.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::block_tile::TvMap;
    /// let m = TvMap::blocked(&[16, 128], &[1, 4], &[1, 32], &[4, 1], &[1, 0]).unwrap();
    /// assert_eq!((m.threads(), m.values()), (128, 16));
    /// assert_eq!(m.coord(33, 0), [1, 4, 0, 0, 0]); // warp 1 holds row 1 (and 5, 9, 13)
    /// assert_eq!(m.coord(33, 4), [5, 4, 0, 0, 0]);
    /// ```
    pub const fn blocked(
        shape: &[i64],
        size_per_thread: &[i64],
        threads_per_warp: &[i64],
        warps_per_cta: &[i64],
        order: &[usize],
    ) -> Result<TvMap, TvError> {
        let rank = shape.len();
        if rank == 0 || rank > MAX_RANK {
            return Err(TvError::Rank { rank, len: rank });
        }
        let lens = [size_per_thread.len(), threads_per_warp.len(), warps_per_cta.len(), order.len()];
        let mut i = 0;
        while i < 4 {
            if lens[i] != rank {
                return Err(TvError::Rank { rank, len: lens[i] });
            }
            i += 1;
        }
        let mut tile = [1; MAX_RANK];
        let mut lanes = 1;
        let mut d = 0;
        let mut seen = [false; MAX_RANK];
        while d < rank {
            let checks = [("extent", shape[d]), ("size_per_thread", size_per_thread[d]), ("threads_per_warp", threads_per_warp[d]), ("warps_per_cta", warps_per_cta[d])];
            let mut c = 0;
            while c < 4 {
                if !is_pow2(checks[c].1) {
                    return Err(TvError::NotPowerOfTwo { what: checks[c].0, dim: d, value: checks[c].1 });
                }
                c += 1;
            }
            tile[d] = shape[d];
            lanes *= threads_per_warp[d];
            if order[d] >= rank || seen[order[d]] {
                return Err(TvError::Order { dim: order[d] });
            }
            seen[order[d]] = true;
            d += 1;
        }
        if lanes != 32 {
            return Err(TvError::ThreadsPerWarp { product: lanes });
        }
        let mut threads = Leaves::EMPTY;
        let mut values = Leaves::EMPTY;
        // Lanes, then warps, then the values within a thread, then the repeats: each in `order`.
        let mut pass = 0;
        while pass < 4 {
            let mut k = 0;
            while k < rank {
                let d = order[k];
                let (spt, tpw, wpc) = (size_per_thread[d], threads_per_warp[d], warps_per_cta[d]);
                let r = match pass {
                    0 => threads.push_wrapped(tpw, d, spt, tile[d]),
                    1 => threads.push_wrapped(wpc, d, spt * tpw, tile[d]),
                    2 => values.push_wrapped(spt, d, 1, tile[d]),
                    _ => {
                        let cover = spt * tpw * wpc;
                        let reps = if tile[d] > cover { tile[d] / cover } else { 1 };
                        values.push(reps, d, cover)
                    }
                };
                match r {
                    Ok(l) => {
                        if pass < 2 {
                            threads = l
                        } else {
                            values = l
                        }
                    }
                    Err(e) => return Err(e),
                }
                k += 1;
            }
            pass += 1;
        }
        let mut shape5 = [1; MAX_RANK];
        let mut d = 0;
        while d < rank {
            shape5[d] = shape[d];
            d += 1;
        }
        TvMap { rank, shape: shape5, threads, values }.validated()
    }

    /// The map of a CuTe TV layout `tv` (`(thread, value) -> row-major index` of a tile of
    /// `shape`): each leaf of `tv` must move along one dimension of the tile (a stride that is a
    /// multiple of the dimension's row-major stride, within its extent) or have stride 0.
    ///
    /// # Errors
    /// [`TvError`]: `tv` not of rank 2, a leaf across dimensions, an element held by no thread or
    /// reached twice, thread leaves that are not powers of two.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::block_tile::TvMap;
    /// use cute_rs_layout::Layout;
    /// // 32 threads down the 32 rows of a 32 x 4 tile, each holding a row.
    /// let m = TvMap::from_layout(&[32, 4], Layout::parse("(32,4):(4,1)").unwrap()).unwrap();
    /// assert_eq!(m.coord(5, 3), [5, 3, 0, 0, 0]);
    /// assert_eq!(m.layout().unwrap(), Layout::parse("(32,4):(4,1)").unwrap());
    /// assert!(TvMap::from_layout(&[32, 4], Layout::parse("(32,4):(1,32)").unwrap()).is_err());
    /// ```
    pub const fn from_layout(shape: &[i64], tv: Layout) -> Result<TvMap, TvError> {
        let rank = shape.len();
        if rank == 0 || rank > MAX_RANK {
            return Err(TvError::Rank { rank, len: rank });
        }
        if tv.rank() != 2 {
            return Err(TvError::NotThreadValue { rank: tv.rank() });
        }
        let mut shape5 = [1; MAX_RANK];
        let mut row = [1; MAX_RANK]; // row-major strides
        let mut d = rank;
        let mut acc = 1;
        while d > 0 {
            d -= 1;
            shape5[d] = shape[d];
            row[d] = acc;
            acc *= shape[d];
        }
        let mut out = [Leaves::EMPTY; 2];
        let mut m = 0;
        while m < 2 {
            let mode = tv_unwrap_layout(tv.mode(m));
            let flat = cute_rs_layout::flatten(mode);
            let sizes = flat.shape();
            let strides = flat.stride();
            let n = sizes.num_leaves();
            let mut j = 0;
            while j < n {
                let s = sizes.leaves()[j];
                let st = strides.leaves()[j];
                let mut dim = REPLICATED;
                let mut step = 0;
                if st != 0 {
                    let mut k = 0;
                    while k < rank {
                        if st % row[k] == 0 && st / row[k] < shape[k] {
                            dim = k;
                            step = st / row[k];
                            break;
                        }
                        k += 1;
                    }
                    if dim == REPLICATED {
                        return Err(TvError::Leaf { size: s, stride: st });
                    }
                }
                out[m] = match out[m].push(s, dim, step) {
                    Ok(l) => l,
                    Err(e) => return Err(e),
                };
                j += 1;
            }
            m += 1;
        }
        TvMap { rank, shape: shape5, threads: out[0], values: out[1] }.validated()
    }

    /// Checks that every thread leaf is a power of two and that the leaves along each dimension
    /// tile it exactly once (sorted by step, each step is the product of the sizes before it).
    const fn validated(self) -> Result<TvMap, TvError> {
        let mut j = 0;
        while j < self.threads.len {
            if !is_pow2(self.threads.size[j]) {
                return Err(TvError::NotPowerOfTwo { what: "thread leaf size", dim: self.threads.dim[j], value: self.threads.size[j] });
            }
            j += 1;
        }
        let mut d = 0;
        while d < self.rank {
            // Walk the chain of steps: the next leaf along `d` must have step == covered so far.
            let mut covered = 1;
            let mut used = [[false; MAX_TV_LEAVES]; 2];
            loop {
                let mut found = false;
                let mut which = 0;
                while which < 2 {
                    let l = if which == 0 { &self.threads } else { &self.values };
                    let mut j = 0;
                    while j < l.len {
                        if !used[which][j] && l.dim[j] == d && l.step[j] == covered {
                            used[which][j] = true;
                            covered *= l.size[j];
                            found = true;
                            break;
                        }
                        j += 1;
                    }
                    if found {
                        break;
                    }
                    which += 1;
                }
                if !found {
                    break;
                }
            }
            if covered != self.shape[d] {
                return Err(TvError::Coverage { dim: d });
            }
            let mut which = 0;
            while which < 2 {
                let l = if which == 0 { &self.threads } else { &self.values };
                let mut j = 0;
                while j < l.len {
                    if l.dim[j] == d && !used[which][j] {
                        return Err(TvError::Coverage { dim: d });
                    }
                    j += 1;
                }
                which += 1;
            }
            d += 1;
        }
        Ok(self)
    }

    /// The number of threads (the block size the map needs).
    pub const fn threads(&self) -> usize {
        self.threads.count() as usize
    }

    /// The number of values each thread holds.
    pub const fn values(&self) -> usize {
        self.values.count() as usize
    }

    /// The number of elements of the tile.
    ///
    /// # Example
    /// ```
    /// let m = cute_rs_tensor::block_tile::TvMap::blocked(&[4, 8], &[1, 1], &[4, 8], &[1, 1], &[1, 0]).unwrap();
    /// assert_eq!(m.size(), 32);
    /// ```
    pub const fn size(&self) -> i64 {
        product(&self.shape, self.rank)
    }

    /// The thread's part of its elements' coordinates.
    #[inline(always)]
    pub const fn thread_coord(&self, thread: i64) -> [i64; MAX_RANK] {
        self.threads.coord(thread)
    }

    /// The value's part of its element's coordinate.
    #[inline(always)]
    pub const fn value_coord(&self, value: usize) -> [i64; MAX_RANK] {
        self.values.coord(value as i64)
    }

    /// The coordinate of the element `thread` holds in its value `value`.
    #[inline(always)]
    pub const fn coord(&self, thread: i64, value: usize) -> [i64; MAX_RANK] {
        let t = self.thread_coord(thread);
        let v = self.value_coord(value);
        let mut c = [0; MAX_RANK];
        let mut d = 0;
        while d < MAX_RANK {
            c[d] = t[d] + v[d];
            d += 1;
        }
        c
    }

    /// The bits of the thread index that move along dimension `axis` (bit `b` set: threads `t`
    /// and `t ^ (1 << b)` hold elements that differ only along `axis`); for `axis` [`REPLICATED`],
    /// the bits of the replicated leaves (threads differing only there hold the same elements).
    ///
    /// # Example
    /// ```
    /// let m = cute_rs_tensor::block_tile::TvMap::blocked(&[4, 64], &[1, 4], &[2, 16], &[2, 1], &[1, 0]).unwrap();
    /// assert_eq!(m.thread_bits_along(1), 0b0_0_1111); // 16 lanes along the row
    /// assert_eq!(m.thread_bits_along(0), 0b1_1_0000); // lane 16 and warp 1 move down the column
    /// ```
    pub const fn thread_bits_along(&self, axis: usize) -> u32 {
        let mut bits = 0;
        let mut below = 1;
        let mut j = 0;
        while j < self.threads.len {
            let s = self.threads.size[j];
            if self.threads.dim[j] == axis {
                bits |= ((s - 1) * below) as u32;
            }
            below *= s;
            j += 1;
        }
        bits
    }

    /// The map with dimension `axis` collapsed to extent 1: leaves along it are dropped from the
    /// values and replicated in the threads. The layout of a reduction along `axis` (its result
    /// keeps the dimension), and of an operand broadcast along it (Triton's `SliceLayout`).
    ///
    /// # Errors
    /// [`TvError::Axis`] when `axis >= rank`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::block_tile::TvMap;
    /// let m = TvMap::blocked(&[4, 64], &[1, 4], &[2, 16], &[2, 1], &[1, 0]).unwrap();
    /// let rows = m.slice(1).unwrap(); // one value per thread: its row
    /// assert_eq!((rows.shape, rows.values()), ([4, 1, 1, 1, 1], 1));
    /// assert_eq!(rows.coord(17, 0), [1, 0, 0, 0, 0]);
    /// ```
    pub const fn slice(&self, axis: usize) -> Result<TvMap, TvError> {
        if axis >= self.rank {
            return Err(TvError::Axis { axis, rank: self.rank });
        }
        let mut out = *self;
        out.shape[axis] = 1;
        let mut j = 0;
        while j < out.threads.len {
            if out.threads.dim[j] == axis {
                out.threads.dim[j] = REPLICATED;
                out.threads.step[j] = 0;
            }
            j += 1;
        }
        let mut values = Leaves::EMPTY;
        let mut j = 0;
        while j < self.values.len {
            if self.values.dim[j] != axis {
                values = tv_unwrap!(values.push(self.values.size[j], self.values.dim[j], self.values.step[j]));
            }
            j += 1;
        }
        out.values = values;
        Ok(out)
    }

    /// The value index, in [`slice(axis)`](Self::slice), of the element that value `value` of
    /// this map holds once collapsed along `axis`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::block_tile::TvMap;
    /// let m = TvMap::blocked(&[4, 8], &[2, 2], &[2, 16], &[1, 1], &[1, 0]).unwrap(); // 2 x 2 values
    /// assert_eq!([m.slice_value(1, 0), m.slice_value(1, 1), m.slice_value(1, 2), m.slice_value(1, 3)], [0, 0, 1, 1]);
    /// ```
    #[inline(always)]
    pub const fn slice_value(&self, axis: usize, value: usize) -> usize {
        let mut rest = value as i64;
        let mut out = 0;
        let mut scale = 1;
        let mut j = 0;
        while j < self.values.len {
            let k = rest % self.values.size[j];
            rest /= self.values.size[j];
            if self.values.dim[j] != axis {
                out += k * scale;
                scale *= self.values.size[j];
            }
            j += 1;
        }
        out as usize
    }

    /// How many consecutive values of a thread hold consecutive elements along `dim`, starting at
    /// value 0 (the widest vector a load or store of the tile can move): the size of the first
    /// value leaf when it moves along `dim` with step 1, else 1.
    ///
    /// # Example
    /// ```
    /// let m = cute_rs_tensor::block_tile::TvMap::blocked(&[1024], &[4], &[32], &[4], &[0]).unwrap();
    /// assert_eq!(m.value_run(0), 4);
    /// ```
    pub const fn value_run(&self, dim: usize) -> usize {
        if self.values.len > 0 && self.values.dim[0] == dim && self.values.step[0] == 1 {
            self.values.size[0] as usize
        } else {
            1
        }
    }

    /// The map as a CuTe layout `(thread, value) -> row-major index` of the tile.
    ///
    /// # Errors
    /// The algebra's error when the layout does not fit its leaf capacity.
    ///
    /// # Example
    /// ```
    /// let m = cute_rs_tensor::block_tile::TvMap::blocked(&[1024], &[4], &[32], &[4], &[0]).unwrap();
    /// assert_eq!(m.layout().unwrap().to_string(), "((32,4),(4,2)):((4,128),(1,512))");
    /// ```
    pub const fn layout(&self) -> Result<Layout, cute_rs_layout::LayoutError> {
        let mut row = [1; MAX_RANK];
        let mut d = self.rank;
        let mut acc = 1;
        while d > 0 {
            d -= 1;
            row[d] = acc;
            acc *= self.shape[d];
        }
        let mut modes = [Layout::trivial(); 2];
        let mut m = 0;
        while m < 2 {
            let l = if m == 0 { &self.threads } else { &self.values };
            let mut shape = IntTuple::empty();
            let mut stride = IntTuple::empty();
            let mut j = 0;
            while j < l.len {
                let s = if l.dim[j] == REPLICATED { 0 } else { l.step[j] * row[l.dim[j]] };
                shape = match shape.push(IntTuple::int(l.size[j])) {
                    Ok(t) => t,
                    Err(e) => return Err(e),
                };
                stride = match stride.push(IntTuple::int(s)) {
                    Ok(t) => t,
                    Err(e) => return Err(e),
                };
                j += 1;
            }
            modes[m] = if l.len == 0 {
                Layout::trivial()
            } else if l.len == 1 {
                match Layout::int(l.size[0], if l.dim[0] == REPLICATED { 0 } else { l.step[0] * row[l.dim[0]] }) {
                    Ok(x) => x,
                    Err(e) => return Err(e),
                }
            } else {
                match Layout::new(shape, stride) {
                    Ok(x) => x,
                    Err(e) => return Err(e),
                }
            };
            m += 1;
        }
        cute_rs_layout::make_layout(&modes)
    }
}

const fn tv_unwrap_layout(r: Result<Layout, cute_rs_layout::LayoutError>) -> Layout {
    match r {
        Ok(l) => l,
        Err(_) => panic!("thread-value layout: a mode of a rank-2 layout"),
    }
}
