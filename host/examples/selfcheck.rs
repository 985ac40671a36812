//! Self-check of the host runtime on a real GPU, with hand-written PTX (no dependency on the
//! device crates `kernels/`, `tests/kernels/`; launched with `Gpu::launch_raw`, since its kernels
//! have no `#[kernel]` definition): properties, memory, launches and their validation, dynamic
//! shared memory above 48 KiB, clusters, streams, timing, TMA tensor maps (out-of-bounds fill,
//! 128-byte swizzle, padded strides), error reporting (bad PTX, missing kernel, kernel trap).
//!
//! `cargo run --release -p host --example selfcheck`; without a GPU it says it skipped.

use cute_rs_host::{
    DeviceBuffer, Gpu, HostError, HostTensor, LaunchConfig, Module, TmaOobFill, TmaSwizzle, Tolerance,
};
use cute_rs_layout::Layout;

const PTX: &str = r#"
.version 8.3
.target sm_90
.address_size 64

.extern .shared .align 16 .b8 dsmem[];
.shared .align 1024 .b8 tile[16384];
.shared .align 8 .b64 tbar;

.visible .entry copy_f32(.param .u64 p_in, .param .u64 p_out, .param .u32 p_n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<2>;
    ld.param.u64 %rd1, [p_in];
    ld.param.u64 %rd2, [p_out];
    ld.param.u32 %r1, [p_n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    add.s64 %rd7, %rd4, %rd5;
    ld.global.f32 %f1, [%rd6];
    st.global.f32 [%rd7], %f1;
DONE:
    ret;
}

.visible .entry trap_kernel()
{
    trap;
    ret;
}

.visible .entry big_smem(.param .u64 p_out)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<5>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, dsmem;
    shl.b32 %r3, %r1, 2;
    add.u32 %r4, %r3, 65536;
    add.u32 %r5, %r2, %r4;
    mul.lo.u32 %r6, %r1, 3;
    st.shared.u32 [%r5], %r6;
    bar.sync 0;
    ld.shared.u32 %r7, [%r5];
    ld.param.u64 %rd1, [p_out];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r7;
    ret;
}

.visible .entry cluster_ids(.param .u64 p_out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<5>;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %cluster_ctarank;
    mov.u32 %r3, %tid.x;
    setp.ne.u32 %p1, %r3, 0;
    @%p1 bra END;
    ld.param.u64 %rd1, [p_out];
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r2;
END:
    ret;
}

.visible .entry tma_load_2d(.param .u64 p_desc, .param .u64 p_out, .param .u32 p_c0, .param .u32 p_c1,
    .param .u32 p_nbytes)
{
    .reg .pred %p<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [p_desc];
    ld.param.u64 %rd2, [p_out];
    ld.param.u32 %r1, [p_c0];
    ld.param.u32 %r2, [p_c1];
    ld.param.u32 %r3, [p_nbytes];
    mov.u32 %r4, %tid.x;
    mov.u32 %r5, tbar;
    mov.u32 %r6, tile;
    setp.ne.u32 %p1, %r4, 0;
    @%p1 bra SYNC;
    mbarrier.init.shared::cta.b64 [%r5], 1;
    fence.mbarrier_init.release.cluster;
    fence.proxy.async.shared::cta;
    fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r5], %r3;
    cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r6], [%rd1, {%r1, %r2}], [%r5];
WAIT:
    mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r5], 0;
    @!%p2 bra WAIT;
SYNC:
    bar.sync 0;
    shr.u32 %r7, %r3, 2;
    mov.u32 %r8, %ntid.x;
    cvta.to.global.u64 %rd4, %rd2;
    mov.u32 %r9, %r4;
LOOP:
    setp.ge.u32 %p3, %r9, %r7;
    @%p3 bra END;
    shl.b32 %r10, %r9, 2;
    add.u32 %r11, %r6, %r10;
    ld.shared.u32 %r12, [%r11];
    mul.wide.u32 %rd5, %r9, 4;
    add.s64 %rd6, %rd4, %rd5;
    st.global.u32 [%rd6], %r12;
    add.u32 %r9, %r9, %r8;
    bra LOOP;
