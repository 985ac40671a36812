//! Build script of the root package `cute-rs`: compiles the device crate `kernels/` to PTX with the
//! library's build helper, `cute-rs-build` (the same one a user's `build.rs` calls).
//!
//! Two modules, built side by side:
//! - `target/ptx/kernels.ptx` for `CUTE_PTX_ARCH` (default `sm_90`), handed to the crate as
//!   `KERNELS_PTX`;
//! - `target/ptx/kernels_sm90a.ptx`, the same crate with the cargo feature `sm90a` for the `sm_90a`
//!   target (wgmma and the other sm_90a-only instructions), handed to the crate as
//!   `KERNELS_SM90A_PTX`.
//!
//! Environment (all optional), besides the builder's own (`CUTE_NIGHTLY_TOOLCHAIN`, `PTXAS`,
//! `CUTE_CUBIN`; see its docs):
//! - `CUTE_PTX_ARCH`: the architecture of `kernels.ptx` (`sm_90`, `sm_80`, ...).
//! - `CUTE_PTX_VERSION`: the PTX ISA version as LLVM spells it (`83` = PTX 8.3).
//! - `CUTE_KERNELS_PTX`, `CUTE_KERNELS_SM90A_PTX`: prebuilt PTX modules to use instead of building
//!   `kernels/` (for machines without the nightly toolchain); each replaces one module.
//!
//! Cubins are off here unless `CUTE_CUBIN=1`: ptxas takes minutes on the project's modules, which
//! hold every test and benchmark kernel.

use cute_rs_build::{Builder, Error};
use std::env;
use std::path::PathBuf;

fn main() -> Result<(), Error> {
    for var in ["CUTE_PTX_ARCH", "CUTE_PTX_VERSION", "CUTE_KERNELS_PTX", "CUTE_KERNELS_SM90A_PTX"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let arch = env_or("CUTE_PTX_ARCH", "sm_90");
    let ptx_dir = cute_rs_build::target_dir()?.join("ptx");
    let cubin = env::var("CUTE_CUBIN").as_deref() == Ok("1");
    let with_version = |b: Builder| -> Result<Builder, Error> {
        match env::var("CUTE_PTX_VERSION").ok().filter(|v| !v.trim().is_empty()) {
            Some(v) => v.trim().parse().map(|v| b.ptx_version(v)).map_err(|_| {
                Error::new(format!("CUTE_PTX_VERSION={v:?} is not a PTX ISA version like 83 (PTX 8.3)"))
            }),
            None => Ok(b),
        }
    };
    let modules = [
        (Builder::new("kernels").arch(&arch).module("kernels"), "KERNELS_PTX", "CUTE_KERNELS_PTX"),
        (
            Builder::new("kernels").arch("sm_90a").features(&["sm90a"]).module("kernels_sm90a"),
            "KERNELS_SM90A_PTX",
            "CUTE_KERNELS_SM90A_PTX",
        ),
    ];
    // Start every build that has no prebuilt replacement, then collect them.
    let mut started = Vec::new();
    for (builder, export, prebuilt_var) in modules {
        match env::var_os(prebuilt_var).filter(|p| !p.is_empty()) {
            Some(prebuilt) => {
                println!("cargo:rerun-if-changed={}", PathBuf::from(&prebuilt).display());
                println!("cargo:rustc-env={export}={}", PathBuf::from(prebuilt).display());
            }
            None => {
                let builder = with_version(builder.out_dir(&ptx_dir).export_as(export).cubin(cubin))?;
                started.push(builder.start()?);
            }
        }
    }
    for running in started {
        running.finish()?;
    }
    println!("cargo:rustc-env=KERNELS_PTX_ARCH={arch}");
    Ok(())
}

fn env_or(var: &str, default: &str) -> String {
    env::var(var).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()).unwrap_or_else(|| default.to_owned())
}

