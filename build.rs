//! Build script of the demo: compiles its device crate `demo-kernels/` to PTX (and a cubin when
//! `ptxas` is found) with the library's build helper, `cute-rs-build`, as a user's `build.rs`
//! does. The module is `demo`, in `<target>/ptx/`; the demo reaches it as `cute_rs::DEMO`.
//!
//! Environment (optional), besides the builder's own (`CUTE_NIGHTLY_TOOLCHAIN`, `PTXAS`,
//! `CUTE_CUBIN`): `CUTE_PTX_ARCH`, the architecture (default `sm_90`).

fn main() -> Result<(), cute_rs_build::Error> {
    println!("cargo:rerun-if-env-changed=CUTE_PTX_ARCH");
    let arch = std::env::var("CUTE_PTX_ARCH").ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
    let ptx_dir = cute_rs_build::target_dir()?.join("ptx");
    cute_rs_build::Builder::new("demo-kernels")
        .arch(arch.as_deref().unwrap_or("sm_90"))
        .module("demo")
        .out_dir(ptx_dir)
        .build()?;
    Ok(())
}
