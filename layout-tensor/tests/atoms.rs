//! Laws of the atom layer: every atom's thread-value layouts are bijections onto its blocks, every
//! tiled MMA's and tiled copy's partitions cover each element exactly once, and `copy` + `gemm` on
//! the CPU backend equal a reference for every MMA atom.
#![allow(unsafe_op_in_unsafe_fn)] // the kernels' bodies are their unsafe operations

use cute_rs_tensor::algorithm::{axpby, gemm};
use cute_rs_tensor::atom::copy::{copy, make_tiled_copy_a, make_tiled_copy_b, matrix_source, CopyAtom, UniversalCopy};
use cute_rs_tensor::atom::copy::{SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N};
use cute_rs_tensor::atom::tiled_mma::{block_tv, partition_by_tv, tile_tv, MmaGeometry, Operand};
use cute_rs_tensor::atom::{
    MmaAtom, TiledMma, UniversalFma, SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN, SM80_16x8x8_F32TF32TF32F32_TN,
};
use cute_rs_tensor::device::cpu::{self, CpuKernel, CpuLaunch};
use cute_rs_tensor::device::ids::{block_dim_x, thread_idx_x};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::shared_array;
use cute_rs_tensor::device::mma::{LDMATRIX_8X8, LDMATRIX_8X8_TRANS, LDMATRIX_X4_A_ROWS};
use cute_rs_tensor::half::{bf16, f16};
use cute_rs_tensor::identity::IdentityTensor;
use cute_rs_tensor::{static_layout, Element, LayoutTensor, Static, StaticLayout};
use cute_rs_layout::Layout;
use proptest::prelude::*;

/// Whether `l` maps `0..size` onto `0..size` one to one.
fn is_bijection(l: &Layout, size: i64) -> bool {
    if l.size() != size {
        return false;
    }
    let mut seen = vec![false; size as usize];
    (0..size).all(|i| {
        let x = l.call(i);
        (0..size).contains(&x) && !std::mem::replace(&mut seen[x as usize], true)
    })
}

fn atom_layouts_are_bijections<A: MmaAtom>() {
    assert!(is_bijection(&A::LAYOUT_A, A::M * A::K), "A of {}", std::any::type_name::<A>());
    assert!(is_bijection(&A::LAYOUT_B, A::N * A::K), "B of {}", std::any::type_name::<A>());
    assert!(is_bijection(&A::LAYOUT_C, A::M * A::N), "C of {}", std::any::type_name::<A>());
}

#[test]
fn every_mma_atom_is_a_bijection_onto_its_blocks() {
    atom_layouts_are_bijections::<UniversalFma<f32>>();
    atom_layouts_are_bijections::<SM80_16x8x16_F32BF16BF16F32_TN>();
    atom_layouts_are_bijections::<SM80_16x8x16_F32F16F16F32_TN>();
    atom_layouts_are_bijections::<SM80_16x8x8_F32TF32TF32F32_TN>();
}

/// The three m16n8 atoms and the FMA, by shape and layouts.
fn atoms() -> Vec<([i64; 3], [Layout; 3])> {
    fn of<A: MmaAtom>() -> ([i64; 3], [Layout; 3]) {
        ([A::M, A::N, A::K], [A::LAYOUT_A, A::LAYOUT_B, A::LAYOUT_C])
    }
    vec![of::<UniversalFma<f32>>(), of::<SM80_16x8x16_F32BF16BF16F32_TN>(), of::<SM80_16x8x8_F32TF32TF32F32_TN>()]
}

/// A compact layout of `sizes`, column-major or (with `row`) row-major.
fn groups(sizes: [i64; 3], row: bool) -> Layout {
    let s = format!("({},{},{})", sizes[0], sizes[1], sizes[2]);
    let stride = if row { format!("({},{},1)", sizes[1] * sizes[2], sizes[2]) } else { format!("(1,{},{})", sizes[0], sizes[0] * sizes[1]) };
    Layout::parse(&format!("{s}:{stride}")).unwrap()
}

