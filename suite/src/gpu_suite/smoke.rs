//! The pipeline's own checks: the embedded PTX loads and its first kernels compute what their
//! layouts say.

use cute_rs_host::{Gpu, LaunchConfig, Module};
use cute_rs_layout::Layout;

use super::{expect_eq, fail, random_f32, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "smoke/vector_copy", run: vector_copy },
        Check { name: "smoke/layout_index_copy", run: layout_index_copy },
    ]
}

fn vector_copy(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let n = 1 << 20;
    let src = random_f32(super::fresh_seed(), n);
    let input = gpu.upload(&src).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig::linear((n / 256) as u32, 256);
    unsafe { gpu.launch(module, test_kernels::vector_copy, cfg, (&input, &mut out)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    expect_eq("vector_copy", &got, &src)
}

fn layout_index_copy(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let tile = cute_rs_layout::logical_divide(
        Layout::parse("(8,32):(32,1)").map_err(fail("layout"))?,
        Layout::parse("4:2").map_err(fail("layout"))?,
    )
    .map_err(fail("layout"))?;
    let n = 256 * 64;
    let src = random_f32(super::fresh_seed(), n);
    let mut want = vec![0f32; n];
    for (t, v) in src.iter().enumerate() {
        let (block, i) = (t / 256, (t % 256) as i64);
        want[block * 256 + tile.call(i) as usize] = *v;
    }
    let input = gpu.upload(&src).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<f32>(n).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig::linear((n / 256) as u32, 256);
    unsafe { gpu.launch(module, test_kernels::layout_index_copy, cfg, (&input, &mut out)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    expect_eq("layout_index_copy", &got, &want)
}
