//! Triton's `tl.load`/`tl.store` on the GPU, written with `cute_rs_tensor::triton`: Triton's
//! indirect load example (`triton_ldst_indirect_07_kernel`), one Triton program per block.

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::block_idx_x;
use cute_rs_tensor::triton::{get, tile_from_fn, Pointers};
use cute_rs_tensor::{static_layout, LayoutTensor, Static};

/// `XS` of Triton's example: rows per program (`blocksize`).
pub const XS: usize = 4;
/// `RS` of Triton's example: columns gathered (`N0`).
pub const RS: usize = 16;

static_layout!(
    /// `tl.arange(0, XS)`.
    pub XTile = "4:1"
);
static_layout!(
    /// `tl.arange(0, RS)`.
    pub RTile = "16:1"
);
static_layout!(
    /// The `XS x RS` tile of `tmp0[:, None] * stride_in_r + tmp1[None, :]` (row-major registers).
    pub XRTile = "(4,16):(16,1)"
);

/// The body of `triton_ldst_indirect_07_kernel` for program `pid`, line by line:
/// `in_idx0 = pid * XS + arange(XS)`, `tmp0 = load(in_ptr0 + in_idx0)`,
/// `tmp1 = load(in_ptr1 + arange(RS))`, `in_idx2 = tmp0[:, None] * stride_in_r + tmp1[None, :]`,
/// `tmp2 = load(in_ptr2 + in_idx2)`, `store(out_ptr0 + in_idx0[:, None] * RS + in_idx1[None, :], tmp2)`.
/// Runs on the CPU on host pointers as well.
///
/// # Safety
/// `xr` holds `(pid + 1) * XS` indices, `xc` `RS`, every `xr[r] * stride_in_r + xc[c]` is an index
/// of `x2`, and `out` holds `(pid + 1) * XS * RS` floats.
#[inline(always)]
pub unsafe fn ldst_indirect_07(pid: i64, out: *mut f32, xr: *const i64, xc: *const i64, x2: *const f32, stride_in_r: i64) {
    let in_ptr0 = LayoutTensor::<i64, _>::from_ptr(xr as *mut i64, Static::<XTile>::new());
    let in_ptr1 = LayoutTensor::<i64, _>::from_ptr(xc as *mut i64, Static::<RTile>::new());
    let in_ptr2 = LayoutTensor::<f32, _>::from_ptr(x2 as *mut f32, Static::<XTile>::new());
    let out_ptr0 = LayoutTensor::<f32, _>::from_ptr(out, Static::<XTile>::new());
    let xs = XS as i64;
    let in_idx0 = tile_from_fn::<isize, XTile, 4, 1>(|[i]| (pid * xs + i) as isize);
    let tmp0 = Pointers::new(&in_ptr0, in_idx0).load().run();
    let tmp1 = Pointers::<_, _, 16>::from_tensor(&in_ptr1).load().run();
    let in_idx2 = tile_from_fn::<isize, XRTile, 64, 2>(|[r, c]| (get(&tmp0, [r]) * stride_in_r + get(&tmp1, [c])) as isize);
    let tmp2 = Pointers::new(&in_ptr2, in_idx2).load().run();
    let out0_idx = tile_from_fn::<isize, XRTile, 64, 2>(|[r, c]| ((pid * xs + r) * RS as i64 + c) as isize);
    Pointers::new(&out_ptr0, out0_idx).store(tmp2);
}

/// `triton_ldst_indirect_07_kernel[nr // XS, 1, 1](out, xr, xc, x2, stride_in_r)`: program
/// `block_idx_x()` runs [`ldst_indirect_07`] (one thread per block).
///
/// Preconditions: those of [`ldst_indirect_07`] for the last block; block `(1,1,1)`.
#[kernel]
pub fn triton_ldst_indirect_07(out: *mut f32, xr: *const i64, xc: *const i64, x2: *const f32, stride_in_r: i64) {
    ldst_indirect_07(block_idx_x() as i64, out, xr, xc, x2, stride_in_r);
}

static_layout!(
    /// A thread's 4 consecutive elements (`tl.arange(0, 4)`).
    pub Quad = "4:1"
);
static_layout!(
    /// A 2 x 4 block (row-major registers) of [`triton_block_pad_f32`].
    pub Block24 = "(2,4):(4,1)"
);

