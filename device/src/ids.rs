//! Where a thread is: thread, block, grid and cluster indices and sizes, lane and warp ids.
//!
//! Each function reads one PTX special register (`%tid.x`, `%ctaid.y`, `%clusterid.z`, ...) through
//! the LLVM intrinsic `llvm.nvvm.read.ptx.sreg.*`, so that LLVM knows the value's range (e.g.
//! `%tid.x < 1024`, `%laneid < 32`) and folds index arithmetic built on it. Indices and sizes are
//! `u32`, as in PTX: index arithmetic stays in 32-bit registers unless the caller widens it.
//!
//! Nothing here has a precondition: every function may be called by any thread at any time.
//!
//! On the host they read the running thread of the CPU backend ([`cpu`](crate::cpu)), and panic
//! outside a launch.
//!
//! ```no_run
//! use cute_rs_device::ids::{block_dim_x, block_idx_x, thread_idx_x};
//! // The element of a 1-D grid-stride loop this thread starts at.
//! let first = block_idx_x() * block_dim_x() + thread_idx_x();
//! # let _ = first;
//! ```

/// The number of threads in a warp (32 on every NVIDIA GPU so far; PTX's `WARP_SZ`).
///
/// ```
/// assert_eq!(cute_rs_device::ids::WARP_SIZE, 32);
/// ```
pub const WARP_SIZE: u32 = 32;

/// Three `u32` extents or indices, as CUDA's `dim3`/`uint3`: `x` varies fastest.
///
/// ```
/// use cute_rs_device::ids::Dim3;
/// let d = Dim3 { x: 4, y: 2, z: 3 };
/// assert_eq!(d.product(), 24);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Dim3 {
    /// Fastest-varying component.
    pub x: u32,
    /// Middle component.
    pub y: u32,
    /// Slowest-varying component.
    pub z: u32,
}

impl Dim3 {
    /// `x * y * z` (the number of threads in a block of these dimensions, of blocks in a grid...).
    ///
    /// Precondition: the product fits in `u32` (true for block and cluster sizes; a grid can hold
    /// more blocks than `u32::MAX` only with huge `y`/`z`, which the product then wraps).
    ///
    /// ```
    /// use cute_rs_device::ids::Dim3;
    /// assert_eq!(Dim3 { x: 32, y: 8, z: 1 }.product(), 256);
    /// ```
    #[inline(always)]
    pub const fn product(self) -> u32 {
        self.x.wrapping_mul(self.y).wrapping_mul(self.z)
    }

    /// The linear index of the point `self` in a box of extents `dims`, `x` fastest:
    /// `x + dims.x * (y + dims.y * z)`.
    ///
    /// Precondition: `self` lies in the box (`x < dims.x`, ...) and the box's size fits in `u32`.
    ///
    /// ```
    /// use cute_rs_device::ids::Dim3;
    /// let dims = Dim3 { x: 4, y: 2, z: 3 };
    /// assert_eq!(Dim3 { x: 1, y: 1, z: 2 }.linear_in(dims), 1 + 4 * (1 + 2 * 2));
    /// ```
    #[inline(always)]
    pub const fn linear_in(self, dims: Dim3) -> u32 {
        self.x
            .wrapping_add(dims.x.wrapping_mul(self.y.wrapping_add(dims.y.wrapping_mul(self.z))))
    }
}

