//! Worked examples of the cuTile, Mojo and Triton documentation that the feature tests do not hold, on the host:
//! cuTile's `load`/`store` index formulas (the plain and the transposed call), and Mojo's
//! `LayoutTensor` examples (Figure 1's offsets, subscripts, scalar elements of vectors, a tensor
//! over a pointer, `tile[32, 32](0, 1)` and the layouts of extracted tiles, `tile_type`, and the
//! warp-wide `vectorize[1, 4]().distribute[row_major(8, 4)](lane_id())`).
//!
//! The other examples are reproduced where their feature is tested: `cutile.rs` (cuTile's printed
//! loads and stores), `triton.rs` (Triton's indirect load), `views.rs` (Mojo's Figure 5 and
//! tiled iterators), `vectorized.rs` (Mojo's element layouts), the doc tests of `LayoutTensor`
//! (`fill`, `at_flat`, `load_at`/`store_at`, `dim`), and the GPU suite (rocPRIM's `block_load`,
//! Mojo's kernels).

use cute_rs_layout::Layout;
use cute_rs_tensor::tile_space::{LoadOptions, Order, StoreOptions};
use cute_rs_tensor::static_layout::TileOf;
use cute_rs_tensor::{static_layout, Fragment, LayoutTensor, Static, StaticLayout, Vector};

fn l(s: &str) -> Layout {
    Layout::parse(s).unwrap()
}

// ---- cuTile `load`: `t[x, y] = array[i * tm + x, j * tn + y]` ----

static_layout!(A6x8 = "(6,8):(8,1)");
static_layout!(T2x4 = "(2,4):(4,1)");
static_layout!(T4x2 = "(4,2):(2,1)");

/// cuTile `load`'s definition: `t = ct.load(array, (i, j), (tm, tn))` has shape `(tm, tn)` and
/// `t[x, y] = array[i * tm + x, j * tn + y]`; the transposed call `ct.load(array, (j, i),
/// shape=(tn, tm), order=(1, 0))` gives `t[y, x] = array[i * tm + x, j * tn + y]`. A 6 x 8 array
/// in 2 x 4 tiles, every tile both ways.
#[test]
fn cutile_load_index_formula_and_its_transpose() {
    let (tm, tn) = (2i64, 4i64);
    let mut v: Vec<i32> = (0..48).collect();
    let a = LayoutTensor::new(&mut v, Static::<A6x8>::new()).unwrap();
    let plain = a.tile_space::<T2x4, 2>(Order::C);
    let transposed = a.tile_space::<T4x2, 2>(Order::Perm([1, 0]));
    for i in 0..3 {
        for j in 0..2 {
            let t = plain.load::<8>([i, j], LoadOptions::default());
            let tt = transposed.load::<8>([j, i], LoadOptions::default());
            for x in 0..tm {
                for y in 0..tn {
                    let want = a.at([i * tm + x, j * tn + y]);
                    assert_eq!(t.data[(x * tn + y) as usize], want, "t[{x}, {y}] of tile ({i}, {j})"); // T2x4 row-major
                    assert_eq!(tt.data[(y * tm + x) as usize], want, "transposed t[{y}, {x}] of tile ({j}, {i})"); // T4x2 row-major
                }
            }
        }
    }
}

/// cuTile `store`'s definition: `ct.store(array, (i, j), t)` writes `array[i * tm + x, j * tn + y]
/// = t[x, y]` (the document writes `i * tn + y`, a typo: the tile space is the same as `load`'s,
/// whose formula has `j * tn + y`). Every tile of a 6 x 8 array stores its own number: each element
/// ends up holding the number of the tile `(row / tm, col / tn)` and its place in it.
#[test]
fn cutile_store_index_formula() {
    let (tm, tn) = (2i64, 4i64);
    let mut v = vec![-1i32; 48];
    let a = LayoutTensor::new(&mut v, Static::<A6x8>::new()).unwrap();
    let s = a.tile_space::<T2x4, 2>(Order::C);
    for i in 0..3 {
        for j in 0..2 {
            let mut t = Fragment::<i32, T2x4, 8>::new();
            t.data = core::array::from_fn(|k| (100 * (i * 2 + j) + k as i64) as i32); // t[x, y] at k = 4x + y
            s.store([i, j], &t, StoreOptions::default());
        }
    }
    for r in 0..6 {
        for c in 0..8 {
            let (i, j, x, y) = (r / tm, c / tn, r % tm, c % tn);
            assert_eq!(v[(r * 8 + c) as usize], (100 * (i * 2 + j) + x * tn + y) as i32, "array[{r}, {c}]");
        }
    }
}

// ---- Mojo's `LayoutTensor` ----

