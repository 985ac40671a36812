//! wgmma descriptors derived from shared-memory tile layouts: decoded and evaluated as the
//! hardware does (PTX's canonical layouts, the swizzle applied to byte addresses), every
//! descriptor addresses exactly the bytes the tile's layout gives its elements; layouts outside
//! the descriptors' family are refused by name.

use cute_rs_tensor::atom::wgmma::{make_gmma_desc, make_gmma_layout, GmmaDesc, Major};
use cute_rs_tensor::device::mma::WgmmaSwizzle;
use cute_rs_layout::{Layout, Swizzle, SwizzledLayout};
use proptest::prelude::*;

/// The byte address wgmma reads for element `(m, k)` of the block that `desc` describes,
/// decoded from the 64-bit descriptor as PTX's matrix-descriptor section defines it.
fn hardware_address(desc: u64, major: Major, e: i64, m: i64, k: i64) -> i64 {
    let field = |shift: u32| (((desc >> shift) & 0x3fff) << 4) as i64;
    let (start, lbo, sbo) = (field(0), field(16), field(32));
    let (width, bits) = match desc >> 62 {
        0 => (16, 0),
        1 => (128, 3),
        2 => (64, 2),
        _ => (32, 1),
    };
    let raw = start
        + match major {
            Major::K if bits == 0 => (m / 8) * sbo + (m % 8) * 16 + (k * e / 16) * lbo + (k * e) % 16,
            Major::K => (m / 8) * sbo + (m % 8) * width + k * e,
            Major::MN => (m / (width / e)) * lbo + (m % (width / e)) * e + (k / 8) * sbo + (k % 8) * width,
        };
    // Sw<B,4,3> on bytes: address bits 7.. select which 16-byte chunk of the row moves.
    raw ^ (((raw >> 7) & ((1 << bits) - 1)) << 4)
}

/// Checks every element of every instruction block of `tile` against the descriptor.
fn descriptors_match(tile: SwizzledLayout, desc: GmmaDesc, major: Major, e: i64, mn: i64, k: i64) -> Result<(), String> {
    let inner = tile.layout();
    let (tile_mn, tile_k) = (inner.mode(0).unwrap().size(), inner.mode(1).unwrap().size());
    for mb in 0..tile_mn / mn {
        for kb in 0..tile_k / k {
            let d = desc.at(0, mb as u32, kb as u32);
            for m in 0..mn {
                for kk in 0..k {
                    let (row, col) = (mb * mn + m, kb * k + kk);
                    let want = tile.call(row + tile_mn * col) * e;
                    let got = hardware_address(d, major, e, m, kk);
                    if got != want {
                        return Err(format!("{tile}: element ({row}, {col}) at byte {want}, descriptor reads {got}"));
                    }
                }
            }
        }
    }
    Ok(())
}

fn swizzles() -> impl Strategy<Value = WgmmaSwizzle> {
    prop_oneof![Just(WgmmaSwizzle::None), Just(WgmmaSwizzle::B32), Just(WgmmaSwizzle::B64), Just(WgmmaSwizzle::B128)]
}

