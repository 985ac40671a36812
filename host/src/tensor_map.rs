//! TMA tensor maps: [`TensorMap`], the checks of its parameters ([`tensor_map_params`], pure and
//! unit-tested) and its encoding by the driver ([`Gpu::tensor_map`]).

use std::ffi::c_void;
use std::fmt;
use std::mem::MaybeUninit;

use cudarc::driver::sys;
use cute_rs_layout::Layout;

use crate::error::{cuda_err, invalid};
use crate::{DeviceBuffer, DeviceElem, Gpu, Result, TmaDataType};

/// A CUDA tensor map (TMA descriptor, 128 bytes, 64-byte aligned), built on the host.
///
/// Rust cannot mark a kernel parameter `__grid_constant__`: kernels read the descriptor from
/// global memory (upload `bytes`, e.g. with [`Gpu::upload_tensor_map`]) after
/// `fence.proxy.tensormap::generic.acquire.sys [ptr], 128;`. It can also be passed by value
/// ([`KernelArg`](crate::KernelArg)) to a kernel taking a 128-byte, 64-byte aligned parameter.
///
/// The descriptor holds the global buffer's address: the buffer must outlive every use of it.
///
/// # Example
/// ```no_run
/// use cute_rs_host::{Gpu, TmaOobFill, TmaSwizzle};
/// use cute_rs_layout::Layout;
/// let gpu = Gpu::new(0)?;
/// let a = gpu.alloc::<f32>(1024 * 512)?;
/// // A 1024 x 512 row-major matrix: mode 0 (columns) has stride 1.
/// let global = Layout::parse("(512,1024):(1,512)").unwrap();
/// let map = gpu.tensor_map(&a, global, &[32, 64], TmaSwizzle::B128, TmaOobFill::Zero)?;
/// let map_in_global_memory = gpu.upload_tensor_map(&map)?;
/// # let _ = map_in_global_memory;
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct TensorMap {
    /// The opaque descriptor, as `cuTensorMapEncodeTiled` wrote it.
    pub bytes: [u8; 128],
}

impl fmt::Debug for TensorMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TensorMap[")?;
        for (i, w) in self.bytes.chunks(8).enumerate() {
            let v = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            write!(f, "{}{v:016x}", if i == 0 { "" } else { " " })?;
        }
        write!(f, "]")
    }
}

/// Shared-memory swizzle of a TMA copy.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_host::TmaSwizzle::B128.span_bytes(), Some(128));
/// assert_eq!(cute_rs_host::TmaSwizzle::None.span_bytes(), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TmaSwizzle {
    /// No swizzle (`CU_TENSOR_MAP_SWIZZLE_NONE`).
    None,
    /// 32-byte swizzle: the box's inner extent is at most 32 bytes.
    B32,
    /// 64-byte swizzle: the box's inner extent is at most 64 bytes.
    B64,
    /// 128-byte swizzle: the box's inner extent is at most 128 bytes (shared memory 1024-byte aligned).
    B128,
}

impl TmaSwizzle {
    /// The swizzle's span in bytes (the most bytes the box's inner mode may have), if any.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_host::TmaSwizzle::B32.span_bytes(), Some(32));
    /// ```
    pub fn span_bytes(self) -> Option<u32> {
        match self {
            TmaSwizzle::None => None,
            TmaSwizzle::B32 => Some(32),
            TmaSwizzle::B64 => Some(64),
            TmaSwizzle::B128 => Some(128),
        }
    }
}

/// What a TMA load writes for elements outside the global tensor.
///
/// # Example
/// ```
/// let fill = cute_rs_host::TmaOobFill::Nan; // only for floating-point element types
/// assert_ne!(fill, cute_rs_host::TmaOobFill::Zero);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TmaOobFill {
    /// Zeros.
    Zero,
    /// NaN (floating-point element types only).
    Nan,
}

/// The largest extent of a global mode (2^32).
pub const TMA_MAX_GLOBAL_DIM: u64 = 1 << 32;
/// Global strides must be below this many bytes (2^40).
pub const TMA_MAX_STRIDE_BYTES: u64 = 1 << 40;
/// The largest box extent of a mode.
pub const TMA_MAX_BOX_DIM: u32 = 256;
/// The most modes of a tensor map.
pub const TMA_MAX_RANK: usize = 5;