/// A special register of the running thread on the CPU backend, by the name of its function.
#[cfg(not(target_arch = "nvptx64"))]
fn cpu_register(name: &str) -> u32 {
    let t = super::cpu::thread();
    let (tid, bid, bdim, gdim, cdim) = (t.thread_idx(), t.block_idx(), t.block_dim(), t.grid_dim(), t.cluster_dim());
    let cid = Dim3 { x: bid.x / cdim.x, y: bid.y / cdim.y, z: bid.z / cdim.z };
    let cin = Dim3 { x: bid.x % cdim.x, y: bid.y % cdim.y, z: bid.z % cdim.z };
    let cgrid = Dim3 { x: gdim.x / cdim.x, y: gdim.y / cdim.y, z: gdim.z / cdim.z };
    match name {
        "thread_idx_x" => tid.x,
        "thread_idx_y" => tid.y,
        "thread_idx_z" => tid.z,
        "block_dim_x" => bdim.x,
        "block_dim_y" => bdim.y,
        "block_dim_z" => bdim.z,
        "block_idx_x" => bid.x,
        "block_idx_y" => bid.y,
        "block_idx_z" => bid.z,
        "grid_dim_x" => gdim.x,
        "grid_dim_y" => gdim.y,
        "grid_dim_z" => gdim.z,
        "lane_id" => t.linear_thread() % WARP_SIZE,
        "cluster_idx_x" => cid.x,
        "cluster_idx_y" => cid.y,
        "cluster_idx_z" => cid.z,
        "cluster_grid_dim_x" => cgrid.x,
        "cluster_grid_dim_y" => cgrid.y,
        "cluster_grid_dim_z" => cgrid.z,
        "block_idx_in_cluster_x" => cin.x,
        "block_idx_in_cluster_y" => cin.y,
        "block_idx_in_cluster_z" => cin.z,
        "cluster_dim_x" => cdim.x,
        "cluster_dim_y" => cdim.y,
        "cluster_dim_z" => cdim.z,
        "block_rank_in_cluster" => cin.linear_in(cdim),
        "cluster_size" => cdim.product(),
        _ => unreachable!("special register {name}"),
    }
}

/// Defines a function reading one special register through `llvm.nvvm.read.ptx.sreg.*`.
macro_rules! special_register {
    ($(#[$doc:meta])* $name:ident => $llvm:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> u32 {
            #[cfg(target_arch = "nvptx64")]
            {
                unsafe extern "C" {
                    #[link_name = $llvm]
                    fn read() -> u32;
                }
                // SAFETY: reading a special register has no preconditions.
                unsafe { read() }
            }
            #[cfg(not(target_arch = "nvptx64"))]
            {
                cpu_register(stringify!($name))
            }
        }
    };
}

/// Defines the `Dim3` function of three registers (`.x`, `.y`, `.z`).
macro_rules! dim3_of {
    ($(#[$doc:meta])* $name:ident => $x:ident, $y:ident, $z:ident) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name() -> Dim3 {
            Dim3 { x: $x(), y: $y(), z: $z() }
        }
    };
}

