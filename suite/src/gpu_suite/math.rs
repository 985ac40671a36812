//! Device math: the accurate functions give the same bits on the GPU as on the CPU, and the
//! `_approx` ones stay within the error the PTX ISA documents.

use cute_rs_host::{Gpu, LaunchConfig, Module};
use test_kernels::checks::math::{math_report, MATH_RECORD_WORDS};
use cute_rs_tensor::device::math as m;

use super::{fail, Check};

pub fn checks() -> Vec<Check> {
    vec![Check { name: "math/accurate bits match the CPU, approx within bounds", run: report }]
}

/// The accurate functions of a record, in its order, as the CPU computes them.
fn accurate(x: f32) -> [f32; 8] {
    [m::exp(x), m::exp2(x), m::log(x), m::log2(x), m::tanh(x), m::erf(x), m::sqrt(x), m::rsqrt(x)]
}

const NAMES: [&str; MATH_RECORD_WORDS] = [
    "exp", "exp2", "log", "log2", "tanh", "erf", "sqrt", "rsqrt", "exp_approx", "exp2_approx", "log_approx",
    "log2_approx", "rsqrt_approx", "sqrt_approx", "tanh_approx", "fma", "min", "max",
];

/// The record slot of the accurate function each `_approx` slot (8..15) approximates.
const APPROXIMATES: [usize; 7] = [0, 1, 2, 3, 7, 6, 4];

/// The error `_approx` slot `slot` may have at `x` against the accurate value `want`: a little
/// above the PTX ISA's bound (`exp_approx` also rounds `x * log2(e)`, so its error grows with
/// `|x|`; `lg2.approx` is absolute near 1, relative elsewhere).
fn approx_bound(slot: usize, x: f64, want: f64) -> f64 {
    let relative = |bound: f64| want.abs() * bound + f64::MIN_POSITIVE;
    match slot {
        8 => want.abs() * (2e-6 + 2f64.powi(-22) + x.abs() * 1.2e-7),
        9 => relative(2.5e-7),
        10 | 11 => 2f64.powi(-21) * want.abs().max(1.0),
        12 => relative(2f64.powi(-21)),
        13 => relative(2f64.powi(-22)),
        _ => relative(2f64.powi(-10)),
    }
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn report(gpu: &Gpu, module: &Module) -> Result<(), String> {
    // Inputs spread over every bit pattern: 2^20 of them on a GPU (stride 4096), fewer on the CPU.
    let (n, stride) = if gpu.is_cpu() { (1u32 << 12, 1u32 << 20) } else { (1u32 << 20, 1u32 << 12) };
    let base = (super::fresh_seed() as u32) % stride;
    let mut out = gpu.alloc::<f32>(n as usize * MATH_RECORD_WORDS).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig::for_items(n as usize, 256);
    unsafe { gpu.launch(module, math_report, cfg, (&mut out, base, stride, n)).run() }.map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    for t in 0..n {
        let bits = base.wrapping_add(t.wrapping_mul(stride));
        let (x, y, z) = (f32::from_bits(bits), f32::from_bits(bits.rotate_left(7)), f32::from_bits(bits.rotate_left(13)));
        let record = &got[t as usize * MATH_RECORD_WORDS..][..MATH_RECORD_WORDS];
        let exact = accurate(x).into_iter().chain([m::fma(x, y, z), m::min(x, y), m::max(x, y)]);
        let exact_slots = (0..8).chain(15..18);
        for (slot, want) in exact_slots.zip(exact) {
            if !same(record[slot], want) {
                return Err(format!(
                    "{}({x:e} = {bits:#010x}): the device gave {:e} ({:#010x}), the CPU {want:e} ({:#010x})",
                    NAMES[slot],
                    record[slot],
                    record[slot].to_bits(),
                    want.to_bits()
                ));
            }
        }
        // The approximations against the accurate values, where both are finite, normal and not
        // near overflow (`.ftz`: subnormal inputs read as zero, so they are left out too).
        if (x != 0.0 && !x.is_normal()) || x.abs() > 80.0 {
            continue;
        }
        for (slot, accurate_slot) in (8..15).zip(APPROXIMATES) {
            let (approx, want) = (record[slot] as f64, record[accurate_slot] as f64);
            if !want.is_normal() || !approx.is_finite() || want.abs() > 1e30 {
                continue;
            }
            let err = (approx - want).abs();
            let allowed = approx_bound(slot, x as f64, want);
            if err > allowed {
                return Err(format!(
                    "{}({x:e}) = {approx:e}, the accurate value {want:e}: error {err:e} above {allowed:e}",
                    NAMES[slot]
                ));
            }
        }
    }
    Ok(())
}
