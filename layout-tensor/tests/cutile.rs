//! cuTile `load`/`store` (`cute_rs_tensor::tile_space`) on the host: every example of cuTile's
//! documentation that prints its output, reproduced exactly, and property tests (padding fills exactly the
//! out-of-bounds elements; loads equal the layout algebra's prediction; stores touch exactly the
//! in-bounds elements).

use cute_rs_layout::Layout;
use cute_rs_tensor::tile_space::{load_scalar, store_scalar, LoadOptions, MemoryOrder, MemoryScope, Order, Padding, StoreOptions};
use cute_rs_tensor::{static_layout, Fragment, LayoutTensor, Static};
use proptest::prelude::*;

static_layout!(X10 = "10:1");
static_layout!(T4 = "4:1");
static_layout!(X4x4 = "(4,4):(4,1)");
static_layout!(T1x4 = "(1,4):(4,1)");
static_layout!(X2x2x2 = "(2,2,2):(4,2,1)");
static_layout!(T1x2x2 = "(1,2,2):(4,2,1)");
static_layout!(X6 = "6:1");
static_layout!(X2x2 = "(2,2):(2,1)");

/// The printed output of a tile, as cuTile's `print(tile)`.
fn printed<S: cute_rs_tensor::StaticLayout, const N: usize>(f: Fragment<i64, S, N>) -> String {
    f.nested().to_string()
}

#[test]
fn seed_load_1d_zero_padding() {
    let mut x: Vec<i64> = (0..10).collect();
    let s = LayoutTensor::new(&mut x, Static::<X10>::new()).unwrap().tile_space::<T4, 1>(Order::C);
    let lines = [
        printed(s.load::<4>([0], LoadOptions::default())),
        printed(s.load::<4>([1], LoadOptions::default())),
        printed(s.load::<4>([2], LoadOptions::default().padding(Padding::Zero))),
    ];
    assert_eq!(lines.join("\n"), "[0, 1, 2, 3]\n[4, 5, 6, 7]\n[8, 9, 0, 0]");
}

#[test]
fn seed_load_2d_f_order() {
    let mut x: Vec<i64> = (0..16).collect();
    let s = LayoutTensor::new(&mut x, Static::<X4x4>::new()).unwrap().tile_space::<T1x4, 2>(Order::F);
    let lines: Vec<String> = (0..4).map(|i| printed(s.load::<4>([i, 0], LoadOptions::default()))).collect();
    assert_eq!(lines.join("\n"), "[[0, 4, 8, 12]]\n[[1, 5, 9, 13]]\n[[2, 6, 10, 14]]\n[[3, 7, 11, 15]]");
}

#[test]
fn seed_load_3d_permuted() {
    let mut x: Vec<i64> = (0..8).collect();
    let s = LayoutTensor::new(&mut x, Static::<X2x2x2>::new()).unwrap().tile_space::<T1x2x2, 3>(Order::Perm([0, 2, 1]));
    let lines = [printed(s.load::<4>([0, 0, 0], LoadOptions::default())), printed(s.load::<4>([1, 0, 0], LoadOptions::default()))];
    assert_eq!(lines.join("\n"), "[[[0, 2], [1, 3]]]\n[[[4, 6], [5, 7]]]");
}

#[test]
fn seed_load_scalars() {
    let mut x: Vec<i64> = (0..10).collect();
    let a = LayoutTensor::new(&mut x, Static::<X10>::new()).unwrap();
    // `print(tile, end=" ")` for each, then `print()`.
    let mut out = String::new();
    for i in 0..10 {
        out += &format!("{} ", load_scalar(&a, [i], Order::C, LoadOptions::default()));
    }
    out += "\n";
    assert_eq!(out, "0 1 2 3 4 5 6 7 8 9 \n");
}

#[test]
fn seed_store_partial_oob() {
    let mut x = [0i32; 6];
    let s = LayoutTensor::new(&mut x, Static::<X6>::new()).unwrap().tile_space::<T4, 1>(Order::C);
    let mut tile = Fragment::<i32, T4, 4>::new();
    tile.data = [1; 4];
    s.store([0], &tile, StoreOptions::default());
    tile.data = tile.data.map(|v| v * 2);
    s.store([1], &tile, StoreOptions::default());
    // `print(x.tolist())`
    assert_eq!(s.array().nested().to_string(), "[1, 1, 1, 1, 2, 2]");
    assert_eq!(x, [1, 1, 1, 1, 2, 2]);
}