/// The arguments of `cuTensorMapEncodeTiled`, checked: what [`Gpu::tensor_map`] encodes.
///
/// # Example
/// ```
/// use cute_rs_host::{tensor_map_params, TmaDataType, TmaOobFill, TmaSwizzle};
/// let global = cute_rs_layout::Layout::parse("(512,1024):(1,512)").unwrap();
/// let p = tensor_map_params::<f32>(global, &[32, 64], TmaSwizzle::B128, TmaOobFill::Zero, 512 * 1024)?;
/// assert_eq!(p.data_type, TmaDataType::F32);
/// assert_eq!(p.global_dim, [512, 1024]);
/// assert_eq!(p.global_strides, [2048]); // bytes, modes 1..
/// assert_eq!(p.box_dim, [32, 64]);
/// assert_eq!(p.box_bytes(), 32 * 64 * 4);
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMapParams {
    /// Element type.
    pub data_type: TmaDataType,
    /// Extent of each mode, innermost first (`rank` values).
    pub global_dim: Vec<u64>,
    /// Stride of modes 1.. in bytes (`rank - 1` values; mode 0 is contiguous).
    pub global_strides: Vec<u64>,
    /// Box extent of each mode, in elements.
    pub box_dim: Vec<u32>,
    /// Traversal stride of each mode in the box (all 1: dense boxes).
    pub element_strides: Vec<u32>,
    /// Shared-memory swizzle.
    pub swizzle: TmaSwizzle,
    /// Out-of-bounds fill.
    pub fill: TmaOobFill,
}

impl TensorMapParams {
    /// Number of modes.
    ///
    /// # Example
    /// ```
    /// # use cute_rs_host::{tensor_map_params, TmaOobFill, TmaSwizzle};
    /// let p = tensor_map_params::<u8>(cute_rs_layout::Layout::parse("(64,8,4):(1,64,512)").unwrap(), &[64, 8, 1],
    ///     TmaSwizzle::None, TmaOobFill::Zero, 2048)?;
    /// assert_eq!(p.rank(), 3);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.global_dim.len()
    }

    /// Bytes one box occupies in shared memory (what one TMA load brings: the transaction count an
    /// mbarrier expects).
    ///
    /// # Example
    /// ```
    /// # use cute_rs_host::{tensor_map_params, TmaOobFill, TmaSwizzle};
    /// let p = tensor_map_params::<u16>(cute_rs_layout::Layout::parse("(64,64):(1,64)").unwrap(), &[64, 16],
    ///     TmaSwizzle::B128, TmaOobFill::Zero, 4096)?;
    /// assert_eq!(p.box_bytes(), 64 * 16 * 2);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn box_bytes(&self) -> u64 {
        self.box_dim.iter().map(|&b| b as u64).product::<u64>() * self.data_type.size_bytes() as u64
    }
}

