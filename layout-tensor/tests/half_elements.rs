//! `half::f16` and `half::bf16` elements: element access, vector accesses of eight halves, copies
//! that transform layouts, cuTile padding values and Triton NaN padding, all bit-exact.

use half::{bf16, f16};
use cute_rs_layout::Layout;
use cute_rs_tensor::tile_space::{LoadOptions, Order, Padding};
use cute_rs_tensor::triton::{get, make_block_ptr};
use cute_rs_tensor::{static_layout, Element, LayoutTensor, Static, Vector};
use proptest::prelude::*;

static_layout!(Row4x16 = "(4,16):(16,1)");
static_layout!(X10 = "10:1");
static_layout!(T4 = "4:1");
static_layout!(B23 = "(2,3):(3,1)");

#[repr(align(16))]
struct Aligned<T, const N: usize>([T; N]);

#[test]
fn f16_vectors_of_eight_are_one_16_byte_access() {
    assert_eq!(core::mem::size_of::<Vector<f16, 8>>(), 16);
    assert_eq!(<Vector<f16, 8>>::ALIGN, 16);
    assert_eq!(<Vector<bf16, 4>>::ALIGN, 8);
    let mut b = Aligned::<f16, 64>(core::array::from_fn(|i| f16::from_f32(i as f32)));
    let v = LayoutTensor::new(&mut b.0, Static::<Row4x16>::new()).unwrap().vectorize::<8>();
    assert_eq!(v.layout().to_string(), "(4,2):(2,1)");
    // Row 2, second vector: elements 40..48, exact in f16.
    let want: [f16; 8] = core::array::from_fn(|i| f16::from_f32((40 + i) as f32));
    assert_eq!(v.at([2, 1]), Vector(want));
    v.set_at([3, 0], Vector([f16::NEG_INFINITY; 8]));
    assert!(b.0[48..56].iter().all(|x| *x == f16::NEG_INFINITY));
    assert_eq!(b.0[56], f16::from_f32(56.0));
}

#[test]
fn bf16_loads_and_stores_of_w_elements() {
    let mut b = Aligned::<bf16, 16>(core::array::from_fn(|i| bf16::from_f32(i as f32 * 0.5)));
    let t = LayoutTensor::new(&mut b.0, Layout::parse("(4,4):(4,1)").unwrap()).unwrap();
    assert_eq!(t.load::<4>(1).map(|x| x.to_f32()), [2.0, 2.5, 3.0, 3.5]); // row 1
    t.store::<2>(3, [bf16::MAX, bf16::MIN_POSITIVE]);
    assert_eq!((b.0[12], b.0[13], b.0[14]), (bf16::MAX, bf16::MIN_POSITIVE, bf16::from_f32(7.0)));
}

#[test]
fn cutile_padding_values_of_halves() {
    let mut x: Vec<bf16> = (0..10).map(|i| bf16::from_f32(i as f32)).collect();
    let s = LayoutTensor::new(&mut x, Static::<X10>::new()).unwrap().tile_space::<T4, 1>(Order::C);
    let bits = |p: Padding| s.load::<4>([2], LoadOptions::default().padding(p)).data.map(|v| v.to_bits());
    let (eight, nine) = (bf16::from_f32(8.0).to_bits(), bf16::from_f32(9.0).to_bits());
    assert_eq!(bits(Padding::Zero), [eight, nine, 0, 0]);
    assert_eq!(bits(Padding::NegZero), [eight, nine, 0x8000, 0x8000]);
    assert_eq!(bits(Padding::PosInf), [eight, nine, bf16::INFINITY.to_bits(), bf16::INFINITY.to_bits()]);
    assert_eq!(bits(Padding::NegInf), [eight, nine, bf16::NEG_INFINITY.to_bits(), bf16::NEG_INFINITY.to_bits()]);
    let nan = s.load::<4>([2], LoadOptions::default().padding(Padding::Nan)).data;
    assert!(nan[2].is_nan() && nan[3].is_nan() && nan[1] == bf16::from_f32(9.0));
}

#[test]
fn triton_block_pointer_nan_padding_of_f16() {
    let mut x: Vec<f16> = (0..4).map(|i| f16::from_f32(i as f32)).collect();
    // A 2 x 2 tensor read through a 2 x 3 block: column 2 is outside.
    let b = unsafe { make_block_ptr::<f16, B23, 6, 2>(x.as_mut_ptr(), [2, 2], [2, 1], [0, 0], [1, 0]) }.unwrap();
    let v = b.load().boundary_check(&[1]).padding_nan().run();
    for r in 0..2 {
        assert_eq!(get(&v, [r, 0]), f16::from_f32((2 * r) as f32));
        assert_eq!(get(&v, [r, 1]), f16::from_f32((2 * r + 1) as f32));
        assert!(get(&v, [r, 2]).is_nan());
    }
}

proptest! {
    /// A copy between two layouts of the same size moves element `i` of the source to element `i`
    /// of the destination bit for bit (NaN payloads and signed zeros included), for f16 and bf16.
    #[test]
    fn half_copies_follow_the_layouts_bit_for_bit(
        rows in 1i64..6, cols in 1i64..9, col_major in any::<bool>(), bits in prop::collection::vec(any::<u16>(), 48),
    ) {
        let n = (rows * cols) as usize;
        let src_l = Layout::parse(&format!("({rows},{cols}):({cols},1)")).unwrap();
        let dst_l = if col_major {
            Layout::parse(&format!("({rows},{cols}):(1,{rows})")).unwrap()
        } else {
            src_l
        };
        let mut a: Vec<f16> = bits[..n].iter().map(|&b| f16::from_bits(b)).collect();
        let mut d = vec![f16::from_bits(0x7e01); n];
        let src = LayoutTensor::new(&mut a, src_l).unwrap();
        let dst = LayoutTensor::new(&mut d, dst_l).unwrap();
        dst.copy_from(&src);
        for i in 0..n {
            prop_assert_eq!(d[dst_l.call(i as i64) as usize].to_bits(), bits[src_l.call(i as i64) as usize]);
        }
        let mut ab: Vec<bf16> = bits[..n].iter().map(|&b| bf16::from_bits(b)).collect();
        let mut db = vec![bf16::ZERO; n];
        LayoutTensor::new(&mut db, dst_l).unwrap().copy_from(&LayoutTensor::new(&mut ab, src_l).unwrap());
        for i in 0..n {
            prop_assert_eq!(db[dst_l.call(i as i64) as usize].to_bits(), bits[src_l.call(i as i64) as usize]);
        }
    }
}
