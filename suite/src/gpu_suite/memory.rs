//! GPU checks: global loads and stores with every cache option (kernels in
//! `tests/kernels/src/checks/memory.rs`). Each kernel copies random words segment by segment, one
//! segment per variant (cache operator, L1 eviction priority, non-coherent path, L2 policy,
//! volatile) at one access width (32, 64 or 128 bits); the copy must be exact, and a difference is
//! reported with the variant's name.

use cute_rs_host::{Gpu, KernelFn, LaunchConfig, Module};
use test_kernels::checks::memory as k;

use super::ids::{compare_words, launch, with_seed};
use super::{fail, fresh_seed, random_u32, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "memory/loads_32_bit", run: |g, m| copy(g, m, k::memory_loads_b32, &LOADS, "f32") },
        Check { name: "memory/loads_64_bit", run: |g, m| copy(g, m, k::memory_loads_b64, &LOADS, "[i32; 2]") },
        Check { name: "memory/loads_128_bit", run: |g, m| copy(g, m, k::memory_loads_b128, &LOADS, "[f32; 4]") },
        Check { name: "memory/stores_32_bit", run: |g, m| copy(g, m, k::memory_stores_b32, &STORES, "u32") },
        Check { name: "memory/stores_64_bit", run: |g, m| copy(g, m, k::memory_stores_b64, &STORES, "f64") },
        Check { name: "memory/stores_128_bit", run: |g, m| copy(g, m, k::memory_stores_b128, &STORES, "[u64; 2]") },
    ]
}

/// The load variants of `memory_loads_*`, in segment order.
const LOADS: [&str; 27] = [
    "load(Ca)", "load(Cg)", "load(Cs)", "load(Lu)", "load(Cv)",
    "load(EvictNormal)", "load(EvictUnchanged)", "load(EvictFirst)", "load(EvictLast)", "load(NoAllocate)",
    "load_nc(Ca)", "load_nc(Cg)", "load_nc(Cs)", "load_nc(EvictNormal)", "load_nc(EvictUnchanged)",
    "load_nc(EvictFirst)", "load_nc(EvictLast)", "load_nc(NoAllocate)",
    "load_with_policy(Ca, L2 evict_first)", "load_with_policy(Cg, L2 evict_last)",
    "load_with_policy(EvictLast, L2 evict_normal)", "load_with_policy(Cv, L2 evict_unchanged)",
    "load_nc_with_policy(Ca, L2 evict_last)", "load_nc_with_policy(Cs, L2 evict_first)",
    "load_nc_with_policy(EvictFirst, L2 evict_normal)", "load_nc_with_policy(NoAllocate, L2 evict_unchanged)",
    "load_volatile",
];

/// The store variants of `memory_stores_*`, in segment order.
const STORES: [&str; 14] = [
    "store(Wb)", "store(Cg)", "store(Cs)", "store(Wt)",
    "store(EvictNormal)", "store(EvictUnchanged)", "store(EvictFirst)", "store(EvictLast)", "store(NoAllocate)",
    "store_with_policy(Wb, L2 evict_first)", "store_with_policy(Cs, L2 evict_last)",
    "store_with_policy(EvictFirst, L2 evict_normal)", "store_with_policy(Wt, L2 evict_unchanged)",
    "store_volatile",
];

/// A `memory_loads_*` or `memory_stores_*` kernel: `(src, dst, words)`.
type CopyKernel = KernelFn<(*const u32, *mut u32, u32)>;

/// Runs `kernel` on segments of `words` random words, one per variant, and checks the copy.
fn copy(gpu: &Gpu, module: &Module, kernel: CopyKernel, variants: &[&str], ty: &str) -> Result<(), String> {
    let seed = fresh_seed();
    // A random multiple of 4 words (whole 128-bit units), not a multiple of the grid's threads.
    let words = 4 * (1024 + random_u32(seed, 1)[0] as usize % 2048);
    let src = random_u32(seed ^ 10, words * variants.len());
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<u32>(src.len()).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    let words_arg = words as u32;
    launch!(gpu, module, kernel, LaunchConfig::linear(24, 256), &d_src, &mut dst, words_arg);
    let got = gpu.download(&dst).map_err(fail("download"))?;
    with_seed(
        seed,
        compare_words(&format!("{} (values {ty}, {words} words per variant)", kernel.name()), &got, &src, |i| {
            format!("variant `{}`, word {} of its segment", variants[i / words], i % words)
        }),
    )
}