proptest! {
    /// The tile layouts of any tiled MMA are bijections onto the tile, and partitions of a
    /// larger operand by them cover each of its elements exactly once (across all threads, the
    /// threads of the third dimension sharing their operand copies).
    #[test]
    fn tiled_mma_partitions_cover_each_element_once(
        atom in 0usize..3, v in prop::array::uniform3(1i64..3), w in prop::array::uniform3(1i64..3),
        row in any::<bool>(), reps in prop::array::uniform2(1i64..3), op in 0usize..3,
    ) {
        let (shape, layouts) = atoms()[atom].clone();
        let g = MmaGeometry { atom: shape, values: v, groups: w };
        let op = [Operand::A, Operand::B, Operand::C][op];
        let group_layout = groups(w, row);
        let block = block_tv(layouts[op as usize], g, op).unwrap();
        let (r, c) = op.dims();
        let b = g.block();
        prop_assert!(is_bijection(&block, b[r] * b[c]), "block {block}");
        let tile = tile_tv(block, g, group_layout, op).unwrap();
        let t = g.tile();
        let threads = tile.mode(0).unwrap().size();
        prop_assert_eq!(threads, shape_threads(atom) * w[0] * w[1] * w[2]);
        // Each tile element is held by exactly the groups that differ in the third dimension.
        let third = w[3 - r - c];
        let mut count = vec![0i64; (t[r] * t[c]) as usize];
        for i in 0..tile.size() {
            count[tile.call(i) as usize] += 1;
        }
        prop_assert!(count.iter().all(|&n| n == third), "tile {tile}");
        // A row-major operand of reps tiles: the partitions cover it as the tile does.
        let (rows, cols) = (t[r] * reps[0], t[c] * reps[1]);
        let s = Layout::parse(&format!("({rows},{cols}):({cols},1)")).unwrap();
        let (frag, origin) = partition_by_tv(s, tile, t[r], t[c]).unwrap();
        let mut hits = vec![0i64; (rows * cols) as usize];
        for tid in 0..threads {
            for i in 0..frag.size() {
                hits[(origin.call(tid) + frag.call(i)) as usize] += 1;
            }
        }
        prop_assert!(hits.iter().all(|&n| n == third));
    }
}

/// Every thread's partition of an identity tensor of C (`rows x cols`) holds exactly the
/// coordinates of its values in the C tile (the per-mode sums of the identity tensor never carry
/// for a tiled MMA's partition), and together the threads hold each coordinate once.
fn identity_partition_is_the_coordinates<Atom: MmaAtom, G: StaticLayout, V: StaticLayout, Tile: StaticLayout, const N: usize>() {
    let c = Tile::LAYOUT; // column-major (rows, cols)
    let rows = c.mode(0).unwrap().size();
    let threads = TiledMma::<Atom, G, V>::THREADS;
    let (frag, origin) = partition_by_tv(c, TiledMma::<Atom, G, V>::tile_tv(Operand::C), TiledMma::<Atom, G, V>::TILE_M, TiledMma::<Atom, G, V>::TILE_N).unwrap();
    assert_eq!(frag.size() as usize, N);
    let mut seen = vec![0; c.size() as usize];
    for t in 0..threads {
        let coords = TiledMma::<Atom, G, V>::get_slice(t).partition_c(IdentityTensor::<Tile>::new());
        for i in 0..N {
            let at = origin.call(t as i64) + frag.call(i as i64);
            assert_eq!(coords.get::<2>(i), [at % rows, at / rows], "thread {t} value {i} of {}", std::any::type_name::<Atom>());
            seen[at as usize] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n == 1));
}

static_layout!(Warps24 = "(2,4,1)");
static_layout!(TwoAlongN = "(1,2,1)");
static_layout!(OneAtom = "(1,1,1)");
static_layout!(Groups22 = "(2,2,1)");
static_layout!(Tile128 = "(128,128)");
static_layout!(Tile32x64 = "(32,64)");
static_layout!(Tile8 = "(8,8)");

