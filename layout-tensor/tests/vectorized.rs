//! `vectorize_by` (Mojo's `vectorize[*vector_shape]`): vectors along any modes.
//!
//! Property tests over random layouts (rank 1 to 3, flat and nested modes, any mode order,
//! padded strides, bases of every alignment) and vector shapes dividing them: every element of
//! the tensor is in exactly one vector; element `j` of vector `v` is the tensor's element at
//! `outer(v) * vector_shape + elem(j)`; stores land there and nowhere else, and load back; the
//! single-access decision is exactly "contiguous and every vector aligned"; contiguous vectors
//! agree with the old `vectorize::<W>()`. Fixed cases check the static API against the run-time
//! one and the errors.

use core::fmt::Debug;

use cute_rs_tensor::vectorized::VectorizedTensor;
use cute_rs_tensor::{static_layout, Element, LayoutSource, LayoutTensor, Static, Vector};
use cute_rs_layout::{Layout, LayoutError};
use proptest::prelude::*;

fn l(s: &str) -> Layout {
    Layout::parse(s).unwrap()
}

/// Element values: distinct for distinct `usize`s below the sizes used here.
trait Val: Element + PartialEq + Debug {
    fn of(x: usize) -> Self;
}
impl Val for u16 {
    fn of(x: usize) -> Self {
        x as u16
    }
}
impl Val for u32 {
    fn of(x: usize) -> Self {
        x as u32
    }
}
impl Val for u64 {
    fn of(x: usize) -> Self {
        x as u64
    }
}

/// A 16-byte aligned buffer of `len` elements of `T`, starting `shift` elements past an aligned
/// address (so the base has every alignment the tests need).
struct Buf<T> {
    chunks: Vec<Chunk>,
    shift: usize,
    len: usize,
    _t: core::marker::PhantomData<T>,
}
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Chunk([u8; 16]);

impl<T: Val> Buf<T> {
    fn new(len: usize, shift: usize) -> Self {
        let bytes = (len + shift) * core::mem::size_of::<T>();
        let mut b = Buf { chunks: vec![Chunk([0; 16]); bytes.div_ceil(16)], shift, len, _t: core::marker::PhantomData };
        for (k, x) in b.slice().iter_mut().enumerate() {
            *x = T::of(SENTINEL + k);
        }
        b
    }
    fn slice(&mut self) -> &mut [T] {
        // SAFETY: the chunks hold at least `(shift + len) * size_of::<T>()` bytes, 16-aligned.
        unsafe { core::slice::from_raw_parts_mut((self.chunks.as_mut_ptr() as *mut T).add(self.shift), self.len) }
    }
}

/// Values of memory the tests never write (padding): `SENTINEL + offset`.
const SENTINEL: usize = 20_000;
/// Values stored through the vectorized view: `STORED + 1-D index in the tensor`.
const STORED: usize = 40_000;

/// The tensor's 1-D index of a per-mode coordinate (colexicographic over the modes' sizes).
fn index_of(a: Layout, coord: &[i64]) -> usize {
    let mut idx = 0;
    let mut scale = 1;
    for (k, &c) in coord.iter().enumerate().take(a.rank()) {
        let size = a.mode(k).unwrap().size();
        assert!((0..size).contains(&c), "coordinate {coord:?} outside mode {k} of {a}");
        idx += c * scale;
        scale *= size;
    }
    idx as usize
}

/// `v.load(coord)` for a rank-`rank` view, from a coordinate padded to three entries.
fn load_at<T: Val, const N: usize, O: LayoutSource, E: LayoutSource>(v: &VectorizedTensor<'_, T, N, O, E>, c: [i64; 3], rank: usize) -> [T; N] {
    match rank {
        1 => v.load([c[0]]),
        2 => v.load([c[0], c[1]]),
        _ => v.load(c),
    }
}

/// `v.store(coord, x)` for a rank-`rank` view.
fn store_at<T: Val, const N: usize, O: LayoutSource, E: LayoutSource>(v: &VectorizedTensor<'_, T, N, O, E>, c: [i64; 3], rank: usize, x: [T; N]) {
    match rank {
        1 => v.store([c[0]], x),
        2 => v.store([c[0], c[1]], x),
        _ => v.store(c, x),
    }
}