/// Checks the parameters of a tiled tensor map of elements `T` over a buffer of `buffer_len`
/// elements seen through `global`, in boxes of `box_shape`, and returns the arguments of
/// `cuTensorMapEncodeTiled`.
///
/// Checked, each with an [`HostError::Invalid`](crate::HostError::Invalid) naming the condition and
/// the values:
/// - `global` has 1 to 5 modes after [`cute_rs_layout::flatten`], each of extent at most 2^32;
/// - mode 0 has stride 1 (contiguous), unless its extent is 1;
/// - the other strides are positive, and in bytes multiples of 16 and below 2^40 (a mode of extent 1
///   may have any stride: a valid one is passed instead);
/// - the layout stays inside the buffer (its `cosize` is at most `buffer_len`);
/// - `box_shape` has one extent per mode, each 1 to 256, and its inner extent in bytes is a multiple
///   of 16 and, with a swizzle, at most the swizzle's span (32, 64 or 128 bytes);
/// - a NaN fill is only for floating-point element types.
///
/// # Example
/// ```
/// use cute_rs_host::{tensor_map_params, TmaOobFill, TmaSwizzle};
/// use cute_rs_layout::Layout;
/// // Rows of 99 f32 (396 bytes) are not 16-byte aligned: rejected.
/// let err = tensor_map_params::<f32>(Layout::parse("(99,64):(1,99)").unwrap(), &[32, 8],
///     TmaSwizzle::None, TmaOobFill::Zero, 99 * 64).unwrap_err();
/// assert!(err.to_string().contains("396 bytes"), "{err}");
/// // 64 f32 = 256 bytes do not fit a 128-byte swizzle.
/// let err = tensor_map_params::<f32>(Layout::parse("(128,64):(1,128)").unwrap(), &[64, 8],
///     TmaSwizzle::B128, TmaOobFill::Zero, 8192).unwrap_err();
/// assert!(err.to_string().contains("at most 128 bytes"), "{err}");
/// ```
pub fn tensor_map_params<T: DeviceElem>(
    global: Layout,
    box_shape: &[u32],
    swizzle: TmaSwizzle,
    fill: TmaOobFill,
    buffer_len: usize,
) -> Result<TensorMapParams> {
    let data_type = T::TMA_DATA_TYPE;
    let elem = data_type.size_bytes() as u64;
    if elem != std::mem::size_of::<T>() as u64 {
        invalid!(
            "tensor map of {}: the element is {} bytes, but its TMA type {data_type:?} is {elem} bytes",
            T::NAME,
            std::mem::size_of::<T>()
        );
    }
    let flat = cute_rs_layout::flatten(global);
    let shape = flat.shape();
    let stride = flat.stride();
    let (shape, stride) = (shape.leaves(), stride.leaves());
    let rank = shape.len();
    if rank == 0 || rank > TMA_MAX_RANK {
        invalid!(
            "tensor map over {global}: {rank} modes after flattening; TMA takes 1 to {TMA_MAX_RANK} \
             (coalesce the layout or drop modes of extent 1)"
        );
    }
    if box_shape.len() != rank {
        invalid!(
            "tensor map over {global}: box {box_shape:?} has {} extents, the layout has {rank} modes after \
             flattening ({flat})",
            box_shape.len()
        );
    }
    for (i, &s) in shape.iter().enumerate() {
        if s as u64 > TMA_MAX_GLOBAL_DIM {
            invalid!("tensor map over {global}: mode {i} has extent {s}, over TMA's maximum of 2^32");
        }
    }
    if stride[0] != 1 && shape[0] != 1 {
        invalid!(
            "tensor map over {global}: mode 0 must have stride 1 (contiguous elements), it has stride {}",
            stride[0]
        );
    }
    if stride.iter().zip(shape).any(|(&d, &s)| d < 0 && s > 1) {
        invalid!("tensor map over {global}: TMA strides must be positive");
    }
    let cosize = flat.cosize();
    if cosize > buffer_len as i64 {
        invalid!(
            "tensor map over {global}: the layout reaches element {} but the buffer holds {buffer_len} elements of {}",
            cosize - 1,
            T::NAME
        );
    }
    // A valid stride for modes of extent 1, whose stride never matters.
    let spare = ((cosize.max(1) as u64 * elem).div_ceil(16) * 16).max(16);
    let mut global_strides = Vec::with_capacity(rank - 1);
    for i in 1..rank {
        let bytes = stride[i] as i128 * elem as i128;
        let ok = bytes > 0 && bytes % 16 == 0 && bytes < TMA_MAX_STRIDE_BYTES as i128;
        if ok {
            global_strides.push(bytes as u64);
        } else if shape[i] == 1 {
            global_strides.push(spare);
        } else if bytes <= 0 {
            invalid!(
                "tensor map over {global}: mode {i} has stride {}; TMA strides must be positive",
                stride[i]
            );
        } else if bytes % 16 != 0 {
            invalid!(
                "tensor map over {global}: mode {i} has stride {} elements = {bytes} bytes of {}; TMA needs strides \
                 that are multiples of 16 bytes",
                stride[i],
                T::NAME
            );
        } else {
            invalid!("tensor map over {global}: mode {i} has a stride of {bytes} bytes, over TMA's maximum of 2^40");
        }
    }
    for (i, &b) in box_shape.iter().enumerate() {
        if b == 0 || b > TMA_MAX_BOX_DIM {
            invalid!(
                "tensor map over {global}: box {box_shape:?} has extent {b} in mode {i}; box extents must be 1 to \
                 {TMA_MAX_BOX_DIM}"
            );
        }
    }
    let inner = box_shape[0] as u64 * elem;
    if !inner.is_multiple_of(16) {
        invalid!(
            "tensor map over {global}: the box's inner extent is {} elements x {elem} bytes = {inner} bytes; TMA \
             needs a multiple of 16 bytes",
            box_shape[0]
        );
    }
    if let Some(span) = swizzle.span_bytes() {
        if inner > span as u64 {
            invalid!(
                "tensor map over {global}: with the {span}-byte swizzle the box's inner extent must be at most {span} \
                 bytes, it is {} elements x {elem} bytes = {inner} bytes",
                box_shape[0]
            );
        }
    }
    if fill == TmaOobFill::Nan && !data_type.is_float() {
        invalid!(
            "tensor map of {}: a NaN out-of-bounds fill needs a floating-point element type (use TmaOobFill::Zero)",
            T::NAME
        );
    }
    Ok(TensorMapParams {
        data_type,
        global_dim: shape.iter().map(|&s| s as u64).collect(),
        global_strides,
        box_dim: box_shape.to_vec(),
        element_strides: vec![1; rank],
        swizzle,
        fill,
    })
}