/// Mojo's Figure 1: a 2-D column-major layout over a linear array: "the coordinates (0, 1)
/// correspond to offset 2 in the storage". The figure's extents are not in the text; a column-major
/// layout with 2 rows is what makes (0, 1) offset 2 (here 2 x 4): offset `x + 2 y`.
#[test]
fn mojo_figure1_column_major_offsets() {
    let mut storage: Vec<u32> = (0..8).collect(); // each element holds its offset
    let t = LayoutTensor::new(&mut storage, l("(2,4):(1,2)")).unwrap();
    assert_eq!(t.offset_at([0, 1]), 2);
    assert_eq!(t.at([0, 1]), 2);
    for x in 0..2 {
        for y in 0..4 {
            assert_eq!(t.at([x, y]), (x + 2 * y) as u32);
        }
    }
}

/// Mojo's element access: `element = tensor2d[x, y]`, `tensor2d[x, y] = z` (Rust: `t[[x, y]]`).
#[test]
fn mojo_subscript_reads_and_writes() {
    let mut storage = vec![0f32; 8 * 16];
    let mut tensor2d = LayoutTensor::new(&mut storage, l("(8,16):(16,1)")).unwrap();
    let (x, y, z) = (3usize, 5usize, 42.0f32);
    tensor2d[[x, y]] = z;
    let element = tensor2d[[x, y]];
    assert_eq!(element, 42.0);
    assert_eq!(storage[3 * 16 + 5], 42.0);
}

/// Mojo: "Indexing into a 2D tensor requires two indices": `el2 = tensor2d[x]` is a run-time
/// error (here a panic naming the condition on the host, where coordinates are checked).
#[test]
#[should_panic(expected = "top-level modes")]
fn mojo_subscript_with_one_index_on_a_2d_tensor_fails() {
    let mut storage = vec![0f32; 8 * 16];
    let tensor2d = LayoutTensor::new(&mut storage, l("(8,16):(16,1)")).unwrap();
    let _el2 = tensor2d[[1]];
}

/// Mojo: `element = tensor[x, y][0]`, the first (for a scalar tensor the only) value of the
/// element a subscript returns: on a tensor of 1 x 4 vectors (`vectorize[1, 4]`), element `[x, y]`
/// is a vector and `[0]` its first value; on the scalar tensor the subscript is the scalar.
#[test]
fn mojo_first_value_of_an_element() {
    static_layout!(M = "(4,8):(8,1)");
    #[repr(align(16))]
    struct Buf([i32; 32]);
    let mut b = Buf(core::array::from_fn(|i| i as i32));
    let tensor = LayoutTensor::new(&mut b.0, Static::<M>::new()).unwrap();
    let v = tensor.vectorize::<4>();
    let (x, y) = (2, 1);
    assert_eq!(v.at([x, y]), Vector([20, 21, 22, 23]));
    let element: i32 = v.at([x, y]).0[0];
    assert_eq!(element, 20);
    assert_eq!(tensor[[2, 4]], element);
}

/// Mojo's tensor on the CPU over an `UnsafePointer`: `rows = columns = 1024`,
/// `ptr = UnsafePointer[Float32].alloc(buf_size)`, `memset(ptr, 0, buf_size)`, a row-major
/// `LayoutTensor` over it (the document passes `storage`, meaning `ptr`). Every element reads 0.
#[test]
fn mojo_tensor_over_a_pointer() {
    const ROWS: usize = 1024;
    const COLUMNS: usize = 1024;
    const BUF_SIZE: usize = ROWS * COLUMNS;
    static_layout!(RowMajor1024 = "(1024,1024):(1024,1)");
    let layout = std::alloc::Layout::array::<f32>(BUF_SIZE).unwrap();
    let ptr = unsafe { std::alloc::alloc(layout) } as *mut f32;
    assert!(!ptr.is_null());
    unsafe { core::ptr::write_bytes(ptr, 0, BUF_SIZE) };
    let tensor = unsafe { LayoutTensor::<f32, _>::from_ptr(ptr, Static::<RowMajor1024>::new()) };
    assert_eq!(tensor.size(), BUF_SIZE);
    assert_eq!((tensor.dim(0), tensor.dim(1)), (ROWS, COLUMNS));
    assert!((0..BUF_SIZE).all(|i| tensor.get(i) == 0.0));
    tensor.set_at([1023, 1023], 1.0);
    assert_eq!(unsafe { *ptr.add(BUF_SIZE - 1) }, 1.0);
    unsafe { std::alloc::dealloc(ptr as *mut u8, layout) };
}

static_layout!(Tile32 = "(32,32)");
static_layout!(Row64 = "(64,64):(64,1)");
static_layout!(Col64 = "(64,64):(1,64)");