/// The vector extents of a vectorized view (its element layout's mode sizes).
fn extents(e: Layout) -> Vec<i64> {
    (0..e.rank()).map(|k| e.mode(k).unwrap().size()).collect()
}

/// Checks every property of `v`, a vectorization of the tensor `t` (layout `a`, over a buffer
/// whose values are `SENTINEL + offset`, starting at `base` in that buffer): then stores through
/// `v` (`STORED + tensor index`). The caller checks the memory afterwards with [`check_memory`].
fn check_view<T: Val, const N: usize, O: LayoutSource, E: LayoutSource, L: LayoutSource>(
    t: LayoutTensor<'_, T, L>,
    v: &VectorizedTensor<'_, T, N, O, E>,
    vshape: &[i64],
) -> Result<(), TestCaseError> {
    let a = t.layout();
    let rank = a.rank();
    let ext = extents(v.element_layout());
    prop_assert_eq!(&ext[..], vshape, "element layout {} of vector shape {:?}", v.element_layout(), vshape);
    prop_assert_eq!(v.size() * N, t.size());
    for (k, &e) in vshape.iter().enumerate() {
        prop_assert_eq!(v.dim(k) as i64 * e, t.dim(k) as i64);
    }

    // Every element of the tensor in exactly one vector, at outer * vshape + elem.
    let mut hits = vec![0u32; t.size()];
    let mut all_contiguous_aligned = true;
    for i in 0..v.size() {
        let outer = v.coord::<3>(i);
        let got = v.get(i);
        prop_assert_eq!(got.0, load_at(v, outer, rank), "get({}) and load({:?})", i, outer);
        let first = v.ptr_at(i);
        for j in 0..N {
            let e = v.element_coord::<3>(j);
            let c: Vec<i64> = (0..rank).map(|k| outer[k] * vshape[k] + e[k]).collect();
            let idx = index_of(a, &c);
            hits[idx] += 1;
            prop_assert_eq!(got.0[j], t.get(idx), "vector {} element {} = tensor coordinate {:?}", i, j, c);
            // Contiguity, as addresses.
            if t.ptr_at(idx) != first.wrapping_add(j) {
                all_contiguous_aligned = false;
            }
        }
        if !(first as usize).is_multiple_of(cute_rs_tensor::tensor::vector_align(N * core::mem::size_of::<T>())) {
            all_contiguous_aligned = false;
        }
    }
    prop_assert!(hits.iter().all(|&h| h == 1), "elements hit {:?}", hits);
    // One aligned access exactly when every vector is contiguous and aligned.
    prop_assert_eq!(v.is_vector_access(), all_contiguous_aligned, "outer {} element {}", v.layout(), v.element_layout());

    // Stores: half through `set`, half through `store`; then read back both ways.
    for i in 0..v.size() {
        let outer = v.coord::<3>(i);
        let x: [T; N] = core::array::from_fn(|j| {
            let e = v.element_coord::<3>(j);
            let c: Vec<i64> = (0..rank).map(|k| outer[k] * vshape[k] + e[k]).collect();
            T::of(STORED + index_of(a, &c))
        });
        if i % 2 == 0 {
            v.set(i, Vector(x));
        } else {
            store_at(v, outer, rank, x);
        }
    }
    for i in 0..v.size() {
        let outer = v.coord::<3>(i);
        let x = v.get(i).0;
        prop_assert_eq!(x, load_at(v, outer, rank));
        for (j, &x) in x.iter().enumerate() {
            let e = v.element_coord::<3>(j);
            let c: Vec<i64> = (0..rank).map(|k| outer[k] * vshape[k] + e[k]).collect();
            prop_assert_eq!(x, T::of(STORED + index_of(a, &c)));
        }
    }
    for idx in 0..t.size() {
        prop_assert_eq!(t.get(idx), T::of(STORED + idx), "tensor element {}", idx);
    }
    Ok(())
}

/// After [`check_view`]: element `idx` of the tensor holds `STORED + idx`, every other element of
/// the buffer its sentinel.
fn check_memory<T: Val>(mem: &[T], a: Layout) -> Result<(), TestCaseError> {
    let mut want: Vec<T> = (0..mem.len()).map(|k| T::of(SENTINEL + k)).collect();
    for idx in 0..a.size() {
        want[a.call(idx) as usize] = T::of(STORED + idx as usize);
    }
    prop_assert_eq!(mem, &want[..]);
    Ok(())
}