#[test]
fn identity_partitions_of_c_are_the_values_coordinates() {
    // The mma.sync GEMM's tiled MMA and tile.
    identity_partition_is_the_coordinates::<SM80_16x8x16_F32BF16BF16F32_TN, Warps24, TwoAlongN, Tile128, 64>();
    identity_partition_is_the_coordinates::<SM80_16x8x8_F32TF32TF32F32_TN, Warps24, OneAtom, Tile32x64, 8>();
    identity_partition_is_the_coordinates::<UniversalFma<f32>, Groups22, OneAtom, Tile8, 16>();
}

fn shape_threads(atom: usize) -> i64 {
    if atom == 0 { 1 } else { 32 }
}

#[test]
fn ldmatrix_sources_are_the_documented_rows_and_cover_each_block_once() {
    type Bf = SM80_16x8x16_F32BF16BF16F32_TN;
    let two_n = MmaGeometry { atom: [16, 8, 16], values: [1, 2, 1], groups: [1, 1, 1] };
    let b_block = block_tv(Bf::LAYOUT_B, two_n, Operand::B).unwrap();
    // Where each lane points ldmatrix.x4 (.trans) in a 16 (N) x 16 (K) B block, `n + 16 k`:
    // matrix q covers n 8 (q / 2) .., k 8 (q % 2) ..; lane 8q + r its row r.
    let b_rows = Layout::parse("(8,2,2):(1,128,8)").unwrap();
    let b_rows_trans = Layout::parse("(8,2,2):(16,128,8)").unwrap();
    let cases = [
        (LDMATRIX_8X8, Bf::LAYOUT_A, LDMATRIX_X4_A_ROWS, 16),
        (LDMATRIX_8X8, b_block, b_rows, 16),
        (LDMATRIX_8X8_TRANS, b_block, b_rows_trans, 1),
    ];
    for (register, dst, rows, step) in cases {
        let src = matrix_source(register, 4, dst).unwrap();
        assert!(is_bijection(&src, 256), "{src}");
        for lane in 0..32 {
            assert_eq!(src.call(lane), rows.call(lane), "lane {lane} of {src}");
            assert_eq!(src.call(lane + 32) - src.call(lane), step);
        }
    }
    // A destination whose rows are not runs of the block is refused by name.
    let err = matrix_source(LDMATRIX_8X8, 4, Layout::parse("(32,8):(8,1)").unwrap()).unwrap_err();
    assert!(err.to_string().contains("ldmatrix row"), "{err}");
}

static_layout!(Warps = "(2,2,1)");
static_layout!(Threads = "(8,4,1)");
static_layout!(TwoN = "(1,2,1)");
static_layout!(TileA = "(64,32):(32,1)"); // A: M x K, K-major (row-major)
static_layout!(TileBk = "(64,32):(32,1)"); // B as N x K, K-major
static_layout!(TileBn = "(64,32):(1,64)"); // B as N x K, N-major
static_layout!(TileC = "(64,64):(64,1)");

/// The product of `(M x K) * (K x N)` from `a` (row-major M x K) and `bt` (row-major N x K).
fn reference(a: &[f32], bt: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    (0..m * n).map(|i| (0..k).map(|x| a[i / n * k + x] * bt[i % n * k + x]).sum()).collect()
}

/// Numbers that the 16-bit and tf32 inputs hold exactly, with exact f32 sums.
fn inputs(len: usize, seed: u64) -> Vec<f32> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % 9) as f32 - 4.0
        })
        .collect()
}

