//! GPU checks: shared memory (kernels in `tests/kernels/src/checks/shared.rs`).
//!
//! - `shared/static_arrays`: three static arrays of different types and alignments in one kernel
//!   reverse tiles; their shared addresses must honour the requested alignments, not overlap, and
//!   be the same in every block;
//! - `shared/dynamic`: dynamic shared memory sized at launch (a random size, then the 48 KiB
//!   maximum) reverses tiles; its length, byte count and alignment are checked, aliasing
//!   declarations share its address, and it does not overlap the kernel's static array.

use cute_rs_host::{Gpu, LaunchConfig, Module};
use test_kernels::checks::shared as k;

use super::ids::{compare_words, compare_words64, launch, with_seed};
use super::{fail, fresh_seed, random_f32, random_u32, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "shared/static_arrays", run: static_arrays },
        Check { name: "shared/dynamic", run: dynamic },
    ]
}

/// Whether the byte ranges `[a, a + la)` and `[b, b + lb)` overlap.
fn overlap(a: u32, la: u32, b: u32, lb: u32) -> bool {
    a < b + lb && b < a + la
}

fn static_arrays(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    with_seed(seed, static_arrays_with(gpu, module, seed))
}

fn static_arrays_with(gpu: &Gpu, module: &Module, seed: u64) -> Result<(), String> {
    let blocks = 16usize;
    let src_f = random_f32(seed, blocks * 1024);
    let src_d = super::ids::random_u64(seed ^ 3, blocks * 256);
    let want_f: Vec<u32> = (0..src_f.len()).map(|i| src_f[i / 1024 * 1024 + 1023 - i % 1024].to_bits()).collect();
    let want_d: Vec<u64> = (0..src_d.len()).map(|i| src_d[i / 256 * 256 + 255 - i % 256]).collect();
    let d_src_f = gpu.upload(&src_f).map_err(fail("upload"))?;
    let d_src_d = gpu.upload(&src_d).map_err(fail("upload"))?;
    let mut dst_f = gpu.alloc::<f32>(src_f.len()).map_err(fail("alloc"))?;
    let mut dst_d = gpu.alloc::<u64>(src_d.len()).map_err(fail("alloc"))?;
    let mut info = gpu.alloc::<u32>(blocks * 8).map_err(fail("alloc"))?;
    gpu.memset(&mut dst_f, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut dst_d, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut info, 0xff).map_err(fail("poison"))?;
    launch!(
        gpu, module, k::shared_static_reverse, LaunchConfig::linear(blocks as u32, 256),
        &d_src_f, &d_src_d, &mut dst_f, &mut dst_d, &mut info
    );
    let got_f: Vec<u32> = gpu.download(&dst_f).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
    compare_words("shared_static_reverse: f32 tile through F ([f32; 1024], align 16)", &got_f, &want_f, |i| {
        format!("block {}, element {}", i / 1024, i % 1024)
    })?;
    let got_d = gpu.download(&dst_d).map_err(fail("download"))?;
    compare_words64("shared_static_reverse: u64 tile through D ([u64; 256], align 128)", &got_d, &want_d, |i| {
        format!("block {}, element {}", i / 256, i % 256)
    })?;

    let info = gpu.download(&info).map_err(fail("download"))?;
    let (f, s, d) = (info[0], info[1], info[2]);
    let arrays = format!("shared addresses F {f:#x} (4096 B), S {s:#x} (14 B), D {d:#x} (2048 B)");
    if f % 16 != 0 || s % 2 != 0 || d % 128 != 0 {
        return Err(format!("shared_static_reverse: misaligned arrays (F needs 16, S 2, D 128): {arrays}"));
    }
    if overlap(f, 4096, s, 14) || overlap(f, 4096, d, 2048) || overlap(s, 14, d, 2048) {
        return Err(format!("shared_static_reverse: overlapping arrays: {arrays}"));
    }
    for b in 0..blocks {
        let row = &info[b * 8..(b + 1) * 8];
        let want = [f, s, d, 63 + 7 * b as u32, 1, 1024, 7, 256];
        if row != want {
            return Err(format!(
                "shared_static_reverse: block {b} reports [F addr, S addr, D addr, sum of S, \
                 generic/shared round trip, F.len, S.len, D.len] = {row:?}, expected {want:?}"
            ));
        }
    }
    Ok(())
}

fn dynamic(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let seed = fresh_seed();
    let n = 1 + random_u32(seed, 1)[0] as usize % 12287;
    with_seed(seed, dynamic_with(gpu, module, seed, n, 6, 256))?;
    // The largest dynamic size a launch gets without raising the kernel's limit: 48 KiB.
    with_seed(seed, dynamic_with(gpu, module, seed ^ 7, 12288, 3, 1024))
}

fn dynamic_with(gpu: &Gpu, module: &Module, seed: u64, n: usize, blocks: usize, threads: u32) -> Result<(), String> {
    let what = format!("shared_dynamic_reverse with {} bytes of dynamic shared memory", 4 * n);
    let src = random_f32(seed, blocks * n);
    let want: Vec<u32> = (0..src.len()).map(|i| src[i / n * n + n - 1 - i % n].to_bits()).collect();
    let d_src = gpu.upload(&src).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(src.len()).map_err(fail("alloc"))?;
    let mut info = gpu.alloc::<u32>(blocks * 8).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    gpu.memset(&mut info, 0xff).map_err(fail("poison"))?;
    let cfg = LaunchConfig { grid: (blocks as u32, 1, 1), block: (threads, 1, 1), shared_mem_bytes: 4 * n as u32 };
    launch!(gpu, module, k::shared_dynamic_reverse, cfg, &d_src, &mut dst, &mut info);
    let got: Vec<u32> = gpu.download(&dst).map_err(fail("download"))?.iter().map(|v| v.to_bits()).collect();
    compare_words(&format!("{what}: reversed tiles"), &got, &want, |i| format!("block {}, element {}", i / n, i % n))?;

    let info = gpu.download(&info).map_err(fail("download"))?;
    let (dyn_addr, tag_addr) = (info[2], info[4]);
    if dyn_addr % 16 != 0 {
        return Err(format!("{what}: the dynamic array's shared address {dyn_addr:#x} is not 16-byte aligned"));
    }
    if overlap(dyn_addr, 4 * n as u32, tag_addr, 128) {
        return Err(format!(
            "{what}: the dynamic array [{dyn_addr:#x}, +{}) overlaps the static TAG [{tag_addr:#x}, +128)",
            4 * n
        ));
    }
    for b in 0..blocks {
        let row = &info[b * 8..(b + 1) * 8];
        let want = [n as u32, 4 * n as u32, dyn_addr, 1, tag_addr, 1, 4 * n as u32, 0];
        if row != want {
            return Err(format!(
                "{what}: block {b} reports [len (f32), dynamic_shared_bytes, shared address, aliases \
                 agree, TAG address, TAG intact, len (u8), 0] = {row:?}, expected {want:?}"
            ));
        }
    }
    Ok(())
}
