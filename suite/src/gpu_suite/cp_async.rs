//! GPU checks: `cp.async` with zero-fill and groups (kernels in
//! `tests/kernels/src/checks/cp_async.rs`).
//!
//! Each check stages a 4 KiB tile of fresh random words of which only the first `n_bytes` bytes
//! exist (`n_bytes` random, not a multiple of 4, past the middle of the tile): the tile must come
//! out as those bytes followed by zeros, the copy that straddles `n_bytes` filling part of its bytes.
//! The two halves of the tile are separate commit groups, each written out after its own wait.

use cute_rs_host::{Gpu, KernelFn, LaunchConfig, Module};
use test_kernels::checks::cp_async as k;

use super::{fail, fresh_seed, random_u32, Check};

/// `test_kernels::checks::cp_async::SENTINEL`: shared memory before the copies.
const SENTINEL: u32 = 0x5EA7_1E55;
/// Words in the staged tile.
const TILE_WORDS: usize = 1024;

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "cp_async/ca_4_bytes_zero_fill", run: |g, m| stage(g, m, k::cp_async_ca4, 4) },
        Check { name: "cp_async/ca_8_bytes_zero_fill", run: |g, m| stage(g, m, k::cp_async_ca8, 8) },
        Check { name: "cp_async/ca_16_bytes_zero_fill", run: |g, m| stage(g, m, k::cp_async_ca16, 16) },
        Check { name: "cp_async/cg_16_bytes_zero_fill", run: |g, m| stage(g, m, k::cp_async_cg16, 16) },
    ]
}

/// A `cp_async_*` kernel: `(src, n_bytes, out)`.
type StageKernel = KernelFn<(*const u8, u32, *mut u32)>;

fn stage(gpu: &Gpu, module: &Module, kernel: StageKernel, copy_bytes: u32) -> Result<(), String> {
    let seed = fresh_seed();
    let data = random_u32(seed, TILE_WORDS);
    // Past the middle (both groups hold data), before the end (whole copies are zero-filled), and
    // not a multiple of 4 (the straddling copy reads part of a word).
    let mut n_bytes = 2049 + random_u32(seed ^ 0xc0ffee, 1)[0] % 1900;
    if n_bytes % 4 == 0 {
        n_bytes += 1;
    }
    let bytes: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
    let want: Vec<u32> = bytes
        .chunks(4)
        .enumerate()
        .map(|(i, c)| {
            let b = |k: usize| if 4 * i + k < n_bytes as usize { c[k] } else { 0 };
            u32::from_le_bytes([b(0), b(1), b(2), b(3)])
        })
        .collect();

    // The kernel reads the tile as bytes: the words' own bytes, in memory order.
    let src = gpu.upload(&bytes).map_err(fail("upload"))?;
    let mut out = gpu.alloc::<u32>(TILE_WORDS).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, kernel, LaunchConfig::linear(1, 128), (&src, n_bytes, &mut out)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    compare_words(&got, &want, |i| {
        let first = 4 * i as u32;
        let chunk = first / copy_bytes * copy_bytes;
        let read = n_bytes.saturating_sub(chunk).min(copy_bytes);
        let what = match got[i] {
            SENTINEL => " (the shared-memory sentinel: no copy landed there)".to_string(),
            u32::MAX => " (the output poison: never written)".to_string(),
            _ => String::new(),
        };
        format!(
            "{} (seed {seed}, n_bytes {n_bytes}): word {i} (bytes {first}..{}), in the {}-byte copy at byte \
             {chunk} that reads {read} bytes and zero-fills {}, in group {}{what}",
            kernel.name(),
            first + 4,
            copy_bytes,
            copy_bytes - read,
            if (i as usize) < TILE_WORDS / 2 { 0 } else { 1 },
        )
    })
}

/// Compares words exactly; on a difference, the error gives `context(index)` of the first one with
/// both values in hex, and how many differ.
pub(super) fn compare_words(got: &[u32], want: &[u32], context: impl Fn(usize) -> String) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} words instead of {}", got.len(), want.len()));
    }
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
    match bad.first() {
        None => Ok(()),
        Some(&i) => Err(format!(
            "{}: got {:#010x}, expected {:#010x} ({} of {} words differ)",
            context(i),
            got[i],
            want[i],
            bad.len(),
            got.len()
        )),
    }
}