/// Kernel body: the block's 64 x 64 C of `C = A B` with the tiled MMA of `Atom` (2 x 2 warps,
/// two atoms along N), fragments copied by `CA` and `CB` from A (row-major) and B (N x K,
/// K-major, or N-major with `N_MAJOR`).
unsafe fn tiled_gemm<Atom, G, CA, CB, const N_MAJOR: bool, const NA: usize, const NB: usize, const NC: usize>(args: &[&[u8]])
where
    Atom: MmaAtom<C = f32>,
    G: cute_rs_tensor::StaticLayout,
    CA: CopyAtom<Atom::A>,
    CB: CopyAtom<Atom::B>,
{
    let p = |i: usize| u64::from_le_bytes(args[i].try_into().unwrap()) as usize;
    let (a, b, c) = (p(0) as *mut Atom::A, p(1) as *mut Atom::B, p(2) as *mut f32);
    type Mma<A, G> = TiledMma<A, G, TwoN>;
    let mma = Mma::<Atom, G>::default();
    let tid = thread_idx_x() as usize;
    let thr = Mma::<Atom, G>::get_slice(tid);
    // A and B staged in shared memory, where ldmatrix reads (the same offsets as in global).
    let (sa_ptr, sb_ptr) = (
        shared_array!(ATOMS_A: [u32; 64 * 32], align 16).as_mut_ptr() as *mut Atom::A,
        shared_array!(ATOMS_B: [u32; 64 * 32], align 16).as_mut_ptr() as *mut Atom::B,
    );
    let threads = block_dim_x() as usize;
    for i in (tid..64 * 32).step_by(threads) {
        *sa_ptr.add(i) = *a.add(i);
        *sb_ptr.add(i) = *b.add(i);
    }
    sync_threads();
    let (a, b) = (sa_ptr, sb_ptr);
    let sa = LayoutTensor::from_ptr(a, Static::<TileA>::new());
    let (ca, cb) = (make_tiled_copy_a::<CA, _, _, _>(mma), make_tiled_copy_b::<CB, _, _, _>(mma));
    let mut fa = thr.partition_fragment_a::<TileA, NA>();
    let mut fb = thr.partition_fragment_b::<TileBk, NB>();
    let mut acc = thr.partition_fragment_c::<TileC, NC>();
    copy(ca, ca.get_slice(tid).partition_s(sa), fa.tensor());
    if N_MAJOR {
        copy(cb, cb.get_slice(tid).partition_s(LayoutTensor::from_ptr(b, Static::<TileBn>::new())), fb.tensor());
    } else {
        copy(cb, cb.get_slice(tid).partition_s(LayoutTensor::from_ptr(b, Static::<TileBk>::new())), fb.tensor());
    }
    gemm(mma, fa.tensor(), fb.tensor(), acc.tensor());
    axpby(1.0, acc.tensor(), 0.0, thr.partition_c(LayoutTensor::from_ptr(c, Static::<TileC>::new())));
}

/// Runs [`tiled_gemm`] on the CPU backend (`threads`) and compares with the reference.
fn check_tiled_gemm<T: Element>(entry: unsafe fn(&[&[u8]]), threads: u32, to: fn(f32) -> T, n_major: bool) {
    let (m, n, k) = (64, 64, 32);
    let (a, bt) = (inputs(m * k, 7), inputs(n * k, 11));
    let a_in: Vec<T> = a.iter().map(|&x| to(x)).collect();
    // B as N x K: K-major (row-major) or N-major (column-major).
    let b_in: Vec<T> = if n_major { (0..n * k).map(|i| to(bt[i % n * k + i / n])).collect() } else { bt.iter().map(|&x| to(x)).collect() };
    let mut c = vec![f32::NAN; m * n];
    let args = [a_in.as_ptr() as u64, b_in.as_ptr() as u64, c.as_mut_ptr() as u64].map(u64::to_le_bytes);
    let kernel = CpuKernel { name: "tiled_gemm", params: &[8, 8, 8], entry };
    cpu::launch(&kernel, &CpuLaunch::linear(1, threads), &[&args[0], &args[1], &args[2]]).unwrap();
    let want = reference(&a, &bt, m, n, k);
    let wrong: Vec<usize> = (0..m * n).filter(|&i| c[i] != want[i]).collect();
    assert!(wrong.is_empty(), "{} of {} elements differ, first (row, col) {:?}: {} instead of {}", wrong.len(), m * n,
        wrong.first().map(|&i| (i / n, i % n)), c[wrong[0]], want[wrong[0]]);
}

