//! Triton's `tl.load`/`tl.store` on the GPU (`kernels/src/triton.rs`): the seed's indirect load
//! example (seed 002, `triton_ldst_indirect_07`) against its torch-style reference.

use host::{Gpu, LaunchConfig, Module};

use super::{expect_eq, fail, fresh_seed, random_f32, Check};

/// `XS`, `RS` of the kernel (kernels/src/triton.rs) and the seed's `offset`, `N1`, `blocksize`.
const XS: usize = 4;
const RS: usize = 16;
const OFFSET: i64 = 8;
const N1: usize = 32;
const BLOCKSIZE: usize = 4;

pub fn checks() -> Vec<Check> {
    vec![Check { name: "triton/ldst_indirect_07 (seed indirect load, torch reference)", run: check_indirect }]
}

/// `torch_ldst_indirect_07_func`: `x2.flatten()[(xr[:, None] * stride0 + xc[None, :]).flatten()]`.
fn torch_ref(xr: &[i64], xc: &[i64], x2: &[f32], stride0: i64) -> Vec<f32> {
    xr.iter().flat_map(|&r| xc.iter().map(move |&c| x2[(r * stride0 + c) as usize])).collect()
}

/// The seed's script: `xc = offset + arange(N0)`, `xr = arange(blocksize)`, `x2 = randn(blocksize,
/// N1)` (uniform here), one program (`nr == xs`); the output is poisoned before the launch.
pub fn check_indirect(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let xc: Vec<i64> = (0..RS as i64).map(|i| OFFSET + i).collect();
    let xr: Vec<i64> = (0..BLOCKSIZE as i64).collect();
    let x2 = random_f32(fresh_seed(), BLOCKSIZE * N1);
    let stride_in_r = N1 as i64;
    let want = torch_ref(&xr, &xc, &x2, stride_in_r);
    let d_xr = gpu.upload(&xr).map_err(fail("upload xr"))?;
    let d_xc = gpu.upload(&xc).map_err(fail("upload xc"))?;
    let d_x2 = gpu.upload(&x2).map_err(fail("upload x2"))?;
    let mut y0 = gpu.alloc::<f32>(BLOCKSIZE * RS).map_err(fail("alloc"))?;
    gpu.memset(&mut y0, 0xff).map_err(fail("poison"))?;
    let k = module.kernel("triton_ldst_indirect_07").map_err(fail("kernel"))?;
    let cfg = LaunchConfig { grid: ((BLOCKSIZE / XS) as u32, 1, 1), block: (1, 1, 1), shared_mem_bytes: 0 };
    unsafe { gpu.launch(&k, cfg).arg(&y0).arg(&d_xr).arg(&d_xc).arg(&d_x2).arg(&stride_in_r).run() }.map_err(fail("launch"))?;
    expect_eq("triton indirect load", &gpu.download(&y0).map_err(fail("download"))?, &want)
}
