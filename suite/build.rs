//! Build script of the suite: compiles the test harness's device crate (`tests/kernels/`) to PTX
//! with the library's build helper, `cute-rs-build`, as a user's build script does, into
//! `<target>/ptx/`:
//! - `test_kernels`: for `CUTE_PTX_ARCH` (default `sm_90`);
//! - `test_kernels_sm90a`: with the cargo feature `sm90a` for the `sm_90a` target (the checks of
//!   wgmma and the other sm_90a-only instructions).
//!
//! They are large (every check, benchmark and fault kernel: ptxas takes minutes on them), so they
//! get a cubin only with `CUTE_CUBIN=1`. The production modules are built by `cute-rs-ops`' build
//! script (feature `build-kernels`). The suite reaches these as `cute_rs_suite::TEST_KERNELS` and
//! `cute_rs_suite::TEST_KERNELS_SM90A`.
//!
//! Environment (all optional), besides the builder's own (`CUTE_NIGHTLY_TOOLCHAIN`, `PTXAS`,
//! `CUTE_CUBIN`, `CUTE_PTX_VERSION`; see its docs): `CUTE_PTX_ARCH`, the architecture of the
//! portable module (`sm_90`, `sm_80`, ...).

use cute_rs_build::{Builder, Error};
use std::env;

fn main() -> Result<(), Error> {
    println!("cargo:rerun-if-env-changed=CUTE_PTX_ARCH");
    let arch = env::var("CUTE_PTX_ARCH").ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let arch = arch.unwrap_or_else(|| "sm_90".to_owned());
    let ptx_dir = cute_rs_build::target_dir()?.join("ptx");
    let cubins = env::var("CUTE_CUBIN").as_deref() == Ok("1");
    let modules = [
        Builder::new("../tests/kernels").arch(&arch).module("test_kernels"),
        Builder::new("../tests/kernels").arch("sm_90a").features(&["sm90a"]).module("test_kernels_sm90a"),
    ];
    // Start both builds, then collect them.
    let mut started = Vec::new();
    for builder in modules {
        started.push(builder.cubin(cubins).out_dir(&ptx_dir).start()?);
    }
    for running in started {
        running.finish()?;
    }
    Ok(())
}
