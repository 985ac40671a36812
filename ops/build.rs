//! Build script of `cute-rs-ops`: where the kernels' GPU modules come from.
//!
//! - By default nothing is built: the library embeds the modules shipped in `prebuilt/` (PTX and
//!   cubins, zstd-compressed), so a user needs no nightly toolchain, no CUDA and no `ptxas`.
//! - With the cargo feature `build-kernels` it compiles the device crate `cute-rs-kernels` from
//!   its sources with `cute-rs-build` (nightly, `-Zbuild-std=core`; a cubin when `ptxas` is
//!   found), into `<target>/ptx/`, and the library embeds those. `tools/prebuilt-kernels.sh`
//!   regenerates `prebuilt/` from the same build.
//!
//! Environment, with `build-kernels` (besides the builder's own: `CUTE_NIGHTLY_TOOLCHAIN`,
//! `PTXAS`, `CUTE_CUBIN`, `CUTE_PTX_VERSION`): `CUTE_PTX_ARCH`, the architecture of the portable
//! module `gemm` (default `sm_90`).

fn main() {
    #[cfg(feature = "build-kernels")]
    if let Err(e) = from_source::build() {
        eprintln!("{e}");
        std::process::exit(1);
    }
    #[cfg(not(feature = "build-kernels"))]
    println!("cargo:rerun-if-changed=prebuilt");
}

#[cfg(feature = "build-kernels")]
mod from_source {
    use cute_rs_build::{Builder, Error};
    use std::env;
    use std::path::PathBuf;

    /// The architectures of the two modules: what `src/modules.rs` states for the prebuilt ones.
    const PORTABLE_ARCH: &str = "sm_90";
    const HOPPER_ARCH: &str = "sm_90a";

    pub fn build() -> Result<(), Error> {
        println!("cargo:rerun-if-env-changed=CUTE_PTX_ARCH");
        // `cute-rs-kernels` says where its sources are (`links` metadata): a checkout's
        // `kernels/`, or the package cargo unpacked.
        let kernels = env::var("DEP_CUTE_RS_KERNELS_SOURCE").map(PathBuf::from).map_err(|_| {
            Error::new("DEP_CUTE_RS_KERNELS_SOURCE is not set: cute-rs-kernels did not say where its sources are")
        })?;
        let arch = env::var("CUTE_PTX_ARCH").ok().map(|a| a.trim().to_owned()).filter(|a| !a.is_empty());
        let arch = arch.as_deref().unwrap_or(PORTABLE_ARCH);
        let ptx_dir = cute_rs_build::target_dir()?.join("ptx");
        let modules = [
            Builder::new(&kernels).arch(arch).module("gemm"),
            Builder::new(&kernels).arch(HOPPER_ARCH).features(&["sm90a"]).module("gemm_sm90a"),
        ];
        // Start both builds, then collect them.
        let mut started = Vec::new();
        for builder in modules {
            started.push(builder.cubin(true).out_dir(&ptx_dir).start()?);
        }
        for running in started {
            running.finish()?;
        }
        Ok(())
    }
}
