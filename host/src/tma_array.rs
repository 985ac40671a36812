//! Arrays with their tensor maps ([`TmaArray`], made by [`Gpu::tma_array`] and
//! [`Gpu::tma_dot_operand`]): the kernel argument of block-tile TMA loads (`BlockTile::load_tma`
//! in `cute-rs-tensor`, cuTile's `allow_tma`) and of products whose operand tiles arrive by TMA
//! (`dot_range_tma`).

use std::any::Any;

use cute_rs_tensor::device::tma::oob_nan_bits;
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::{Element, LayoutSource, Strided};

use crate::error::invalid;
use crate::{DeviceBuffer, DeviceElem, DeviceTensor, Gpu, KernelParam, Result, TmaDataType, TmaOobFill, TmaSwizzle};

/// A device array of rank `R` with the tensor map its tiles are loaded by: the host side of
/// [`cute_rs_tensor::tma_copy::TmaArray`], which a kernel takes as a parameter (pass `&array`).
/// It owns the map, uploaded to global memory, and borrows the array's buffer.
///
/// # Example
/// ```
/// use cute_rs_host::{Gpu, TmaOobFill};
/// use cute_rs_tensor::Strided;
/// let cpu = Gpu::cpu();
/// let x = cpu.alloc::<f32>(100 * 64)?;
/// // 100 rows of 64 floats, in tiles of 16 x 32; NaN outside.
/// let a = cpu.tma_array(x.tensor(Strided::row_major([100, 64]))?, [16, 32], TmaOobFill::Nan)?;
/// assert_eq!(a.tile(), [16, 32]);
/// assert!(a.padding().is_nan());
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
pub struct TmaArray<'a, T: DeviceElem, const R: usize> {
    tensor: DeviceTensor<'a, T, Strided<R>>,
    map: DeviceBuffer<u8>,
    tile: [i64; R],
    box_shape: [i64; R],
    swizzle: TmaSwizzle,
    padding: T,
}

impl<T: DeviceElem, const R: usize> TmaArray<'_, T, R> {
    /// The tile shape the map was made for (in the array's order).
    ///
    /// # Example
    /// See [`TmaArray`].
    pub fn tile(&self) -> [i64; R] {
        self.tile
    }

    /// The extents of the map's boxes (in the array's order): the tile's for
    /// [`Gpu::tma_array`], a staged panel of it for [`Gpu::tma_dot_operand`].
    ///
    /// # Example
    /// See [`Gpu::tma_dot_operand`].
    pub fn box_shape(&self) -> [i64; R] {
        self.box_shape
    }

    /// The swizzle the boxes land with in shared memory.
    ///
    /// # Example
    /// See [`Gpu::tma_dot_operand`].
    pub fn swizzle(&self) -> TmaSwizzle {
        self.swizzle
    }

    /// What a load reads outside the array: zero, or the NaN TMA writes
    /// (`cute_rs_tensor::device::tma::oob_nan_bits`).
    ///
    /// # Example
    /// See [`TmaArray`].
    pub fn padding(&self) -> T {
        self.padding
    }
}

/// The NaN of `T` TMA fills with ([`oob_nan_bits`]), if `T` is a floating-point type.
fn tma_nan<T: DeviceElem>() -> Option<T> {
    let nan: Box<dyn Any> = match T::TMA_DATA_TYPE {
        TmaDataType::F16 => Box::new(f16::from_bits(oob_nan_bits(2) as u16)),
        TmaDataType::BF16 => Box::new(bf16::from_bits(oob_nan_bits(2) as u16)),
        TmaDataType::F32 => Box::new(f32::from_bits(oob_nan_bits(4) as u32)),
        TmaDataType::F64 => Box::new(f64::from_bits(oob_nan_bits(8))),
        _ => return None,
    };
    nan.downcast::<T>().ok().map(|b| *b)
}

