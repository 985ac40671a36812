//! TMA bulk tensor copies (`cp.async.bulk.tensor`, sm_90), which complete on the transaction
//! barriers of [`sync::Mbarrier`](crate::sync::Mbarrier).
//!
//! # TMA
//! A TMA copy moves a *box* of a tensor described by a 128-byte *tensor map* (built on the host:
//! `cute_rs_host::Gpu::tensor_map`) between global and shared memory, in one instruction issued by one
//! thread. Loads ([`tma_load_2d`] ... [`tma_load_5d`]) complete on an mbarrier: announce the
//! box's byte count with [`Mbarrier::arrive_expect_tx`], issue the load, and wait for the phase.
//! Elements of the box outside the tensor are filled with zero (or NaN, as the tensor map says).
//! Stores ([`tma_store_2d`] ... [`tma_store_5d`]) complete in *bulk groups*: [`bulk_commit_group`],
//! then [`bulk_wait_group_read`] (the shared-memory source may be reused) or [`bulk_wait_group`]
//! (the writes are done). Elements outside the tensor are not written.
//!
//! Coordinates are element indices per mode, innermost (stride-1) mode first. A load's box may
//! hang over either end of the tensor (coordinates may be negative): that part of the box is out of
//! bounds. Two hardware rules (seen on an H200, where breaking either makes the copy an *illegal
//! instruction* that kills the context):
//! - the innermost start coordinate times the element size is a multiple of 16 bytes
//!   (e.g. a multiple of 4 for `f32`), for loads and stores;
//! - a store's coordinates are not negative: a store box may hang over the high end of a mode
//!   (the elements outside are dropped), not over the low end.
//!
//! The tensor map lives in **global memory**: Rust cannot declare a `__grid_constant__` kernel
//! parameter, so the host uploads the map's 128 bytes and passes a pointer
//! (`*const TmaDescriptor`). Before its first use in a kernel, call
//! [`fence_proxy_tensormap_acquire`] on it (the copy engine reads maps through the *tensormap
//! proxy*, which must observe the bytes the host wrote).
//!
//! Shared memory written by TMA loads must be aligned to 128 bytes, and to the swizzle's period
//! with a swizzle (128-byte swizzle: 1024 bytes), because the swizzle is a function of the
//! shared-memory address bits. Shared memory that ordinary stores wrote and a TMA store reads
//! needs [`fence_proxy_async_shared_cta`] in each writing thread, then a block barrier.
//!
//! # On the CPU backend
//! The same kernels run on the host (`device::cpu`): the host runtime encodes tensor maps for it
//! with [`CpuTensorMap::encode`] (the driver's maps are opaque), and each copy happens entirely
//! when it is issued, with the GPU's results: the swizzled shared-memory image, the out-of-bounds
//! fill, the mbarrier's transaction bytes, the clipped store (see [`CpuTensorMap`]). So the bulk
//! groups have nothing left to wait for ([`bulk_commit_group`] and the waits do nothing there), and
//! the proxy fences are no-ops (the host has one proxy). What the GPU rejects with an illegal
//! instruction fails the launch with an error naming the thread and the condition.
//!
//! A whole load, as a kernel writes it (one block, `smem` 1024-byte aligned):
//!
//! ```ignore
//! use cute_rs_device::tma::*;
//! if thread_idx_x() == 0 {
//!     bar.init(1);
//!     fence_mbarrier_init();
//! }
//! __syncthreads();
//! if thread_idx_x() == 0 {
//!     fence_proxy_tensormap_acquire(desc);
//!     bar.arrive_expect_tx(BOX_BYTES);
//!     tma_load_2d(smem, desc, [x0, y0], bar);
//! }
//! bar.wait_parity(0);
//! // smem holds the box (swizzled as the tensor map says)
//! ```

#[cfg(target_arch = "nvptx64")]
use core::arch::asm;

#[cfg(target_arch = "nvptx64")]
use super::shared::generic_to_shared;
use super::sync::Mbarrier;

#[cfg(not(target_arch = "nvptx64"))]
use {
    super::cpu,
    cute_rs_layout::{unwrap, Swizzle},
    std::{format, string::String},
};

/// Orders this thread's shared-memory accesses through the generic proxy (ordinary loads and
/// stores, `stmatrix`) before later accesses through the asynchronous proxy (TMA, wgmma)
/// (`fence.proxy.async.shared::cta`). Needed by each thread that wrote shared memory a TMA store
/// or a wgmma then reads, before the block barrier. A no-op on the CPU backend, whose TMA copies
/// access memory like any other code.
///
/// # Example
/// ```
/// cute_rs_device::tma::fence_proxy_async_shared_cta();
/// ```
#[inline(always)]
pub fn fence_proxy_async_shared_cta() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a fence has no preconditions.
    unsafe {
        asm!("fence.proxy.async.shared::cta;", options(nostack));
    }
}

/// [`fence_proxy_async_shared_cta`] for every state space (`fence.proxy.async`): also orders
/// global-memory accesses of the generic proxy before the asynchronous proxy's. A no-op on the CPU
/// backend.
///
/// # Example
/// ```
/// cute_rs_device::tma::fence_proxy_async();
/// ```
#[inline(always)]
pub fn fence_proxy_async() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a fence has no preconditions.
    unsafe {
        asm!("fence.proxy.async;", options(nostack));
    }
}

/// A CUDA tensor map (`CUtensorMap`) as the device sees it: 128 opaque bytes, 64-byte aligned,
/// encoded on the host (`cute_rs_host::Gpu::tensor_map`, i.e. `cuTensorMapEncodeTiled`) and uploaded to
/// global memory. Kernels take `*const TmaDescriptor` parameters (the host passes the device
/// buffer holding the bytes; `cudaMalloc` memory is 256-byte aligned). For kernels running on the
/// CPU backend the bytes are a [`CpuTensorMap`] instead.
///
/// # Example
/// ```
/// use cute_rs_device::tma::TmaDescriptor;
/// assert_eq!(core::mem::size_of::<TmaDescriptor>(), 128);
/// assert_eq!(core::mem::align_of::<TmaDescriptor>(), 64);
/// ```
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct TmaDescriptor {
    /// The encoded map.
    pub bytes: [u8; 128],
}

