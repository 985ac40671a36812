//! The GPU modules of `cute-rs-kernels` the operations launch, as [`ModuleSource`]s that
//! [`Gpu::module`](cute_rs_host::Gpu::module) loads on first use.
//!
//! - [`gemm`]: the portable kernels (the `mma.sync` GEMMs, the f32 and TF32 GEMMs, the portable
//!   attention), PTX for `sm_90` and its cubin.
//! - [`gemm_sm90a`]: the Hopper kernels (TMA, wgmma, warp specialization; GEMMs and attention),
//!   PTX and cubin for `sm_90a`. It loads on sm_90 GPUs only (H100, H200).
//!
//! By default both are the files of the package's `prebuilt/` folder, zstd-compressed inside the
//! library and decompressed once per process, on first use: loading the cubin compiles nothing.
//! With the cargo feature `build-kernels` they are what the build script compiled from the
//! kernels' sources. On the CPU backend the same kernels run from `cute-rs-kernels`' host build;
//! the PTX only names the entries.

use cute_rs_host::ModuleSource;

/// The portable kernels' module.
///
/// # Example
/// ```
/// let gemm = cute_rs_ops::modules::gemm();
/// assert!(gemm.ptx.contains(".visible .entry gemm_"));
/// assert!(gemm.ptx.contains(&format!(".target {}", gemm.arch)));
/// ```
pub fn gemm() -> &'static ModuleSource {
    embedded::gemm()
}

/// The Hopper kernels' module (sm_90a).
///
/// # Example
/// ```
/// let hopper = cute_rs_ops::modules::gemm_sm90a();
/// assert_eq!(hopper.arch, "sm_90a");
/// assert!(hopper.ptx.contains(".target sm_90a"));
/// ```
pub fn gemm_sm90a() -> &'static ModuleSource {
    embedded::gemm_sm90a()
}

#[cfg(feature = "build-kernels")]
mod embedded {
    use cute_rs_host::ModuleSource;

    static GEMM: ModuleSource = cute_rs_host::module!(cute_rs_kernels, "gemm");
    static GEMM_SM90A: ModuleSource = cute_rs_host::module!(cute_rs_kernels, "gemm_sm90a");

    pub fn gemm() -> &'static ModuleSource {
        &GEMM
    }

    pub fn gemm_sm90a() -> &'static ModuleSource {
        &GEMM_SM90A
    }
}

#[cfg(not(feature = "build-kernels"))]
mod embedded {
    use std::io::Read;
    use std::sync::OnceLock;

    use cute_rs_host::ModuleSource;

    /// A module of `prebuilt/`: `<name>.ptx.zst` and `<name>.cubin.zst`, built for `arch` (what
    /// `tools/prebuilt-kernels.sh` wrote and checks).
    macro_rules! prebuilt {
        ($name:literal, $arch:literal) => {{
            static SOURCE: OnceLock<ModuleSource> = OnceLock::new();
            SOURCE.get_or_init(|| {
                let file = |ext: &str, zst: &[u8]| unpack(&format!("prebuilt/{}.{ext}.zst", $name), zst);
                let ptx = file("ptx", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/prebuilt/", $name, ".ptx.zst")));
                let cubin = file("cubin", include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/prebuilt/", $name, ".cubin.zst")));
                let ptx = String::from_utf8(ptx).unwrap_or_else(|_| panic!("prebuilt/{}.ptx.zst is not text: the package is damaged", $name));
                ModuleSource {
                    device_crate: "cute_rs_kernels",
                    arch: $arch,
                    ptx: Box::leak(ptx.into_boxed_str()),
                    cubin: Box::leak(cubin.into_boxed_slice()),
                }
            })
        }};
    }

    /// The decompressed contents of the embedded file `what`. A file that does not decompress
    /// is a damaged package, not a condition a caller can act on: it stops with the file's name.
    fn unpack(what: &str, zst: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let decoded = ruzstd::decoding::StreamingDecoder::new(zst)
            .map_err(|e| e.to_string())
            .and_then(|mut d| d.read_to_end(&mut out).map_err(|e| e.to_string()));
        if let Err(e) = decoded {
            panic!("{what} does not decompress ({e}): the package is damaged");
        }
        out
    }

    pub fn gemm() -> &'static ModuleSource {
        prebuilt!("gemm", "sm_90")
    }

    pub fn gemm_sm90a() -> &'static ModuleSource {
        prebuilt!("gemm_sm90a", "sm_90a")
    }
}
