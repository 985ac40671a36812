//! [proptest](https://docs.rs/proptest) strategies for layouts that are valid by construction, for
//! property tests of code built on the algebra (the `proptest` feature).
//!
//! * [`layouts`]: any layout (nested up to depth 3, strides of both signs and 0);
//! * [`injective_layouts`]: one-to-one layouts (compact strides, in any order, with gaps), which
//!   meet the preconditions of `complement` and `left_inverse`;
//! * [`layouts_within`]: layouts of non-negative strides whose indices stay below a cosize, e.g.
//!   the buffer a tensor views;
//! * [`dividing_tiles`]: a layout with a by-mode tiler whose every tile divides its mode, as
//!   `logical_divide` and `zipped_divide` by mode need.
//!
//! ```
//! use cute_rs_layout::strategies::injective_layouts;
//! use proptest::prelude::*;
//! use proptest::test_runner::TestRunner;
//! let mut runner = TestRunner::default();
//! runner.run(&injective_layouts(4, 8), |l| {
//!     let mut seen = std::collections::BTreeSet::new();
//!     for i in 0..l.size() {
//!         prop_assert!(seen.insert(l.call(i)));
//!     }
//!     Ok(())
//! }).unwrap();
//! ```

extern crate std;

use std::vec::Vec;

use proptest::collection::vec;
use proptest::prelude::*;

use crate::int_tuple::IntTuple;
use crate::layout::{make_layout_col_major, Layout};

/// Groups `leaves` into a random nesting of depth at most 3 (the same for shape and stride).
fn nested(shapes: &[i64], strides: &[i64], cuts: &[u8]) -> Layout {
    // Leaves are split into up to 4 consecutive groups, each group again into up to 2.
    fn group(vals: &[i64], cuts: &[u8], depth: usize) -> IntTuple {
        if vals.len() == 1 && (depth == 0 || cuts.first().is_none_or(|c| c % 2 == 0)) {
            return IntTuple::int(vals[0]);
        }
        if depth == 0 {
            return IntTuple::from_slice(vals).expect("at most MAX_LEAVES leaves");
        }
        let parts = 1 + cuts.first().map_or(0, |c| (*c as usize) % 4).min(vals.len() - 1);
        let mut t = IntTuple::empty();
        let per = vals.len().div_ceil(parts);
        for chunk in vals.chunks(per) {
            t = t.push(group(chunk, cuts.get(1..).unwrap_or(&[]), depth - 1)).expect("fits");
        }
        t
    }
    Layout::new(group(shapes, cuts, 3), group(strides, cuts, 3)).expect("a valid layout by construction")
}

/// Any layout of 1 to `max_leaves` leaves (at most 8 is sensible) with shapes `1..=max_shape` and
/// strides in `-64..=64`, nested up to depth 3.
///
/// # Example
/// ```
/// use cute_rs_layout::{coalesce, strategies::layouts};
/// use proptest::test_runner::TestRunner;
/// TestRunner::default().run(&layouts(4, 6), |l| {
///     let c = coalesce(l);
///     for i in 0..l.size() { assert_eq!(c.call(i), l.call(i)); }
///     Ok(())
/// }).unwrap();
/// ```
pub fn layouts(max_leaves: usize, max_shape: i64) -> BoxedStrategy<Layout> {
    (1..=max_leaves.clamp(1, 8))
        .prop_flat_map(move |n| (vec(1..=max_shape.max(1), n), vec(-64i64..=64, n), vec(any::<u8>(), 4)))
        .prop_map(|(s, d, cuts)| nested(&s, &d, &cuts))
        .boxed()
}

/// Compact strides for `shapes` laid out in `order`, with `gaps[k]` times the extent before each.
fn chained(shapes: &[i64], order: &[usize], gaps: &[i64]) -> Vec<i64> {
    let mut d = std::vec![0i64; shapes.len()];
    let mut cur = 1i64;
    for (k, &i) in order.iter().enumerate() {
        cur *= gaps[k];
        d[i] = cur;
        cur *= shapes[i];
    }
    d
}

/// One-to-one layouts: compact strides in a random order of the modes, with gaps (x1, x2 or x3)
/// between them, so that every stride is a multiple of the extent below it.
///
/// # Example
/// ```
/// use cute_rs_layout::{complement, strategies::injective_layouts};
/// use proptest::test_runner::TestRunner;
/// TestRunner::default().run(&injective_layouts(4, 6), |l| {
///     assert!(complement(l, l.cosize()).is_ok());
///     Ok(())
/// }).unwrap();
/// ```
pub fn injective_layouts(max_leaves: usize, max_shape: i64) -> BoxedStrategy<Layout> {
    (1..=max_leaves.clamp(1, 8))
        .prop_flat_map(move |n| {
            (
                vec(1..=max_shape.max(1), n),
                Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                vec(prop_oneof![4 => Just(1i64), 1 => Just(2i64), 1 => Just(3i64)], n),
                vec(any::<u8>(), 4),
            )
        })
        .prop_map(|(s, order, gaps, cuts)| nested(&s, &chained(&s, &order, &gaps), &cuts))
        .boxed()
}

/// Layouts of non-negative strides whose every index is below `cosize` (`cosize >= 1`): compact
/// column-major layouts of at most 4 modes scaled down to fit, with some strides set to 0.
///
/// # Example
/// ```
/// use cute_rs_layout::strategies::layouts_within;
/// use proptest::test_runner::TestRunner;
/// TestRunner::default().run(&layouts_within(100), |l| {
///     assert!(l.cosize() <= 100);
///     Ok(())
/// }).unwrap();
/// ```
pub fn layouts_within(cosize: i64) -> BoxedStrategy<Layout> {
    let cosize = cosize.max(1);
    (vec(1i64..=8, 1..=4), vec(any::<bool>(), 4), vec(any::<u8>(), 4))
        .prop_map(move |(mut s, zero, cuts)| {
            // Shrink the shape until the compact layout fits.
            while s.iter().product::<i64>() > cosize {
                let k = s.iter().enumerate().max_by_key(|(_, v)| **v).map(|(k, _)| k).unwrap_or(0);
                s[k] = (s[k] / 2).max(1);
            }
            let compact = make_layout_col_major(IntTuple::from_slice(&s).expect("fits")).expect("fits");
            let d: Vec<i64> = compact.stride().leaves().iter().zip(&zero).map(|(&d, &z)| if z { 0 } else { d }).collect();
            nested(&s, &d, &cuts)
        })
        .boxed()
}

/// A compact column-major layout of rank 1 to 3 and, for each of its modes, a tile (a compact
/// layout) whose size divides the mode's: `(layout, tiles)` for the by-mode divides.
///
/// # Example
/// ```
/// use cute_rs_layout::{logical_divide_by_mode, strategies::dividing_tiles};
/// use proptest::test_runner::TestRunner;
/// TestRunner::default().run(&dividing_tiles(), |(l, tiles)| {
///     assert_eq!(logical_divide_by_mode(l, &tiles).unwrap().size(), l.size());
///     Ok(())
/// }).unwrap();
/// ```
pub fn dividing_tiles() -> BoxedStrategy<(Layout, Vec<Layout>)> {
    vec((1i64..=6, 1i64..=4), 1..=3)
        .prop_map(|modes| {
            let shape: Vec<i64> = modes.iter().map(|(t, q)| t * q).collect();
            let l = make_layout_col_major(IntTuple::from_slice(&shape).expect("fits")).expect("fits");
            let tiles = modes.iter().map(|&(t, _)| Layout::int(t, 1).expect("fits")).collect();
            (l, tiles)
        })
        .boxed()
}