END:
    ret;
}
"#;

type Check = std::result::Result<(), String>;
type CheckFn = fn(&Gpu, &Module) -> Check;

fn e<E: std::fmt::Display>(what: &'static str) -> impl Fn(E) -> String {
    move |err| format!("{what}: {err}")
}

fn expect_invalid<T: std::fmt::Debug>(r: cute_rs_host::Result<T>, needle: &str) -> Check {
    match r {
        Err(HostError::Invalid(m)) if m.contains(needle) => {
            println!("        (Invalid: {m})");
            Ok(())
        }
        other => Err(format!("expected Invalid containing {needle:?}, got {other:?}")),
    }
}

fn copy(gpu: &Gpu, m: &Module) -> Check {
    let k = m.kernel("copy_f32").map_err(e("kernel"))?;
    println!("        copy_f32: {:?}", k);
    if k.param_sizes() != Some(&[8, 8, 4][..]) {
        return Err(format!("param sizes {:?}", k.param_sizes()));
    }
    let n = 1_000_003usize;
    let mut src = HostTensor::<f32>::new(Layout::int(n as i64, 1).unwrap()).map_err(e("tensor"))?;
    src.fill_random(7);
    let input = gpu.upload_tensor(&src).map_err(e("upload"))?;
    let mut out = gpu.alloc::<f32>(n).map_err(e("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(e("memset"))?;
    let poisoned = gpu.download(&out).map_err(e("download"))?;
    if !poisoned.iter().all(|v| v.to_bits() == u32::MAX) {
        return Err("memset 0xff did not poison".into());
    }
    let cfg = LaunchConfig::for_items(n, 256);
    unsafe { gpu.launch_raw(&k, cfg).arg(&input).arg(&out).arg(&(n as u32)).run() }.map_err(e("launch"))?;
    let got = gpu.download_tensor(&out, src.layout()).map_err(e("download"))?;
    got.compare(&src, Tolerance::EXACT).map_err(e("compare"))?;
    // Argument checks.
    expect_invalid(unsafe { gpu.launch_raw(&k, cfg).arg(&input).arg(&out).run() }, "takes 3 parameter(s)")?;
    expect_invalid(unsafe { gpu.launch_raw(&k, cfg).arg(&input).arg(&out).arg(&(n as f64)).run() }, "argument 2")?;
    // Configuration checks.
    expect_invalid(unsafe { gpu.launch_raw(&k, LaunchConfig::linear(1, 2048)).arg(&input).arg(&out).arg(&1u32).run() }, "2048")?;
    let optin = gpu.properties().max_shared_memory_per_block_optin;
    expect_invalid(
        unsafe { gpu.launch_raw(&k, LaunchConfig::linear(1, 32).with_shared_mem(optin + 16)).arg(&input).arg(&out).arg(&1u32).run() },
        "opt-in",
    )?;
    expect_invalid(unsafe { gpu.launch_raw(&k, LaunchConfig::linear(0, 32)).arg(&input).arg(&out).arg(&1u32).run() }, "is 0")?;
    // A second stream.
    let s = gpu.create_stream().map_err(e("stream"))?;
    let mut out2 = gpu.alloc::<f32>(n).map_err(e("alloc"))?;
    gpu.memset(&mut out2, 0).map_err(e("memset"))?;
    gpu.synchronize().map_err(e("sync"))?;
    unsafe { gpu.launch_raw(&k, cfg).on(&s).arg(&input).arg(&out2).arg(&(n as u32)).run() }.map_err(e("launch on a stream"))?;
    s.synchronize().map_err(e("stream sync"))?;
    let got = gpu.download_tensor(&out2, src.layout()).map_err(e("download"))?;
    got.compare(&src, Tolerance::EXACT).map_err(e("compare stream"))?;
    // Device copy and write.
    let mut out3 = gpu.alloc::<f32>(n).map_err(e("alloc"))?;
    gpu.copy(&out2, &mut out3).map_err(e("copy"))?;
    if gpu.download(&out3).map_err(e("download"))? != src.data() {
        return Err("copy differs".into());
    }
    gpu.write(&mut out3, &vec![2.5; n]).map_err(e("write"))?;
    if gpu.download(&out3).map_err(e("download"))?.iter().any(|&v| v != 2.5) {
        return Err("write differs".into());
    }
    let empty = gpu.upload::<u8>(&[]).map_err(e("empty upload"))?;
    if !gpu.download(&empty).map_err(e("empty download"))?.is_empty() {
        return Err("empty".into());
    }
    Ok(())
}

fn timing(gpu: &Gpu, m: &Module) -> Check {
    let bytes = 1usize << 28;
    let src = gpu.alloc::<u8>(bytes).map_err(e("alloc"))?;
    let mut dst = gpu.alloc::<u8>(bytes).map_err(e("alloc"))?;
    gpu.copy(&src, &mut dst).map_err(e("warm-up"))?;
    let mut best = f32::MAX;
    for _ in 0..5 {
        best = best.min(gpu.time_ms(|| gpu.copy(&src, &mut dst)).map_err(e("time_ms"))?);
    }
    println!("        memcpy DtoD 2^28 B: {best:.3} ms, {:.2} TB/s", 2.0 * bytes as f64 / (best as f64 * 1e-3) / 1e12);
    let k = m.kernel("copy_f32").map_err(e("kernel"))?;
    let n = bytes / 4;
    let (a, b) = (gpu.alloc::<f32>(n).map_err(e("alloc"))?, gpu.alloc::<f32>(n).map_err(e("alloc"))?);
    let ms = gpu
        .time_ms(|| unsafe { gpu.launch_raw(&k, LaunchConfig::for_items(n, 256)).arg(&a).arg(&b).arg(&(n as u32)).run() })
        .map_err(e("time kernel"))?;
    println!("        copy_f32 2^26 floats: {ms:.3} ms, {:.2} TB/s", 2.0 * bytes as f64 / (ms as f64 * 1e-3) / 1e12);
    if !(best > 0.0 && ms > 0.0) {
        return Err("non-positive times".into());
    }
    Ok(())
}

fn big_shared(gpu: &Gpu, m: &Module) -> Check {
    let k = m.kernel("big_smem").map_err(e("kernel"))?;
    println!("        big_smem: {:?}", k.attributes());
    let mut out = gpu.alloc::<u32>(128).map_err(e("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(e("memset"))?;
    let cfg = LaunchConfig::linear(1, 128).with_shared_mem(65536 + 128 * 4);
    unsafe { gpu.launch_raw(&k, cfg).arg(&out).run() }.map_err(e("launch (needs the opt-in)"))?;
    let got = gpu.download(&out).map_err(e("download"))?;
    let want: Vec<u32> = (0..128).map(|t| 3 * t).collect();
    if got != want {
        return Err(format!("got {:?}...", &got[..8]));
    }
    Ok(())
}

fn clusters(gpu: &Gpu, m: &Module) -> Check {
    let k = m.kernel("cluster_ids").map_err(e("kernel"))?;
    let mut out = gpu.alloc::<u32>(16).map_err(e("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(e("memset"))?;
    unsafe { gpu.launch_raw(&k, LaunchConfig::linear(16, 32)).cluster((4, 1, 1)).arg(&out).run() }.map_err(e("launch"))?;
    let got = gpu.download(&out).map_err(e("download"))?;
    let want: Vec<u32> = (0..16).map(|b| b % 4).collect();
    if got != want {
        return Err(format!("cluster ranks {got:?}"));
    }
    unsafe { gpu.launch_raw(&k, LaunchConfig::linear(16, 32)).arg(&out).run() }.map_err(e("launch"))?;
    if gpu.download(&out).map_err(e("download"))? != vec![0; 16] {
        return Err("no-cluster ranks".into());
    }
    expect_invalid(unsafe { gpu.launch_raw(&k, LaunchConfig::linear(16, 32)).cluster((3, 1, 1)).arg(&out).run() }, "divisible")?;
    expect_invalid(unsafe { gpu.launch_raw(&k, LaunchConfig::linear(16, 32)).cluster((16, 1, 1)).arg(&out).run() }, "16 blocks")?;
    Ok(())
}

/// Loads one box at (c0, c1) through `map` and returns the shared-memory image as f32.
fn tma_box(gpu: &Gpu, m: &Module, map: &cute_rs_host::TensorMap, c: (i32, i32), nbytes: u32) -> Result<Vec<f32>, String> {
    let k = m.kernel("tma_load_2d").map_err(e("kernel"))?;
    let desc = gpu.upload_tensor_map(map).map_err(e("upload map"))?;
    let mut out: DeviceBuffer<f32> = gpu.alloc((nbytes / 4) as usize).map_err(e("alloc"))?;
    gpu.memset(&mut out, 0x7f).map_err(e("memset"))?;
    unsafe {
        gpu.launch_raw(&k, LaunchConfig::linear(1, 128)).arg(&desc).arg(&out).arg(&c.0).arg(&c.1).arg(&nbytes).run()
    }
    .map_err(e("launch"))?;
    gpu.download(&out).map_err(e("download"))
}

fn tma(gpu: &Gpu, m: &Module) -> Check {
    // A 48 x 64 row-major f32 matrix: mode 0 = columns (stride 1), mode 1 = rows.
    let (cols, rows) = (64usize, 48usize);
    let l = Layout::parse("(64,48):(1,64)").unwrap();
    let mut src = HostTensor::<f32>::new(l).map_err(e("tensor"))?;
    src.fill_sequence(1.0, 1.0);
    let buf = gpu.upload_tensor(&src).map_err(e("upload"))?;

    // Out-of-bounds fill: box 32 x 16 at (48, 40) hangs over both edges.
    for fill in [TmaOobFill::Zero, TmaOobFill::Nan] {
        let map = gpu.tensor_map(&buf, l, &[32, 16], TmaSwizzle::None, fill).map_err(e("tensor_map"))?;
        let got = tma_box(gpu, m, &map, (48, 40), 32 * 16 * 4)?;
        for r in 0..16 {
            for c in 0..32 {
                let (gc, gr) = (48 + c, 40 + r);
                let v = got[r * 32 + c];
                let ok = if gc < cols && gr < rows {
                    v == src.data()[gr * cols + gc]
                } else if fill == TmaOobFill::Zero {
                    v == 0.0
                } else {
                    v.is_nan()
                };
                if !ok {
                    return Err(format!("{fill:?} fill: box ({r}, {c}) = {v}"));
                }
            }
        }
    }

    // 128-byte swizzle: box of 32 f32 (128 bytes) x 8 rows; 16-byte chunk j of row r lands at j ^ r.
    let map = gpu.tensor_map(&buf, l, &[32, 8], TmaSwizzle::B128, TmaOobFill::Zero).map_err(e("tensor_map"))?;
    let got = tma_box(gpu, m, &map, (32, 8), 32 * 8 * 4)?;
    for r in 0..8 {
        for j in 0..8 {
            for w in 0..4 {
                let v = got[r * 32 + (j ^ r) * 4 + w];
                let want = src.data()[(8 + r) * cols + 32 + j * 4 + w];
                if v != want {
                    return Err(format!("swizzle: row {r} chunk {j} word {w}: {v} != {want}"));
                }
            }
        }
    }

    // Padded rows: 40 columns in rows of 52 floats (208 bytes).
    let lp = Layout::parse("(40,30):(1,52)").unwrap();
    let mut padded = HostTensor::<f32>::new(lp).map_err(e("tensor"))?;
    padded.fill_random(3);
    let pbuf = gpu.upload_tensor(&padded).map_err(e("upload"))?;
    let map = gpu.tensor_map(&pbuf, lp, &[16, 8], TmaSwizzle::None, TmaOobFill::Zero).map_err(e("tensor_map"))?;
    let got = tma_box(gpu, m, &map, (16, 20), 16 * 8 * 4)?;
    for r in 0..8 {
        for c in 0..16 {
            let want = padded[[16 + c as i64, 20 + r as i64]];
            if got[r * 16 + c] != want {
                return Err(format!("padded: ({r}, {c})"));
            }
        }
    }

    // Rejected before the driver.
    expect_invalid(gpu.tensor_map(&buf, l, &[6, 8], TmaSwizzle::None, TmaOobFill::Zero), "multiple of 16")?;
    expect_invalid(gpu.tensor_map(&buf, l, &[64, 8], TmaSwizzle::B128, TmaOobFill::Zero), "at most 128")?;
    let ibuf = gpu.alloc::<i32>(64 * 48).map_err(e("alloc"))?;
    expect_invalid(gpu.tensor_map(&ibuf, l, &[32, 8], TmaSwizzle::None, TmaOobFill::Nan), "NaN")?;
    expect_invalid(gpu.tensor_map(&buf, Layout::parse("(63,48):(1,63)").unwrap(), &[32, 8], TmaSwizzle::None,
        TmaOobFill::Zero), "multiples of 16")?;
    Ok(())
}

fn errors(gpu: &Gpu, m: &Module) -> Check {
    match gpu.load_module(".version 8.3\n.target sm_90\n.address_size 64\n.visible .entry bad() { bogus.instr; }\n") {
        Err(err @ HostError::Cuda { .. }) => println!("        bad PTX: {err}"),
        other => return Err(format!("bad PTX: {other:?}")),
    }
    match m.kernel("no_such_kernel") {
        Err(err @ HostError::Cuda { .. }) if err.to_string().contains("copy_f32") => println!("        {err}"),
        other => return Err(format!("missing kernel: {other:?}")),
    }
    match Gpu::new(99) {
        Err(HostError::NoGpu(why)) => println!("        Gpu::new(99): {why}"),
        other => return Err(format!("Gpu::new(99): {:?}", other.map(|_| ()))),
    }
    Ok(())
}

/// Last: a trap leaves the context unusable.
fn trap(gpu: &Gpu, m: &Module) -> Check {
    let k = m.kernel("trap_kernel").map_err(e("kernel"))?;
    let buf = gpu.upload(&[1u32, 2, 3]).map_err(e("upload"))?;
    unsafe { gpu.launch_raw(&k, LaunchConfig::linear(1, 32)).run() }.map_err(e("launch"))?;
    match gpu.synchronize() {
        Err(err @ HostError::Cuda { .. }) if err.to_string().contains("trap_kernel") => println!("        {err}"),
        other => return Err(format!("trap: {other:?}")),
    }
    match gpu.download(&buf) {
        Err(err) => println!("        after the trap: {err}"),
        Ok(v) => return Err(format!("download after a trap gave {v:?}")),
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    let gpu = match Gpu::new(0) {
        Ok(g) => g,
        Err(HostError::NoGpu(why)) => {
            println!("host self-check skipped: no GPU ({why})");
            return std::process::ExitCode::SUCCESS;
        }
        Err(err) => {
            println!("GPU present but unusable: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    println!("{:#?}", gpu.properties());
    let module = match gpu.load_module(PTX) {
        Ok(m) => m,
        Err(err) => {
            println!("loading the self-check PTX failed: {err}");
            return std::process::ExitCode::FAILURE;
        }
    };
    println!("kernels: {:?}", module.kernel_names());
    let checks: [(&str, CheckFn); 7] = [
        ("copy", copy),
        ("timing", timing),
        ("big_shared", big_shared),
        ("clusters", clusters),
        ("tma", tma),
        ("errors", errors),
        ("trap", trap),
    ];
    let mut failed = 0;
    for (name, f) in checks {
        match f(&gpu, &module) {
            Ok(()) => println!("ok      {name}"),
            Err(why) => {
                failed += 1;
                println!("FAILED  {name}: {why}");
            }
        }
    }
    println!("{} passed, {failed} failed", checks.len() - failed);
    if failed == 0 {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