/// The descriptor's 16 words in hex (its fields are opaque on the GPU).
///
/// ```
/// let d = cute_rs_device::tma::TmaDescriptor { bytes: [0; 128] };
/// assert!(format!("{d:?}").starts_with("TmaDescriptor[0000000000000000 "));
/// ```
impl core::fmt::Debug for TmaDescriptor {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "TmaDescriptor[")?;
        for (i, w) in self.bytes.chunks(8).enumerate() {
            let mut word = [0; 8];
            word.copy_from_slice(w);
            write!(f, "{}{:016x}", if i == 0 { "" } else { " " }, u64::from_le_bytes(word))?;
        }
        write!(f, "]")
    }
}

/// A tensor map passed by value as a kernel parameter (CUDA's `const __grid_constant__
/// CUtensorMap`): TMA reads it from the launch's parameters, so the host neither allocates nor
/// uploads anything per launch and the launch can be captured in a graph.
///
/// A `#[kernel]` parameter of this type is marked a grid constant, and the PTX linker places it at
/// a 64-byte boundary of the parameter space, as TMA requires: its [`as_ptr`](Self::as_ptr) is then
/// the map's parameter-space address (`cvta.param`), never a copy in local memory. (rustc's kernel
/// ABI takes by-value parameters aligned to at most 16 bytes, hence a type of its own rather than
/// [`TmaDescriptor`] itself.) The map needs no acquire fence: the parameters are never written.
///
/// # Example
/// ```
/// use cute_rs_device::tma::{TmaDescriptor, TmaDescriptorParam};
/// let p = TmaDescriptorParam { bytes: [7; 128] };
/// assert_eq!(core::mem::size_of::<TmaDescriptorParam>(), 128);
/// assert_eq!(unsafe { (*p.as_ptr()).bytes[0] }, 7);
/// ```
#[derive(Clone, Copy)]
#[cfg_attr(target_arch = "nvptx64", repr(C, align(16)))]
#[cfg_attr(not(target_arch = "nvptx64"), repr(C, align(64)))]
pub struct TmaDescriptorParam {
    /// The encoded map.
    pub bytes: [u8; 128],
}

impl TmaDescriptorParam {
    /// The map's address, for the TMA copies (on the GPU, in the parameter space, 64-byte aligned
    /// by the linker).
    ///
    /// # Example
    /// See [`TmaDescriptorParam`].
    #[inline(always)]
    pub fn as_ptr(&self) -> *const TmaDescriptor {
        self as *const Self as *const TmaDescriptor
    }
}