/// A masked copy the Triton way: thread `t` of program `pid` has `offs = (pid * 256 + t) * 4 +
/// arange(4)`, loads `load(src + offs, mask=offs < n, other=other, cache_modifier=".cg",
/// eviction_policy="evict_first")` and stores the tile to `dst + offs` unmasked: `dst[i]` is
/// `src[i]` below `n`, `other` from `n` on.
///
/// Preconditions: `src` holds `n` floats, `dst` `grid * 1024`; block `(256,1,1)`.
#[kernel]
pub fn triton_masked_copy_f32(src: *const f32, dst: *mut f32, n: i64, other: f32) {
    use cute_rs_tensor::device::ids::thread_idx_x;
    use cute_rs_tensor::triton::{Cg, EvictFirst};
    let first = (block_idx_x() as i64 * 256 + thread_idx_x() as i64) * 4;
    let offs = tile_from_fn::<isize, Quad, 4, 1>(|[i]| (first + i) as isize);
    let mask = tile_from_fn::<bool, Quad, 4, 1>(|[i]| first + i < n);
    let src = LayoutTensor::<f32, _>::from_ptr(src as *mut f32, Static::<Quad>::new());
    let dst = LayoutTensor::<f32, _>::from_ptr(dst, Static::<Quad>::new());
    let x = Pointers::new(&src, offs).load().mask(mask).other(other).cache_modifier(Cg).eviction_policy(EvictFirst).run();
    Pointers::new(&dst, offs).store(x);
}

/// Volatile loads of `bool`s, the Triton way: thread `t` of program `pid` loads
/// `load(src + offs, mask=offs < n, other=True, volatile=True)` for `offs = (pid * 256 + t) * 4 +
/// arange(4)` of a tensor of `bool`s (`src`'s bytes are each 0 or 1) and stores each as a `u32`
/// at `dst + offs`: `dst[i]` is `src[i]` below `n`, 1 from `n` on.
///
/// Preconditions: `src` holds `n` bytes, each 0 or 1, `dst` `grid * 1024` values; block `(256,1,1)`.
#[kernel]
pub fn triton_volatile_bool(src: *const u8, dst: *mut u32, n: i64) {
    use cute_rs_tensor::device::ids::thread_idx_x;
    let first = (block_idx_x() as i64 * 256 + thread_idx_x() as i64) * 4;
    let offs = tile_from_fn::<isize, Quad, 4, 1>(|[i]| (first + i) as isize);
    let mask = tile_from_fn::<bool, Quad, 4, 1>(|[i]| first + i < n);
    let src = LayoutTensor::<bool, _>::from_ptr(src as *mut bool, Static::<Quad>::new());
    let x = Pointers::new(&src, offs).load().mask(mask).other(true).volatile().run();
    for i in 0..4 {
        unsafe { *dst.add(first as usize + i) = x.data[i] as u32 };
    }
}

/// Block pointers with boundary checks: thread `(x, 0)` of block `(0, y)` loads the 2 x 4 block
/// at `(2y, 4x)` of the `rows x cols` row-major `src` (`make_block_ptr`,
/// `boundary_check=(0, 1)`, `padding_option="nan"`) and stores it, unchecked, at the same place
/// of the row-major `dst` with `dst_cols` columns: `dst` is `src` padded with NaN.
///
/// Preconditions: `dst` holds `2 * grid_y` rows of `dst_cols = 4 * block_x` floats; block
/// `(dst_cols / 4, 1, 1)`.
#[kernel]
pub fn triton_block_pad_f32(src: *const f32, dst: *mut f32, rows: i64, cols: i64, dst_cols: i64) {
    use cute_rs_tensor::device::ids::{block_idx_y, thread_idx_x};
    use cute_rs_tensor::triton::{make_block_ptr, Cg};
    let at = [2 * block_idx_y() as i64, 4 * thread_idx_x() as i64];
    let dst_rows = 2 * cute_rs_tensor::device::ids::grid_dim_y() as i64;
    let (Ok(s), Ok(d)) = (
        make_block_ptr::<f32, Block24, 8, 2>(src as *mut f32, [rows, cols], [cols, 1], at, [1, 0]),
        make_block_ptr::<f32, Block24, 8, 2>(dst, [dst_rows, dst_cols], [dst_cols, 1], at, [1, 0]),
    ) else {
        return;
    };
    let v = s.load().boundary_check(&[0, 1]).padding_nan().cache_modifier(Cg).run();
    let _ = d.store(&v, &[]);
}

