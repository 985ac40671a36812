//! cuTile `load`/`store` (`cute_rs_tensor::tile_space`, kernels in `tests/kernels/src/cutile.rs`)
//! on the GPU: each example of cuTile's `load`/`store` documentation that prints its output, reproduced
//! exactly (outputs poisoned before the launch, compared with the documented values and printed as the
//! document prints them), the memory orders and padding modes,
//! and the tiled load/store copy (checked, and timed next to a device-to-device `memcpy`).

use cute_rs_host::{DeviceBuffer, Gpu, KernelFn, LaunchConfig, Module, TmaOobFill};
use cute_rs_tensor::{LayoutTensor, Strided};
use test_kernels::block_examples as blocks;
use test_kernels::cutile;

use super::{expect_eq, fail, fresh_seed, random_f32, time_median, Bench, Check, Figure};

use crate::cutile_sizes::{COPY_THREADS, COPY_TILE, COPY_VECTORS};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "cutile/example load 1-D, zero padding", run: |g, m| check_load_1d(g, m, cutile::cutile_seed_load_1d, 1) },
        Check { name: "cutile/example load 2-D, order F", run: |g, m| check_load_2d_f(g, m, cutile::cutile_seed_load_2d_f, 1) },
        Check { name: "cutile/example load 3-D, order (0,2,1)", run: |g, m| check_load_3d(g, m, cutile::cutile_seed_load_3d, 1) },
        Check { name: "cutile/example scalar loads", run: |g, m| check_load_scalar(g, m, cutile::cutile_seed_load_scalar, 1) },
        Check { name: "cutile/example store, partial out of bounds", run: |g, m| check_store_partial(g, m, cutile::cutile_seed_store_partial, 1) },
        Check { name: "cutile/example store, scalar broadcast", run: |g, m| check_store_scalar(g, m, cutile::cutile_seed_store_scalar, 1) },
        Check { name: "cutile/block tiles: example load 1-D, zero padding", run: |g, m| check_load_1d(g, m, blocks::block_seed_load_1d, 32) },
        Check { name: "cutile/block tiles: example load 2-D, order F", run: |g, m| check_load_2d_f(g, m, blocks::block_seed_load_2d_f, 32) },
        Check { name: "cutile/block tiles: example load 3-D, order (0,2,1)", run: |g, m| check_load_3d(g, m, blocks::block_seed_load_3d, 32) },
        Check { name: "cutile/block tiles: example scalar loads", run: |g, m| check_load_scalar(g, m, blocks::block_seed_load_scalar, 32) },
        Check { name: "cutile/block tiles: example store, partial out of bounds", run: |g, m| check_store_partial(g, m, blocks::block_seed_store_partial, 32) },
        Check { name: "cutile/block tiles: example store, scalar broadcast", run: |g, m| check_store_scalar(g, m, blocks::block_seed_store_scalar, 32) },
        Check { name: "cutile/block tiles: TMA loads (allow_tma), NaN fill", run: check_tma_pad },
        Check { name: "cutile/block tiles: allow_tma as a flag of load_with_options and store_with_options (TMA and ordinary paths)", run: check_tma_flag },
        Check { name: "cutile/memory orders and padding modes", run: check_orders },
        Check { name: "cutile/memory orders on u8 and f16 tiles", run: check_orders_narrow },
        Check { name: "cutile/block tiles: every option (order F, padding, acquire loads, release stores)", run: check_block_options },
        Check { name: "cutile/memory orders: message passing between two blocks (release stores, acquire loads)", run: check_message_passing },
        Check { name: "cutile/tiled copy 2^26 f32", run: check_copy },
    ]
}

pub fn benches() -> Vec<Bench> {
    vec![Bench { name: "cutile/tiled load/store copy 2^26 f32", run: bench_copy }]
}

fn one_thread() -> LaunchConfig {
    LaunchConfig { grid: (1, 1, 1), block: (1, 1, 1), shared_mem_bytes: 0 }
}

/// A type of the examples' load kernels (`x`, `out`).
type LoadKernel = KernelFn<(*const i64, *mut i64)>;
/// A type of the examples' store kernels (`x`).
type StoreKernel = KernelFn<(*mut i32,)>;

