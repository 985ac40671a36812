//! Thread-value partitions and swizzled distribute against independent predictions: each thread's
//! fragment element `(v, k)` is the element the thread and value layouts place there (found by
//! inverting them by brute force), every element belongs to exactly one thread, the static and
//! run-time forms agree, and a swizzled fragment is the swizzle of the plain one.

use cute_rs_layout::{Layout, Swizzle};
use cute_rs_tensor::partition::{tv_partition, StaticSwizzle, Sw, TiledCopy};
use cute_rs_tensor::static_layout::Partition;
use cute_rs_tensor::{static_layout, LayoutTensor, Static, StaticLayout};
use proptest::prelude::*;

/// The coordinate `(c0, c1)` of a rank-2 layout where it takes the value `x` (brute force).
fn coord_of(l: Layout, x: i64) -> (i64, i64) {
    let s0 = l.mode(0).unwrap().size();
    let i = (0..l.size()).find(|&i| l.call(i) == x).expect("a compact layout takes every value");
    (i % s0, i / s0)
}

fn compact(s0: i64, s1: i64, row_major: bool) -> Layout {
    if row_major {
        Layout::parse(&format!("({s0},{s1}):({s1},1)")).unwrap()
    } else {
        Layout::parse(&format!("({s0},{s1}):(1,{s0})")).unwrap()
    }
}

fn pow2() -> impl Strategy<Value = i64> {
    prop::sample::select(vec![1i64, 2, 4])
}

proptest! {
    /// Value `v` of tile `k` in thread `tid`'s fragment is tensor element
    /// `(tile_m + v_m + V_m * t_m, tile_n + v_n + V_n * t_n)`, where `(t_m, t_n)` is the thread's
    /// coordinate in `thr` and `(v_m, v_n)` the value's in `val`; every element is some thread's.
    #[test]
    fn tv_fragments_hold_what_the_thread_and_value_layouts_place(
        t0 in pow2(), t1 in pow2(), v0 in pow2(), v1 in pow2(), a in 1i64..3, b in 1i64..3,
        thr_rm in any::<bool>(), val_rm in any::<bool>(), tensor_rm in any::<bool>(),
    ) {
        let (thr, val) = (compact(t0, t1, thr_rm), compact(v0, v1, val_rm));
        let (m, n) = (t0 * v0 * a, t1 * v1 * b);
        let tl = compact(m, n, tensor_rm);
        let mut data: Vec<i64> = (0..m * n).collect();
        let t = LayoutTensor::new(&mut data, tl).unwrap();
        let mut seen = vec![0; (m * n) as usize];
        for tid in 0..t0 * t1 {
            let f = t.tv_partition(thr, val, tid as usize).unwrap();
            let (tm, tn) = coord_of(thr, tid);
            for vid in 0..v0 * v1 {
                let (vm, vn) = coord_of(val, vid);
                for k in 0..a * b {
                    let (ka, kb) = (k % a, k / a);
                    let (r, c) = (ka * t0 * v0 + vm + v0 * tm, kb * t1 * v1 + vn + v1 * tn);
                    let got = f.at([vid, k]);
                    prop_assert_eq!(got, t.at([r, c]), "thread {} value {} tile {}", tid, vid, k);
                    seen[got as usize] += 1;
                }
            }
        }
        prop_assert!(seen.iter().all(|&s| s == 1), "every element belongs to exactly one thread: {:?}", seen);
    }

    /// Tiles that do not divide the tensor, and layouts that are not compact, are named errors.
    #[test]
    fn bad_partitions_are_errors(extra in 1i64..3) {
        let l = Layout::parse(&format!("({},4):(1,{})", 4 + extra, 4 + extra)).unwrap();
        let e = tv_partition(l, Layout::parse("(2,2)").unwrap(), Layout::parse("(2,2)").unwrap()).unwrap_err();
        prop_assert!(e.to_string().contains("divide"), "{}", e);
        let e = tv_partition(Layout::parse("(8,4)").unwrap(), Layout::parse("(2,2):(1,4)").unwrap(), Layout::parse("(2,1)").unwrap()).unwrap_err();
        prop_assert!(e.to_string().contains("compact"), "{}", e);
    }
}