#[test]
fn seed_store_scalar_broadcast() {
    let mut x = [0i32; 4];
    let a = LayoutTensor::new(&mut x, Static::<X2x2>::new()).unwrap();
    store_scalar(&a, [0, 0], 0, Order::C, StoreOptions::default());
    store_scalar(&a, [0, 1], 1, Order::C, StoreOptions::default());
    store_scalar(&a, [1, 0], 2, Order::C, StoreOptions::default());
    store_scalar(&a, [1, 1], 3, Order::C, StoreOptions::default());
    // `print(x.tolist())`
    assert_eq!(a.nested().to_string(), "[[0, 1], [2, 3]]");
    assert_eq!(x, [0, 1, 2, 3]);
}

#[test]
fn memory_orders_give_the_same_values_on_the_host() {
    let mut x: Vec<f32> = (0..10).map(|v| v as f32).collect();
    let s = LayoutTensor::new(&mut x, Static::<X10>::new()).unwrap().tile_space::<T4, 1>(Order::C);
    let weak = s.load::<4>([2], LoadOptions::default().padding(Padding::Nan));
    for (o, sc) in [(MemoryOrder::Relaxed, MemoryScope::Block), (MemoryOrder::Acquire, MemoryScope::Device), (MemoryOrder::Acquire, MemoryScope::System)] {
        let t = s.load::<4>([2], LoadOptions::default().padding(Padding::Nan).memory(o, sc));
        assert_eq!(t.data.map(f32::to_bits), weak.data.map(f32::to_bits));
    }
    let mut tile = Fragment::<f32, T4, 4>::new();
    tile.data = [-1.0; 4];
    s.store([2], &tile, StoreOptions::default().memory(MemoryOrder::Release, MemoryScope::Device));
    s.store([0], &tile, StoreOptions::default().memory(MemoryOrder::Relaxed, MemoryScope::Block));
    assert_eq!(x, [-1.0, -1.0, -1.0, -1.0, 4.0, 5.0, 6.0, 7.0, -1.0, -1.0]);
}

static_layout!(T3x2 = "(3,2)");
static_layout!(T2x3r = "(2,3):(3,1)");

const MODES: [Padding; 5] = [Padding::Zero, Padding::Nan, Padding::PosInf, Padding::NegInf, Padding::NegZero];

fn pad_bits(p: Padding) -> u32 {
    <f32 as cute_rs_tensor::tile_space::Pad>::pad(p).to_bits()
}

/// A random 2-D array layout: `(m,n)` with row- or column-major strides, padded strides.
fn array_layout(m: i64, n: i64, row_major: bool, pad: i64) -> Layout {
    let s = if row_major { format!("({m},{n}):({},1)", n + pad) } else { format!("({m},{n}):(1,{})", m + pad) };
    Layout::parse(&s).unwrap()
}

proptest! {
    /// Each padding mode fills exactly the out-of-bounds elements, and every in-bounds element
    /// equals the array's layout evaluated by the algebra at `a[o[d]] = i[d] * s[d] + c[d]`.
    #[test]
    fn load_matches_algebra_and_pads_oob(m in 1i64..9, n in 1i64..9, row_major: bool, pad in 0i64..3,
                                         f: bool, i in 0i64..5, j in 0i64..5, mode in 0usize..5) {
        let l = array_layout(m, n, row_major, pad);
        let cos = l.cosize() as usize;
        let mut data: Vec<f32> = (0..cos).map(|v| v as f32 + 0.5).collect();
        let copy = data.clone();
        let order = if f { Order::F } else { Order::C };
        let a = LayoutTensor::new(&mut data, l.clone()).unwrap();
        let s = a.tile_space::<T3x2, 2>(order);
        let p = order.perm();
        let padding = MODES[mode];
        let t = s.load::<6>([i, j], LoadOptions::default().padding(padding));
        let ext = [m, n];
        for x in 0..3i64 {
            for y in 0..2i64 {
                let mut coord = [0i64; 2];
                coord[p[0]] = i * 3 + x;
                coord[p[1]] = j * 2 + y;
                let got = t.data[(x + 3 * y) as usize].to_bits(); // T3x2 is column-major
                if coord[0] < ext[0] && coord[1] < ext[1] {
                    let off = l.call(coord[0] + ext[0] * coord[1]) as usize; // algebra: 1-D index -> offset
                    prop_assert_eq!(got, copy[off].to_bits());
                } else {
                    prop_assert_eq!(got, pad_bits(padding));
                }
            }
        }
        // Undetermined padding leaves the out-of-bounds fragment elements untouched.
        let mut frag = Fragment::<f32, T3x2, 6>::new();
        frag.data = [-7.0; 6];
        s.load_into([i, j], &mut frag, LoadOptions::default());
        let padded = s.load::<6>([i, j], LoadOptions::default().padding(Padding::NegZero));
        for k in 0..6 {
            if padded.data[k].to_bits() == (-0.0f32).to_bits() {
                prop_assert_eq!(frag.data[k], -7.0);
            } else {
                prop_assert_eq!(frag.data[k].to_bits(), padded.data[k].to_bits());
            }
        }
    }

    /// Stores write exactly the in-bounds elements of the tile (at the algebra's offsets) and
    /// nothing else; a load of the same tile reads the stored values back.
    #[test]
    fn store_touches_exactly_in_bounds(m in 1i64..9, n in 1i64..9, row_major: bool, pad in 0i64..3,
                                       perm: bool, i in 0i64..5, j in 0i64..5) {
        let l = array_layout(m, n, row_major, pad);
        let cos = l.cosize() as usize;
        let mut data = vec![-1i32; cos];
        let order = if perm { Order::Perm([1, 0]) } else { Order::C };
        let a = LayoutTensor::new(&mut data, l.clone()).unwrap();
        let s = a.tile_space::<T2x3r, 2>(order);
        let mut tile = Fragment::<i32, T2x3r, 6>::new();
        tile.data = [10, 11, 12, 13, 14, 15]; // row-major: t[x][y] = 10 + 3x + y
        s.store([i, j], &tile, StoreOptions::default());
        let back = s.load::<6>([i, j], LoadOptions::default().padding(Padding::Zero));
        let p = order.perm();
        let mut want = vec![-1i32; cos];
        let ext = [m, n];
        for x in 0..2i64 {
            for y in 0..3i64 {
                let mut coord = [0i64; 2];
                coord[p[0]] = i * 2 + x;
                coord[p[1]] = j * 3 + y;
                let k = (3 * x + y) as usize;
                if coord[0] < ext[0] && coord[1] < ext[1] {
                    want[l.call(coord[0] + ext[0] * coord[1]) as usize] = 10 + k as i32;
                    prop_assert_eq!(back.data[k], 10 + k as i32);
                } else {
                    prop_assert_eq!(back.data[k], 0);
                }
            }
        }
        prop_assert_eq!(data, want);
    }
}