#[test]
fn copy_and_gemm_equal_the_reference_for_every_mma_atom() {
    let bf = |x: f32| bf16::from_f32(x);
    let hf = |x: f32| f16::from_f32(x);
    type Bf = SM80_16x8x16_F32BF16BF16F32_TN;
    type Hf = SM80_16x8x16_F32F16F16F32_TN;
    type Tf = SM80_16x8x8_F32TF32TF32F32_TN;
    type Fma = UniversalFma<f32>;
    type Lds = SM75_U32x4_LDSM_N;
    type LdsT = SM75_U16x8_LDSM_T;
    type Elem = UniversalCopy;
    // 4 warps: A 32 x 16 tiles (2 x 2 of 8 values), B 32 x 16 (2 x 2 of 8), C 2 x 2 of 8 values.
    // ldmatrix for A; ldmatrix or ldmatrix.trans for B.
    check_tiled_gemm(tiled_gemm::<Bf, Warps, Elem, Elem, false, 32, 32, 32>, 128, bf, false);
    check_tiled_gemm(tiled_gemm::<Bf, Warps, Lds, Lds, false, 32, 32, 32>, 128, bf, false);
    check_tiled_gemm(tiled_gemm::<Bf, Warps, Lds, LdsT, true, 32, 32, 32>, 128, bf, true);
    check_tiled_gemm(tiled_gemm::<Hf, Warps, Lds, Lds, false, 32, 32, 32>, 128, hf, false);
    // Element by element: every atom, tf32 (k8: 4 K repetitions of 4 and 2 x 2 values) and the
    // FMA (32 threads, 8 x 8 tiles of C) included.
    check_tiled_gemm(tiled_gemm::<Bf, Warps, Elem, Elem, true, 32, 32, 32>, 128, bf, true);
    check_tiled_gemm(tiled_gemm::<Tf, Warps, Elem, Elem, false, 32, 32, 32>, 128, |x| x, false);
    check_tiled_gemm(tiled_gemm::<Fma, Threads, Elem, Elem, false, 256, 512, 128>, 32, |x| x, false);
}

static_layout!(Ring = "(128,32,3):(1,128,8192)");
static_layout!(Piece = "(8,4):(1,256)");

proptest! {
    /// A swizzled view moved by any origins (a ring's stage, then a thread's offset) reads
    /// `Z(origin + S(i))`: keeping only the origin's part below the swizzle's domain inside the
    /// swizzle, and adding offsets' multiples of the domain after it, changes no address.
    #[test]
    fn swizzled_views_read_z_of_origin_plus_offset(stage in 0i64..3, thread in 0i64..4096, i in 0i64..32) {
        use cute_rs_tensor::partition::{StaticSwizzle, Sw};
        use cute_rs_tensor::static_view::StaticView;
        use cute_rs_tensor::swizzled::Swizzled;
        use cute_rs_tensor::Shared;
        // Each element holds its own offset.
        let mut v: Vec<u16> = (0..(3 * 8192 + 4096) as u16).collect();
        let ring = unsafe { LayoutTensor::<u16, _, Shared>::from_ptr_in(v.as_mut_ptr(), Swizzled::<Sw<3, 3, 4>, Ring>::new()) };
        let piece = ring.slice_mode::<2>(stage).relayout::<Piece>(thread);
        let got = piece.get(i as usize);
        let want = <Sw<3, 3, 4>>::SWIZZLE.apply(stage * 8192 + thread + Piece::LAYOUT.call(i));
        prop_assert_eq!(got as i64, want);
    }
}

static_layout!(StageThr = "(8,4):(4,1)");
static_layout!(StageVal = "(1,8):(1,1)");
static_layout!(StageTile = "(16,32)");
static_layout!(StageDst = "(16,32):(32,1)");