impl Gpu {
    /// The tensor map for tiled TMA copies of `buf` seen through `global` (a layout of rank 1 to 5
    /// whose first mode has stride 1; the other strides, in bytes, must be multiples of 16), in boxes
    /// of `box_shape` elements per mode.
    ///
    /// Every condition of [`tensor_map_params`] is checked before the driver is called; the map uses
    /// no interleave, dense boxes (element strides 1) and 128-byte L2 promotion.
    ///
    /// # Example
    /// ```no_run
    /// use cute_rs_host::{Gpu, TmaOobFill, TmaSwizzle};
    /// let gpu = Gpu::new(0)?;
    /// let x = gpu.alloc::<f32>(1000 * 96)?;
    /// // 1000 rows of 96 floats: boxes of 32 x 32, NaN past the last row.
    /// let global = cute_rs_layout::Layout::parse("(96,1000):(1,96)").unwrap();
    /// let map = gpu.tensor_map(&x, global, &[32, 32], TmaSwizzle::B128, TmaOobFill::Nan)?;
    /// # let _ = map;
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn tensor_map<T: DeviceElem>(
        &self,
        buf: &DeviceBuffer<T>,
        global: cute_rs_layout::Layout,
        box_shape: &[u32],
        swizzle: TmaSwizzle,
        fill: TmaOobFill,
    ) -> Result<TensorMap> {
        if buf.ctx.ctx != self.ctx.ctx {
            invalid!("tensor_map: the buffer belongs to device {}, this GPU is device {}", buf.ctx.ordinal, self.ctx.ordinal);
        }
        let p = tensor_map_params::<T>(global, box_shape, swizzle, fill, buf.len())?;
        if !buf.ptr.is_multiple_of(16) {
            invalid!("tensor map over {global}: the buffer's address {:#x} is not 16-byte aligned", buf.ptr);
        }
        if self.is_cpu() {
            return encode_cpu(&p, buf.ptr);
        }
        encode(&p, buf.ptr)
    }

    /// Copies a tensor map to global memory (a 256-byte aligned buffer of 128 bytes), where kernels
    /// read it: pass the buffer as a pointer argument.
    ///
    /// # Example
    /// ```no_run
    /// # use cute_rs_host::{Gpu, TmaOobFill, TmaSwizzle};
    /// # let gpu = Gpu::new(0)?;
    /// # let module = gpu.load_module(&std::fs::read_to_string("target/ptx/test_kernels.ptx").unwrap())?;
    /// # let k = module.kernel("tma_load_2d")?;
    /// let x = gpu.alloc::<f32>(64 * 64)?;
    /// let out = gpu.alloc::<f32>(64 * 64)?;
    /// let map = gpu.tensor_map(&x, cute_rs_layout::Layout::parse("(64,64):(1,64)").unwrap(), &[32, 32],
    ///     TmaSwizzle::B128, TmaOobFill::Zero)?;
    /// let map_buf = gpu.upload_tensor_map(&map)?;
    /// let cfg = cute_rs_host::LaunchConfig::linear(4, 128).with_shared_mem(32 * 32 * 4 + 1024);
    /// unsafe { gpu.launch_raw(&k, cfg).arg(&map_buf).arg(&out).run()? };
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn upload_tensor_map(&self, map: &TensorMap) -> Result<DeviceBuffer<u8>> {
        self.upload(&map.bytes)
    }
}

