//! Build script of the root package `cute-rs`: compiles the project's two device crates to PTX
//! with the library's build helper, `cute-rs-build` (the same one a user's `build.rs` calls).
//!
//! Four modules, built side by side into `target/ptx/`:
//! - `gemm`: the production kernels of `kernels/` (the portable GEMMs) for `CUTE_PTX_ARCH`
//!   (default `sm_90`);
//! - `gemm_sm90a`: the same crate with the cargo feature `sm90a` for the `sm_90a` target (the
//!   Hopper GEMMs: wgmma and the other sm_90a-only instructions);
//! - `test_kernels` and `test_kernels_sm90a`: the test harness's kernels (`tests/kernels/`), the
//!   same way.
//!
//! The production modules get a cubin whenever `ptxas` is found (see the builder's docs), so that
//! loading them compiles nothing at run time. The test modules are large (every check, benchmark
//! and fault kernel: ptxas takes minutes on them), so they get one only with `CUTE_CUBIN=1`.
//!
//! The library reaches them as `cute_rs::GEMM`, `cute_rs::GEMM_SM90A`, `cute_rs::TEST_KERNELS`
//! and `cute_rs::TEST_KERNELS_SM90A` (`cute_rs_host::module!`).
//!
//! Environment (all optional), besides the builder's own (`CUTE_NIGHTLY_TOOLCHAIN`, `PTXAS`,
//! `CUTE_CUBIN`; see its docs):
//! - `CUTE_PTX_ARCH`: the architecture of the portable modules (`sm_90`, `sm_80`, ...).
//! - `CUTE_PTX_VERSION`: the PTX ISA version as LLVM spells it (`83` = PTX 8.3).

use cute_rs_build::{Builder, Error};
use std::env;

fn main() -> Result<(), Error> {
    for var in ["CUTE_PTX_ARCH", "CUTE_PTX_VERSION"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let arch = env_or("CUTE_PTX_ARCH", "sm_90");
    let ptx_dir = cute_rs_build::target_dir()?.join("ptx");
    let test_cubins = env::var("CUTE_CUBIN").as_deref() == Ok("1");
    let with_version = |b: Builder| -> Result<Builder, Error> {
        match env::var("CUTE_PTX_VERSION").ok().filter(|v| !v.trim().is_empty()) {
            Some(v) => v.trim().parse().map(|v| b.ptx_version(v)).map_err(|_| {
                Error::new(format!("CUTE_PTX_VERSION={v:?} is not a PTX ISA version like 83 (PTX 8.3)"))
            }),
            None => Ok(b),
        }
    };
    let modules = [
        Builder::new("kernels").arch(&arch).module("gemm").cubin(true),
        Builder::new("kernels").arch("sm_90a").features(&["sm90a"]).module("gemm_sm90a").cubin(true),
        Builder::new("tests/kernels").arch(&arch).module("test_kernels").cubin(test_cubins),
        Builder::new("tests/kernels").arch("sm_90a").features(&["sm90a"]).module("test_kernels_sm90a").cubin(test_cubins),
    ];
    // Start every build, then collect them.
    let mut started = Vec::new();
    for builder in modules {
        started.push(with_version(builder.out_dir(&ptx_dir))?.start()?);
    }
    for running in started {
        running.finish()?;
    }
    Ok(())
}

fn env_or(var: &str, default: &str) -> String {
    env::var(var).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()).unwrap_or_else(|| default.to_owned())
}