/// Stages the `16 x 32` tile at `at` of a row-major `rows x cols` matrix with `copy_if` and atom
/// `C` by all 32 threads; returns the staged tile, row-major.
fn stage_with<C: CopyAtom<u16> + Default + Copy>(m: &mut [u16], rows: i64, cols: i64, at: [i64; 2]) -> Vec<u16> {
    use cute_rs_tensor::atom::tiled_copy::{copy_if, make_tiled_copy};
    use cute_rs_tensor::strided_tile::local_tile;
    use cute_rs_tensor::Strided;
    let g = local_tile::<StageTile, _, _, 2>(LayoutTensor::new(m, Strided::row_major([rows, cols])).unwrap(), at);
    let mut s = vec![0xffffu16; 16 * 32];
    let d = LayoutTensor::new(&mut s, Static::<StageDst>::new()).unwrap();
    let copy = make_tiled_copy::<C, StageThr, StageVal>();
    for t in 0..32 {
        let thr = copy.get_slice(t);
        copy_if(copy, thr.partition_s(IdentityTensor::<StageTile>::tile_at(at)), [rows, cols], thr.partition_s(g), thr.partition_d(d));
    }
    s
}

proptest! {
    /// `copy_if` stages exactly the matrix's elements inside the tile and zeros past its edges,
    /// whatever the tile's position and the matrix's extents (element copies, and 16-byte
    /// `cp.async` chunks that cross the edge).
    #[test]
    fn copy_if_stages_inside_values_and_zeros_outside(rows in 1i64..40, cols in 1i64..70, r0 in 0i64..40, c0 in 0i64..70) {
        use cute_rs_tensor::atom::copy::SM80_CP_ASYNC_CACHEGLOBAL_ZFILL;
        let mut m: Vec<u16> = (0..rows * cols).map(|x| x as u16 + 1).collect();
        let want: Vec<u16> = (0..16 * 32)
            .map(|i| {
                let (r, c) = (r0 + i / 32, c0 + i % 32);
                if r < rows && c < cols { (r * cols + c) as u16 + 1 } else { 0 }
            })
            .collect();
        prop_assert_eq!(stage_with::<UniversalCopy>(&mut m, rows, cols, [r0, c0]), want.clone());
        prop_assert_eq!(stage_with::<SM80_CP_ASYNC_CACHEGLOBAL_ZFILL>(&mut m, rows, cols, [r0, c0]), want);
    }
}

static_layout!(RingStage = "(4,8):(8,1)");

/// Kernel body: each of 32 threads writes `stage * 100 + tid` into its element of every stage of
/// a circular shared ring of 3 stages, walking it 7 times around, then copies the ring out.
unsafe fn ring_walk(args: &[&[u8]]) {
    use cute_rs_tensor::TileIter;
    let out = u64::from_le_bytes(args[0].try_into().unwrap()) as *mut u32;
    let tid = thread_idx_x() as usize;
    let buf = shared_array!(ATOMS_RING: [u32; 96]);
    let mut ring = TileIter::over_shared(buf, Static::<RingStage>::new(), true);
    assert_eq!(ring.len(), 3);
    for step in 0..21 {
        ring.get().set(tid, (step % 3 * 100 + tid) as u32);
        ring.advance(1);
    }
    sync_threads();
    for i in (tid..96).step_by(32) {
        *out.add(i) = buf.read(i);
    }
}

/// A shared ring walked by a circular `TileIter` wraps at its stage count and addresses each
/// stage's elements through the stage layout.
#[test]
fn a_circular_iterator_walks_a_shared_ring() {
    let mut out = vec![0u32; 96];
    let arg = (out.as_mut_ptr() as u64).to_le_bytes();
    let kernel = CpuKernel { name: "ring_walk", params: &[8], entry: ring_walk };
    cpu::launch(&kernel, &CpuLaunch::linear(1, 32), &[&arg]).unwrap();
    // Stage s holds s * 100 + t at thread t's element (4 x 8 row-major: index t is (t % 4, t / 4)).
    let want: Vec<u32> = (0..96).map(|i| {
        let (stage, off) = (i / 32, i % 32);
        let t = (off / 8) + 4 * (off % 8);
        (stage * 100 + t) as u32
    }).collect();
    assert_eq!(out, want);
}

