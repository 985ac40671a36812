//! `copy_from_async` on the host (the CPU semantics of `cp.async`: copies at once): a partial tile
//! of a global matrix lands in a shared tile with exactly its in-bounds elements copied and the
//! others zero-filled, for 4-byte and 2-byte elements, through whole runs (16-byte copies reading
//! an in-bounds prefix) and element by element; a clipped destination is written only in bounds.

use half::f16;
use cute_rs_layout::Layout;
use cute_rs_tensor::{async_copy_wait_all, Element, LayoutTensor, Shared};
use proptest::prelude::*;

/// A 16-byte aligned buffer of `n` elements (cp.async runs need aligned origins).
fn aligned<T: Element>(n: usize, f: impl Fn(usize) -> T) -> (Vec<u128>, *mut T) {
    let bytes = n * core::mem::size_of::<T>();
    let mut store = vec![0u128; bytes.div_ceil(16) + 1];
    let p = store.as_mut_ptr() as *mut T;
    for i in 0..n {
        unsafe { p.add(i).write(f(i)) };
    }
    (store, p)
}

/// Copies tile `(tr, tc)` at `coord` of the column-major `rows x cols` matrix with leading
/// dimension `ld` into a full shared tile, and checks every element of the tile.
fn check_zero_fill<T: Element + PartialEq + core::fmt::Debug>(
    rows: i64, cols: i64, ld: i64, tr: i64, tc: i64, coord: [i64; 2], val: impl Fn(usize) -> T,
) -> Result<(), TestCaseError> {
    let (_g, gp) = aligned((ld * cols) as usize, &val);
    let (_s, sp) = aligned((tr * tc) as usize, |_| val(usize::MAX / 2));
    let gl = Layout::parse(&format!("({rows},{cols}):(1,{ld})")).unwrap();
    let global = unsafe { LayoutTensor::<T, _>::from_ptr(gp, gl) };
    let tile = global.tile_masked(Layout::parse(&format!("({tr},{tc})")).unwrap(), coord).unwrap();
    let sl = Layout::parse(&format!("({tr},{tc}):(1,{tr})")).unwrap();
    let shared = unsafe { LayoutTensor::<T, _, Shared>::from_ptr_in(sp, sl) };
    shared.copy_from_async(&tile);
    async_copy_wait_all();
    for c in 0..tc {
        for r in 0..tr {
            let (gr, gc) = (coord[0] * tr + r, coord[1] * tc + c);
            let want = if gr < rows && gc < cols { val((gc * ld + gr) as usize) } else { T::ZERO };
            prop_assert_eq!(unsafe { sp.add((c * tr + r) as usize).read() }, want, "tile element ({}, {})", r, c);
        }
    }
    Ok(())
}

proptest! {
    /// f32, leading dimension a multiple of 4: 16-byte runs, the bottom tiles' runs partly in bounds.
    #[test]
    fn masked_tiles_zero_fill_exactly_the_overhang_f32(
        rows in 1i64..20, cols in 1i64..7, pad in 0i64..2, tr in prop::sample::select(vec![4i64, 8]), tc in 1i64..4,
        cr in 0i64..6, cc in 0i64..4,
    ) {
        let ld = (rows + 3) / 4 * 4 + 4 * pad;
        check_zero_fill::<f32>(rows, cols, ld, tr, tc, [cr, cc], |i| i as f32 + 1.0)?;
        // An odd leading dimension has no runs: one 4-byte copy per element.
        check_zero_fill::<f32>(rows, cols, rows | 1, tr, tc, [cr, cc], |i| i as f32 + 1.0)?;
    }

    /// f16: 16-byte runs of eight halves, or synchronous 2-byte copies without runs.
    #[test]
    fn masked_tiles_zero_fill_exactly_the_overhang_f16(
        rows in 1i64..20, cols in 1i64..5, tr in prop::sample::select(vec![8i64, 16]), tc in 1i64..3, cr in 0i64..3, cc in 0i64..3,
    ) {
        let half = |i: usize| f16::from_f32((i % 2000) as f32 + 1.0);
        check_zero_fill::<f16>(rows, cols, (rows + 7) / 8 * 8, tr, tc, [cr, cc], half)?;
        check_zero_fill::<f16>(rows, cols, rows | 1, tr, tc, [cr, cc], half)?;
    }

    /// A clipped destination (a partial tile of a shared matrix) is written exactly in bounds.
    #[test]
    fn clipped_destination_is_written_only_in_bounds(rows in 1i64..12, cols in 1i64..12, cr in 0i64..3, cc in 0i64..3) {
        let n = (rows * cols) as usize;
        let mut g: Vec<u64> = (0..n as u64).map(|x| x + 1).collect();
        let mut s = vec![u64::MAX; n];
        let l = Layout::parse(&format!("({rows},{cols}):({cols},1)")).unwrap();
        let tile = Layout::parse("(4,4)").unwrap();
        let global = LayoutTensor::new(&mut g, l).unwrap().tile_masked(tile, [cr, cc]).unwrap();
        let shared = unsafe { LayoutTensor::<u64, _, Shared>::from_ptr_in(s.as_mut_ptr(), l) }.tile_masked(tile, [cr, cc]).unwrap();
        shared.copy_from_async(&global);
        async_copy_wait_all();
        for r in 0..rows {
            for c in 0..cols {
                let inside = r / 4 == cr && c / 4 == cc;
                let i = (r * cols + c) as usize;
                prop_assert_eq!(s[i], if inside { i as u64 + 1 } else { u64::MAX });
            }
        }
    }
}