/// Builds the run-time vectorized view of `a` by `vshape` and checks it (dispatching on `N`).
fn check_runtime<T: Val>(a: Layout, vshape: &[i64], shift: usize) -> Result<(), TestCaseError> {
    let n: i64 = vshape.iter().product();
    let vs = l(&format!("({})", vshape.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")));
    let mut buf = Buf::<T>::new(a.cosize() as usize, shift);
    {
        let t = LayoutTensor::new(buf.slice(), a).unwrap();
        macro_rules! dispatch {
            ($($n:literal)*) => {
                match n {
                    $($n => check_view(t, &t.vectorize_by::<$n>(vs).unwrap(), vshape)?,)*
                    _ => unreachable!("vector of {n} elements"),
                }
            };
        }
        dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16);
    }
    check_memory(buf.slice(), a)
}

/// A mode of a generated layout: one or two leaves (the second leaf's stride first when
/// `swapped`), its vector extent, and the elements of padding after its block.
#[derive(Clone, Debug)]
struct ModeSpec {
    leaves: Vec<i64>,
    swapped: bool,
    vext: i64,
    pad: i64,
}

/// A random layout with a vector shape dividing it: modes laid out in the order `order` (a
/// rotation), each mode's block compact inside (leaves possibly swapped), then padded.
fn case() -> impl Strategy<Value = (Layout, Vec<i64>, usize)> {
    let leaf = prop::sample::select(vec![1i64, 2, 3, 4, 6, 8]);
    let mode = (prop::collection::vec(leaf, 1..=2), any::<bool>(), any::<prop::sample::Index>(), 0i64..=2);
    (prop::collection::vec(mode, 1..=3), any::<prop::sample::Index>(), 0usize..8).prop_map(|(modes, order, shift)| {
        let mut specs: Vec<ModeSpec> = modes
            .into_iter()
            .map(|(mut leaves, swapped, pick, pad)| {
                // Nested modes stay small (at most 16 elements).
                if leaves.len() == 2 {
                    leaves.iter_mut().for_each(|x| *x = if *x > 4 { *x / 2 } else { *x });
                }
                // Extents that divide the mode inside the algebra: a divisor of the first leaf,
                // or the first leaf times a divisor of the second.
                let mut ok: Vec<i64> = (1..=leaves[0]).filter(|d| leaves[0] % d == 0).collect();
                if let Some(&b) = leaves.get(1) {
                    ok.extend((2..=b).filter(|d| b % d == 0).map(|d| leaves[0] * d));
                }
                ModeSpec { vext: *pick.get(&ok), leaves, swapped, pad }
            })
            .collect();
        // At most 16 elements per vector: later modes give way.
        let mut n = 1;
        for m in specs.iter_mut() {
            if n * m.vext > 16 {
                m.vext = 1;
            }
            n *= m.vext;
        }
        // Mode order in memory: a rotation of the modes, then strides compact in that order.
        let r = specs.len();
        let first = order.index(r);
        let mut strides = vec![vec![0i64; 2]; r];
        let mut next = 1;
        for q in 0..r {
            let k = (first + q) % r;
            let m = &specs[k];
            match (m.leaves.len(), m.swapped) {
                (1, _) => strides[k][0] = next,
                (_, false) => {
                    strides[k][0] = next;
                    strides[k][1] = next * m.leaves[0];
                }
                (_, true) => {
                    strides[k][1] = next;
                    strides[k][0] = next * m.leaves[1];
                }
            }
            // Padding after the mode's block: strides past it need not be multiples of the vector
            // (rows of 6 padded to 7: contiguous vectors of 2 no longer aligned).
            next = next * m.leaves.iter().product::<i64>() + m.pad;
        }
        let fmt_mode = |k: usize, what: &dyn Fn(usize) -> i64| {
            let m = &specs[k];
            if m.leaves.len() == 1 {
                what(0).to_string()
            } else {
                format!("({},{})", what(0), what(1))
            }
        };
        let shape: Vec<String> = (0..r).map(|k| fmt_mode(k, &|j| specs[k].leaves[j])).collect();
        let stride: Vec<String> = (0..r).map(|k| fmt_mode(k, &|j| strides[k][j])).collect();
        let a = l(&format!("({}):({})", shape.join(","), stride.join(",")));
        (a, specs.iter().map(|m| m.vext).collect(), shift)
    })
}

/// A layout with a flat stride-1 mode `W` divides and every other stride a multiple of `W`, and
/// the vector shape along that mode: where the old `vectorize::<W>()` applies.
fn contiguous_case(w: i64) -> impl Strategy<Value = (Layout, Vec<i64>)> {
    let ext = prop::sample::select(vec![1i64, 2, 3, 4]);
    (prop::collection::vec(ext, 1..=3), any::<prop::sample::Index>(), any::<prop::sample::Index>(), 1i64..=2, any::<bool>())
        .prop_map(move |(mut exts, unit, order, pad, twice)| {
            let r = exts.len();
            let u = unit.index(r);
            exts[u] *= w * if twice { 2 } else { 1 };
            // Stride 1 for mode `u`; the others compact after it in rotated order, padded.
            let first = order.index(r);
            let mut strides = vec![0i64; r];
            strides[u] = 1;
            let mut next = exts[u] * pad;
            for q in 0..r {
                let k = (first + q) % r;
                if k != u {
                    strides[k] = next;
                    next *= exts[k];
                }
            }
            let join = |v: &[i64]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",");
            let a = l(&format!("({}):({})", join(&exts), join(&strides)));
            let vshape = (0..r).map(|k| if k == u { w } else { 1 }).collect();
            (a, vshape)
        })
}