/// Runs a load kernel (one block of `threads`: 1 for the single-thread examples, a warp for the
/// block-tile ones) on `arange(n_in)` (int64, as torch.arange) into `n_out` poisoned values.
fn run_load(gpu: &Gpu, module: &Module, kernel: LoadKernel, threads: u32, n_in: usize, n_out: usize) -> Result<Vec<i64>, String> {
    let x: Vec<i64> = (0..n_in as i64).collect();
    let x = gpu.upload(&x).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<i64>(n_out).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, kernel, LaunchConfig::linear(1, threads), (&x, &mut out)).run() }.map_err(fail("launch"))?;
    gpu.download(&out).map_err(fail("download"))
}

/// The values `got`, tile after tile, each printed as cuTile's `print(tile)` prints it (nested
/// lists through `tile`, the tile's row-major layout), one a line.
fn printed_tiles<T: cute_rs_tensor::Element + std::fmt::Display>(got: &[T], tile: &str) -> String {
    let layout = cute_rs_layout::Layout::parse(tile).expect("a tile layout");
    let lines: Vec<String> = got
        .chunks(layout.size() as usize)
        .map(|c| LayoutTensor::new(&mut c.to_vec(), layout).expect("a tile's values").nested().to_string())
        .collect();
    lines.join("\n")
}

/// `printed` must be the document's output `want`, character for character.
fn expect_printed(what: &str, printed: &str, want: &str) -> Result<(), String> {
    if printed == want { Ok(()) } else { Err(format!("{what} printed {printed:?}, the document shows {want:?}")) }
}

/// Documented output `[0, 1, 2, 3]`, `[4, 5, 6, 7]`, `[8, 9, 0, 0]` (the tiles printed as cuTile
/// prints them).
fn check_load_1d(gpu: &Gpu, module: &Module, kernel: LoadKernel, threads: u32) -> Result<(), String> {
    let got = run_load(gpu, module, kernel, threads, 10, 12)?;
    expect_eq("1-D loads", &got, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0])?;
    expect_printed("1-D loads", &printed_tiles(&got, "4:1"), "[0, 1, 2, 3]\n[4, 5, 6, 7]\n[8, 9, 0, 0]")
}

/// Documented output `[[0, 4, 8, 12]]` ... `[[3, 7, 11, 15]]` (printed as cuTile prints them).
fn check_load_2d_f(gpu: &Gpu, module: &Module, kernel: LoadKernel, threads: u32) -> Result<(), String> {
    let got = run_load(gpu, module, kernel, threads, 16, 16)?;
    expect_eq("2-D F loads", &got, &[0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15])?;
    expect_printed("2-D F loads", &printed_tiles(&got, "(1,4):(4,1)"), "[[0, 4, 8, 12]]\n[[1, 5, 9, 13]]\n[[2, 6, 10, 14]]\n[[3, 7, 11, 15]]")
}

/// Documented output `[[[0, 2], [1, 3]]]`, `[[[4, 6], [5, 7]]]` (printed as cuTile prints them).
fn check_load_3d(gpu: &Gpu, module: &Module, kernel: LoadKernel, threads: u32) -> Result<(), String> {
    let got = run_load(gpu, module, kernel, threads, 8, 8)?;
    expect_eq("3-D permuted loads", &got, &[0, 2, 1, 3, 4, 6, 5, 7])?;
    expect_printed("3-D permuted loads", &printed_tiles(&got, "(1,2,2):(4,2,1)"), "[[[0, 2], [1, 3]]]\n[[[4, 6], [5, 7]]]")
}

/// Documented output `0 1 2 3 4 5 6 7 8 9`: `print(tile, end=" ")` for each 0-d tile, then
/// `print()`.
fn check_load_scalar(gpu: &Gpu, module: &Module, kernel: LoadKernel, threads: u32) -> Result<(), String> {
    let got = run_load(gpu, module, kernel, threads, 10, 10)?;
    let printed: String = got.iter().map(|v| format!("{v} ")).collect::<String>() + "\n";
    expect_printed("scalar loads", &printed, "0 1 2 3 4 5 6 7 8 9 \n")
}

/// Runs a store kernel (one block of `threads`) on `n` poisoned int32 values followed by `slack`
/// poisoned ones (which must stay poisoned).
fn run_store(gpu: &Gpu, module: &Module, kernel: StoreKernel, threads: u32, n: usize, slack: usize) -> Result<Vec<i32>, String> {
    let mut x = gpu.alloc::<i32>(n + slack).map_err(fail("alloc"))?;
    gpu.memset(&mut x, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, kernel, LaunchConfig::linear(1, threads), (&mut x,)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&x).map_err(fail("download"))?;
    if let Some(i) = got[n..].iter().position(|&v| v != -1) {
        let name = kernel.name();
        return Err(format!("{name} wrote past the array, at index {}", n + i));
    }
    Ok(got[..n].to_vec())
}