/// A clipped destination of 1- or 2-byte elements, the source a masked tile of a column-major
/// matrix (runs along its columns) whose origin may be shifted off the 16-byte grid: in-bounds
/// elements copied, the source's overhang zero-filled, nothing written outside the destination's
/// bounds, whatever pieces were used.
#[allow(clippy::too_many_arguments)]
fn check_clipped_small<T: Element + PartialEq + core::fmt::Debug + Copy>(
    rows: i64, cols: i64, shift: usize, at_src: [i64; 2], at_dst: [i64; 2], val: impl Fn(usize) -> T, poison: T,
) -> Result<(), TestCaseError> {
    let ld = 64i64;
    let n = (cols * ld) as usize;
    let (_g, gp) = aligned(n + 16, |i| if i >= shift { val(i - shift) } else { poison });
    let (_s, sp) = aligned(n + 16, |_| poison);
    let l = Layout::parse(&format!("({rows},{cols}):(1,{ld})")).unwrap();
    let tile = Layout::parse("(32,4)").unwrap();
    let global = unsafe { LayoutTensor::<T, _>::from_ptr(gp.add(shift), l) }.tile_masked(tile, at_src).unwrap();
    let shared = unsafe { LayoutTensor::<T, _, Shared>::from_ptr_in(sp.add(shift), l) }.tile_masked(tile, at_dst).unwrap();
    shared.copy_from_async(&global);
    async_copy_wait_all();
    for i in 0..n {
        let (r, c) = ((i as i64) % ld, (i as i64) / ld);
        let (tr, tc) = (r - at_dst[0] * 32, c - at_dst[1] * 4);
        let got = unsafe { sp.add(shift + i).read() };
        if r < rows && (0..32).contains(&tr) && (0..4).contains(&tc) {
            let (gr, gc) = (at_src[0] * 32 + tr, at_src[1] * 4 + tc);
            let want = if gr < rows && gc < cols { val((gc * ld + gr) as usize) } else { T::ZERO };
            prop_assert_eq!(got, want, "destination ({}, {})", r, c);
        } else {
            prop_assert_eq!(got, poison, "outside the destination, ({}, {})", r, c);
        }
    }
    Ok(())
}

proptest! {
    /// 1- and 2-byte elements: 16-, 8- or 4-byte pieces (by the shift), pieces cut by the
    /// destination's bounds element by element.
    #[test]
    fn clipped_destinations_of_small_elements_are_packed_correctly(
        rows in 1i64..64, cols in 1i64..12, shift in 0usize..9, sr in 0i64..2, sc in 0i64..3, dr in 0i64..2, dc in 0i64..3,
    ) {
        let (s, d) = ([sr, sc], [dr, dc]);
        check_clipped_small::<u16>(rows, cols, shift, s, d, |i| (i % 60000) as u16 + 1, u16::MAX)?;
        check_clipped_small::<u8>(rows, cols, shift, s, d, |i| (i % 250) as u8 + 1, u8::MAX)?;
        check_clipped_small::<f16>(rows, cols, shift, s, d, |i| f16::from_f32((i % 1000) as f32 + 1.0), f16::from_f32(-7.0))?;
    }
}

#[test]
#[should_panic(expected = "copy_from_async: the tensors' sizes differ")]
fn sizes_must_match() {
    let mut g = [0u32; 4];
    let mut s = [0u32; 8];
    let global = LayoutTensor::new(&mut g, Layout::parse("4:1").unwrap()).unwrap();
    let shared = unsafe { LayoutTensor::<u32, _, Shared>::from_ptr_in(s.as_mut_ptr(), Layout::parse("8:1").unwrap()) };
    shared.copy_from_async(&global);
}