static_layout!(M = "(32,16):(16,1)");
static_layout!(Thr = "(8,4):(4,1)");
static_layout!(Val = "(1,4)");

#[test]
fn static_tiled_copy_equals_the_run_time_partition() {
    type C = TiledCopy<Thr, Val>;
    assert_eq!(C::TILER.to_string(), "(8,16):(1,8)");
    let mut data: Vec<u32> = (0..512).collect();
    let t = LayoutTensor::new(&mut data, Static::<M>::new()).unwrap();
    for tid in 0..32 {
        let s = C::partition(t, tid);
        let d = t.dynamic().tv_partition(Thr::LAYOUT, Val::LAYOUT, tid).unwrap();
        assert_eq!(s.layout(), d.layout());
        assert!((0..s.size()).all(|i| s.ptr_at(i) == d.ptr_at(i)));
        // Each thread's 4 values are one contiguous row segment: one 16-byte vector per tile.
        assert_eq!(cute_rs_tensor::copy::contiguous_width(s.layout(), 4), 4);
    }
    assert!(t.dynamic().tv_partition(Thr::LAYOUT, Val::LAYOUT, 32).is_err());
}

/// Thread `tid`'s swizzled fragment element `j` is at `Z(offset of the plain fragment's j)`.
fn check_swizzled<S: StaticLayout, Th: StaticLayout, Z: StaticSwizzle, const R: usize>() {
    let n = S::LAYOUT.cosize() as usize;
    let mut data = vec![0u8; n];
    let t = LayoutTensor::new(&mut data, Static::<S>::new()).unwrap();
    let base = t.as_ptr() as isize;
    let sw: Swizzle = Z::SWIZZLE;
    let mut hit = vec![0; n];
    for tid in 0..Th::SIZE {
        let plain = t.distribute::<Th, R>(tid);
        let swz = t.distribute_swizzled::<Th, Z, R>(tid);
        for j in 0..Partition::<S, Th>::SIZE {
            let (p, q) = (plain.ptr_at(j) as isize - base, swz.ptr_at(j) as isize - base);
            assert_eq!(q as i64, sw.apply(p as i64), "{sw}: thread {tid} element {j}");
            hit[q as usize] += 1;
        }
    }
    // A swizzle is a bijection of each period: the swizzled fragments still cover the tensor once.
    assert!(hit.iter().all(|&h| h == 1));
}

static_layout!(Smem16 = "(16,16):(16,1)");
static_layout!(Lanes = "(8,4):(4,1)");
static_layout!(Col32 = "(32,8):(1,32)");
static_layout!(Warp = "(32,1)");
static_layout!(Rows = "(2,16):(16,1)");

#[test]
fn swizzled_distribute_is_the_swizzle_of_distribute() {
    check_swizzled::<Smem16, Rows, Sw<2, 0, 3>, 2>();
    check_swizzled::<Smem16, Rows, Sw<1, 2, 2>, 2>();
    check_swizzled::<Col32, Warp, Sw<2, 0, 3>, 2>();
    check_swizzled::<Smem16, Lanes, Sw<1, 0, 1>, 2>();
}

#[test]
fn run_time_swizzled_distribute_equals_the_static_one() {
    let mut data = vec![0u8; 256];
    let t = LayoutTensor::new(&mut data, Static::<Smem16>::new()).unwrap();
    let sw = <Sw<2, 0, 3>>::SWIZZLE;
    for tid in 0..Rows::SIZE {
        let s = t.distribute_swizzled::<Rows, Sw<2, 0, 3>, 2>(tid);
        let d = t.dynamic().distribute_swizzled::<2>(Rows::LAYOUT, tid, sw).unwrap();
        assert_eq!(s.layout(), d.layout());
        assert!((0..s.size()).all(|i| s.ptr_at(i) == d.ptr_at(i)), "thread {tid}");
    }
    let e = t.dynamic().distribute_swizzled::<2>(Lanes::LAYOUT, 0, sw).err().expect("Lanes' fragments have stride 4");
    assert!(e.to_string().contains("period"), "{e}");
}