/// Makes the tensor map at `desc` (written to global memory by the host or by generic stores)
/// visible to the copy engine (`fence.proxy.tensormap::generic.acquire.gpu [desc], 128`). Call it
/// once per kernel (per thread that issues TMA copies with this map) before the first copy. A no-op
/// on the CPU backend (which checks the map at each copy instead).
///
/// # Safety
/// `desc` points to a valid, 64-byte-aligned tensor map in global memory.
///
/// # Example
/// ```ignore
/// fence_proxy_tensormap_acquire(desc);
/// tma_load_2d(smem, desc, [0, 0], bar);
/// ```
#[inline(always)]
pub unsafe fn fence_proxy_tensormap_acquire(desc: *const TmaDescriptor) {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        asm!(
            "fence.proxy.tensormap::generic.acquire.gpu [{d}], 128;",
            d = in(reg64) desc as u64,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    let _ = desc;
}

// ------------------------------------------------------------------------------------------------
// TMA on the CPU backend

/// The CPU backend's tensor map: what the host runtime writes in a [`TmaDescriptor`] for a kernel
/// that runs on the host, in place of the driver's opaque `CUtensorMap` (which only the copy engine
/// can read). The same parameters as `cuTensorMapEncodeTiled` (and the host's `TensorMapParams`),
/// in a documented `#[repr(C)]` layout of exactly 128 bytes (integers in the host's byte order,
/// little-endian on x86-64 and AArch64; no padding):
///
/// | bytes | field |
/// | --- | --- |
/// | 0..4 | [`CpuTensorMap::MAGIC`]: tells a map made for the CPU from any other 128 bytes |
/// | 4 | rank (1 to 5) |
/// | 5 | element size in bytes (1, 2, 4 or 8) |
/// | 6 | swizzle span in bytes (0: none, 32, 64 or 128) |
/// | 7 | 1: out-of-bounds elements read as NaN, 0: as zero |
/// | 8..16 | the global tensor's address (16-byte aligned) |
/// | 16..56 | extent of each mode, innermost first (`u64` x 5) |
/// | 56..88 | stride in bytes of modes 1.. (`u64` x 4; mode 0 is contiguous) |
/// | 88..98 | box extent of each mode (`u16` x 5) |
/// | 98..108 | traversal (element) stride of each mode (`u16` x 5) |
/// | 108..128 | zero |
///
/// A TMA copy on the CPU backend ([`tma_load_2d`] ...) reads the map, checks it, and moves the box
/// at once (the copy has completed when the instruction returns):
/// - a load writes box element `i` (column-major over the box, innermost mode fastest: the order
///   the GPU writes shared memory) at shared address `swizzle(dst + i * elem)`, where `swizzle` is
///   CuTe's `Swizzle<B, 4, 3>` on byte addresses, `B = 1, 2, 3` for the 32, 64 and 128-byte
///   swizzles: the 16-byte chunk index (address bits 4..) XORed with the 128-byte row index (bits
///   7..) over `B` bits, as the hardware does on the shared-memory address (which is why `dst` must
///   be aligned to the swizzle's period: 256, 512 or 1024 bytes); then it delivers the box's bytes
///   to the mbarrier (`complete_tx`). Elements outside the tensor read as zero, or as NaN: the bits
///   of [`oob_nan_bits`] (`0x7ff77ff7` for f32, as the H100 writes it; all bits but the sign for
///   2- and 8-byte elements, quiet NaNs in every float format of that size);
/// - a store writes the box's elements that lie inside the tensor, read from the same swizzled
///   shared addresses; the others are dropped.
///
/// With element strides other than 1, mode `d` is traversed every `element_strides[d]`-th element
/// and the box holds `ceil(box_dim[d] / element_strides[d])` of them (CUDA's rule; the host runtime
/// uses dense boxes).
///
/// Misuses become errors of the launch naming the block, the thread and the instruction (see
/// `cpu::launch`), where the GPU would fault or silently misbehave: a descriptor that is not a CPU
/// tensor map (the magic number is missing: e.g. a map encoded by the CUDA driver), a map of
/// another rank than the instruction's, an innermost coordinate that is not a multiple of 16
/// bytes, a negative store coordinate, and a shared-memory box outside the block's shared memory
/// or not aligned (to 128 bytes, and to the swizzle's period).
///
/// # Example
/// ```
/// use cute_rs_device::tma::CpuTensorMap;
/// // A 100 x 70 row-major f32 matrix (rows of 400 bytes), boxes of 32 x 16, 128-byte swizzle.
/// let data = vec![0f32; 100 * 70];
/// let desc = CpuTensorMap::encode(data.as_ptr() as u64, 4, &[100, 70], &[400], &[32, 16], &[1, 1], 128, false)?;
/// let map = CpuTensorMap::decode(&desc)?;
/// assert_eq!((map.rank(), map.box_bytes()), (2, 32 * 16 * 4));
/// // A descriptor made for something else is refused:
/// let other = cute_rs_device::tma::TmaDescriptor { bytes: [0; 128] };
/// assert!(CpuTensorMap::decode(&other).unwrap_err().contains("not a CPU tensor map"));
/// # Ok::<(), String>(())
/// ```
///
/// A load on the CPU backend, as a kernel issues it:
///
/// ```
/// use cute_rs_device::cpu::{self, CpuKernel, CpuLaunch};
/// use cute_rs_device::sync::Mbarrier;
/// use cute_rs_device::tma::*;
///
/// // One thread loads the 8 x 4 box at (4, 2) of a 10 x 5 tensor of u32 (rows of 16 words, 10 of
/// // them used) and copies it out. The box hangs over the last columns and the last row.
/// unsafe fn entry(args: &[&[u8]]) {
///     let p = |i: usize| u64::from_le_bytes(args[i].try_into().unwrap()) as usize;
///     let (desc, out) = (p(0) as *const TmaDescriptor, p(1) as *mut u32);
///     let smem = cute_rs_device::shared_array!(TMA_DOC_BOX: [u32; 32], align 128);
///     let bar = Mbarrier::new();
///     bar.init(1);
///     bar.arrive_expect_tx(32 * 4);
///     tma_load_2d(smem.as_mut_ptr() as *mut u8, desc, [4, 2], &bar);
///     bar.wait_parity(0); // the load delivered its 128 bytes
///     for i in 0..32 {
///         *out.add(i) = smem.read(i);
///     }
/// }
/// let data: Vec<u32> = (0..80).collect();
/// let desc = CpuTensorMap::encode(data.as_ptr() as u64, 4, &[10, 5], &[64], &[8, 4], &[1, 1], 0, false)?;
/// let mut out = vec![7u32; 32];
/// let args = [&desc as *const TmaDescriptor as u64, out.as_mut_ptr() as u64].map(u64::to_le_bytes);
/// let kernel = CpuKernel { name: "tma_doc", params: &[8, 8], entry };
/// cpu::launch(&kernel, &CpuLaunch::linear(1, 1), &[&args[0], &args[1]]).unwrap();
/// for (r, c) in (0..4).flat_map(|r| (0..8).map(move |c| (r, c))) {
///     let (x, y) = (4 + c, 2 + r);
///     let want = if x < 10 && y < 5 { 16 * y + x } else { 0 }; // zero outside the tensor
///     assert_eq!(out[8 * r + c], want as u32, "box ({c}, {r})");
/// }
/// # Ok::<(), String>(())
/// ```
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct CpuTensorMap {
    magic: u32,
    rank: u8,
    elem_bytes: u8,
    swizzle_bytes: u8,
    oob_nan: u8,
    address: u64,
    global_dim: [u64; 5],
    global_strides: [u64; 4],
    box_dim: [u16; 5],
    element_strides: [u16; 5],
    reserved: [u8; 20],
}

// Exactly the descriptor's size, and no padding: `CpuTensorMap` and `[u8; 128]` convert both ways.
#[cfg(not(target_arch = "nvptx64"))]
const _: () = assert!(core::mem::size_of::<CpuTensorMap>() == 128);

#[cfg(not(target_arch = "nvptx64"))]
impl CpuTensorMap {
    /// The first four bytes of every CPU tensor map: `"cTMA"` (little-endian).
    ///
    /// ```
    /// use cute_rs_device::tma::CpuTensorMap;
    /// let d = CpuTensorMap::encode(0x1000, 4, &[64], &[], &[64], &[1], 0, false).unwrap();
    /// assert_eq!(d.bytes[..4], *b"cTMA");
    /// assert_eq!(u32::from_le_bytes(*b"cTMA"), CpuTensorMap::MAGIC);
    /// ```
    pub const MAGIC: u32 = u32::from_le_bytes(*b"cTMA");

    /// Checks the parameters of a tiled tensor map (those of `cuTensorMapEncodeTiled`, as the host's
    /// `TensorMapParams` holds them) and encodes them for the CPU backend.
    ///
    /// # Parameters
    /// - `address`: the global tensor's first element, 16-byte aligned;
    /// - `elem_bytes`: 1, 2, 4 or 8;
    /// - `global_dim`: extent of each mode, innermost first (1 to 5 modes, each 1 to 2^32);
    /// - `global_strides_bytes`: stride of modes 1.. in bytes (`rank - 1` values, multiples of 16
    ///   below 2^40); mode 0 is contiguous;
    /// - `box_dim`: box extent of each mode (1 to 256); the inner extent in bytes is a multiple of 16
    ///   and, with a swizzle, at most the swizzle's span;
    /// - `element_strides`: traversal stride of each mode (1 to 8; 1 for dense boxes);
    /// - `swizzle_bytes`: 0 (none), 32, 64 or 128;
    /// - `oob_nan`: out-of-bounds elements read as NaN instead of zero. Only for floating-point
    ///   element types (f16, bf16, f32, f64): the caller knows the type; 1-byte elements are refused.
    ///
    /// # Errors
    /// A message naming the violated condition and the values, as the host's
    /// `tensor_map_params` words it.
    ///
    /// # Example
    /// ```
    /// use cute_rs_device::tma::CpuTensorMap;
    /// let buf = vec![0u16; 64 * 64];
    /// let at = buf.as_ptr() as u64;
    /// // 64 x 64 bf16, boxes of 64 x 16 with the 128-byte swizzle.
    /// let desc = CpuTensorMap::encode(at, 2, &[64, 64], &[128], &[64, 16], &[1, 1], 128, false)?;
    /// assert_eq!(CpuTensorMap::decode(&desc)?.box_bytes(), 64 * 16 * 2);
    /// // 128 u16 = 256 bytes do not fit a 64-byte swizzle.
    /// let e = CpuTensorMap::encode(at, 2, &[64, 64], &[128], &[128, 16], &[1, 1], 64, false).unwrap_err();
    /// assert!(e.contains("at most 64 bytes"), "{e}");
    /// # Ok::<(), String>(())
    /// ```
    #[allow(clippy::too_many_arguments)]
    pub fn encode(
        address: u64,
        elem_bytes: u32,
        global_dim: &[u64],
        global_strides_bytes: &[u64],
        box_dim: &[u32],
        element_strides: &[u32],
        swizzle_bytes: u32,
        oob_nan: bool,
    ) -> Result<TmaDescriptor, String> {
        check_map(
            address,
            elem_bytes,
            global_dim,
            global_strides_bytes,
            box_dim,
            element_strides,
            swizzle_bytes,
            oob_nan,
        )?;
        let rank = global_dim.len();
        let mut map = CpuTensorMap {
            magic: Self::MAGIC,
            rank: rank as u8,
            elem_bytes: elem_bytes as u8,
            swizzle_bytes: swizzle_bytes as u8,
            oob_nan: oob_nan as u8,
            address,
            global_dim: [0; 5],
            global_strides: [0; 4],
            box_dim: [0; 5],
            element_strides: [0; 5],
            reserved: [0; 20],
        };
        // The checks above bound every value by its field's range.
        map.global_dim[..rank].copy_from_slice(global_dim);
        map.global_strides[..rank - 1].copy_from_slice(global_strides_bytes);
        for d in 0..rank {
            map.box_dim[d] = box_dim[d] as u16;
            map.element_strides[d] = element_strides[d] as u16;
        }
        // SAFETY: 128 bytes of integers without padding (asserted above).
        Ok(TmaDescriptor { bytes: unsafe { core::mem::transmute::<CpuTensorMap, [u8; 128]>(map) } })
    }

    /// The CPU tensor map in `desc`, checked as [`CpuTensorMap::encode`] checks it.
    ///
    /// # Errors
    /// When `desc` does not start with [`CpuTensorMap::MAGIC`] (it was not made for the CPU
    /// backend: a driver-encoded map, or uninitialized memory) or holds invalid parameters.
    ///
    /// # Example
    /// ```
    /// use cute_rs_device::tma::CpuTensorMap;
    /// let desc = CpuTensorMap::encode(0x1000, 4, &[8, 8], &[32], &[4, 8], &[1, 1], 0, true)?;
    /// assert_eq!(CpuTensorMap::decode(&desc)?.rank(), 2);
    /// # Ok::<(), String>(())
    /// ```
    pub fn decode(desc: &TmaDescriptor) -> Result<CpuTensorMap, String> {
        // SAFETY: every bit pattern is a valid `CpuTensorMap` (integers only, no padding); the
        // descriptor is 64-byte aligned.
        let map = unsafe { core::mem::transmute::<[u8; 128], CpuTensorMap>(desc.bytes) };
        if map.magic != Self::MAGIC {
            return Err(format!(
                "the descriptor is not a CPU tensor map (its first word is {:#010x}, not {:#010x} \"cTMA\"): on the \
                 CPU backend tensor maps come from CpuTensorMap::encode, not from the CUDA driver",
                map.magic,
                Self::MAGIC
            ));
        }
        if !(1..=5).contains(&map.rank) {
            return Err(format!("tensor map of {} modes: TMA takes 1 to 5", map.rank));
        }
        let rank = map.rank as usize;
        let widen = |v: &[u16]| -> [u32; 5] { core::array::from_fn(|d| v.get(d).map_or(0, |&x| x as u32)) };
        let (box_dim, element_strides) = (widen(&map.box_dim[..rank]), widen(&map.element_strides[..rank]));
        check_map(
            map.address,
            map.elem_bytes as u32,
            &map.global_dim[..rank],
            &map.global_strides[..rank.saturating_sub(1)],
            &box_dim[..rank],
            &element_strides[..rank],
            map.swizzle_bytes as u32,
            map.oob_nan != 0,
        )
        .map(|()| map)
    }

    /// Number of modes (1 to 5).
    ///
    /// ```
    /// # use cute_rs_device::tma::CpuTensorMap;
    /// let d = CpuTensorMap::encode(0x1000, 1, &[64, 2, 2], &[64, 128], &[16, 1, 1], &[1; 3], 0, false).unwrap();
    /// assert_eq!(CpuTensorMap::decode(&d).unwrap().rank(), 3);
    /// ```
    pub fn rank(&self) -> usize {
        self.rank as usize
    }

    /// Bytes of one box in shared memory: what a load delivers to its mbarrier (the elements
    /// outside the tensor included).
    ///
    /// ```
    /// # use cute_rs_device::tma::CpuTensorMap;
    /// let d = CpuTensorMap::encode(0x1000, 4, &[100, 70], &[400], &[32, 16], &[1, 2], 0, false).unwrap();
    /// assert_eq!(CpuTensorMap::decode(&d).unwrap().box_bytes(), 32 * 8 * 4); // every other row
    /// ```
    pub fn box_bytes(&self) -> u32 {
        (0..self.rank()).map(|d| self.box_count(d)).product::<u32>() * self.elem_bytes as u32
    }

    /// Elements the box holds along mode `d`.
    fn box_count(&self, d: usize) -> u32 {
        (self.box_dim[d] as u32).div_ceil(self.element_strides[d] as u32)
    }

    /// Calls `f(shared address, global address if in bounds)` for each element of the box at
    /// `coords` whose shared image starts at shared address `base`, in box order.
    fn for_each_element(&self, coords: &[i32], base: u32, mut f: impl FnMut(u32, Option<u64>)) {
        let bits = match self.swizzle_bytes {
            32 => 1,
            64 => 2,
            128 => 3,
            _ => 0,
        };
        let swizzle = unwrap!(Swizzle::new(bits, 4, 3));
        let elem = self.elem_bytes as u64;
        let count: u32 = (0..self.rank()).map(|d| self.box_count(d)).product();
        for i in 0..count {
            let (mut rest, mut global, mut inside) = (i, self.address, true);
            for d in 0..self.rank() {
                let j = rest % self.box_count(d);
                rest /= self.box_count(d);
                let g = coords[d] as i64 + (j * self.element_strides[d] as u32) as i64;
                inside &= 0 <= g && (g as u64) < self.global_dim[d];
                let stride = if d == 0 { elem } else { self.global_strides[d - 1] };
                global = global.wrapping_add((g as u64).wrapping_mul(stride));
            }
            let shared = swizzle.apply(base as i64 + (i as u64 * elem) as i64) as u32;
            f(shared, inside.then_some(global));
        }
    }

    /// The shared address of the box image at `ptr` for the instruction `what`, after checking it:
    /// inside the block's shared memory with every byte its swizzled image may touch (the swizzles
    /// permute 16-byte chunks within 128-byte rows), 128-byte aligned, and with a swizzle aligned to
    /// its period (8 rows: 256, 512 or 1024 bytes), so that swizzling the address, as the hardware
    /// does, is swizzling the offset in the box.
    fn shared_box(&self, ptr: *const u8, what: &'static str) -> u32 {
        let (bytes, align) = match self.swizzle_bytes as usize {
            0 => (self.box_bytes() as usize, 128),
            span => ((self.box_bytes() as usize).next_multiple_of(128), 8 * span),
        };
        cpu_shared_span(ptr, bytes, align, what)
    }

    /// The map at `desc`, for a TMA instruction `what` with `coords`, or the launch's error.
    fn for_instruction(desc: *const TmaDescriptor, coords: &[i32], what: &'static str) -> CpuTensorMap {
        if desc.is_null() {
            cpu::misuse(what, "the tensor map pointer is null".into());
        }
        // SAFETY: the caller passes a pointer to a tensor map (a non-null 64-byte aligned object).
        let map = CpuTensorMap::decode(unsafe { &*desc }).unwrap_or_else(|e| cpu::misuse(what, e));
        if map.rank() != coords.len() {
            cpu::misuse(what, format!("a {}-D copy with a {}-D tensor map", coords.len(), map.rank()));
        }
        if (coords[0] as i64 * map.elem_bytes as i64) % 16 != 0 {
            cpu::misuse(
                what,
                format!(
                    "the innermost coordinate {} times the element size {} is not a multiple of 16 bytes (an illegal \
                     instruction on the GPU)",
                    coords[0], map.elem_bytes
                ),
            );
        }
        map
    }
}

/// The conditions of [`CpuTensorMap::encode`] (the host's `tensor_map_params` and the driver's).
#[cfg(not(target_arch = "nvptx64"))]
#[allow(clippy::too_many_arguments)]
fn check_map(
    address: u64,
    elem_bytes: u32,
    global_dim: &[u64],
    global_strides_bytes: &[u64],
    box_dim: &[u32],
    element_strides: &[u32],
    swizzle_bytes: u32,
    oob_nan: bool,
) -> Result<(), String> {
    let rank = global_dim.len();
    if !(1..=5).contains(&rank) {
        return Err(format!("tensor map of {rank} modes: TMA takes 1 to 5"));
    }
    if global_strides_bytes.len() != rank - 1 || box_dim.len() != rank || element_strides.len() != rank {
        return Err(format!(
            "tensor map of {rank} modes: {} global strides (needs {}), {} box extents and {} element strides (need {rank})",
            global_strides_bytes.len(),
            rank - 1,
            box_dim.len(),
            element_strides.len()
        ));
    }
    if ![1, 2, 4, 8].contains(&elem_bytes) {
        return Err(format!("tensor map: elements of {elem_bytes} bytes; TMA takes 1, 2, 4 or 8"));
    }
    if address % 16 != 0 {
        return Err(format!("tensor map: the global address {address:#x} is not 16-byte aligned"));
    }
    if let Some(d) = global_dim.iter().position(|&e| e == 0 || e > 1 << 32) {
        return Err(format!("tensor map: mode {d} has extent {}; extents must be 1 to 2^32", global_dim[d]));
    }
    if let Some(d) = global_strides_bytes.iter().position(|&s| s == 0 || s % 16 != 0 || s >= 1 << 40) {
        return Err(format!(
            "tensor map: mode {} has a stride of {} bytes; TMA needs positive multiples of 16 bytes below 2^40",
            d + 1,
            global_strides_bytes[d]
        ));
    }
    if let Some(d) = box_dim.iter().position(|&b| b == 0 || b > 256) {
        return Err(format!(
            "tensor map: box {box_dim:?} has extent {} in mode {d}; box extents must be 1 to 256",
            box_dim[d]
        ));
    }
    if let Some(d) = element_strides.iter().position(|&s| s == 0 || s > 8) {
        return Err(format!(
            "tensor map: element stride {} in mode {d}; element strides must be 1 to 8",
            element_strides[d]
        ));
    }
    let inner = box_dim[0] * elem_bytes;
    if inner % 16 != 0 {
        return Err(format!(
            "tensor map: the box's inner extent is {} elements x {elem_bytes} bytes = {inner} bytes; TMA needs a multiple of 16 bytes",
            box_dim[0]
        ));
    }
    match swizzle_bytes {
        0 => {}
        32 | 64 | 128 if inner <= swizzle_bytes => {}
        32 | 64 | 128 => return Err(format!(
            "tensor map: with the {swizzle_bytes}-byte swizzle the box's inner extent must be at most {swizzle_bytes} \
                 bytes, it is {} elements x {elem_bytes} bytes = {inner} bytes",
            box_dim[0]
        )),
        _ => {
            return Err(format!("tensor map: a swizzle of {swizzle_bytes} bytes; TMA swizzles 0, 32, 64 or 128 bytes"))
        }
    }
    if oob_nan && elem_bytes == 1 {
        return Err("tensor map: a NaN out-of-bounds fill needs a floating-point element type (2, 4 or 8 bytes)".into());
    }
    Ok(())
}

/// The bits a TMA load writes for an element of `elem` bytes outside the tensor with a NaN fill:
/// `0x7ff77ff7` for 4-byte elements (what the H100's copy engine writes), otherwise the positive
/// quiet NaN with all bits but the sign set.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_device::tma::oob_nan_bits(4), 0x7ff7_7ff7);
/// assert!(f32::from_bits(cute_rs_device::tma::oob_nan_bits(4) as u32).is_nan());
/// assert_eq!(cute_rs_device::tma::oob_nan_bits(2), 0x7fff);
/// ```
pub const fn oob_nan_bits(elem: usize) -> u64 {
    if elem == 4 {
        0x7ff7_7ff7
    } else {
        u64::MAX >> (65 - 8 * elem)
    }
}

/// The CPU backend's TMA load `what`: the box at `coords` into shared memory at `dst`, then its
/// bytes delivered to `bar` (see [`CpuTensorMap`]).
#[cfg(not(target_arch = "nvptx64"))]
unsafe fn cpu_tma_load(dst: *mut u8, desc: *const TmaDescriptor, coords: &[i32], bar: &Mbarrier, what: &'static str) {
    let map = CpuTensorMap::for_instruction(desc, coords, what);
    let base = map.shared_box(dst, what);
    let elem = map.elem_bytes as usize;
    let fill = if map.oob_nan != 0 { oob_nan_bits(elem) } else { 0 }.to_le_bytes();
    let (window, _) = cpu::shared_window();
    map.for_each_element(coords, base, |shared, global| {
        let from = global.map_or(fill.as_ptr(), |g| g as usize as *const u8);
        // SAFETY: the shared span was checked; the global element is inside the tensor the map
        // describes, which the caller guarantees valid.
        unsafe { core::ptr::copy_nonoverlapping(from, window.add(shared as usize), elem) };
    });
    // SAFETY: the caller guarantees an initialized barrier expecting these bytes.
    unsafe { bar.complete_tx(map.box_bytes()) };
}

/// The CPU backend's TMA store `what`: the elements of the box at `coords` that lie inside the
/// tensor, from shared memory at `src`.
#[cfg(not(target_arch = "nvptx64"))]
unsafe fn cpu_tma_store(desc: *const TmaDescriptor, coords: &[i32], src: *const u8, what: &'static str) {
    let map = CpuTensorMap::for_instruction(desc, coords, what);
    if coords.iter().any(|&c| c < 0) {
        cpu::misuse(what, format!("store coordinates {coords:?}: a store box may not hang over the low end of a mode"));
    }
    let base = map.shared_box(src, what);
    let elem = map.elem_bytes as usize;
    let (window, _) = cpu::shared_window();
    map.for_each_element(coords, base, |shared, global| {
        if let Some(g) = global {
            // SAFETY: as in `cpu_tma_load`.
            unsafe { core::ptr::copy_nonoverlapping(window.add(shared as usize), g as usize as *mut u8, elem) };
        }
    });
}

/// The CPU backend's TMA reduction `what`: the f32 elements of the box at `coords` that lie
/// inside the tensor, from shared memory at `src`, added to the tensor's.
#[cfg(not(target_arch = "nvptx64"))]
unsafe fn cpu_tma_reduce_add(desc: *const TmaDescriptor, coords: &[i32], src: *const u8, what: &'static str) {
    let map = CpuTensorMap::for_instruction(desc, coords, what);
    if coords.iter().any(|&c| c < 0) {
        cpu::misuse(what, format!("reduction coordinates {coords:?}: a box may not hang over the low end of a mode"));
    }
    if map.elem_bytes != 4 {
        cpu::misuse(what, format!("the map's elements are {} bytes: the reduction adds f32", map.elem_bytes));
    }
    let base = map.shared_box(src, what);
    let (window, _) = cpu::shared_window();
    map.for_each_element(coords, base, |shared, global| {
        if let Some(g) = global {
            // SAFETY: as in `cpu_tma_load`; the element is an f32, 4-byte aligned (the map's).
            unsafe {
                let x = core::ptr::read_unaligned(window.add(shared as usize) as *const f32);
                let at = &*(g as usize as *const core::sync::atomic::AtomicU32);
                let _ = at.fetch_update(core::sync::atomic::Ordering::Relaxed, core::sync::atomic::Ordering::Relaxed, |old| Some((f32::from_bits(old) + x).to_bits()));
            }
        }
    });
}

/// On the CPU backend, the shared-window address of the `bytes` bytes at `ptr`, after checking that
/// they lie in the running block's shared memory and that `ptr` is `align`-aligned; otherwise a
/// misuse of `what` (on the GPU, a fault or garbage). Used by every instruction that takes a
/// shared-memory operand (TMA, `ldmatrix`, `stmatrix`).
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) fn cpu_shared_span(ptr: *const u8, bytes: usize, align: usize, what: &'static str) -> u32 {
    let (base, window) = cpu::shared_window();
    let offset = (ptr as usize).wrapping_sub(base as usize);
    if offset >= window || window - offset < bytes {
        cpu::misuse(what, format!("{bytes} bytes at {ptr:p} are not inside the block's shared memory"));
    }
    if offset % align != 0 {
        cpu::misuse(what, format!("the shared-memory operand at {ptr:p} is not {align}-byte aligned"));
    }
    offset as u32
}