special_register! {
    /// `threadIdx.x` (`%tid.x`): the thread's x index in its block, `< block_dim_x()`.
    ///
    /// ```no_run
    /// let tx = cute_rs_device::ids::thread_idx_x();
    /// # let _ = tx;
    /// ```
    thread_idx_x => "llvm.nvvm.read.ptx.sreg.tid.x"
}
special_register! {
    /// `threadIdx.y` (`%tid.y`): the thread's y index in its block, `< block_dim_y()`.
    ///
    /// ```no_run
    /// let ty = cute_rs_device::ids::thread_idx_y();
    /// # let _ = ty;
    /// ```
    thread_idx_y => "llvm.nvvm.read.ptx.sreg.tid.y"
}
special_register! {
    /// `threadIdx.z` (`%tid.z`): the thread's z index in its block, `< block_dim_z()`.
    ///
    /// ```no_run
    /// let tz = cute_rs_device::ids::thread_idx_z();
    /// # let _ = tz;
    /// ```
    thread_idx_z => "llvm.nvvm.read.ptx.sreg.tid.z"
}
special_register! {
    /// `blockDim.x` (`%ntid.x`): threads per block along x.
    ///
    /// ```no_run
    /// let bx = cute_rs_device::ids::block_dim_x();
    /// # let _ = bx;
    /// ```
    block_dim_x => "llvm.nvvm.read.ptx.sreg.ntid.x"
}
special_register! {
    /// `blockDim.y` (`%ntid.y`): threads per block along y.
    ///
    /// ```no_run
    /// let by = cute_rs_device::ids::block_dim_y();
    /// # let _ = by;
    /// ```
    block_dim_y => "llvm.nvvm.read.ptx.sreg.ntid.y"
}
special_register! {
    /// `blockDim.z` (`%ntid.z`): threads per block along z.
    ///
    /// ```no_run
    /// let bz = cute_rs_device::ids::block_dim_z();
    /// # let _ = bz;
    /// ```
    block_dim_z => "llvm.nvvm.read.ptx.sreg.ntid.z"
}
special_register! {
    /// `blockIdx.x` (`%ctaid.x`): the block's x index in the grid, `< grid_dim_x()`.
    ///
    /// ```no_run
    /// let b = cute_rs_device::ids::block_idx_x();
    /// # let _ = b;
    /// ```
    block_idx_x => "llvm.nvvm.read.ptx.sreg.ctaid.x"
}
special_register! {
    /// `blockIdx.y` (`%ctaid.y`): the block's y index in the grid, `< grid_dim_y()`.
    ///
    /// ```no_run
    /// let b = cute_rs_device::ids::block_idx_y();
    /// # let _ = b;
    /// ```
    block_idx_y => "llvm.nvvm.read.ptx.sreg.ctaid.y"
}
special_register! {
    /// `blockIdx.z` (`%ctaid.z`): the block's z index in the grid, `< grid_dim_z()`.
    ///
    /// ```no_run
    /// let b = cute_rs_device::ids::block_idx_z();
    /// # let _ = b;
    /// ```
    block_idx_z => "llvm.nvvm.read.ptx.sreg.ctaid.z"
}
special_register! {
    /// `gridDim.x` (`%nctaid.x`): blocks in the grid along x.
    ///
    /// ```no_run
    /// let g = cute_rs_device::ids::grid_dim_x();
    /// # let _ = g;
    /// ```
    grid_dim_x => "llvm.nvvm.read.ptx.sreg.nctaid.x"
}
special_register! {
    /// `gridDim.y` (`%nctaid.y`): blocks in the grid along y.
    ///
    /// ```no_run
    /// let g = cute_rs_device::ids::grid_dim_y();
    /// # let _ = g;
    /// ```
    grid_dim_y => "llvm.nvvm.read.ptx.sreg.nctaid.y"
}
special_register! {
    /// `gridDim.z` (`%nctaid.z`): blocks in the grid along z.
    ///
    /// ```no_run
    /// let g = cute_rs_device::ids::grid_dim_z();
    /// # let _ = g;
    /// ```
    grid_dim_z => "llvm.nvvm.read.ptx.sreg.nctaid.z"
}
special_register! {
    /// The thread's lane in its warp (`%laneid`), `< 32`.
    ///
    /// Equal to `linear_thread_idx() % 32`: warps are made of consecutive linear thread indices
    /// (x fastest, then y, then z).
    ///
    /// ```no_run
    /// let lane = cute_rs_device::ids::lane_id();
    /// # let _ = lane;
    /// ```
    lane_id => "llvm.nvvm.read.ptx.sreg.laneid"
}
special_register! {
    /// The cluster's x index in the grid (`%clusterid.x`). Without a cluster launch every block is
    /// its own 1x1x1 cluster, and this equals `block_idx_x()`.
    ///
    /// ```no_run
    /// let c = cute_rs_device::ids::cluster_idx_x();
    /// # let _ = c;
    /// ```
    cluster_idx_x => "llvm.nvvm.read.ptx.sreg.clusterid.x"
}
special_register! {
    /// The cluster's y index in the grid (`%clusterid.y`).
    ///
    /// ```no_run
    /// let c = cute_rs_device::ids::cluster_idx_y();
    /// # let _ = c;
    /// ```
    cluster_idx_y => "llvm.nvvm.read.ptx.sreg.clusterid.y"
}
special_register! {
    /// The cluster's z index in the grid (`%clusterid.z`).
    ///
    /// ```no_run
    /// let c = cute_rs_device::ids::cluster_idx_z();
    /// # let _ = c;
    /// ```
    cluster_idx_z => "llvm.nvvm.read.ptx.sreg.clusterid.z"
}
special_register! {
    /// Clusters in the grid along x (`%nclusterid.x`): `grid_dim_x() / cluster_dim_x()`.
    ///
    /// ```no_run
    /// let n = cute_rs_device::ids::cluster_grid_dim_x();
    /// # let _ = n;
    /// ```
    cluster_grid_dim_x => "llvm.nvvm.read.ptx.sreg.nclusterid.x"
}
special_register! {
    /// Clusters in the grid along y (`%nclusterid.y`).
    ///
    /// ```no_run
    /// let n = cute_rs_device::ids::cluster_grid_dim_y();
    /// # let _ = n;
    /// ```
    cluster_grid_dim_y => "llvm.nvvm.read.ptx.sreg.nclusterid.y"
}
special_register! {
    /// Clusters in the grid along z (`%nclusterid.z`).
    ///
    /// ```no_run
    /// let n = cute_rs_device::ids::cluster_grid_dim_z();
    /// # let _ = n;
    /// ```
    cluster_grid_dim_z => "llvm.nvvm.read.ptx.sreg.nclusterid.z"
}
special_register! {
    /// The block's x index in its cluster (`%cluster_ctaid.x`), `< cluster_dim_x()`; 0 without a
    /// cluster launch.
    ///
    /// ```no_run
    /// let b = cute_rs_device::ids::block_idx_in_cluster_x();
    /// # let _ = b;
    /// ```
    block_idx_in_cluster_x => "llvm.nvvm.read.ptx.sreg.cluster.ctaid.x"
}
special_register! {
    /// The block's y index in its cluster (`%cluster_ctaid.y`).
    ///
    /// ```no_run
    /// let b = cute_rs_device::ids::block_idx_in_cluster_y();
    /// # let _ = b;
    /// ```
    block_idx_in_cluster_y => "llvm.nvvm.read.ptx.sreg.cluster.ctaid.y"
}
special_register! {
    /// The block's z index in its cluster (`%cluster_ctaid.z`).
    ///
    /// ```no_run
    /// let b = cute_rs_device::ids::block_idx_in_cluster_z();
    /// # let _ = b;
    /// ```
    block_idx_in_cluster_z => "llvm.nvvm.read.ptx.sreg.cluster.ctaid.z"
}
special_register! {
    /// Blocks per cluster along x (`%cluster_nctaid.x`); 1 without a cluster launch.
    ///
    /// ```no_run
    /// let n = cute_rs_device::ids::cluster_dim_x();
    /// # let _ = n;
    /// ```
    cluster_dim_x => "llvm.nvvm.read.ptx.sreg.cluster.nctaid.x"
}
special_register! {
    /// Blocks per cluster along y (`%cluster_nctaid.y`).
    ///
    /// ```no_run
    /// let n = cute_rs_device::ids::cluster_dim_y();
    /// # let _ = n;
    /// ```
    cluster_dim_y => "llvm.nvvm.read.ptx.sreg.cluster.nctaid.y"
}
special_register! {
    /// Blocks per cluster along z (`%cluster_nctaid.z`).
    ///
    /// ```no_run
    /// let n = cute_rs_device::ids::cluster_dim_z();
    /// # let _ = n;
    /// ```
    cluster_dim_z => "llvm.nvvm.read.ptx.sreg.cluster.nctaid.z"
}
special_register! {
    /// The block's linear rank in its cluster (`%cluster_ctarank`), `< cluster_size()`; 0 without
    /// a cluster launch. The rank addresses the block's shared memory from the cluster
    /// (`mapa`, `shared::cluster`).
    ///
    /// ```no_run
    /// let rank = cute_rs_device::ids::block_rank_in_cluster();
    /// # let _ = rank;
    /// ```
    block_rank_in_cluster => "llvm.nvvm.read.ptx.sreg.cluster.ctarank"
}
special_register! {
    /// Blocks in the cluster (`%cluster_nctarank`): the product of `cluster_dim()`; 1 without a
    /// cluster launch.
    ///
    /// ```no_run
    /// let n = cute_rs_device::ids::cluster_size();
    /// # let _ = n;
    /// ```
    cluster_size => "llvm.nvvm.read.ptx.sreg.cluster.nctarank"
}