/// Documented output `[1, 1, 1, 1, 2, 2]` (the tile's last two elements are not stored), as
/// `print(x.tolist())` prints the array.
fn check_store_partial(gpu: &Gpu, module: &Module, kernel: StoreKernel, threads: u32) -> Result<(), String> {
    let got = run_store(gpu, module, kernel, threads, 6, 4)?;
    expect_eq("partial store", &got, &[1, 1, 1, 1, 2, 2])?;
    expect_printed("partial store", &printed_tiles(&got, "6:1"), "[1, 1, 1, 1, 2, 2]")
}

/// Documented output `[[0, 1], [2, 3]]`, as `print(x.tolist())` prints the 2 x 2 array.
fn check_store_scalar(gpu: &Gpu, module: &Module, kernel: StoreKernel, threads: u32) -> Result<(), String> {
    let got = run_store(gpu, module, kernel, threads, 4, 4)?;
    expect_eq("scalar broadcast stores", &got, &[0, 1, 2, 3])?;
    expect_printed("scalar broadcast stores", &printed_tiles(&got, "(2,2):(2,1)"), "[[0, 1], [2, 3]]")
}

/// Each padding mode fills exactly the two out-of-bounds elements of tile 2 (bit-exact: NaN,
/// infinities, -0); relaxed/acquire loads and relaxed/release stores give the weak values.
/// `block_tma_pad` on a random 37 x 44 matrix into a poisoned 48 x 128 one, with a map for
/// 16 x 64 boxes (TMA loads) and then one for 8 x 64 boxes (the ordinary loads it falls back to):
/// both times the matrix with TMA's NaN (`oob_nan_bits`) around it, bit for bit.
fn check_tma_pad(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (rows, cols, drows, dcols) = (37usize, 44usize, 48usize, 128usize);
    let (src, want) = super::triton::padded_case(rows, cols, drows, dcols, cute_rs_tensor::device::tma::oob_nan_bits(4) as u32);
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let cfg = LaunchConfig { grid: (1, (drows / 16) as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
    for tile in [[16, 64], [8, 64]] {
        let tensor = d_src.tensor(Strided::row_major([rows as i64, cols as i64])).map_err(fail("tensor"))?;
        let array = gpu.tma_array(tensor, tile, TmaOobFill::Nan).map_err(fail("tma_array"))?;
        let mut dst = gpu.alloc::<f32>(drows * dcols).map_err(fail("alloc"))?;
        gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
        unsafe { gpu.launch(module, blocks::block_tma_pad, cfg, (&array, &mut dst, drows as i64, dcols as i64)).run() }
            .map_err(fail("launch"))?;
        let got: Vec<u32> = gpu.download(&dst).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
        expect_eq(&format!("TMA block tile pad, map for {tile:?} boxes (bits)"), &got, &want)?;
    }
    Ok(())
}

/// `block_tma_flag_copy` of a random 37 x 104 matrix into a poisoned one, with maps for 16 x 64
/// boxes (TMA loads and stores where allowed) and 8 x 64 boxes (the ordinary path), `allow_tma`
/// unset and false: the copy is the matrix, bit for bit, every time (the last column of tiles and
/// the last row of tiles hang over the edges, which TMA clips).
fn check_tma_flag(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (rows, cols) = (37usize, 104usize);
    let src = random_f32(fresh_seed(), rows * cols);
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let want: Vec<u32> = src.iter().map(|v| v.to_bits()).collect();
    let cfg = LaunchConfig { grid: (1, rows.div_ceil(16) as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
    for tile in [[16, 64], [8, 64]] {
        for allow in [1u32, 0] {
            let mut d_dst = gpu.alloc::<f32>(rows * cols).map_err(fail("alloc"))?;
            gpu.memset(&mut d_dst, 0xff).map_err(fail("poison"))?;
            let shape = Strided::row_major([rows as i64, cols as i64]);
            let a = gpu.tma_array(d_src.tensor(shape).map_err(fail("tensor"))?, tile, TmaOobFill::Nan).map_err(fail("tma_array"))?;
            let b = gpu.tma_array(d_dst.tensor(shape).map_err(fail("tensor"))?, tile, TmaOobFill::Nan).map_err(fail("tma_array"))?;
            unsafe { gpu.launch(module, blocks::block_tma_flag_copy, cfg, (&a, &b, allow)).run() }.map_err(fail("launch"))?;
            drop((a, b));
            let got: Vec<u32> = gpu.download(&d_dst).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
            expect_eq(&format!("allow_tma copy, maps for {tile:?} boxes, allow {allow} (bits)"), &got, &want)?;
        }
    }
    Ok(())
}

fn check_orders(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let x: Vec<f32> = (0..10).map(|v| v as f32).collect();
    let mut xd = gpu.upload(&x).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<f32>(20).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, cutile::cutile_orders_f32, one_thread(), (&mut xd, &mut out)).run() }.map_err(fail("launch"))?;
    let got: Vec<u32> = gpu.download(&out).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
    let mut want = Vec::new();
    for pad in [0.0f32, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0] {
        want.extend([8.0f32, 9.0, pad, pad].map(f32::to_bits));
    }
    expect_eq("padded loads (bits)", &got, &want)?;
    let after = gpu.download(&xd).map_err(fail("download"))?;
    expect_eq("ordered stores", &after, &[-1.0, -1.0, -1.0, -1.0, 4.0, 5.0, 6.0, 7.0, -1.0, -1.0])
}

/// [`cutile::cutile_orders_narrow`]: the bytes plus one (wrapping), the halves negated.
fn check_orders_narrow(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let bytes = [0u8, 7, 200, 255];
    let halves = [1.5f32, -2.0, 0.0, 65504.0].map(cute_rs_tensor::half::f16::from_f32);
    let mut d8 = gpu.upload(&bytes).map_err(fail("upload"))?;
    let mut d16 = gpu.upload(&halves).map_err(fail("upload"))?;
    unsafe { gpu.launch(module, cutile::cutile_orders_narrow, one_thread(), (&mut d8, &mut d16)).run() }.map_err(fail("launch"))?;
    expect_eq("u8 tile, acquire then release", &gpu.download(&d8).map_err(fail("download"))?, &bytes.map(|b| b.wrapping_add(1)))?;
    let got: Vec<u16> = gpu.download(&d16).map_err(fail("download"))?.iter().map(|h| h.to_bits()).collect();
    expect_eq("f16 tile, relaxed (bits)", &got, &halves.map(|h| (-h).to_bits()))
}

/// [`blocks::block_cutile_options`] on a random 32 x 3 matrix (output poisoned): both halves of
/// `out` are its transpose with a row of `-inf` below, bit for bit.
fn check_block_options(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let x = random_f32(fresh_seed(), 96);
    let xd = gpu.upload(&x).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<f32>(256).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (1, 1, 1), block: (32, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, blocks::block_cutile_options, cfg, (&xd, &mut out)).run() }.map_err(fail("launch"))?;
    let got: Vec<u32> = gpu.download(&out).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
    let half: Vec<u32> = (0..128).map(|i| if i / 32 < 3 { x[(i % 32) * 3 + i / 32] } else { f32::NEG_INFINITY }.to_bits()).collect();
    let want: Vec<u32> = half.iter().chain(&half).copied().collect();
    expect_eq("order F, -inf padding, ordered and weak (bits)", &got, &want)
}

/// [`cutile::cutile_message_passing`]: every round's tile, read after the acquire of its flag, is
/// the message the release published (20,000 rounds on a GPU, 2,000 on the CPU backend).
fn check_message_passing(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let rounds: u32 = if gpu.is_cpu() { 2_000 } else { 20_000 };
    let mut data = gpu.alloc::<u32>(4).map_err(fail("alloc"))?;
    gpu.memset(&mut data, 0xff).map_err(fail("poison"))?;
    let mut flags = gpu.upload(&[0u32; 2]).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<u32>(5).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (2, 1, 1), block: (1, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(module, cutile::cutile_message_passing, cfg, (&mut data, &mut flags, &mut out, rounds)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    let mut want = vec![0u32];
    want.extend(cutile::message_of_round(rounds));
    expect_eq("rounds with a stale tile, then the last tile", &got, &want)?;
    expect_eq("flags", &gpu.download(&flags).map_err(fail("download"))?, &[rounds, rounds])
}

fn launch_copy(gpu: &Gpu, module: &Module, src: &DeviceBuffer<f32>, dst: &mut DeviceBuffer<f32>) -> cute_rs_host::Result<()> {
    let cfg = LaunchConfig {
        grid: ((COPY_VECTORS / (COPY_THREADS as usize * COPY_TILE)) as u32, 1, 1),
        block: (COPY_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    unsafe { gpu.launch(module, cutile::cutile_copy_f32, cfg, (src, dst)).run() }
}

/// Copies fresh random data (output poisoned) and compares exactly.
fn check_copy(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = COPY_VECTORS * 4;
    let data = random_f32(fresh_seed(), n);
    let src = gpu.upload(&data).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    launch_copy(gpu, module, &src, &mut dst).map_err(fail("launch"))?;
    expect_eq("cutile copy", &gpu.download(&dst).map_err(fail("download"))?, &data)
}

fn tbps(bytes: usize, ms: f32) -> f64 {
    bytes as f64 / (ms as f64 * 1e-3) / 1e12
}

/// The tiled copy's bandwidth next to `memcpy` DtoD of the same bytes (target: at least 90%).
fn bench_copy(gpu: &Gpu, module: &Module) -> Result<Vec<Figure>, String> {
    check_copy(gpu, module)?;
    let n = COPY_VECTORS * 4;
    let src = gpu.upload(&random_f32(fresh_seed(), n)).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    let ours = time_median(gpu, 3, 20, || launch_copy(gpu, module, &src, &mut dst))?;
    let peer = time_median(gpu, 3, 20, || gpu.copy(&src, &mut dst))?;
    let bytes = 2 * n * 4;
    Ok(vec![
        Figure { what: "cutile_copy_f32 (tile_space load/store)".into(), value: tbps(bytes, ours), unit: "TB/s" },
        Figure { what: "memcpy DtoD".into(), value: tbps(bytes, peer), unit: "TB/s" },
        Figure { what: "copy / memcpy".into(), value: peer as f64 / ours as f64 * 100.0, unit: "%" },
    ])
}

#[cfg(test)]
mod tests {
    /// The body of kernel `name` in the PTX module.
    fn body(name: &str) -> &'static str {
        let ptx = crate::TEST_KERNELS.ptx;
        let start = ptx.find(&format!(".entry {name}(")).unwrap_or_else(|| panic!("no kernel {name}"));
        let rest = &ptx[start..];
        &rest[..rest.find("\n}").expect("end of the kernel")]
    }

    /// The tiled copy folds to four 128-bit loads and stores after one bounds test: no loop, no
    /// division, no local memory, no scalar element access.
    #[test]
    fn cutile_copy_is_folded_and_vectorized() {
        let b = body("cutile_copy_f32");
        assert!(!b.contains(".local"), "local memory in cutile_copy_f32:\n{b}");
        assert!(!b.contains("div.") && !b.contains("rem."), "division in cutile_copy_f32:\n{b}");
        let loads = b.matches("ld.global.v2.b64").count() + b.matches("ld.global.v4.").count();
        let stores = b.matches("st.global.v2.b64").count() + b.matches("st.global.v4.").count();
        assert_eq!((loads, stores), (4, 4), "128-bit accesses in cutile_copy_f32:\n{b}");
        assert!(b.matches("bra").count() <= 1, "more than the bounds branch in cutile_copy_f32:\n{b}");
    }

    /// Ordered accesses are `ld.relaxed|acquire.<scope>` and `st.relaxed|release.<scope>`, with
    /// no fence; the message-passing kernel publishes with `st.release.gpu` and waits with
    /// `ld.acquire.gpu`.
    #[test]
    fn cutile_orders_are_strong_accesses_at_their_scope() {
        let b = body("cutile_orders_f32");
        for op in ["ld.relaxed.cta.global", "ld.acquire.gpu.global", "ld.acquire.sys.global", "ld.relaxed.gpu.global"] {
            assert!(b.contains(op), "{op} in cutile_orders_f32:\n{b}");
        }
        assert!(b.contains("st.release.gpu.global") && b.contains("st.relaxed.cta.global"), "{b}");
        assert!(!b.contains("fence") && !b.contains(".volatile"), "{b}");
        let blk = body("block_cutile_options");
        assert!(blk.contains("ld.acquire.gpu.global.b32") && blk.contains("st.release.cta.global.b32") && !blk.contains("fence"), "{blk}");
        let m = body("cutile_message_passing");
        assert!(m.contains("st.release.gpu.global.b32") && m.contains("ld.acquire.gpu.global.b32"), "{m}");
        assert!(!b.contains(".local"), "{b}");
    }
}