/// New and old vectorizations of `a` (vectors of `W` along the stride-1 mode) read the same
/// vectors in the same order, through the same outer shape.
fn agrees_with_vectorize<const W: usize>(a: Layout, vshape: &[i64]) -> Result<(), TestCaseError> {
    let vs = l(&format!("({})", vshape.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(",")));
    let mut buf = Buf::<u32>::new(a.cosize() as usize, 0);
    let t = LayoutTensor::new(buf.slice(), a).unwrap();
    let old = t.vectorize::<W>().unwrap();
    let new = t.vectorize_by::<W>(vs).unwrap();
    prop_assert!(new.is_vector_access(), "{} by {:?}", a, vshape);
    prop_assert_eq!(new.layout().shape(), old.layout().shape());
    prop_assert_eq!(new.size(), old.size());
    for i in 0..new.size() {
        prop_assert_eq!(new.get(i), old.get(i), "vector {}", i);
        prop_assert_eq!(new.ptr_at(i) as usize, old.ptr_at(i) as usize);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn vectors_partition_the_tensor_u32((a, vshape, shift) in case()) {
        check_runtime::<u32>(a, &vshape, shift)?;
    }

    #[test]
    fn vectors_partition_the_tensor_u16((a, vshape, shift) in case()) {
        check_runtime::<u16>(a, &vshape, shift)?;
    }

    #[test]
    fn vectors_partition_the_tensor_u64((a, vshape, shift) in case()) {
        check_runtime::<u64>(a, &vshape, shift % 2)?;
    }

    #[test]
    fn contiguous_vectors_agree_with_vectorize_2((a, vshape) in contiguous_case(2)) {
        agrees_with_vectorize::<2>(a, &vshape)?;
    }

    #[test]
    fn contiguous_vectors_agree_with_vectorize_4((a, vshape) in contiguous_case(4)) {
        agrees_with_vectorize::<4>(a, &vshape)?;
    }

    /// A vector extent that does not divide its mode is the named error, never a view.
    #[test]
    fn non_dividing_extent_is_an_error(m in 1i64..=12, n in 1i64..=12, v in 1i64..=12) {
        let mut data = vec![0u32; (m * n) as usize];
        let t = LayoutTensor::new(&mut data, l(&format!("({m},{n}):({n},1)"))).unwrap();
        let r = t.vectorize_by::<1>(l(&format!("(1,{v})")));
        match r {
            Ok(_) => prop_assert!(n % v == 0 && v == 1),
            Err(e) if n % v != 0 => {
                prop_assert_eq!(e, LayoutError::ShapeDivisibility { op: "vectorize", divisor: v, dividend: n })
            }
            Err(e) => prop_assert!(matches!(e, LayoutError::InvalidArgument { op: "vectorize", .. }), "{e}"),
        }
    }
}

// ---- The static API ----

static_layout!(M8 = "(8,8):(8,1)");
static_layout!(Row4 = "(1,4)");
static_layout!(Col4 = "(4,1)");
static_layout!(Sq2 = "(2,2)");
static_layout!(One = "(1,1)");
static_layout!(Whole = "(8,8)");
static_layout!(Nested = "((2,3),4):((1,2),6)");
static_layout!(Nested22 = "(2,2)");
static_layout!(Nested61 = "(6,1)");
static_layout!(Padded = "(4,(2,3)):(16,(1,2))");
static_layout!(Padded23 = "(2,(2,3))");
static_layout!(Cube = "(4,2,6):(12,1,2)");
static_layout!(Cube213 = "(2,1,3)");
static_layout!(Line = "16:1");
static_layout!(Four = "4");

/// The static view of `S` by `V`: the same layouts and decision as the run-time one, and every
/// property of [`check_view`], then the memory.
fn check_static<T: Val, S: cute_rs_tensor::StaticLayout, V: cute_rs_tensor::StaticLayout, const N: usize>(shift: usize) {
    let a = S::LAYOUT;
    let vshape = extents(V::LAYOUT);
    let mut buf = Buf::<T>::new(a.cosize() as usize, shift);
    {
        let t = LayoutTensor::new(buf.slice(), Static::<S>::new()).unwrap();
        let v = t.vectorize_by::<V, N>();
        let rt = t.dynamic().vectorize_by::<N>(V::LAYOUT).unwrap();
        assert_eq!(v.layout(), rt.layout(), "{a} by {}", V::LAYOUT);
        assert_eq!(v.element_layout(), rt.element_layout());
        assert_eq!(v.is_vector_access(), rt.is_vector_access(), "{a} by {}", V::LAYOUT);
        for i in 0..v.size() {
            assert_eq!(v.get(i), rt.get(i));
        }
        check_view(t, &v, &vshape).unwrap();
    }
    check_memory(buf.slice(), a).unwrap();
}

#[test]
fn static_views_agree_with_runtime_ones() {
    check_static::<u32, M8, Row4, 4>(0);
    check_static::<u32, M8, Col4, 4>(0);
    check_static::<u32, M8, Col4, 4>(1); // gathered: any base
    check_static::<u32, M8, Sq2, 4>(0);
    check_static::<u32, M8, One, 1>(1);
    check_static::<u16, M8, Whole, 64>(3);
    check_static::<u32, Nested, Nested22, 4>(0);
    check_static::<u32, Nested, Nested61, 6>(0);
    check_static::<u64, Padded, Padded23, 12>(0);
    check_static::<u32, Cube, Cube213, 6>(0);
    check_static::<u16, Line, Four, 4>(0);
    check_static::<u16, Line, Four, 4>(4);
}

#[test]
fn static_single_access_decision_is_a_constant() {
    let mut buf = Buf::<u32>::new(64, 0);
    let t = LayoutTensor::new(buf.slice(), Static::<M8>::new()).unwrap();
    // (1,4): quarter rows of 16 bytes at multiples of 16 bytes.
    assert!(t.vectorize_by::<Row4, 4>().is_vector_access());
    // (4,1): quarter columns, stride 8.
    assert!(!t.vectorize_by::<Col4, 4>().is_vector_access());
    // (2,2): two rows of two: not contiguous.
    assert!(!t.vectorize_by::<Sq2, 4>().is_vector_access());
    // The whole row-major matrix as one vector: its elements in column-major order, gathered.
    let whole = t.vectorize_by::<Whole, 64>();
    assert!(!whole.is_vector_access());
    assert_eq!(whole.get(0).0, core::array::from_fn(|j| (SENTINEL + 8 * (j % 8) + j / 8) as u32));
    // A row-major vector shape over a column-major view of it is contiguous: one copy.
    let by_cols = t.transpose().vectorize_by::<Whole, 64>();
    assert!(by_cols.is_vector_access());
    assert_eq!(by_cols.get(0).0, core::array::from_fn(|k| (SENTINEL + k) as u32));
}

#[test]
fn static_contiguous_agrees_with_vectorize() {
    static_layout!(M = "(4,16):(16,1)");
    static_layout!(R4 = "(1,4)");
    static_layout!(R8 = "(1,8)");
    let mut buf = Buf::<u32>::new(64, 0);
    let t = LayoutTensor::new(buf.slice(), Static::<M>::new()).unwrap();
    let (old, new) = (t.vectorize::<4>(), t.vectorize_by::<R4, 4>());
    assert_eq!(old.layout().shape(), new.layout().shape());
    for r in 0..4 {
        for c in 0..4 {
            assert_eq!(old.at([r, c]), new.at([r, c]));
        }
    }
    let (old, new) = (t.vectorize::<8>(), t.vectorize_by::<R8, 8>());
    assert!(new.is_vector_access());
    for i in 0..new.size() {
        assert_eq!(old.get(i), new.get(i));
    }
}

#[test]
#[should_panic(expected = "vectorize_by: misaligned base for a vector access")]
fn static_misaligned_base_is_caught_in_debug_builds() {
    let mut buf = Buf::<u32>::new(64, 1);
    let t = LayoutTensor::new(buf.slice(), Static::<M8>::new()).unwrap();
    let _ = t.vectorize_by::<Row4, 4>();
}

#[test]
fn runtime_misaligned_base_gathers_instead() {
    let mut buf = Buf::<u32>::new(64, 1);
    let t = LayoutTensor::new(buf.slice(), l("(8,8):(8,1)")).unwrap();
    let v = t.vectorize_by::<4>(l("(1,4)")).unwrap();
    assert!(!v.is_vector_access());
    assert_eq!(v.at([0, 1]).0, [4, 5, 6, 7].map(|k| (SENTINEL + k) as u32));
    // The old `vectorize` refuses the same base.
    assert!(t.vectorize::<4>().is_err());
}

#[test]
fn runtime_errors_name_the_condition() {
    let mut data = vec![0u32; 64];
    let t = LayoutTensor::new(&mut data, l("(8,8):(8,1)")).unwrap();
    let e = t.vectorize_by::<3>(l("(1,3)")).err().unwrap();
    assert_eq!(e, LayoutError::ShapeDivisibility { op: "vectorize", divisor: 3, dividend: 8 });
    assert_eq!(e.to_string(), "vectorize: shape divisibility: 3 does not divide 8");
    let e = t.vectorize_by::<4>(l("4")).err().unwrap();
    assert_eq!(e, LayoutError::RankMismatch { op: "vectorize", expected: 2, found: 1 });
    let e = t.vectorize_by::<4>(l("(1,4,1)")).err().unwrap();
    assert_eq!(e, LayoutError::RankMismatch { op: "vectorize", expected: 2, found: 3 });
    let e = t.vectorize_by::<2>(l("(1,4)")).err().unwrap();
    assert!(matches!(e, LayoutError::InvalidArgument { op: "vectorize", value: 2, .. }), "{e}");
    // Inside a nested mode the division must be one of the algebra: 4 divides the mode's 12
    // elements but neither divides nor is a multiple of its first leaf, 6, which the next leaf
    // does not continue (stride 12, not 6).
    let mut data = vec![0u32; 24];
    let t = LayoutTensor::new(&mut data, l("((6,2),2):((1,12),6)")).unwrap();
    assert!(t.vectorize_by::<4>(l("(4,1)")).is_err());
    assert!(t.vectorize_by::<6>(l("(6,1)")).is_ok());
}

#[test]
#[should_panic(expected = "out-of-bounds tensor access")]
fn index_past_the_vectors_panics_on_the_host() {
    let mut data = vec![0u32; 64];
    let t = LayoutTensor::new(&mut data, Static::<M8>::new()).unwrap();
    let _ = t.vectorize_by::<Col4, 4>().get(16);
}

#[test]
#[should_panic(expected = "out-of-bounds tensor access")]
fn coordinate_past_the_vectors_panics_on_the_host() {
    let mut data = vec![0u32; 64];
    let t = LayoutTensor::new(&mut data, Static::<M8>::new()).unwrap();
    let _ = t.vectorize_by::<Col4, 4>().load([2, 0]);
}

/// Mojo's element layouts: `vectorize[1, 4]` of a row-major 8 x 8 gives `(1,4):(8,1)` elements
/// over an `(8,2):(8,4)` tensor; `vectorize[4, 1]`, `(4,1):(8,1)` over `(2,8):(32,1)`.
#[test]
fn mojo_element_layouts() {
    let mut data: Vec<f32> = (0..64).map(|x| x as f32).collect();
    let t = LayoutTensor::new(&mut data, Static::<M8>::new()).unwrap();
    let rows = t.vectorize_by::<Row4, 4>();
    assert_eq!((rows.layout().to_string(), rows.element_layout().to_string()), ("(8,2):(8,4)".into(), "(1,4):(8,1)".into()));
    let cols = t.vectorize_by::<Col4, 4>();
    assert_eq!((cols.layout().to_string(), cols.element_layout().to_string()), ("(2,8):(32,1)".into(), "(4,1):(8,1)".into()));
    // Column 3, rows 4..8.
    assert_eq!(cols.at([1, 3]), Vector([35., 43., 51., 59.]));
}

/// Random row-major `rows x cols` shapes with a vector of `vr x vc` and a grid of `tr x tc`
/// threads dividing the grid of vectors: `(rows, cols, vr, vc, tr, tc)`.
fn distributed_case() -> impl Strategy<Value = (i64, i64, i64, i64, i64, i64)> {
    (1i64..4, 1i64..4, prop::sample::select(vec![(1i64, 2i64), (1, 4), (2, 1), (4, 1), (2, 2)]), 1i64..3, 1i64..3).prop_map(|(gr, gc, (vr, vc), tr, tc)| {
        (gr * tr * vr, gc * tc * vc, vr, vc, tr, tc)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Mojo's thread-aware copies on vectorized views, rows and columns alike: every thread's
    /// `distribute` of the destination takes `copy_from` (and, into shared memory, `copy_from_async`)
    /// of its `distribute` of the source; together the threads copy every element once, and
    /// each thread writes only its own vectors.
    #[test]
    fn distributed_vector_copies_cover_the_tensor((rows, cols, vr, vc, tr, tc) in distributed_case()) {
        let n = (rows * cols) as usize;
        let layout = l(&format!("({rows},{cols}):({cols},1)"));
        let (shape, threads) = (l(&format!("({vr},{vc})")), l(&format!("({tr},{tc}):({tc},1)")));
        let mut a: Vec<u32> = (0..n as u32).collect();
        let (mut sync, mut shared) = (vec![u32::MAX; n], vec![u32::MAX; n]);
        let vectors = (vr * vc) as usize;
        let sync_base = sync.as_ptr() as usize;
        let mut owner = vec![usize::MAX; n];
        for tid in 0..(tr * tc) as usize {
            macro_rules! copy {
                ($w:literal) => {{
                    let s = LayoutTensor::new(&mut a, layout).unwrap().vectorize_by::<$w>(shape).unwrap().distribute::<2>(threads, tid).unwrap();
                    let d = LayoutTensor::new(&mut sync, layout).unwrap().vectorize_by::<$w>(shape).unwrap().distribute::<2>(threads, tid).unwrap();
                    d.copy_from(&s);
                    let sh = unsafe { LayoutTensor::<u32, Layout, cute_rs_tensor::Shared>::from_ptr_in(shared.as_mut_ptr(), layout) }
                        .vectorize_by::<$w>(shape).unwrap().distribute::<2>(threads, tid).unwrap();
                    sh.copy_from_async(&s);
                    for i in 0..d.size() {
                        for j in 0..$w {
                            let e = (d.ptr_at(i) as usize - sync_base) / 4 + d.element_layout().call(j as i64) as usize;
                            prop_assert_eq!(owner[e], usize::MAX, "element {} copied twice", e);
                            owner[e] = tid;
                        }
                    }
                }};
            }
            match vectors {
                2 => copy!(2),
                _ => copy!(4),
            }
        }
        cute_rs_tensor::async_copy_wait_all();
        prop_assert_eq!(&sync, &a);
        prop_assert_eq!(&shared, &a);
        prop_assert!(owner.iter().all(|&t| t != usize::MAX));
    }
}