/// Mojo's Figure 3: `tensor.tile[32, 32](0, 1)`, the 32 x 32 tile at tile row 0, tile column 1
/// (coordinates in tiles): rows 0..32, columns 32..64 of a 64 x 64 tensor (the figure's extents
/// are not in the text). "If the parent tensor has a column-major layout, the extracted tile has
/// a column-major layout": a row-major parent gives a row-major tile.
#[test]
fn mojo_figure3_tile_32x32_at_0_1() {
    let mut rows: Vec<u32> = (0..64 * 64).collect();
    let row_major = LayoutTensor::new(&mut rows, Static::<Row64>::new()).unwrap();
    let tile = row_major.tile::<Tile32, 2>([0, 1]);
    assert_eq!(tile.layout().to_string(), "(32,32):(64,1)");
    let mut cols: Vec<u32> = (0..64 * 64).collect();
    let col_major = LayoutTensor::new(&mut cols, Static::<Col64>::new()).unwrap();
    let ctile = col_major.tile::<Tile32, 2>([0, 1]);
    assert_eq!(ctile.layout().to_string(), "(32,32):(1,64)");
    for x in 0..32 {
        for y in 0..32 {
            assert_eq!(tile.at([x, y]), (x * 64 + 32 + y) as u32); // row x, column 32 + y
            assert_eq!(ctile.at([x, y]), (x + 64 * (32 + y)) as u32);
        }
    }
}

/// Mojo: "if the parent tensor is composed of 8x8 row-major tiles, a tile size of 8x8 yields an
/// extracted tile with an 8x8 row-major layout": a 16 x 16 tensor of 8 x 8 row-major tiles (tiles
/// stored one after another, tile-major), its tile `(1, 0)` is the third block of 64 elements.
#[test]
fn mojo_tile_of_a_tiled_layout() {
    static_layout!(Tiled = "((8,2),(8,2)):((8,64),(1,128))");
    static_layout!(Tile8 = "(8,8)");
    assert_eq!(TileOf::<Tiled, Tile8>::LAYOUT.to_string(), "(8,8):(8,1)");
    let mut v: Vec<u32> = (0..256).collect();
    let t = LayoutTensor::new(&mut v, Static::<Tiled>::new()).unwrap();
    let tile = t.tile::<Tile8, 2>([1, 0]);
    assert_eq!(tile.layout().to_string(), "(8,8):(8,1)");
    assert_eq!((0..64).map(|k| tile.at([k / 8, k % 8])).collect::<Vec<_>>(), (64..128).collect::<Vec<u32>>());
}

/// Mojo: `alias MyTileType = __type_of(tensor.tile_type[32, 32]())`, `var my_tile: MyTileType`:
/// the type of a tile, named without extracting one (here [`TileOf`] of the parent's layout).
#[test]
fn mojo_tile_type() {
    type MyTileType<'a> = LayoutTensor<'a, f32, Static<TileOf<Row64, Tile32>>>;
    let mut v = vec![0f32; 64 * 64];
    let tensor = LayoutTensor::new(&mut v, Static::<Row64>::new()).unwrap();
    let my_tile: MyTileType = tensor.tile::<Tile32, 2>([1, 1]);
    my_tile.fill(1.0);
    assert_eq!(v.iter().filter(|&&x| x == 1.0).count(), 32 * 32);
    assert_eq!(v[32 * 64 + 32], 1.0);
}

/// Mojo's warp-wide partition: `thread_layout = Layout.row_major(WARP_SIZE // simd_size,
/// simd_size)`, `fragment = tile.vectorize[1, simd_size]().distribute[thread_layout](lane_id())`
/// for a 16 x 16 tile, a warp of 32 and `simd_size` 4: "The thread layout is an 8x4 row major
/// layout". The vectorized tile is 16 x 4 vectors of 1 x 4 (the document's "4x16 tensor of 1x4
/// vectors" counts 4 x 16 scalars the other way round); each lane gets 2 x 1 vectors, rows `r` and
/// `r + 8` of vector column `c` for lane `(r, c) = (lane / 4, lane % 4)`, and the lanes together
/// cover the tile once.
#[test]
fn mojo_warp_distribute_of_vectorized_tile() {
    const WARP_SIZE: usize = 32;
    const SIMD_SIZE: usize = 4;
    static_layout!(Tile16 = "(16,16):(16,1)");
    static_layout!(ThreadLayout = "(8,4):(4,1)"); // row_major(WARP_SIZE // simd_size, simd_size)
    assert_eq!(ThreadLayout::LAYOUT.size() as usize, WARP_SIZE);
    #[repr(align(16))]
    struct Buf([u32; 256]);
    let mut b = Buf(core::array::from_fn(|i| i as u32));
    let tile = LayoutTensor::new(&mut b.0, Static::<Tile16>::new()).unwrap();
    let v = tile.vectorize::<SIMD_SIZE>();
    assert_eq!(v.layout().to_string(), "(16,4):(4,1)");
    let mut seen = vec![0u32; 256];
    for lane_id in 0..WARP_SIZE {
        let fragment = tile.vectorize::<SIMD_SIZE>().distribute::<ThreadLayout, 2>(lane_id);
        assert_eq!(fragment.layout().shape().to_string(), "(2,1)");
        let (r, c) = ((lane_id / 4) as u32, (lane_id % 4) as u32);
        for (k, row) in [r, r + 8].into_iter().enumerate() {
            let first = row * 16 + 4 * c;
            assert_eq!(fragment.at([k as i64, 0]), Vector([first, first + 1, first + 2, first + 3]), "lane {lane_id}");
            for e in first..first + 4 {
                seen[e as usize] += 1;
            }
        }
    }
    assert!(seen.iter().all(|&n| n == 1));
}