impl Gpu {
    /// The array `tensor` with a tensor map for TMA loads of tiles of shape `tile`: cuTile's
    /// array when its loads may use TMA (`allow_tma`). Elements outside the array read zero or
    /// NaN, as `fill` says.
    ///
    /// # Args
    /// - `tensor`: a buffer seen through a [`Strided`] layout ([`DeviceBuffer::tensor`]) of rank 1
    ///   to 5.
    /// - `tile`: the shape of the kernel's block tiles (the same rank).
    /// - `fill`: the value of elements outside the array.
    ///
    /// # Errors
    /// [`HostError::Invalid`](crate::HostError::Invalid) naming the condition TMA needs and the
    /// array or tile breaks: the last stride is 1 (the map's innermost mode), the other strides
    /// are multiples of 16 bytes, the buffer is 16-byte aligned, each tile extent is 1 to 256, the
    /// tile's last extent is a multiple of 16 bytes, a NaN fill is for a floating-point type.
    ///
    /// # Example
    /// ```
    /// use cute_rs_host::{Gpu, TmaOobFill};
    /// use cute_rs_tensor::Strided;
    /// let cpu = Gpu::cpu();
    /// let x = cpu.alloc::<f32>(100 * 63)?;
    /// // Rows of 63 floats (252 bytes): not a multiple of 16 bytes, which TMA needs.
    /// let e = cpu.tma_array(x.tensor(Strided::row_major([100, 63]))?, [16, 32], TmaOobFill::Zero).err().unwrap();
    /// assert!(e.to_string().contains("multiples of 16 bytes"), "{e}");
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn tma_array<'a, T: DeviceElem + Element, const R: usize>(
        &self,
        tensor: DeviceTensor<'a, T, Strided<R>>,
        tile: [i64; R],
        fill: TmaOobFill,
    ) -> Result<TmaArray<'a, T, R>> {
        self.make_tma_array("tma_array", tensor, tile, tile, TmaSwizzle::None, fill)
    }

    /// The operand `tensor` of a block-tile product whose tiles arrive by TMA (`dot_range_tma`
    /// in `cute-rs-tensor`, Triton's tensor descriptors for `tl.dot`) with a tensor map for its
    /// tiles of shape `tile`, copied as the product stages them: in panels of at most 128 bytes
    /// per row (64 16-bit elements), each with the swizzle of its rows (the 128-byte swizzle for
    /// 128-byte rows), zeros outside the array.
    ///
    /// # Args
    /// - `tensor`: a matrix ([`DeviceBuffer::tensor`] through a `Strided<2>` layout).
    /// - `tile`: the shape of the product's operand tiles (`M x K` for A, `K x N` for B).
    ///
    /// # Errors
    /// [`HostError::Invalid`](crate::HostError::Invalid) naming the condition: those of
    /// [`tma_array`](Self::tma_array); a tile's rows are 16, 32, 64 or a multiple of 128 bytes.
    ///
    /// # Example
    /// ```
    /// use cute_rs_host::{Gpu, TmaSwizzle};
    /// use cute_rs_tensor::half::f16;
    /// use cute_rs_tensor::Strided;
    /// let cpu = Gpu::cpu();
    /// let b = cpu.alloc::<f16>(1000 * 4096)?;
    /// // B's 64 x 256 tiles: four panels of 64 x 64 (rows of 128 bytes), the 128-byte swizzle.
    /// let b = cpu.tma_dot_operand(b.tensor(Strided::row_major([1000, 4096]))?, [64, 256])?;
    /// assert_eq!((b.tile(), b.box_shape(), b.swizzle()), ([64, 256], [64, 64], TmaSwizzle::B128));
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn tma_dot_operand<'a, T: DeviceElem + Element>(&self, tensor: DeviceTensor<'a, T, Strided<2>>, tile: [i64; 2]) -> Result<TmaArray<'a, T, 2>> {
        let elem = core::mem::size_of::<T>() as i64;
        let panel = tile[1].min(128 / elem);
        let swizzle = match panel * elem {
            16 => TmaSwizzle::None,
            32 => TmaSwizzle::B32,
            64 => TmaSwizzle::B64,
            128 if tile[1] % panel == 0 => TmaSwizzle::B128,
            _ => invalid!(
                "tma_dot_operand: tile {tile:?} has rows of {} bytes; the staged panels need rows of 16, 32, 64 or a multiple of 128 bytes",
                tile[1] * elem
            ),
        };
        self.make_tma_array("tma_dot_operand", tensor, tile, [tile[0], panel], swizzle, TmaOobFill::Zero)
    }

    /// [`tma_array`](Self::tma_array) with boxes of `box_shape` landing with `swizzle`, its
    /// refusals named after `what`.
    fn make_tma_array<'a, T: DeviceElem + Element, const R: usize>(
        &self,
        what: &str,
        tensor: DeviceTensor<'a, T, Strided<R>>,
        tile: [i64; R],
        box_shape: [i64; R],
        swizzle: TmaSwizzle,
        fill: TmaOobFill,
    ) -> Result<TmaArray<'a, T, R>> {
        let layout = *tensor.layout();
        if R == 0 || R > crate::TMA_MAX_RANK {
            invalid!("{what}: the array has rank {R}; TMA takes 1 to {}", crate::TMA_MAX_RANK);
        }
        if layout.stride[R - 1] != 1 && layout.shape[R - 1] != 1 {
            invalid!(
                "{what}: the array's last dimension must have stride 1 (the map's innermost mode), it has stride {}",
                layout.stride[R - 1]
            );
        }
        // Checked here, in the array's order, before the casts below (the map's own message
        // would name the reversed modes).
        if let Some(&t) = box_shape.iter().find(|&&t| !(1..=crate::TMA_MAX_BOX_DIM as i64).contains(&t)) {
            invalid!("{what}: tile {tile:?} loads in boxes of {box_shape:?}, with extent {t}; TMA boxes have extents 1 to {}", crate::TMA_MAX_BOX_DIM);
        }
        // The map's modes are the array's, innermost first.
        let reversed: Strided<R> = Strided { shape: core::array::from_fn(|k| layout.shape[R - 1 - k]), stride: core::array::from_fn(|k| layout.stride[R - 1 - k]) };
        let box_dims: Vec<u32> = box_shape.iter().rev().map(|&t| t as u32).collect();
        let map = self.tensor_map(tensor.buffer(), reversed.layout(), &box_dims, swizzle, fill)?;
        let padding = match fill {
            TmaOobFill::Zero => T::ZERO,
            TmaOobFill::Nan => match tma_nan::<T>() {
                Some(nan) => nan,
                None => invalid!("{what}: a NaN fill needs a floating-point element type, not {}", T::NAME),
            },
        };
        Ok(TmaArray { tensor, map: self.upload_tensor_map(&map)?, tile, box_shape, swizzle, padding })
    }
}

/// An array with its map, for a kernel's `TmaArray<T, R>` parameter: the tensor, the map's
/// address in global memory, the box shape, the swizzle and the fill.
impl<T: DeviceElem + Element, const R: usize> KernelParam<cute_rs_tensor::tma_copy::TmaArray<T, R>> for &TmaArray<'_, T, R> {
    fn to_param(self) -> Result<cute_rs_tensor::tma_copy::TmaArray<T, R>> {
        if !self.map.device_ptr().is_multiple_of(64) {
            invalid!("tma_array argument: the tensor map at {:#x} is not 64-byte aligned", self.map.device_ptr());
        }
        let tensor = self.tensor.to_param()?;
        // SAFETY: the map was made by `make_tma_array` for this tensor with boxes of
        // `box_shape`, the swizzle and the fill `padding`; it lives in `self`, which the launch
        // borrows.
        Ok(unsafe {
            cute_rs_tensor::tma_copy::TmaArray::from_parts(
                tensor,
                self.map.device_ptr() as *const cute_rs_tensor::device::tma::TmaDescriptor,
                self.box_shape,
                self.swizzle.span_bytes().unwrap_or(0),
                self.padding,
            )
        })
    }
}