/// Encodes checked parameters with `cuTensorMapEncodeTiled` for the buffer at `address`.
/// The CPU backend's descriptor of the same map ([`CpuTensorMap`](cute_rs_tensor::device::tma::CpuTensorMap)),
/// read by its TMA copies.
fn encode_cpu(p: &TensorMapParams, address: u64) -> Result<TensorMap> {
    let swizzle = p.swizzle.span_bytes().unwrap_or(0);
    let nan = matches!(p.fill, TmaOobFill::Nan);
    cute_rs_tensor::device::tma::CpuTensorMap::encode(
        address,
        p.data_type.size_bytes() as u32,
        &p.global_dim,
        &p.global_strides,
        &p.box_dim,
        &p.element_strides,
        swizzle,
        nan,
    )
    .map(|d| TensorMap { bytes: d.bytes })
    .map_err(|why| crate::HostError::Invalid(format!("tensor map (CPU backend): {why}")))
}

fn encode(p: &TensorMapParams, address: u64) -> Result<TensorMap> {
    use sys::CUtensorMapDataType::*;
    let data_type = match p.data_type {
        TmaDataType::U8 => CU_TENSOR_MAP_DATA_TYPE_UINT8,
        TmaDataType::U16 => CU_TENSOR_MAP_DATA_TYPE_UINT16,
        TmaDataType::U32 => CU_TENSOR_MAP_DATA_TYPE_UINT32,
        TmaDataType::I32 => CU_TENSOR_MAP_DATA_TYPE_INT32,
        TmaDataType::U64 => CU_TENSOR_MAP_DATA_TYPE_UINT64,
        TmaDataType::I64 => CU_TENSOR_MAP_DATA_TYPE_INT64,
        TmaDataType::F16 => CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        TmaDataType::F32 => CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        TmaDataType::F64 => CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        TmaDataType::BF16 => CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
    };
    let swizzle = match p.swizzle {
        TmaSwizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
        TmaSwizzle::B32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        TmaSwizzle::B64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        TmaSwizzle::B128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
    };
    let fill = match p.fill {
        TmaOobFill::Zero => sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        TmaOobFill::Nan => sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
    };
    let mut map = MaybeUninit::<sys::CUtensorMap>::zeroed();
    // SAFETY: the arrays hold `rank` (strides: `rank - 1`) values, checked by `tensor_map_params`;
    // `map` is a properly aligned `CUtensorMap`.
    let r = unsafe {
        sys::cuTensorMapEncodeTiled(
            map.as_mut_ptr(),
            data_type,
            p.rank() as u32,
            address as *mut c_void,
            p.global_dim.as_ptr(),
            p.global_strides.as_ptr(),
            p.box_dim.as_ptr(),
            p.element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
            fill,
        )
    }
    .result();
    if let Err(e) = r {
        let mut err = cuda_err("cuTensorMapEncodeTiled", None, e);
        if let crate::HostError::Cuda { message, .. } = &mut err {
            message.push_str(&format!(" (parameters: {p:?}, address {address:#x})"));
        }
        return Err(err);
    }
    // SAFETY: zero-initialized and written by the driver.
    let map = unsafe { map.assume_init() };
    let mut bytes = [0u8; 128];
    for (chunk, word) in bytes.chunks_mut(8).zip(map.opaque.iter()) {
        chunk.copy_from_slice(&word.to_ne_bytes());
    }
    Ok(TensorMap { bytes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HostError;

    fn l(s: &str) -> Layout {
        Layout::parse(s).unwrap()
    }

    fn err<T: DeviceElem>(g: &str, b: &[u32], s: TmaSwizzle, f: TmaOobFill, len: usize) -> String {
        match tensor_map_params::<T>(l(g), b, s, f, len) {
            Err(HostError::Invalid(m)) => m,
            other => panic!("expected Invalid for {g} box {b:?}, got {other:?}"),
        }
    }

    #[test]
    fn row_major_2d() {
        let p = tensor_map_params::<f32>(l("(256,128):(1,256)"), &[32, 16], TmaSwizzle::B128, TmaOobFill::Nan, 32768)
            .unwrap();
        assert_eq!(p.global_dim, [256, 128]);
        assert_eq!(p.global_strides, [1024]);
        assert_eq!(p.box_dim, [32, 16]);
        assert_eq!(p.element_strides, [1, 1]);
        assert_eq!(p.rank(), 2);
        assert_eq!(p.box_bytes(), 32 * 16 * 4);
    }

    #[test]
    fn nested_layouts_are_flattened() {
        // ((8,4),(16,2)) : ((1,8),(32,512)) has 4 modes after flattening.
        let p = tensor_map_params::<u16>(l("((8,4),(16,2)):((1,8),(32,512))"), &[8, 4, 16, 2], TmaSwizzle::None,
            TmaOobFill::Zero, 1024)
        .unwrap();
        assert_eq!(p.global_dim, [8, 4, 16, 2]);
        assert_eq!(p.global_strides, [16, 64, 1024]);
        // Rank 1 and rank 5 are accepted; rank 6 is not.
        tensor_map_params::<u8>(l("64:1"), &[16], TmaSwizzle::None, TmaOobFill::Zero, 64).unwrap();
        tensor_map_params::<u8>(l("(16,2,2,2,2):(1,16,32,64,128)"), &[16, 1, 1, 1, 1], TmaSwizzle::None,
            TmaOobFill::Zero, 256)
        .unwrap();
        let m = err::<u8>("(16,2,2,2,2,2):(1,16,32,64,128,256)", &[16, 1, 1, 1, 1, 1], TmaSwizzle::None,
            TmaOobFill::Zero, 512);
        assert!(m.contains("6 modes after flattening") && m.contains("1 to 5"), "{m}");
    }

    #[test]
    fn transposed_and_padded_strides() {
        // Column-major view with padded rows: strides need not grow.
        let p = tensor_map_params::<f32>(l("(64,32,4):(1,8192,68)"), &[64, 8, 4], TmaSwizzle::None, TmaOobFill::Zero,
            64 + 31 * 8192 + 3 * 68)
        .unwrap();
        assert_eq!(p.global_strides, [32768, 272]);
    }

    #[test]
    fn first_mode_must_be_contiguous() {
        let m = err::<f32>("(64,64):(64,1)", &[8, 8], TmaSwizzle::None, TmaOobFill::Zero, 4096);
        assert!(m.contains("mode 0 must have stride 1") && m.contains("stride 64"), "{m}");
        // Extent 1 in mode 0: its stride does not matter.
        tensor_map_params::<f32>(l("(1,64):(0,4)"), &[4, 8], TmaSwizzle::None, TmaOobFill::Zero, 256).unwrap();
    }

    #[test]
    fn strides_must_be_16_byte_multiples() {
        let m = err::<f32>("(99,64):(1,99)", &[4, 8], TmaSwizzle::None, TmaOobFill::Zero, 6336);
        assert!(m.contains("mode 1 has stride 99 elements = 396 bytes of f32") && m.contains("multiples of 16"), "{m}");
        let m = err::<f64>("(2,3,5):(1,3,9)", &[2, 1, 1], TmaSwizzle::None, TmaOobFill::Zero, 44);
        assert!(m.contains("mode 1 has stride 3 elements = 24 bytes of f64"), "{m}");
        let m = err::<u8>("(16,4,4):(1,20,80)", &[16, 1, 1], TmaSwizzle::None, TmaOobFill::Zero, 320);
        assert!(m.contains("mode 1 has stride 20 elements = 20 bytes of u8"), "{m}");
        let m = err::<f32>("(4,4):(1,0)", &[4, 4], TmaSwizzle::None, TmaOobFill::Zero, 16);
        assert!(m.contains("mode 1 has stride 0") && m.contains("positive"), "{m}");
        let m = err::<f32>("(4,4):(1,-4)", &[4, 4], TmaSwizzle::None, TmaOobFill::Zero, 16);
        assert!(m.contains("positive"), "{m}");
    }

    #[test]
    fn extent_one_modes_take_any_stride() {
        let p = tensor_map_params::<f32>(l("(64,1,8):(1,0,64)"), &[64, 1, 8], TmaSwizzle::None, TmaOobFill::Zero, 512)
            .unwrap();
        assert_eq!(p.global_strides, [2048, 256]);
        assert_eq!(p.global_strides[0] % 16, 0);
    }

    #[test]
    fn layout_must_fit_in_the_buffer() {
        let m = err::<f32>("(64,64):(1,64)", &[8, 8], TmaSwizzle::None, TmaOobFill::Zero, 4095);
        assert!(m.contains("reaches element 4095") && m.contains("holds 4095 elements of f32"), "{m}");
        tensor_map_params::<f32>(l("(64,64):(1,64)"), &[8, 8], TmaSwizzle::None, TmaOobFill::Zero, 4096).unwrap();
    }

    #[test]
    fn box_extents() {
        let m = err::<f32>("(64,64):(1,64)", &[8, 0], TmaSwizzle::None, TmaOobFill::Zero, 4096);
        assert!(m.contains("extent 0 in mode 1") && m.contains("1 to 256"), "{m}");
        let m = err::<u8>("(1024,512):(1,1024)", &[16, 257], TmaSwizzle::None, TmaOobFill::Zero, 1 << 19);
        assert!(m.contains("extent 257 in mode 1"), "{m}");
        tensor_map_params::<u8>(l("(1024,512):(1,1024)"), &[256, 256], TmaSwizzle::None, TmaOobFill::Zero, 1 << 19)
            .unwrap();
        let m = err::<f32>("(64,64):(1,64)", &[8], TmaSwizzle::None, TmaOobFill::Zero, 4096);
        assert!(m.contains("has 1 extents") && m.contains("2 modes"), "{m}");
        // Inner extent: 6 f32 = 24 bytes.
        let m = err::<f32>("(64,64):(1,64)", &[6, 8], TmaSwizzle::None, TmaOobFill::Zero, 4096);
        assert!(m.contains("6 elements x 4 bytes = 24 bytes") && m.contains("multiple of 16"), "{m}");
        // A box may be larger than the tensor (TMA fills the rest).
        tensor_map_params::<f32>(l("(4,3):(1,4)"), &[8, 8], TmaSwizzle::None, TmaOobFill::Zero, 12).unwrap();
    }

    #[test]
    fn swizzle_spans() {
        for (sw, span) in [(TmaSwizzle::B32, 32u32), (TmaSwizzle::B64, 64), (TmaSwizzle::B128, 128)] {
            let ok = span / 2; // f16-sized elements: span / 2 of them fill the span exactly
            tensor_map_params::<u16>(l("(256,64):(1,256)"), &[ok, 8], sw, TmaOobFill::Zero, 256 * 64).unwrap();
            let m = err::<u16>("(256,64):(1,256)", &[ok + 8, 8], sw, TmaOobFill::Zero, 256 * 64);
            assert!(m.contains(&format!("with the {span}-byte swizzle")) && m.contains(&format!("{} bytes", 2 * (ok + 8))),
                "{m}");
        }
        tensor_map_params::<u16>(l("(256,64):(1,256)"), &[256, 8], TmaSwizzle::None, TmaOobFill::Zero, 256 * 64).unwrap();
    }

    #[test]
    fn nan_fill_only_for_floats() {
        let m = err::<i32>("(64,64):(1,64)", &[8, 8], TmaSwizzle::None, TmaOobFill::Nan, 4096);
        assert!(m.contains("NaN") && m.contains("i32"), "{m}");
        tensor_map_params::<f64>(l("(64,64):(1,64)"), &[8, 8], TmaSwizzle::None, TmaOobFill::Nan, 4096).unwrap();
        tensor_map_params::<i32>(l("(64,64):(1,64)"), &[8, 8], TmaSwizzle::None, TmaOobFill::Zero, 4096).unwrap();
    }

    #[test]
    fn data_types() {
        assert_eq!(
            tensor_map_params::<i8>(l("(64,2):(1,64)"), &[16, 1], TmaSwizzle::None, TmaOobFill::Zero, 128)
                .unwrap()
                .data_type,
            TmaDataType::U8
        );
        assert_eq!(
            tensor_map_params::<u64>(l("(64,2):(1,64)"), &[2, 1], TmaSwizzle::None, TmaOobFill::Zero, 128)
                .unwrap()
                .data_type,
            TmaDataType::U64
        );
    }

    #[test]
    fn tensor_map_layout() {
        assert_eq!(std::mem::size_of::<TensorMap>(), 128);
        assert_eq!(std::mem::align_of::<TensorMap>(), 64);
        assert_eq!(std::mem::size_of::<sys::CUtensorMap>(), 128);
        let s = format!("{:?}", TensorMap { bytes: [0; 128] });
        assert!(s.starts_with("TensorMap[0000000000000000 "), "{s}");
    }
}
