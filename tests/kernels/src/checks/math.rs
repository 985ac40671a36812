//! GPU check kernel: `cute_rs_tensor::device::math`, every function on one input per thread, so
//! that the GPU's results can be compared with the CPU backend's (the accurate functions bit for
//! bit) and the `_approx` ones measured against a reference.

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::global_thread_index_x;
use cute_rs_tensor::device::math::*;

/// Words each thread writes into its `math_report` record, in this order: `exp`, `exp2`, `log`,
/// `log2`, `tanh`, `erf`, `sqrt`, `rsqrt`, `exp_approx`, `exp2_approx`, `log_approx`,
/// `log2_approx`, `rsqrt_approx`, `sqrt_approx`, `tanh_approx` of `x`, then `fma(x, y, z)`,
/// `min(x, y)`, `max(x, y)` with `y` and `z` the bits of `x` rotated left by 7 and by 13.
pub const MATH_RECORD_WORDS: usize = 18;

/// Thread `t < n` takes `x = f32::from_bits(base + t * stride)` (wrapping) and writes its
/// [`MATH_RECORD_WORDS`] results at `out[t * MATH_RECORD_WORDS]`.
#[kernel]
pub fn math_report(out: *mut f32, base: u32, stride: u32, n: u32) {
    let t = global_thread_index_x();
    if t >= n as u64 {
        return;
    }
    let bits = base.wrapping_add((t as u32).wrapping_mul(stride));
    let x = f32::from_bits(bits);
    let y = f32::from_bits(bits.rotate_left(7));
    let z = f32::from_bits(bits.rotate_left(13));
    let record = out.add(t as usize * MATH_RECORD_WORDS);
    let mut word = 0;
    let mut put = |v: f32| {
        *record.add(word) = v;
        word += 1;
    };
    put(exp(x));
    put(exp2(x));
    put(log(x));
    put(log2(x));
    put(tanh(x));
    put(erf(x));
    put(sqrt(x));
    put(rsqrt(x));
    put(exp_approx(x));
    put(exp2_approx(x));
    put(log_approx(x));
    put(log2_approx(x));
    put(rsqrt_approx(x));
    put(sqrt_approx(x));
    put(tanh_approx(x));
    put(fma(x, y, z));
    put(min(x, y));
    put(max(x, y));
}