fn width(s: WgmmaSwizzle) -> i64 {
    match s {
        WgmmaSwizzle::None => 16,
        WgmmaSwizzle::B32 => 32,
        WgmmaSwizzle::B64 => 64,
        WgmmaSwizzle::B128 => 128,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every canonical tile (each major mode, swizzle, element size, instruction and tile size)
    /// gets a descriptor, and the descriptor of each block reads exactly the tile's bytes.
    #[test]
    fn canonical_tiles_are_read_exactly_by_their_descriptors(
        mn_major in any::<bool>(),
        swizzle in swizzles(),
        e in prop_oneof![Just(1i64), Just(2), Just(4)],
        mn_eighths in 1i64..=8,
        mn_blocks in 1i64..=3,
        k_blocks in 1i64..=4,
        slot in 0u32..256,
    ) {
        let major = if mn_major { Major::MN } else { Major::K };
        prop_assume!(!(mn_major && swizzle == WgmmaSwizzle::None));
        let k = 32 / e;
        let atom = width(swizzle) / e;
        // The instruction's MN and the tile's MN and K. Where MN is contiguous an instruction
        // reads whole 16-byte chunks, and one narrower than the swizzle atom has a tile of one
        // atom (the blocks of the next atom column would not follow at the same step).
        let lcm = |a: i64, b: i64| a / gcd(a, b) * b;
        let (mn, tile_mn, tile_k) = match major {
            Major::K => (8 * mn_eighths, 8 * mn_eighths * mn_blocks, lcm(k, atom) * k_blocks),
            Major::MN if mn_eighths % 2 == 0 => (atom * mn_eighths / 2, atom * mn_eighths / 2 * mn_blocks, lcm(k, 8) * k_blocks),
            Major::MN => {
                let mn = lcm(8, 16 / e).max(atom >> (mn_eighths / 2));
                (mn, lcm(mn, atom), lcm(k, 8) * k_blocks)
            }
        };
        let tile = make_gmma_layout(major, swizzle, e, tile_mn, tile_k).unwrap();
        let desc = make_gmma_desc(tile, e, major, mn, k).map_err(|err| TestCaseError::fail(err.to_string()))?;
        prop_assert_eq!(desc.swizzle(), swizzle);
        descriptors_match(tile, desc, major, e, mn, k).map_err(TestCaseError::fail)?;
        // A warpgroup's operand advances its first descriptor to each k-block: the same
        // descriptors, for a tile anywhere (1024-byte aligned) in the first 256 KiB.
        let bytes = (tile_mn * tile_k * e) as u32;
        let room = ((1u32 << 18) - bytes) / 1024 + 1;
        let address = slot % room * 1024;
        for mb in 0..(tile_mn / mn) as u32 {
            let operand = desc.operand(address, mb);
            for kb in 0..(tile_k / k) as u32 {
                prop_assert_eq!(operand.k_block(kb), desc.at(address, mb, kb), "tile at {}, block ({}, {})", address, mb, kb);
            }
        }
    }

    /// Any rank-2 layout that is accepted, with any swizzle, is read exactly by its
    /// descriptors: a refusal is the only other answer.
    #[test]
    fn accepted_layouts_are_read_exactly(
        perm in Just(()).prop_perturb(|_, mut rng| {
            let mut v = [0usize, 1, 2, 3];
            for i in (1..4).rev() { v.swap(i, (rng.next_u32() as usize) % (i + 1)); }
            v
        }),
        bits in 0u32..=3,
        k_major in any::<bool>(),
    ) {
        // A 64 x 64 bf16 tile made of the modes (8, 8) of M and (8, 8) of K in any order of
        // strides: a few of the 24 orders are canonical.
        let shapes = [8i64, 8, 8, 8];
        let mut strides = [0i64; 4];
        let mut s = 1;
        for &i in &perm { strides[i] = s; s *= shapes[i]; }
        let text = format!("((8,8),(8,8)):(({},{}),({},{}))", strides[0], strides[1], strides[2], strides[3]);
        let tile = SwizzledLayout::new(Swizzle::new(bits, 3, 3).unwrap(), 0, Layout::parse(&text).unwrap());
        let major = if k_major { Major::K } else { Major::MN };
        if let Ok(desc) = make_gmma_desc(tile, 2, major, 64, 16) {
            descriptors_match(tile, desc, major, 2, 64, 16).map_err(TestCaseError::fail)?;
        }
    }
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The Hopper GEMM's tiles: their descriptors carry the offsets PTX's canonical layouts prescribe
/// (1024-byte swizzle atoms; an M/N-major tile in boxes of 64 x 64 elements, 8 KiB apart).
#[test]
fn hopper_gemm_tiles_have_the_canonical_offsets() {
    let a_k = make_gmma_layout(Major::K, WgmmaSwizzle::B128, 2, 128, 64).unwrap();
    let d = make_gmma_desc(a_k, 2, Major::K, 64, 16).unwrap();
    assert_eq!((d.leading_byte_offset(), d.stride_byte_offset(), d.mn_step(), d.k_step()), (16, 1024, 8192, 32));
    let a_mn = make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, 128, 64).unwrap();
    let d = make_gmma_desc(a_mn, 2, Major::MN, 64, 16).unwrap();
    assert_eq!((d.leading_byte_offset(), d.stride_byte_offset(), d.mn_step(), d.k_step()), (8192, 1024, 8192, 2048));
    let b_mn = make_gmma_layout(Major::MN, WgmmaSwizzle::B128, 2, 256, 64).unwrap();
    let d = make_gmma_desc(b_mn, 2, Major::MN, 256, 16).unwrap();
    assert_eq!((d.leading_byte_offset(), d.stride_byte_offset(), d.mn_step(), d.k_step()), (8192, 1024, 0, 2048));
    let b_tf32 = make_gmma_layout(Major::K, WgmmaSwizzle::B128, 4, 256, 32).unwrap();
    let d = make_gmma_desc(b_tf32, 4, Major::K, 256, 8).unwrap();
    assert_eq!((d.leading_byte_offset(), d.stride_byte_offset(), d.mn_step(), d.k_step()), (16, 1024, 0, 32));
    for (tile, major, e, mn, k) in [(a_k, Major::K, 2, 64, 16), (a_mn, Major::MN, 2, 64, 16), (b_mn, Major::MN, 2, 256, 16), (b_tf32, Major::K, 4, 256, 8)] {
        descriptors_match(tile, make_gmma_desc(tile, e, major, mn, k).unwrap(), major, e, mn, k).unwrap();
    }
}

/// Layouts no descriptor describes are refused, naming the condition.
#[test]
fn layouts_outside_the_family_are_refused() {
    let refuse = |tile: SwizzledLayout, e: i64, major: Major, mn: i64, k: i64, why: &str| {
        let err = make_gmma_desc(tile, e, major, mn, k).unwrap_err().to_string();
        assert!(err.contains(why), "{tile}: {err}");
    };
    let sw = |b: u32, m: u32, l: &str| SwizzledLayout::new(Swizzle::new(b, m, 3).unwrap(), 0, Layout::parse(l).unwrap());
    // 128-byte rows with the 64-byte swizzle.
    refuse(sw(2, 3, "(64,64):(64,1)"), 2, Major::K, 64, 16, "swizzle atoms of 8 rows");
    // A K-major tile described as MN-major.
    refuse(sw(3, 3, "(64,64):(64,1)"), 2, Major::MN, 64, 16, "swizzle atoms of 8 rows");
    // K reversed inside the rows.
    refuse(sw(3, 3, "(64,64):(64,-1)"), 2, Major::K, 64, 16, "multiples of 16 bytes");
    // The swizzle on the wrong bits (Sw<3,3,3> is for 2-byte elements).
    refuse(sw(3, 3, "(64,32):(32,1)"), 4, Major::K, 64, 8, "Sw<B,4,3>");
    // An instruction K other than 32 bytes; a rank-3 tile; an element size wgmma does not have.
    refuse(sw(3, 3, "(64,64):(64,1)"), 2, Major::K, 64, 8, "K must be 32 bytes");
    refuse(sw(3, 3, "(64,8,8):(64,1,8)"), 2, Major::K, 64, 16, "rank 2");
    refuse(sw(3, 3, "(64,64):(64,1)"), 8, Major::K, 64, 4, "1, 2 or 4 bytes");
    // Eight blocks of 64 rows at 0, 8, 32, 40, 128, 136, 160 and 168 KiB: runs of two blocks
    // 8 KiB apart, but the runs are not evenly spaced.
    refuse(sw(3, 3, "((64,(2,2,2)),64):((64,(4096,16384,65536)),1)"), 2, Major::K, 64, 16, "evenly spaced");
    refuse(sw(0, 3, "(64,64):(64,1)"), 2, Major::K, 64, 16, "core matrices of 8 rows of 16 bytes");
}

/// The accumulators of an m64nN wgmma are, thread by thread and in order, the register A operand
/// of the next wgmma with K = N: `LAYOUT_C(t, 8 kb + v) = LAYOUT_A(t, v) + 64 * 16 kb`, what
/// `accumulators_as_a` relies on.
#[test]
fn accumulators_are_the_next_register_a_operand() {
    use cute_rs_tensor::device::mma::{wgmma_accumulator_layout, WGMMA_64X16_A_B16};
    for n in [16i64, 32, 64, 128, 256] {
        let c = wgmma_accumulator_layout(n).unwrap();
        for t in 0..128 {
            for kb in 0..n / 16 {
                for v in 0..8 {
                    assert_eq!(
                        c.call(t + 128 * (8 * kb + v)),
                        WGMMA_64X16_A_B16.call(t + 128 * v) + 64 * 16 * kb,
                        "N = {n}, thread {t}, k-block {kb}, value {v}"
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The TMA boxes of a canonical tile: an accepted box cut gives each box a destination that is
    /// its first element's byte offset, each box's elements fill exactly the box's bytes from
    /// there, the boxes cover the tile once, a cluster's parts split the boxes, and each box's
    /// global coordinate is the tile's coordinate at its first element in the map's order.
    #[test]
    fn tma_boxes_cover_the_tile_once_at_their_first_elements(
        mn_major in any::<bool>(),
        swizzle in swizzles(),
        e in prop_oneof![Just(1i64), Just(2), Just(4)],
        row_blocks in 1i64..=4,
        k_atoms in 1i64..=2,
        box_rows_log in 3u32..=8,
        whole_k in any::<bool>(),
        parts_log in 0u32..=2,
        origin in (0i64..1000, 0i64..1000),
    ) {
        use cute_rs_tensor::atom::tma::{MapOrder, TmaBoxes};
        use cute_rs_tensor::{identity::IdentityTensor, static_layout};
        static_layout!(Coords = "(256,256)");
        let major = if mn_major { Major::MN } else { Major::K };
        prop_assume!(!(mn_major && swizzle == WgmmaSwizzle::None));
        let atom_k = (width(swizzle) / e).max(16 / e);
        // Whole swizzle atoms: an MN-major atom is one swizzle width of rows.
        let row_unit = if mn_major { (width(swizzle) / e).max(64) } else { 64 };
        let (rows, k) = (row_unit * row_blocks, atom_k * k_atoms);
        prop_assume!(rows <= 256 && k <= 256);
        let tile = make_gmma_layout(major, swizzle, e, rows, k).unwrap();
        let extent = [1i64 << box_rows_log, if whole_k { k } else { atom_k }];
        let order = if mn_major { MapOrder::OuterFirst } else { MapOrder::KFirst };
        let boxes = TmaBoxes::new(tile, [rows, k], extent, e, order);
        // A box cut that is refused names its condition; the others are checked below.
        if let Err(err) = &boxes {
            let text = err.to_string();
            prop_assert!(text.contains("divide") || text.contains("contiguous") || text.contains("affine"), "{}", text);
        }
        prop_assume!(boxes.is_ok());
        let boxes = boxes.unwrap();
        let [count_o, count_k] = boxes.count();
        prop_assert_eq!([count_o * extent[0], count_k * extent[1]], [rows, k]);
        let parts = 1u32 << parts_log;
        prop_assume!(count_o % parts as i64 == 0);
        let mut covered = vec![0u8; (rows * k) as usize];
        let mut seen = 0;
        for part in 0..parts {
            let coords = IdentityTensor::<Coords>::tile_at([origin.0, origin.1]);
            boxes.for_each_box(coords, core::ptr::null_mut(), part, parts, |dst, c| {
                let dst = dst as i64;
                // Recover the box from its destination: its first element's byte offset.
                let (i, j) = (0..count_o).flat_map(|i| (0..count_k).map(move |j| (i, j)))
                    .find(|&(i, j)| tile.call(i * extent[0] + rows * j * extent[1]) * e == dst)
                    .expect("a box's destination is a box's first element");
                assert!(i >= (part as i64) * count_o / parts as i64 && i < (part as i64 + 1) * count_o / parts as i64, "a part loads its own boxes");
                let first = [origin.0 + i * extent[0], origin.1 + j * extent[1]];
                assert_eq!([c[0] as i64, c[1] as i64], order.coords(first), "the box's coordinate");
                for o in 0..extent[0] {
                    for kk in 0..extent[1] {
                        let off = tile.call(i * extent[0] + o + rows * (j * extent[1] + kk));
                        assert!((dst / e..dst / e + extent[0] * extent[1]).contains(&off), "an element outside its box's bytes");
                        covered[off as usize] += 1;
                    }
                }
                seen += 1;
            });
        }
        prop_assert_eq!(seen, count_o * count_k);
        prop_assert!(covered.iter().all(|&n| n == 1), "the boxes cover the tile once");
    }
}