/// Scalar (0-d) loads and a hinted store: every thread loads `scale = load(params)` and
/// `bias = load(params + 1, mask=has_bias != 0, other=0.0)` (scalars), then its 4 elements
/// `x = load(src + offs, mask=offs < n)` as in [`triton_masked_copy_f32`], and stores
/// `x * scale + bias` with `store(dst + offs, ..., mask=offs < n, cache_modifier=".cs",
/// eviction_policy="evict_first")`: `dst` is untouched from `n` on.
///
/// Preconditions: `src` and `dst` hold `n` floats, `params` 2 (1 when `has_bias == 0`: the
/// masked-out scalar is never read); block `(256,1,1)`, grid covering `n` by 1024.
#[kernel]
pub fn triton_scalar_affine_f32(src: *const f32, dst: *mut f32, params: *const f32, has_bias: i32, n: i64) {
    use cute_rs_tensor::device::ids::thread_idx_x;
    use cute_rs_tensor::triton::{Cs, EvictFirst};
    let params = LayoutTensor::<f32, _>::from_ptr(params as *mut f32, Static::<cute_rs_tensor::triton::Scalar>::new());
    let scale = Pointers::scalar(&params, 0).load().run_scalar();
    let bias = Pointers::scalar(&params, 1).load().mask(has_bias != 0).other(0.0).run_scalar();
    let first = (block_idx_x() as i64 * 256 + thread_idx_x() as i64) * 4;
    let offs = tile_from_fn::<isize, Quad, 4, 1>(|[i]| (first + i) as isize);
    let mask = tile_from_fn::<bool, Quad, 4, 1>(|[i]| first + i < n);
    let src = LayoutTensor::<f32, _>::from_ptr(src as *mut f32, Static::<Quad>::new());
    let dst = LayoutTensor::<f32, _>::from_ptr(dst, Static::<Quad>::new());
    let x = Pointers::new(&src, offs).load().mask(mask).run();
    let y = tile_from_fn::<f32, Quad, 4, 1>(|[i]| get(&x, [i]) * scale + bias);
    Pointers::new(&dst, offs).store_with(y).mask(mask).cache_modifier(Cs).eviction_policy(EvictFirst).run();
}

static_layout!(
    /// A `(2, 1)` tile: a mask of [`triton_broadcast_f32`]'s two rows.
    pub Column2 = "(2,1):(1,1)"
);

/// Triton's broadcasting: thread `t` loads the 2 x 4 block at rows `2t, 2t + 1` of the row-major
/// `src` (4 columns) with `mask=(rows_of_t < n_rows)[:, None]` (a `(2, 1)` tile), once with
/// `other=fill[None, :]` (a 1-D row of 4, read from `fill`) into `dst`, once with `other=-1` (an
/// `i32` scalar, converted to `f32`) into `dst_scalar`, both stored unmasked.
///
/// Preconditions: `src` holds `4 * n_rows` floats, `fill` 4, `dst` and `dst_scalar` `8 * block_x`;
/// grid `(1,1,1)`.
#[kernel]
pub fn triton_broadcast_f32(src: *const f32, fill: *const f32, dst: *mut f32, dst_scalar: *mut f32, n_rows: i64) {
    use cute_rs_tensor::device::ids::thread_idx_x;
    let first = 2 * thread_idx_x() as i64;
    let fill = LayoutTensor::<f32, _>::from_ptr(fill as *mut f32, Static::<Quad>::new());
    let fill = Pointers::<_, _, 4>::from_tensor(&fill).load().run();
    let offs = tile_from_fn::<isize, Block24, 8, 2>(|[r, c]| ((first + r) * 4 + c) as isize);
    let mask = tile_from_fn::<bool, Column2, 2, 2>(|[r, _]| first + r < n_rows);
    let src = LayoutTensor::<f32, _>::from_ptr(src as *mut f32, Static::<Quad>::new());
    let by_tile = Pointers::new(&src, offs).load().mask(mask).other(fill).run();
    let by_scalar = Pointers::new(&src, offs).load().mask(mask).other(-1).run();
    let dst = LayoutTensor::<f32, _>::from_ptr(dst, Static::<Quad>::new());
    let dst_scalar = LayoutTensor::<f32, _>::from_ptr(dst_scalar, Static::<Quad>::new());
    Pointers::new(&dst, offs).store(by_tile);
    Pointers::new(&dst_scalar, offs).store(by_scalar);
}