/// The destination of the x4 `stmatrix` tiled copy of every wgmma accumulator width is a
/// bijection onto its 64 x N tile: each element is written exactly once.
#[test]
fn stmatrix_tiled_copies_of_wgmma_accumulators_cover_the_tile_once() {
    use cute_rs_tensor::atom::fragment_copy::matrix_store_tv;
    use cute_rs_tensor::device::mma::wgmma_accumulator_layout;
    for n in [16, 32, 64, 128, 256] {
        let tv = matrix_store_tv(LDMATRIX_8X8, 4, wgmma_accumulator_layout(n).unwrap()).unwrap();
        assert!(is_bijection(&tv, 64 * n), "m64n{n}");
        // Each row of 8 elements runs along N (stride 64 in m + 64 n).
        assert!((0..128).all(|t| (1..8).all(|c| tv.call(t + 128 * c) == tv.call(t) + 64 * c)), "m64n{n}");
    }
    // A fragment whose rows are not runs of the tile is refused by name.
    let scattered = Layout::parse("((4,8,4),(2,2,8)):((128,1,16),(192,8,512))").unwrap();
    assert!(matrix_store_tv(LDMATRIX_8X8, 4, scattered).is_err());
}

static_layout!(Acc64 = "((4,8,4),(2,2,8)):((128,1,16),(64,8,512))");
static_layout!(Tile64 = "(64,64)");
static_layout!(StagingRows = "(64,64):(64,1)");
static_layout!(AccValues = "32:1");

/// Kernel body: a warpgroup stores its m64n64 accumulator fragment (each value its own tile index
/// `m + 64 n`) into a 128-byte-swizzled row-major 64 x 64 shared tile with the tiled copy of atom
/// `C`, then copies the tile's memory out.
unsafe fn store_accumulators<C: CopyAtom<u16>>(args: &[&[u8]]) {
    use cute_rs_tensor::atom::fragment_copy::make_tiled_copy_c;
    use cute_rs_tensor::partition::Sw;
    use cute_rs_tensor::swizzled::Swizzled;
    use cute_rs_tensor::{Fragment, Shared};
    let out = u64::from_le_bytes(args[0].try_into().unwrap()) as *mut u16;
    let tid = thread_idx_x() as usize;
    let buf = shared_array!(ATOMS_STAGING: [u16; 4096], align 128);
    let staging = LayoutTensor::<u16, _, Shared>::from_ptr_in(buf.as_mut_ptr(), Swizzled::<Sw<3, 3, 3>, StagingRows>::new());
    let mut frag = Fragment::<u16, AccValues, 32>::new();
    for v in 0..32 {
        frag.data[v] = Acc64::LAYOUT.call(tid as i64 + 128 * v as i64) as u16;
    }
    let c = make_tiled_copy_c::<C, Acc64, Tile64>();
    let thr = c.get_slice(tid);
    copy(c, thr.retile_s(frag.tensor()), thr.partition_d(staging));
    sync_threads();
    for i in (tid..4096).step_by(128) {
        *out.add(i) = buf.read(i);
    }
}

/// `stmatrix` and element-wise tiled copies of a wgmma accumulator put every element where the
/// swizzled staging layout says: element `(m, n)` at `Sw<3,3,3>(64 m + n)`.
#[test]
fn stmatrix_stores_accumulators_where_the_staging_layout_says() {
    use cute_rs_tensor::atom::copy::SM90_U32x4_STSM_N;
    let swizzle = |i: i64| i ^ ((i >> 3) & 0b111_000);
    let want: Vec<u16> = {
        let mut w = vec![0u16; 4096];
        for m in 0..64 {
            for n in 0..64 {
                w[swizzle(64 * m + n) as usize] = (m + 64 * n) as u16;
            }
        }
        w
    };
    for (name, entry) in [("stmatrix", store_accumulators::<SM90_U32x4_STSM_N> as unsafe fn(&[&[u8]])), ("universal", store_accumulators::<UniversalCopy>)] {
        let mut out = vec![0xffffu16; 4096];
        let arg = (out.as_mut_ptr() as u64).to_le_bytes();
        let kernel = CpuKernel { name: "store_accumulators", params: &[8], entry };
        cpu::launch(&kernel, &CpuLaunch::linear(1, 128), &[&arg]).unwrap();
        assert!(out == want, "{name}: first difference at {:?}", (0..4096).find(|&i| out[i] != want[i]));
    }
}