macro_rules! tma_copies {
    ($(
        $dim:literal: $load:ident, $store:ident, $reduce:ident, [$($c:ident),+], $tpl:literal, $example:literal;
    )*) => {$(
        #[doc = concat!(
            "Starts a TMA load of the ", $dim, "-D box at `coords` of the tensor map `desc` into shared ",
            "memory at `dst`, completing on `bar`\n(`cp.async.bulk.tensor.", $dim,
            "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`).\n\n",
            "When the data has landed, the copy engine delivers the box's byte count (all of its ",
            "elements, out-of-bounds ones included: box volume x element size) to `bar` as transaction ",
            "bytes. Out-of-bounds elements are filled as the map says (zero, or NaN for floats).\n\n",
            "On the CPU backend the box is in shared memory and its bytes are delivered when the call ",
            "returns; `desc` must hold a [`CpuTensorMap`].\n\n",
            "# Safety\n",
            "- `desc` is a valid ", $dim, "-D tiled tensor map in global memory, made visible with ",
            "[`fence_proxy_tensormap_acquire`];\n",
            "- `coords[0]` times the element size is a multiple of 16 (other coordinates are free, ",
            "negative ones included);\n",
            "- `dst` points into shared memory, 128-byte aligned (aligned to the swizzle period with a ",
            "swizzle: 1024 bytes for 128 B), with room for the box; nobody accesses it until the phase ",
            "completes;\n",
            "- `bar` is an initialized [`Mbarrier`] in shared memory whose current phase expects the ",
            "box's bytes (see [`Mbarrier::arrive_expect_tx`]).\n\n",
            "# Example\n```ignore\n", $example, "\n```"
        )]
        #[inline(always)]
        pub unsafe fn $load(dst: *mut u8, desc: *const TmaDescriptor, coords: [i32; $dim], bar: &Mbarrier) {
            #[cfg(target_arch = "nvptx64")]
            unsafe {
                let [$($c),+] = coords;
                asm!(
                    concat!(
                        "cp.async.bulk.tensor.", $dim,
                        "d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{dst}], [{desc}, {{",
                        $tpl, "}}], [{bar}];"
                    ),
                    dst = in(reg32) generic_to_shared(dst),
                    desc = in(reg64) desc as u64,
                    bar = in(reg32) bar.address(),
                    $($c = in(reg32) $c,)+
                    options(nostack),
                );
            }
            #[cfg(not(target_arch = "nvptx64"))]
            unsafe {
                cpu_tma_load(dst, desc, &coords, bar, concat!("cp.async.bulk.tensor.", $dim, "d (load)"))
            }
        }

        #[doc = concat!(
            "Starts a TMA store of the ", $dim, "-D box at `coords` of the tensor map `desc` from shared ",
            "memory at `src`, in the current bulk group\n(`cp.async.bulk.tensor.", $dim,
            "d.global.shared::cta.tile.bulk_group`).\n\n",
            "Elements of the box past the end of the tensor are not written. Commit with ",
            "[`bulk_commit_group`], then wait with [`bulk_wait_group_read`] before overwriting `src` ",
            "and with [`bulk_wait_group`] before relying on the global writes.\n\n",
            "On the CPU backend the writes are done when the call returns; `desc` must hold a ",
            "[`CpuTensorMap`].\n\n",
            "# Safety\n",
            "- `desc` is a valid ", $dim, "-D tiled tensor map in global memory, made visible with ",
            "[`fence_proxy_tensormap_acquire`];\n",
            "- every coordinate is non-negative, and `coords[0]` times the element size is a multiple ",
            "of 16;\n",
            "- `src` points into shared memory, 128-byte aligned (1024 with a 128-byte swizzle), holding ",
            "the box as the map's swizzle arranges it; the threads that wrote it called ",
            "[`fence_proxy_async_shared_cta`] and then a block barrier preceded this call.\n\n",
            "# Example\n```ignore\n",
            "fence_proxy_async_shared_cta();\n__syncthreads();\nif thread_idx_x() == 0 {\n",
            "    fence_proxy_tensormap_acquire(desc);\n    ", stringify!($store), "(desc, [0; ", $dim, "], smem);\n",
            "    bulk_commit_group();\n    bulk_wait_group::<0>();\n}\n```"
        )]
        #[inline(always)]
        pub unsafe fn $store(desc: *const TmaDescriptor, coords: [i32; $dim], src: *const u8) {
            #[cfg(target_arch = "nvptx64")]
            unsafe {
                let [$($c),+] = coords;
                asm!(
                    concat!(
                        "cp.async.bulk.tensor.", $dim,
                        "d.global.shared::cta.tile.bulk_group [{desc}, {{", $tpl, "}}], [{src}];"
                    ),
                    src = in(reg32) generic_to_shared(src),
                    desc = in(reg64) desc as u64,
                    $($c = in(reg32) $c,)+
                    options(nostack),
                );
            }
            #[cfg(not(target_arch = "nvptx64"))]
            unsafe {
                cpu_tma_store(desc, &coords, src, concat!("cp.async.bulk.tensor.", $dim, "d (store)"))
            }
        }

        #[doc = concat!(
            "Starts a TMA reduction of the ", $dim, "-D box at `coords` of the f32 tensor map `desc`: ",
            "each element of the box in shared memory at `src` is added to its element of the tensor, ",
            "in the current bulk group\n(`cp.reduce.async.bulk.tensor.", $dim,
            "d.global.shared::cta.add.tile.bulk_group`).\n\n",
            "The additions are atomic per element (boxes of several blocks may overlap), and elements ",
            "of the box past the end of the tensor are dropped. Commit and wait as for [`", stringify!($store), "`].\n\n",
            "On the CPU backend the additions are done when the call returns; `desc` must hold a ",
            "[`CpuTensorMap`] of 4-byte elements, added as f32 (its maps record the elements' size, ",
            "not their type; on the GPU a map of 32-bit integers adds integers).\n\n",
            "# Safety\n",
            "Those of [`", stringify!($store), "`], and the map's elements are f32.\n\n",
            "# Example\n```ignore\n",
            "fence_proxy_async_shared_cta();\n__syncthreads();\nif thread_idx_x() == 0 {\n",
            "    ", stringify!($reduce), "(desc, [0; ", $dim, "], smem);\n",
            "    bulk_commit_group();\n    bulk_wait_group::<0>();\n}\n```"
        )]
        #[inline(always)]
        pub unsafe fn $reduce(desc: *const TmaDescriptor, coords: [i32; $dim], src: *const u8) {
            #[cfg(target_arch = "nvptx64")]
            unsafe {
                let [$($c),+] = coords;
                asm!(
                    concat!(
                        "cp.reduce.async.bulk.tensor.", $dim,
                        "d.global.shared::cta.add.tile.bulk_group [{desc}, {{", $tpl, "}}], [{src}];"
                    ),
                    src = in(reg32) generic_to_shared(src),
                    desc = in(reg64) desc as u64,
                    $($c = in(reg32) $c,)+
                    options(nostack),
                );
            }
            #[cfg(not(target_arch = "nvptx64"))]
            unsafe {
                cpu_tma_reduce_add(desc, &coords, src, concat!("cp.reduce.async.bulk.tensor.", $dim, "d (add)"))
            }
        }
    )*};
}

