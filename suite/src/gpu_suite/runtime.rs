//! The host runtime's own checks on a GPU: invalid launches and tensor maps are refused with an
//! error naming the condition (and nothing is launched), and the GPU stays usable afterwards.

use cute_rs_host::{Gpu, HostError, LaunchConfig, Module, TmaOobFill, TmaSwizzle};
use cute_rs_layout::Layout;

use super::{fail, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "runtime/invalid_launches_are_refused", run: invalid_launches },
        Check { name: "runtime/invalid_tensor_maps_are_refused", run: invalid_tensor_maps },
    ]
}

/// `Err(Invalid)` whose message contains `want`, else a description of what came instead.
fn expect_invalid<T>(what: &str, r: cute_rs_host::Result<T>, want: &str) -> Result<(), String> {
    match r {
        Err(HostError::Invalid(msg)) if msg.contains(want) => Ok(()),
        Err(e) => Err(format!("{what}: expected an invalid-argument error mentioning {want:?}, got: {e}")),
        Ok(_) => Err(format!("{what}: accepted, expected an error mentioning {want:?}")),
    }
}

fn invalid_launches(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let k = test_kernels::vector_copy;
    let buf = gpu.alloc::<f32>(1024).map_err(fail("alloc"))?;
    let mut out = gpu.alloc::<f32>(1024).map_err(fail("alloc"))?;
    let props = gpu.properties().clone();
    let too_many_threads = LaunchConfig::linear(1, props.max_threads_per_block + 32);
    let launch = |cfg, out: &mut cute_rs_host::DeviceBuffer<f32>| unsafe { gpu.launch(module, k, cfg, (&buf, out)).run() };
    expect_invalid("block too large", launch(too_many_threads, &mut out), "block")?;
    let zero_grid = LaunchConfig::linear(0, 32);
    expect_invalid("empty grid", launch(zero_grid, &mut out), "grid")?;
    let too_much_smem = LaunchConfig::linear(1, 32).with_shared_mem(props.max_shared_memory_per_block_optin + 1024);
    expect_invalid("shared memory", launch(too_much_smem, &mut out), "shared")?;
    let ok = LaunchConfig::linear(1, 32);
    // A missing or mistyped argument no longer compiles (the arguments are checked against the
    // kernel's signature); what the types cannot say is checked at the launch: a buffer of 1023
    // floats is not a whole number of `cutile_copy_f32`'s `Vector<f32, 4>` elements.
    let ragged = gpu.alloc::<f32>(1023).map_err(fail("alloc"))?;
    let vector_launch =
        unsafe { gpu.launch(module, test_kernels::cutile::cutile_copy_f32, ok, (&ragged, &mut out)).run() };
    expect_invalid("vector argument of the wrong length", vector_launch, "argument")?;
    // A kernel that declares its block (`#[kernel(block(32))]`) refuses any other.
    let values = gpu.upload(&[0u32; 64]).map_err(fail("upload"))?;
    let wrong_block = LaunchConfig::linear(1, 64);
    let contract = unsafe {
        gpu.launch(module, test_kernels::printing::print_and_check, wrong_block, (&values, 64u32, 1u32)).run()
    };
    expect_invalid("a block outside the kernel's contract", contract, "launch contract")?;
    // Nothing above reached the GPU: it still runs a correct launch.
    let src = gpu.upload(&[1.5f32; 32]).map_err(fail("upload"))?;
    let mut dst = gpu.alloc::<f32>(32).map_err(fail("alloc"))?;
    gpu.memset(&mut dst, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, k, ok, (&src, &mut dst)).run() }.map_err(fail("valid launch"))?;
    super::expect_eq("after refused launches", &gpu.download(&dst).map_err(fail("download"))?, &[1.5f32; 32])
}

fn invalid_tensor_maps(gpu: &Gpu, _module: &Module) -> Result<(), String> {
    let buf = gpu.alloc::<f32>(64 * 64).map_err(fail("alloc"))?;
    let layout = |s: &str| Layout::parse(s).map_err(fail("layout"));
    // A row of 33 floats is 132 bytes: not a multiple of 16.
    let misaligned = layout("(33,64):(1,33)")?;
    expect_invalid("misaligned stride", gpu.tensor_map(&buf, misaligned, &[32, 8], TmaSwizzle::None, TmaOobFill::Zero), "16")?;
    let good = layout("(64,64):(1,64)")?;
    expect_invalid("box too large", gpu.tensor_map(&buf, good, &[512, 8], TmaSwizzle::None, TmaOobFill::Zero), "box")?;
    expect_invalid("box wider than the swizzle", gpu.tensor_map(&buf, good, &[64, 8], TmaSwizzle::B32, TmaOobFill::Zero), "swizzle")?;
    let ints = gpu.alloc::<u32>(64 * 64).map_err(fail("alloc"))?;
    expect_invalid("NaN fill of integers", gpu.tensor_map(&ints, good, &[32, 8], TmaSwizzle::None, TmaOobFill::Nan), "NaN")?;
    gpu.tensor_map(&buf, good, &[32, 8], TmaSwizzle::B128, TmaOobFill::Zero).map_err(fail("a valid tensor map"))?;
    Ok(())
}