static_layout!(T2x1x3 = "(2,1,3)");

proptest! {
    /// 3-D arrays, every permutation order: loads equal the algebra's prediction, padding fills
    /// exactly the out-of-bounds elements.
    #[test]
    fn load_3d_any_permutation(e0 in 1i64..5, e1 in 1i64..5, e2 in 1i64..5, perm in 0usize..6,
                               i in 0i64..4, j in 0i64..4, k in 0i64..4) {
        let perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
        let p = perms[perm];
        let l = Layout::parse(&format!("({e0},{e1},{e2}):({},{e2},1)", e1 * e2)).unwrap();
        let mut data: Vec<f64> = (0..l.cosize()).map(|v| v as f64).collect();
        let copy = data.clone();
        let s = LayoutTensor::new(&mut data, l.clone()).unwrap().tile_space::<T2x1x3, 3>(Order::Perm(p));
        let t = s.load::<6>([i, j, k], LoadOptions::default().padding(Padding::PosInf));
        let ext = [e0, e1, e2];
        let tile = [2i64, 1, 3];
        for n in 0..6i64 {
            let c = [n % 2, 0, n / 2]; // T2x1x3 is column-major
            let mut a = [0i64; 3];
            for d in 0..3 {
                a[p[d]] = [i, j, k][d] * tile[d] + c[d];
            }
            if (0..3).all(|d| a[d] < ext[d]) {
                let off = l.call(a[0] + e0 * (a[1] + e1 * a[2])) as usize;
                prop_assert_eq!(t.data[n as usize], copy[off]);
            } else {
                prop_assert_eq!(t.data[n as usize], f64::INFINITY);
            }
        }
    }

    /// 0-d tiles: in bounds the element, out of bounds the padding; scalar stores out of bounds are
    /// ignored.
    #[test]
    fn scalar_tiles(m in 1i64..6, n in 1i64..6, i in 0i64..7, j in 0i64..7, f: bool) {
        let l = Layout::parse(&format!("({m},{n}):({n},1)")).unwrap();
        let mut data: Vec<i32> = (0..m * n).map(|v| v as i32).collect();
        let order = if f { Order::F } else { Order::C };
        let a = LayoutTensor::new(&mut data, l).unwrap();
        let (r, c) = if f { (j, i) } else { (i, j) };
        let inside = r < m && c < n;
        let v = load_scalar(&a, [i, j], order, LoadOptions::default().padding(Padding::NegInf));
        prop_assert_eq!(v, if inside { (r * n + c) as i32 } else { i32::MIN });
        store_scalar(&a, [i, j], -5, order, StoreOptions::default());
        let want: Vec<i32> = (0..m * n).map(|x| if inside && x == r * n + c { -5 } else { x as i32 }).collect();
        prop_assert_eq!(data, want);
    }
}