tma_copies! {
    1: tma_load_1d, tma_store_1d, tma_reduce_add_1d, [c0], "{c0}",
        "bar.arrive_expect_tx(256 * 4);\ntma_load_1d(smem, desc, [i * 256], bar);\nbar.wait_parity(phase);";
    2: tma_load_2d, tma_store_2d, tma_reduce_add_2d, [c0, c1], "{c0}, {c1}",
        "// a 32 x 16 box of f32 (inner mode first) at column x0, row y0\nbar.arrive_expect_tx(32 * 16 * 4);\ntma_load_2d(smem, desc, [x0, y0], bar);\nbar.wait_parity(phase);";
    3: tma_load_3d, tma_store_3d, tma_reduce_add_3d, [c0, c1, c2], "{c0}, {c1}, {c2}",
        "bar.arrive_expect_tx(BOX_BYTES);\ntma_load_3d(smem, desc, [x, y, z], bar);\nbar.wait_parity(phase);";
    4: tma_load_4d, tma_store_4d, tma_reduce_add_4d, [c0, c1, c2, c3], "{c0}, {c1}, {c2}, {c3}",
        "bar.arrive_expect_tx(BOX_BYTES);\ntma_load_4d(smem, desc, [x, y, z, w], bar);\nbar.wait_parity(phase);";
    5: tma_load_5d, tma_store_5d, tma_reduce_add_5d, [c0, c1, c2, c3, c4], "{c0}, {c1}, {c2}, {c3}, {c4}",
        "bar.arrive_expect_tx(BOX_BYTES);\ntma_load_5d(smem, desc, [0, 0, 0, 0, batch], bar);\nbar.wait_parity(phase);";
}

