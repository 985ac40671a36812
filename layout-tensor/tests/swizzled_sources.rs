//! Swizzled layouts (static `Swizzled` and run-time `SwizzledLayout`) as tensor layouts: copies
//! keep every coordinate whatever runs the plain layouts allow, and the storage checks see the
//! swizzled offsets, not the inner layout's.

use cute_rs_tensor::{partition::Sw, static_layout, swizzled::Swizzled, LayoutSource, LayoutTensor};
use cute_rs_layout::{make_swizzled, Layout, LayoutError, Swizzle, SwizzledLayout};
use proptest::prelude::*;

static_layout!(ColMajor8 = "(8,8):(1,8)");

fn l(s: &str) -> Layout {
    Layout::parse(s).unwrap()
}

/// Every coordinate of `dst` holds `src`'s value at the same coordinate.
fn assert_same_elements<A: LayoutSource, B: LayoutSource>(dst: &LayoutTensor<'_, u32, A>, src: &LayoutTensor<'_, u32, B>) {
    for i in 0..src.size() {
        assert_eq!(dst.get(i), src.get(i), "index {i}");
    }
}

#[test]
fn copy_into_static_swizzled_tile_keeps_every_coordinate() {
    // Column-major inner layout: 8 contiguous elements per column, which Sw<3,0,3> scatters.
    let mut src: Vec<u32> = (0..64).collect();
    let mut dst = vec![u32::MAX; 64];
    let s = LayoutTensor::new(&mut src, l("(8,8):(1,8)")).unwrap();
    let d = LayoutTensor::new(&mut dst, Swizzled::<Sw<3, 0, 3>, ColMajor8>::new()).unwrap();
    d.copy_from(&s);
    for r in 0..8 {
        for c in 0..8 {
            assert_eq!(d.at([r, c]), s.at([r, c]), "({r},{c})");
        }
    }
    assert_eq!(Swizzled::<Sw<3, 0, 3>, ColMajor8>::new().run_cap(), 1);
    assert_eq!(Swizzled::<Sw<3, 2, 3>, ColMajor8>::new().run_cap(), 4);
    assert_eq!(Swizzled::<Sw<3, 2, 3>, ColMajor8>::new().moved(2).run_cap(), 2);
}

#[test]
fn runtime_swizzled_layout_round_trips_through_copy_from() {
    let sw = make_swizzled(Swizzle::new(2, 1, 3).unwrap(), l("(16,8):(1,16)"));
    let mut src: Vec<u32> = (0..128).map(|x| x * 3 + 1).collect();
    let mut mid = vec![u32::MAX; 128];
    let mut back = vec![u32::MAX; 128];
    let s = LayoutTensor::new(&mut src, l("(16,8):(8,1)")).unwrap();
    let m = LayoutTensor::new(&mut mid, sw).unwrap();
    m.copy_from(&s);
    assert_same_elements(&m, &s);
    // The swizzled storage is a permutation of the source's: every value lands once.
    let b = LayoutTensor::new(&mut back, l("(16,8):(8,1)")).unwrap();
    b.copy_from(&m);
    assert_same_elements(&b, &s);
    let mut sorted = mid.clone();
    sorted.sort();
    assert_eq!(sorted, (0..128).map(|x| x * 3 + 1).collect::<Vec<_>>());
    assert_eq!(back, src);
}

#[test]
fn storage_checks_use_the_swizzled_offsets() {
    // Sw<1,0,1> o 3:1 maps 2 to 3: three elements of storage are not enough.
    let sw = make_swizzled(Swizzle::new(1, 0, 1).unwrap(), l("3:1"));
    assert_eq!(sw.cosize(), 4);
    let mut three = [0u8; 3];
    match LayoutTensor::new(&mut three, sw) {
        Err(LayoutError::InvalidArgument { condition, value, .. }) => {
            assert!(condition.contains("cosize"), "{condition}");
            assert_eq!(value, 4);
        }
        other => panic!("{:?}", other.map(|t| t.size())),
    }
    let mut four = [0u8; 4];
    assert!(LayoutTensor::new(&mut four, sw).is_ok());
    // A negative offset before the swizzle would reach below the slice.
    let below = SwizzledLayout::new(Swizzle::new(1, 0, 1).unwrap(), -2, l("4:1"));
    let mut eight = [0u8; 8];
    match LayoutTensor::new(&mut eight, below) {
        Err(LayoutError::InvalidArgument { condition, value, .. }) => {
            assert!(condition.contains("non-negative"), "{condition}");
            assert!(value < 0);
        }
        other => panic!("{:?}", other.map(|t| t.size())),
    }
}

