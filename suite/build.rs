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
//! `CUTE_CUBIN`; see its docs):
//! - `CUTE_PTX_ARCH`: the architecture of the portable module (`sm_90`, `sm_80`, ...).
//! - `CUTE_PTX_VERSION`: the PTX ISA version as LLVM spells it (`83` = PTX 8.3).

use cute_rs_build::{Builder, Error};
use std::env;

fn main() -> Result<(), Error> {
    for var in ["CUTE_PTX_ARCH", "CUTE_PTX_VERSION"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let arch = env::var("CUTE_PTX_ARCH").ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let arch = arch.unwrap_or_else(|| "sm_90".to_owned());
    let ptx_dir = cute_rs_build::target_dir()?.join("ptx");
    let cubins = env::var("CUTE_CUBIN").as_deref() == Ok("1");
    let version = match env::var("CUTE_PTX_VERSION").ok().filter(|v| !v.trim().is_empty()) {
        Some(v) => Some(v.trim().parse::<u32>().map_err(|_| {
            Error::new(format!("CUTE_PTX_VERSION={v:?} is not a PTX ISA version like 83 (PTX 8.3)"))
        })?),
        None => None,
    };
    let modules = [
        Builder::new("../tests/kernels").arch(&arch).module("test_kernels"),
        Builder::new("../tests/kernels").arch("sm_90a").features(&["sm90a"]).module("test_kernels_sm90a"),
    ];
    // Start both builds, then collect them.
    let mut started = Vec::new();
    for builder in modules {
        let builder = builder.cubin(cubins).out_dir(&ptx_dir);
        started.push(match version {
            Some(v) => builder.ptx_version(v),
            None => builder,
        }
        .start()?);
    }
    for running in started {
        running.finish()?;
    }
    Ok(())
}
