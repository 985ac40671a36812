//! Triton semantics on the CPU: Triton's indirect load example against its torch-style reference,
//! and properties of masked loads/stores and block pointers.
#![allow(unsafe_op_in_unsafe_fn)] // the kernels' bodies are their unsafe operations

use cute_rs_tensor::triton::{get, make_block_ptr, tile_from_fn, Cg, Cs, EvictFirst, EvictLast, EvictNormal, EvictionPolicy, NoCache, NoEviction, Pointers, StoreCacheModifier, Wb, Wt};
use cute_rs_tensor::{static_layout, Fragment, LayoutTensor, Static};
use cute_rs_layout::Layout;
use proptest::prelude::*;

static_layout!(XTile = "4:1");
static_layout!(RTile = "16:1");
static_layout!(XRTile = "(4,16):(16,1)");
const XS: usize = 4;
const RS: usize = 16;

/// `triton_ldst_indirect_07_kernel`, program `pid` (as kernels/src/triton.rs).
unsafe fn ldst_indirect_07(pid: i64, out: *mut f32, xr: *const i64, xc: *const i64, x2: *const f32, stride_in_r: i64) {
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

/// `torch_ldst_indirect_07_func`: `x2.flatten()[(xr[:, None] * stride0 + xc[None, :]).flatten()]`.
fn torch_ref(xr: &[i64], xc: &[i64], x2: &[f32], stride0: i64) -> Vec<f32> {
    let mut out = Vec::new();
    for &r in xr {
        for &c in xc {
            out.push(x2[(r * stride0 + c) as usize]);
        }
    }
    out
}

#[test]
fn seed_indirect_load_example() {
    // offset = 8, N0, N1 = 16, 32, blocksize = 4: xc = 8 + arange(16), xr = arange(4),
    // x2 = randn(4, 32) (a fixed pseudo-random matrix here), one program (nr == xs).
    let (offset, n0, n1, blocksize) = (8i64, 16usize, 32usize, 4usize);
    let xc: Vec<i64> = (0..n0 as i64).map(|i| offset + i).collect();
    let xr: Vec<i64> = (0..blocksize as i64).collect();
    let x2: Vec<f32> = (0..blocksize * n1).map(|i| ((i * 2654435761usize) % 1000) as f32 / 100.0 - 5.0).collect();
    let stride_in_r = n1 as i64;
    let mut y0 = vec![f32::NAN; blocksize * n0];
    for pid in 0..(blocksize / XS) as i64 {
        unsafe { ldst_indirect_07(pid, y0.as_mut_ptr(), xr.as_ptr(), xc.as_ptr(), x2.as_ptr(), stride_in_r) };
    }
    assert_eq!(y0, torch_ref(&xr, &xc, &x2, stride_in_r));
}

static_layout!(T8 = "8:1");
static_layout!(T24 = "(2,4):(4,1)");
static_layout!(B23 = "(2,3):(3,1)");

proptest! {
    /// A masked load reads exactly the masked-in elements (a masked-out pointer may be wild: here
    /// it points out of the buffer) and gives `other` elsewhere; a masked store writes exactly them.
    #[test]
    fn masked_load_and_store_touch_exactly_the_mask(mask in prop::array::uniform8(any::<bool>()), other in -100i32..100, seed in 0i32..1000) {
        let mut data: Vec<i32> = (0..8).map(|i| seed + i).collect();
        let t = LayoutTensor::new(&mut data, Static::<T8>::new()).unwrap();
        let m = tile_from_fn::<bool, T8, 8, 1>(|[i]| mask[i as usize]);
        // Masked-out offsets far outside the buffer: never dereferenced.
        let offs = tile_from_fn::<isize, T8, 8, 1>(|[i]| if mask[i as usize] { 7 - i as isize } else { 1 << 40 });
        let p = unsafe { Pointers::new(&t, offs) };
        let v = p.load().mask(m).other(other).run();
        for i in 0..8 {
            let want = if mask[i] { seed + 7 - i as i32 } else { other };
            prop_assert_eq!(v.data[i], want);
        }
        let mut tile_other = Fragment::<i32, T8, 8>::new();
        tile_other.data = core::array::from_fn(|i| -(i as i32));
        let v = p.load().mask(m).other(tile_other).run();
        for i in 0..8 {
            prop_assert_eq!(v.data[i], if mask[i] { seed + 7 - i as i32 } else { -(i as i32) });
        }
        p.store_masked(-1, m);
        for i in 0..8 {
            prop_assert_eq!(data[7 - i], if mask[i] { -1 } else { seed + 7 - i as i32 });
        }
    }

    /// A 2-D pointer tile from a strided view: its offsets are the layout's, element by element.
    #[test]
    fn pointer_tile_offsets_are_the_layouts(row in 0i64..3) {
        let mut data: Vec<u32> = (0..32).collect();
        let t = LayoutTensor::new(&mut data, cute_rs_layout::Layout::parse("(8,4):(4,1)").unwrap()).unwrap();
        let view = t.tile(cute_rs_layout::Layout::parse("(2,4):(1,2)").unwrap(), [row, 0]).unwrap();
        let st = unsafe { view.with_layout(Static::<T24>::new()) };
        let p = Pointers::<_, _, 8>::from_tensor(&st);
        let v = p.load().run();
        for r in 0..2 {
            for c in 0..4 {
                prop_assert_eq!(get(&v, [r, c]), ((2 * row + r) * 4 + c) as u32);
            }
        }
    }

    /// Block pointers: boundary_check pads exactly the elements outside the checked dimensions
    /// (zero or NaN) and reads the others; advance moves the origin by the layout's offset.
    #[test]
    fn block_pointer_boundary_check_and_advance(
        rows in 1i64..6, cols in 1i64..7, r0 in -3i64..7, c0 in -3i64..8, dr in -2i64..3, dc in -2i64..3, nan in any::<bool>(),
    ) {
        let mut data: Vec<f32> = (0..rows * cols).map(|v| v as f32).collect();
        let base = data.as_mut_ptr();
        let b = unsafe { make_block_ptr::<f32, B23, 6, 2>(base, [rows, cols], [cols, 1], [r0, c0], [1, 0]) }.unwrap();
        let a = b.advance([dr, dc]);
        prop_assert_eq!(a.offsets(), [r0 + dr, c0 + dc]);
        prop_assert_eq!(a.origin_offset(), ((r0 + dr) * cols + c0 + dc) as isize);
        let load = a.load().boundary_check(&[0, 1]);
        let v = if nan { load.padding_nan().run() } else { load.padding_zero().run() };
        for i in 0..2 {
            for j in 0..3 {
                let (gr, gc) = (r0 + dr + i, c0 + dc + j);
                let got = get(&v, [i, j]);
                if gr >= 0 && gr < rows && gc >= 0 && gc < cols {
                    prop_assert_eq!(got, (gr * cols + gc) as f32);
                } else if nan {
                    prop_assert!(got.is_nan());
                } else {
                    prop_assert_eq!(got, 0.0);
                }
            }
        }
        // A checked store writes exactly the in-bounds elements.
        let mut ones = Fragment::<f32, B23, 6>::new();
        ones.data = [-1.0; 6];
        a.store(&ones, &[0, 1]).unwrap();
        for gr in 0..rows {
            for gc in 0..cols {
                let inside = gr >= r0 + dr && gr < r0 + dr + 2 && gc >= c0 + dc && gc < c0 + dc + 3;
                prop_assert_eq!(data[(gr * cols + gc) as usize], if inside { -1.0 } else { (gr * cols + gc) as f32 });
            }
        }
    }
}

#[test]
fn block_pointer_errors_are_clear() {
    let mut x = [0f32; 4];
    let r = unsafe { make_block_ptr::<f32, B23, 6, 2>(x.as_mut_ptr(), [2, 2], [2, 1], [0, 0], [0, 0]) };
    assert_eq!(r.err(), Some(cute_rs_tensor::triton::TritonError::OrderNotPermutation));
    let b = unsafe { make_block_ptr::<f32, B23, 6, 2>(x.as_mut_ptr(), [2, 2], [2, 1], [0, 0], [1, 0]) }.unwrap();
    assert_eq!(b.store(&Fragment::new(), &[2]).err(), Some(cute_rs_tensor::triton::TritonError::BoundaryDimension(2)));
}

/// Stores every masked-in element with store cache operator `C` and eviction policy `E`.
fn store_hinted<C: StoreCacheModifier, E: EvictionPolicy>(mask: [bool; 8], value: i32, c: C, e: E) -> [i32; 8] {
    let mut x = [-7i32; 8];
    let p = Pointers::<_, _, 8>::from_tensor(&LayoutTensor::new(&mut x, Static::<T8>::new()).unwrap());
    let m = tile_from_fn::<bool, T8, 8, 1>(|[i]| mask[i as usize]);
    p.store_with(value).mask(m).cache_modifier(c).eviction_policy(e).run();
    x
}

proptest! {
    /// `tl.store` with every store cache modifier and eviction policy writes exactly the
    /// masked-in elements (the hints change caching, never the values).
    #[test]
    fn hinted_stores_write_exactly_the_mask(mask in prop::array::uniform8(any::<bool>()), value in any::<i32>()) {
        let want: [i32; 8] = core::array::from_fn(|i| if mask[i] { value } else { -7 });
        prop_assert_eq!(store_hinted(mask, value, NoCache, NoEviction), want);
        prop_assert_eq!(store_hinted(mask, value, Wb, EvictLast), want);
        prop_assert_eq!(store_hinted(mask, value, Cg, EvictFirst), want);
        prop_assert_eq!(store_hinted(mask, value, Cs, EvictNormal), want);
        prop_assert_eq!(store_hinted(mask, value, Wt, NoEviction), want);
    }

    /// Scalar (0-d) loads read the one element, or give `other` (zero without it) without reading
    /// when masked out, even through a pointer past the end; scalar stores honour their mask.
    #[test]
    fn scalar_loads_and_stores(data in prop::collection::vec(any::<i64>(), 1..10), pick in 0usize..10, mask in any::<bool>(), other in any::<i64>()) {
        let n = data.len();
        let mut x = data.clone();
        let t = LayoutTensor::new(&mut x, Layout::parse(&format!("{n}:1")).unwrap()).unwrap();
        let inside = pick < n;
        let p = unsafe { Pointers::scalar(&t, pick as isize) };
        let m = mask && inside; // the kernel's bounds check
        prop_assert_eq!(p.load().mask(m).other(other).run_scalar(), if m { data[pick] } else { other });
        prop_assert_eq!(p.load().mask(m).cache_modifier(Cg).eviction_policy(EvictLast).run_scalar(), if m { data[pick] } else { 0 });
        if inside {
            prop_assert_eq!(p.load().volatile().run_scalar(), data[pick]);
        }
        p.store_with(other).mask(m).cache_modifier(Cs).run();
        for (i, v) in x.iter().enumerate() {
            prop_assert_eq!(*v, if m && i == pick { other } else { data[i] });
        }
    }
}

static_layout!(Column2 = "(2,1):(1,1)");
static_layout!(Row4 = "4:1");

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Triton's broadcasting: a `(2, 1)` mask and a 1-D `(4,)` `other` (aligned with the last
    /// mode) over a 2 x 4 tile, an `other` scalar of another type converted, and a stored `(4,)`
    /// row under a `(2, 1)` mask.
    #[test]
    fn masks_others_and_values_broadcast_by_tritons_rules(rows in prop::array::uniform2(any::<bool>()), cols in prop::array::uniform4(-1000i32..1000), scalar in -1000i16..1000) {
        let mut x: Vec<f32> = (0..8).map(|i| i as f32 * 1.5).collect();
        let original = x.clone();
        let t = LayoutTensor::new(&mut x, Static::<T24>::new()).unwrap();
        let p = Pointers::<_, _, 8>::from_tensor(&t);
        let mask = tile_from_fn::<bool, Column2, 2, 2>(|[r, _]| rows[r as usize]);
        let other = tile_from_fn::<f32, Row4, 4, 1>(|[c]| cols[c as usize] as f32);
        let by_tile = p.load().mask(mask).other(other).run();
        let by_scalar = p.load().mask(mask).other(scalar).run();
        for r in 0..2 {
            for c in 0..4 {
                let loaded = original[(r * 4 + c) as usize];
                prop_assert_eq!(get(&by_tile, [r, c]), if rows[r as usize] { loaded } else { cols[c as usize] as f32 });
                prop_assert_eq!(get(&by_scalar, [r, c]), if rows[r as usize] { loaded } else { scalar as f32 });
            }
        }
        let row = tile_from_fn::<f32, Row4, 4, 1>(|[c]| -(c as f32));
        p.store_masked(row, mask);
        for i in 0..8 {
            let (r, c) = (i / 4, i % 4);
            prop_assert_eq!(x[i], if rows[r] { -(c as f32) } else { original[i] });
        }
    }
}
