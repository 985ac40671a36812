//! The cute-rs demo: a tiled, vectorized copy and a shared-memory transpose whose index math is
//! written with the layout algebra. On a GPU it runs both, verifies them against the CPU and prints
//! their bandwidth next to a device-to-device memcpy of the same bytes; without a GPU it says so and
//! runs the same kernels on the CPU backend (smaller sizes), verified the same way.

use cute_rs_layout::{
    coalesce, composition, logical_divide, make_layout_row_major, print_layout, right_inverse, upcast,
    zipped_divide_by_mode, IntTuple, Layout,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cute-rs: GPU kernels in Rust with CuTe's layout algebra\n");

    // A row-major M x N matrix of f32 with run-time extents, as a kernel would receive it.
    let (m, n) = (4096, 4096);
    let matrix = make_layout_row_major(IntTuple::from_slice(&[m, n])?)?;
    println!("global matrix (M x N = {m} x {n}, row-major):  {matrix}");

    // Tiled copy: 32 x 128 tiles; inside a tile, 256 threads each move 4 consecutive f32 (128 bits).
    let tiler = [Layout::parse("32:1")?, Layout::parse("128:1")?];
    let tiles = zipped_divide_by_mode(matrix, &tiler)?;
    println!("tiles: zipped_divide(matrix, [32:1, 128:1]) = {tiles}");
    let tile = tiles.mode(0)?;
    // Thread t owns the 4-element vector v of row t / 32, columns 4*(t % 32) + v.
    let thread_value = Layout::parse("((32,8),4):((4,128),1)")?;
    let per_thread = composition(Layout::parse("(128,32):(1,128)")?, thread_value)?;
    println!("thread-value layout of a tile (threads, values) -> (col, row) offset: {per_thread}");
    let vector = per_thread.mode(1)?;
    println!("each thread's values: {vector}, contiguous: coalesce = {}", coalesce(vector));
    let in_u128 = upcast(tile, 4)?;
    println!("the tile in 128-bit units (upcast<4>): {in_u128}");
    check_bijection("thread-value layout", per_thread, 32 * 128);

    // Shared-memory transpose: a 32 x 32 tile read row-major, written column-major.
    let smem = Layout::parse("(32,32):(32,1)")?;
    let transposed = composition(smem, Layout::parse("(32,32):(32,1)")?)?;
    println!("\ntranspose tile in shared memory: {smem}; read transposed: {transposed}");
    let back = right_inverse(smem);
    println!("right_inverse(smem) = {back}: offset -> coordinate");
    let quad = logical_divide(Layout::parse("(8,8):(8,1)")?, Layout::parse("4:1")?)?;
    println!("a small example, logical_divide((8,8):(8,1), 4:1) = {quad}:");
    print!("{}", print_layout(quad));

    // The kernels' tiled copies (demo-kernels/src/demo.rs): where each thread's values lie in
    // the block tile, computed from the thread and value arrangements.
    use cute_rs::demo_layouts::{CopyThr, CopyVal, TransposeSmem, TransposeThr, TransposeVal};
    use cute_rs_tensor::atom::{copy::UniversalCopy, tiled_copy::make_tiled_copy};
    use cute_rs_tensor::StaticLayout;
    let copy_tv = make_tiled_copy::<UniversalCopy, CopyThr, CopyVal>().tv();
    let transpose_tv = make_tiled_copy::<UniversalCopy, TransposeThr, TransposeVal>().tv();
    println!(
        "\nkernel layouts (const, folded at compile time): copy (thread, value) -> (row, column) {copy_tv}, \
         transpose {transpose_tv} over the shared tile {}",
        TransposeSmem::LAYOUT
    );
    run_kernels()
}

/// Runs the two kernels on the first GPU, else on the CPU backend; an error when a result differs
/// from the CPU's.
fn run_kernels() -> Result<(), Box<dyn std::error::Error>> {
    let gpu = cute_rs_host::Gpu::gpu_or_cpu()?;
    let module = gpu.module(&cute_rs::DEMO)?;
    let figures = if gpu.is_cpu() {
        println!("\nno GPU here: running the same kernels on the {}", gpu.properties().name);
        cute_rs::demo::cpu_figures(&gpu, &module)?
    } else {
        println!("\nGPU: {}", gpu.properties().name);
        cute_rs::demo::gpu_figures(&gpu, &module)?
    };
    println!("copy and transpose verified against the CPU:");
    for f in figures {
        println!("  {:<40} {:>8.3} {}", f.what, f.value, f.unit);
    }
    Ok(())
}

fn check_bijection(name: &str, l: Layout, n: i64) {
    let mut seen = vec![false; n as usize];
    for i in 0..l.size() {
        let j = l.call(i);
        assert!((0..n).contains(&j) && !seen[j as usize], "{name}: {j} out of range or hit twice");
        seen[j as usize] = true;
    }
    println!("checked: the {name} maps 0..{n} one-to-one onto the tile");
}