dim3_of! {
    /// `threadIdx`: the thread's index in its block.
    ///
    /// ```no_run
    /// let t = cute_rs_device::ids::thread_idx();
    /// # let _ = (t.x, t.y, t.z);
    /// ```
    thread_idx => thread_idx_x, thread_idx_y, thread_idx_z
}
dim3_of! {
    /// `blockDim`: the block's extents in threads.
    ///
    /// ```no_run
    /// let threads = cute_rs_device::ids::block_dim().product();
    /// # let _ = threads;
    /// ```
    block_dim => block_dim_x, block_dim_y, block_dim_z
}
dim3_of! {
    /// `blockIdx`: the block's index in the grid.
    ///
    /// ```no_run
    /// let b = cute_rs_device::ids::block_idx();
    /// # let _ = b;
    /// ```
    block_idx => block_idx_x, block_idx_y, block_idx_z
}
dim3_of! {
    /// `gridDim`: the grid's extents in blocks.
    ///
    /// ```no_run
    /// let g = cute_rs_device::ids::grid_dim();
    /// # let _ = g;
    /// ```
    grid_dim => grid_dim_x, grid_dim_y, grid_dim_z
}
dim3_of! {
    /// The cluster's index in the grid (`%clusterid`); `block_idx()` without a cluster launch.
    ///
    /// ```no_run
    /// let c = cute_rs_device::ids::cluster_idx();
    /// # let _ = c;
    /// ```
    cluster_idx => cluster_idx_x, cluster_idx_y, cluster_idx_z
}
dim3_of! {
    /// The grid's extents in clusters (`%nclusterid`); `grid_dim()` without a cluster launch.
    ///
    /// ```no_run
    /// let g = cute_rs_device::ids::cluster_grid_dim();
    /// # let _ = g;
    /// ```
    cluster_grid_dim => cluster_grid_dim_x, cluster_grid_dim_y, cluster_grid_dim_z
}
dim3_of! {
    /// The block's index in its cluster (`%cluster_ctaid`); zeros without a cluster launch.
    ///
    /// ```no_run
    /// let b = cute_rs_device::ids::block_idx_in_cluster();
    /// # let _ = b;
    /// ```
    block_idx_in_cluster => block_idx_in_cluster_x, block_idx_in_cluster_y, block_idx_in_cluster_z
}
dim3_of! {
    /// The cluster's extents in blocks (`%cluster_nctaid`); ones without a cluster launch.
    ///
    /// ```no_run
    /// let c = cute_rs_device::ids::cluster_dim();
    /// # let _ = c;
    /// ```
    cluster_dim => cluster_dim_x, cluster_dim_y, cluster_dim_z
}

