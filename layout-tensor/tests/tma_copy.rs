//! TMA boxes on the host: the swizzled view reads back every element of an image built with TMA's
//! byte-level swizzle rule (bits 4.. of the byte address XORed with bits 7..), for every swizzle
//! mode and element size; box layouts TMA cannot write are named errors; `load_tma` reaches the
//! copy instruction (which the CPU does not have).

use cute_rs_layout::Layout;
use cute_rs_tensor::device::tma::TmaDescriptor;
use cute_rs_tensor::device::sync::Mbarrier;
use cute_rs_tensor::tma_copy::{check_box, NoSwizzle, Swizzle128B, Swizzle32B, Swizzle64B, TmaSwizzle};
use cute_rs_tensor::{static_layout, Element, LayoutTensor, Shared, Static, StaticLayout};

/// TMA's placement of byte `b` of a box image under a swizzle of `2^bits` 16-byte chunks.
fn tma_byte(b: usize, bits: u32) -> usize {
    let mask = (1usize << bits) - 1;
    b ^ (((b >> 7) & mask) << 4)
}

#[repr(C, align(1024))]
struct Image([u8; 4096]);

/// Builds the image of box `S` of `T` (element `i` holds `val(i)`) as TMA writes it with swizzle
/// `M`, and reads it back through `tma_swizzled::<M>()` by index and by coordinate.
fn round_trip<T: Element + PartialEq + core::fmt::Debug, S: StaticLayout, M: TmaSwizzle>(val: impl Fn(usize) -> T) {
    let e = core::mem::size_of::<T>();
    check_box(S::LAYOUT, e, M::SPAN_BYTES).unwrap();
    let mut image = Image([0; 4096]);
    let base = image.0.as_mut_ptr() as *mut T;
    for i in 0..S::SIZE {
        let at = tma_byte(i * e, M::BITS);
        assert_eq!(at % e, 0);
        unsafe { base.add(at / e).write(val(i)) };
    }
    let b = unsafe { LayoutTensor::<T, _, Shared>::from_ptr_in(base, Static::<S>::new()) }.tma_swizzled::<M>();
    let s0 = S::LAYOUT.mode(0).unwrap().size() as usize;
    for i in 0..S::SIZE {
        assert_eq!(b.get(i), val(i), "element {i}, {} bytes, swizzle bits {}", e, M::BITS);
        assert_eq!(b.at([(i % s0) as i64, (i / s0) as i64]), val(i));
    }
}

static_layout!(B16x16 = "(16,16):(1,16)");
static_layout!(B32x8 = "(32,8):(1,32)");
static_layout!(B64x8 = "(64,8):(1,64)");
static_layout!(B128x4 = "(128,4):(1,128)");
static_layout!(B8x16 = "(8,16):(1,8)");
static_layout!(B4x32 = "(4,32):(1,4)");
static_layout!(B2x64 = "(2,64):(1,2)");

#[test]
fn swizzled_boxes_read_back_what_tma_wrote() {
    // 32-byte rows: every mode reaches bits 7.. only through the row index.
    round_trip::<u8, B32x8, Swizzle32B>(|i| i as u8);
    round_trip::<u16, B16x16, Swizzle32B>(|i| i as u16);
    round_trip::<u32, B8x16, Swizzle32B>(|i| i as u32 * 3);
    round_trip::<u64, B4x32, Swizzle32B>(|i| i as u64 + 7);
    // 64-byte rows.
    round_trip::<u8, B64x8, Swizzle64B>(|i| (i * 7) as u8);
    round_trip::<u16, B32x8, Swizzle64B>(|i| i as u16);
    round_trip::<f32, B16x16, Swizzle64B>(|i| i as f32);
    round_trip::<u64, B8x16, Swizzle64B>(|i| i as u64);
    // 128-byte rows.
    round_trip::<u8, B128x4, Swizzle128B>(|i| (i * 5) as u8);
    round_trip::<half::f16, B64x8, Swizzle128B>(|i| half::f16::from_f32(i as f32));
    round_trip::<f32, B32x8, Swizzle128B>(|i| i as f32);
    round_trip::<f64, B16x16, Swizzle128B>(|i| i as f64);
    // Narrower rows than the span, and no swizzle.
    round_trip::<f32, B8x16, Swizzle128B>(|i| i as f32);
    round_trip::<u64, B2x64, NoSwizzle>(|i| i as u64);
}

#[test]
fn boxes_tma_cannot_write_are_named_errors() {
    let err = |l: &str, e: usize, span: usize| check_box(Layout::parse(l).unwrap(), e, span).unwrap_err().to_string();
    assert!(err("(32,8):(8,1)", 4, 0).contains("compact column-major"));
    assert!(err("(32,(2,4)):(1,(32,64))", 4, 0).contains("single integer"));
    assert!(err("(2,2,2,2,2,2):(1,2,4,8,16,32)", 16, 0).contains("1 to 5 modes"));
    assert!(err("(512,2):(1,512)", 4, 0).contains("1 to 256"));
    assert!(err("(6,8):(1,6)", 4, 0).contains("multiple of 16"));
    assert!(err("(64,8):(1,64)", 4, 128).contains("swizzle's span"));
    assert!(check_box(Layout::parse("(64,8):(1,64)").unwrap(), 4, 0).is_ok());
}

/// `load_tma` reaches the TMA primitive: on the host, outside a CPU-backend launch, the primitive
/// says so (inside one, the CPU backend performs the copy: `tensor/tma_tile_load_f32` of the suite).
#[test]
#[should_panic(expected = "ran outside a kernel")]
fn load_tma_issues_the_bulk_tensor_copy() {
    let mut image = Image([0; 4096]);
    let smem = unsafe { LayoutTensor::<f32, _, Shared>::from_ptr_in(image.0.as_mut_ptr() as *mut f32, Static::<B32x8>::new()) };
    let bar = Mbarrier::new();
    unsafe {
        bar.init(1);
        smem.load_tma::<Swizzle128B, 2>(core::ptr::null::<TmaDescriptor>(), [0, 0], &bar);
    }
}
