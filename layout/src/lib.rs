//! # `layout`: CuTe's layout algebra, in `const fn`s, for the host and for GPU kernels
//!
//! A [`Layout`] is a pair of congruent nested integer tuples, `shape:stride`, read as a function from
//! coordinates to indices. Tiles, vectors and per-thread fragments are derived from layouts by the
//! algebra: [`coalesce`], [`composition`], [`complement`], the inverses, the divides and the products,
//! swizzles. Every operation has CuTe's name and gives C++ CuTe's exact result (checked against
//! cases computed by NVIDIA's headers), and every precondition is checked: an operation never returns
//! a silently wrong layout, it returns a [`LayoutError`] naming the violated condition and its values.
//!
//! ```
//! use cute_rs_layout::{unwrap, Layout, composition, logical_divide};
//! // Computed by the compiler:
//! const A: Layout = unwrap!(Layout::parse("(6,2):(8,2)"));
//! const B: Layout = unwrap!(Layout::parse("(4,3):(3,1)"));
//! const C: Layout = unwrap!(composition(A, B));
//! assert_eq!(C.to_string(), "((2,2),3):((24,2),8)");
//! let tiles = logical_divide(unwrap!(Layout::parse("(4,2,3):(2,1,8)")), unwrap!(Layout::parse("4:2")));
//! assert_eq!(tiles.unwrap().to_string(), "((2,2),(2,3)):((4,1),(2,8))");
//! ```
//!
//! ## Design: a `const fn` value algebra rather than type-level integers
//!
//! CuTe makes static-ness part of the type (`Int<4>` vs `int`) so that C++ templates fold static
//! index math. The design card suggested a const-generic or `typenum` algebra for Rust. We chose a
//! different route, for these reasons:
//!
//! * **One value type, every operation a `const fn`.** [`IntTuple`] holds up to [`MAX_LEAVES`]
//!   leaves and the nesting as a short token list; [`Layout`] is two of them. Both are `Copy`, use no
//!   heap and are `no_std`. Because the algebra is made of `const fn`s, a layout written in a `const`
//!   item (`const T: Layout = unwrap!(logical_divide(A, B))`) is computed by the compiler, and a
//!   violated precondition stops compilation with the same message a run-time caller gets
//!   ([`unwrap!`]).
//! * **Static layouts become constants in device code.** A kernel uses a `const` layout; its
//!   evaluator [`Layout::call`] is an `#[inline(always)]` loop over the real number of leaves, which is
//!   itself a constant, so LLVM unrolls it and folds every shape and stride: on `nvptx64` the index math
//!   of `(4,8,32):(256,1,8)` becomes masks, shifts, a multiply and adds, with no loop, no local
//!   memory and no division. A test in the workspace checks this on the generated PTX.
//! * **Run-time extents use the very same algebra.** A global tensor of run-time `M x N` is
//!   `Layout::new(shape, stride)` with run-time integers; tiling it by a compile-time tile calls the
//!   same `logical_divide`. CuTe gives up on much of the algebra with dynamic integers (complement of
//!   rank > 1, left inverse, coalescing only by flattening); here run-time values get the full
//!   algebra and the full checks, because nothing depends on where an integer came from.
//! * **Type-level integers were weighed and set aside.** With `typenum` (or nightly
//!   `generic_const_exprs`), every operation on nested tuples becomes trait machinery whose result
//!   types must be computed by the type checker: composition, complement and the divides are loops
//!   with data-dependent branching, which are awkward and slow to express as trait resolution, give
//!   poor error messages, and would need a second, run-time implementation for dynamic extents
//!   anyway. A `const fn` algebra gives the same folding for static layouts with one implementation.
//!   A typed view (`LayoutTensor<T, const L: Layout>`-like) can later carry a layout in a type through
//!   `const` items or associated constants, without changing the algebra.
//!
//! The cost of fixed capacity: a tuple holds at most [`MAX_LEAVES`] leaves and [`MAX_TOKENS`] nesting
//! tokens (depth is limited only by the tokens); exceeding them is a [`LayoutError::Capacity`] error.
//!
//! ## Notation
//! [`Layout`] and [`IntTuple`] print and parse CuTe's notation with no spaces
//! (`((2,2),3):((24,2),8)`); a 1-tuple keeps its parentheses (`(1):(1)` is not `1:1`).
//! [`print_layout`] prints the 2-D table of CuTe's `print_layout`.
//!
//! ## Where this differs from CuTe
//! * Preconditions CuTe leaves unchecked (or checks only for static values) are errors here:
//!   composition's conditions (refused exactly where CuTe's result would not be `A o B`),
//!   complement's injectivity and divisibility, `crd2idx`/`idx2crd` bounds.
//! * Where CuTe's composition is wrong or refused, a small one is retried as a function and its
//!   layout returned when one is `A o B` (checked at every index): e.g. `logical_product(5:2, 2:3)`.
//! * Integers are `i64` whatever their origin; results equal CuTe's for static integers.

#![no_std]
#![warn(missing_docs)]

mod arith;
mod cast;
mod coalesce;
mod complement;
mod composition;
mod coord;
mod divide;
pub mod distribution;
mod error;
mod int_tuple;
mod inverse;
mod layout;
mod notation;
mod print;
mod product;
mod slice;
#[cfg(feature = "proptest")]
pub mod strategies;
mod swizzle;
mod vector;

pub use cast::{downcast, upcast};
pub use coalesce::{coalesce, coalesce_by, filter, filter_zeros};
pub use complement::{complement, complement_cosize};
pub use composition::{composition, composition_by_mode};
pub use coord::{crd2idx, idx2crd};
pub use divide::{
    flat_divide, flat_divide_by_mode, logical_divide, logical_divide_by_mode, tiled_divide, tiled_divide_by_mode,
    zipped_divide, zipped_divide_by_mode,
};
pub use error::{LayoutError, Message};
pub use int_tuple::{IntTuple, MAX_LEAVES, MAX_TOKENS, UNDERSCORE};
pub use inverse::{left_inverse, nullspace, right_inverse};
pub use layout::{
    append, append_to_rank, cosize, depth, flatten, group, make_layout, make_layout_col_major, make_layout_like,
    make_layout_row_major, make_ordered_layout, prepend, rank, select, size, transpose, Layout,
};
pub use product::{
    blocked_product, flat_product, flat_product_by_mode, logical_product, logical_product_by_mode, raked_product,
    tile_to_shape, tiled_product, tiled_product_by_mode, zipped_product, zipped_product_by_mode,
};
pub use print::{print_layout, PrintLayout};
pub use slice::{slice, slice_and_offset};
pub use swizzle::{compose_swizzled, make_swizzled, Swizzle, SwizzledLayout};
pub use vector::{max_common_layout, max_common_vector};