/// Closes the TMA stores (and other bulk async copies) this thread issued since the last commit
/// into a bulk group (`cp.async.bulk.commit_group`). A no-op on the CPU backend, where copies
/// complete when issued.
///
/// # Example
/// ```
/// cute_rs_device::tma::bulk_commit_group();
/// ```
#[inline(always)]
pub fn bulk_commit_group() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: no preconditions.
    unsafe {
        asm!("cp.async.bulk.commit_group;", options(nostack));
    }
}

/// Waits until at most `N` of this thread's bulk groups are pending, their writes to global memory
/// included (`cp.async.bulk.wait_group N`). Returns at once on the CPU backend (nothing is ever
/// pending there).
///
/// # Example
/// ```
/// cute_rs_device::tma::bulk_wait_group::<0>();
/// ```
#[inline(always)]
pub fn bulk_wait_group<const N: u32>() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: no preconditions.
    unsafe {
        asm!("cp.async.bulk.wait_group {n};", n = const N, options(nostack));
    }
}

/// Waits until at most `N` of this thread's bulk groups still *read* their shared-memory source
/// (`cp.async.bulk.wait_group.read N`): the source may then be overwritten, though the global
/// writes may still be in flight. Returns at once on the CPU backend.
///
/// # Example
/// ```
/// cute_rs_device::tma::bulk_wait_group_read::<0>();
/// ```
#[inline(always)]
pub fn bulk_wait_group_read<const N: u32>() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: no preconditions.
    unsafe {
        asm!("cp.async.bulk.wait_group.read {n};", n = const N, options(nostack));
    }
}

#[cfg(test)]
mod tests {
    use super::Mbarrier;

    #[test]
    fn cpu_model_counts_arrivals_and_bytes_per_phase() {
        let bar = Mbarrier::new();
        unsafe {
            bar.init(3);
            assert!(bar.try_wait_parity(1) && !bar.try_wait_parity(0));
            for phase in 0..4u32 {
                let p = phase & 1;
                bar.arrive_expect_tx(100);
                bar.arrive();
                assert!(!bar.test_wait_parity(p));
                bar.complete_tx(60);
                bar.arrive();
                assert!(!bar.test_wait_parity(p), "40 bytes still pending");
                bar.complete_tx(40);
                assert!(bar.test_wait_parity(p) && !bar.test_wait_parity(p ^ 1));
            }
        }
    }
}