/// The thread's linear index in its block, `x` fastest:
/// `tid.x + ntid.x * (tid.y + ntid.y * tid.z)`, `< block_size()` (at most 1024).
///
/// ```no_run
/// let t = cute_rs_device::ids::linear_thread_idx();
/// # let _ = t;
/// ```
#[inline(always)]
pub fn linear_thread_idx() -> u32 {
    thread_idx().linear_in(block_dim())
}

/// Threads per block: `ntid.x * ntid.y * ntid.z` (at most 1024).
///
/// ```no_run
/// let n = cute_rs_device::ids::block_size();
/// # let _ = n;
/// ```
#[inline(always)]
pub fn block_size() -> u32 {
    block_dim().product()
}

/// The thread's warp in its block: `linear_thread_idx() / 32`, `< warps_per_block()`.
///
/// This is the *logical* warp index, stable for the thread's lifetime, not PTX's `%warpid` (the
/// physical warp slot, which may change under preemption).
///
/// ```no_run
/// use cute_rs_device::ids::{lane_id, warp_id};
/// // Lane 0 of each warp writes the warp's partial result.
/// if lane_id() == 0 {
///     let slot = warp_id();
///     # let _ = slot;
/// }
/// ```
#[inline(always)]
pub fn warp_id() -> u32 {
    linear_thread_idx() / WARP_SIZE
}

/// Warps per block: `ceil(block_size() / 32)` (the last warp is partial when the block size is not
/// a multiple of 32).
///
/// ```no_run
/// let w = cute_rs_device::ids::warps_per_block();
/// # let _ = w;
/// ```
#[inline(always)]
pub fn warps_per_block() -> u32 {
    block_size().div_ceil(WARP_SIZE)
}

/// The block's linear index in the grid, `x` fastest:
/// `ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z)`.
///
/// Precondition: the grid holds at most `u32::MAX + 1` blocks (else the index wraps; 1-D grids
/// always qualify).
///
/// ```no_run
/// let b = cute_rs_device::ids::linear_block_idx();
/// # let _ = b;
/// ```
#[inline(always)]
pub fn linear_block_idx() -> u32 {
    block_idx().linear_in(grid_dim())
}

/// The thread's index in the whole grid along x: `threadIdx.x + blockIdx.x * blockDim.x`.
///
/// Computed in `u64` from the unsigned special registers, so that LLVM knows it is non-negative
/// and cannot overflow: divisions and remainders of it by powers of two fold to shifts and masks.
///
/// ```no_run
/// let t = cute_rs_device::ids::global_thread_index_x() as usize;
/// # let _ = t;
/// ```
#[inline(always)]
pub fn global_thread_index_x() -> u64 {
    thread_idx_x() as u64 + block_idx_x() as u64 * block_dim_x() as u64
}