/// A swizzle (any valid `B`, `M`, `S`, including the identity `B = 0`) and an inner layout of a
/// 2-D shape, row- or column-major, maybe padded and with an origin.
fn swizzled_layouts() -> impl Strategy<Value = SwizzledLayout> {
    (0u32..=3, 0u32..=3, 0i32..=4, any::<bool>(), 1i64..=16, 1i64..=16, any::<bool>(), 0i64..=2, 0i64..=8).prop_filter_map(
        "a valid swizzle",
        |(b, m, s, neg, rows, cols, row_major, pad, origin)| {
            let s = if neg { -s.max(b as i32) } else { s.max(b as i32) };
            let sw = Swizzle::new(b, m, s).ok()?;
            let inner = if row_major {
                Layout::parse(&format!("({rows},{cols}):({},1)", cols + pad)).ok()?
            } else {
                Layout::parse(&format!("({rows},{cols}):(1,{})", rows + pad)).ok()?
            };
            Some(SwizzledLayout::new(sw, origin, inner))
        },
    )
}

proptest! {
    /// Copying a row-major matrix into a swizzled layout and back is the identity, and the
    /// swizzled tensor holds the source's value at every coordinate, for every element width
    /// (the runs `copy_from` moves as vectors depend on it).
    #[test]
    fn copy_into_swizzled_and_back_is_identity(sw in swizzled_layouts()) {
        let inner = sw.layout();
        let (rows, cols) = (inner.mode(0).unwrap().size(), inner.mode(1).unwrap().size());
        let plain = Layout::parse(&format!("({rows},{cols}):({cols},1)")).unwrap();
        let n = (rows * cols) as usize;
        let mut src: Vec<u32> = (0..n as u32).map(|x| x.wrapping_mul(2654435761)).collect();
        let mut mid = vec![0u32; sw.cosize() as usize];
        let mut back = vec![0u32; n];
        let s = LayoutTensor::new(&mut src, plain).unwrap();
        let m = LayoutTensor::new(&mut mid, sw).unwrap();
        m.copy_from(&s);
        for r in 0..rows {
            for c in 0..cols {
                prop_assert_eq!(m.at([r, c]), s.at([r, c]));
                prop_assert_eq!(m.offset_at([r, c]) as i64, sw.call(r + rows * c));
            }
        }
        let b = LayoutTensor::new(&mut back, plain).unwrap();
        b.copy_from(&m);
        prop_assert_eq!(&back, &src);
        // Narrower elements take wider vector runs: the same copy on bytes.
        let mut src8: Vec<u8> = (0..n).map(|x| x as u8).collect();
        let mut mid8 = vec![0u8; sw.cosize() as usize];
        let s8 = LayoutTensor::new(&mut src8, plain).unwrap();
        let m8 = LayoutTensor::new(&mut mid8, sw).unwrap();
        m8.copy_from(&s8);
        for i in 0..n {
            prop_assert_eq!(m8.get(i), s8.get(i));
        }
    }

    /// `cosize` is one past the largest offset and every offset lies below it.
    #[test]
    fn cosize_bounds_every_offset(sw in swizzled_layouts()) {
        let max = (0..sw.size()).map(|i| sw.call(i)).max().unwrap();
        prop_assert_eq!(sw.cosize(), max + 1);
        prop_assert_eq!(LayoutSource::cosize(&sw), max + 1);
    }
}

#[test]
fn hierarchical_coordinates_go_through_the_swizzle() {
    let sw = make_swizzled(Swizzle::new(2, 0, 2).unwrap(), l("((2,2),4):((4,8),1)"));
    let mut v = vec![0u32; 16];
    let t = LayoutTensor::new(&mut v, sw).unwrap();
    for i in 0..16 {
        t.set(i, i as u32 + 100);
    }
    for (c, i) in [("((1,0),3)", 1 + 4 * 3), ("((0,1),2)", 2 + 4 * 2), ("(3,1)", 3 + 4)] {
        let c = cute_rs_layout::IntTuple::parse(c).unwrap();
        assert_eq!(t.at_tuple(c).unwrap(), i as u32 + 100, "{c}");
    }
    t.set_tuple(cute_rs_layout::IntTuple::parse("((1,1),1)").unwrap(), 7).unwrap();
    assert_eq!(t.get(3 + 4), 7);
    assert!(t.at_tuple(cute_rs_layout::IntTuple::parse("(4,0)").unwrap()).is_err());
}
