//! Compile a device crate of `#[kernel]` functions to a PTX module (and a cubin) from a `build.rs`.
//!
//! A user's project has a device crate (`#![no_std]`, `#[kernel]` functions written with
//! `cute-rs-tensor`) and a host crate that launches them. The host crate's build script compiles
//! the device crate with this builder, in the shape of Rust-CUDA's `cuda_builder`:
//!
//! ```no_run
//! // build.rs of the host crate
//! fn main() -> Result<(), cute_rs_build::Error> {
//!     cute_rs_build::Builder::new("kernels").arch("sm_90").build()?;
//!     Ok(())
//! }
//! ```
//!
//! and the host embeds the module it wrote (`cute_rs_host::module!(my_kernels)` reads the paths
//! this builder exports as `CUTE_PTX_<module>` and `CUTE_CUBIN_<module>`).
//!
//! # What a build does
//! 1. Checks the `nightly` toolchain (or `CUTE_NIGHTLY_TOOLCHAIN`) for the `rust-src` and
//!    `llvm-tools` components, runs `rustup component add` once if one is missing, and otherwise
//!    fails naming the component and the command that installs it.
//! 2. Compiles its own linker, `cute-ptx-linker` (a small Rust program shipped inside this crate:
//!    `llvm-link`, `opt` and `llc` of `llvm-tools`, plus launch bounds), once per linker version.
//! 3. Runs a nested `cargo rustc --release --lib --crate-type cdylib --target nvptx64-nvidia-cuda
//!    -Zbuild-std=core` of the device crate, with the linker, `-Ctarget-cpu=<arch>`, the PTX ISA
//!    version, and the release profile device code needs (`panic = "abort"`, one codegen unit, no
//!    debug assertions or overflow checks) given on the command line: the device crate declares
//!    none of it. Its target directory is `<target>/cute-build/<crate>/<arch>[+features]`, so
//!    architectures, feature sets and host crates never invalidate one another.
//! 4. Copies the PTX to `<out_dir>/<module>.ptx` (rewritten only when it changed), and, when
//!    `ptxas` is found, compiles it to `<module>.cubin` so that loading needs no JIT compilation.
//! 5. Prints `cargo:rerun-if-changed` for every source file of the device crate and its path
//!    dependencies (read from the nested build's dep-info) and their manifests: the build script
//!    reruns only when device code changed.
//!
//! The code generator is one seam, [`Backend`]: its one variant is rustc's own
//! `nvptx64-nvidia-cuda` target with LLVM's tools; another backend (such as Rust-CUDA's NVVM one,
//! were it to target `sm_90`) would be another variant of that enum.
//!
//! # Environment (all optional)
//! - `CUTE_NIGHTLY_TOOLCHAIN`: the rustup toolchain that builds device code (default `nightly`).
//! - `PTXAS`: the `ptxas` to use; otherwise `$CUDA_HOME/bin`, `$CUDA_PATH/bin`, `/usr/local/cuda/bin`
//!   and `PATH` are searched. `CUTE_CUBIN=0` turns cubins off.
//! - `CUTE_PTX_VERSION`: the PTX ISA version of a build that does not set one
//!   ([`Builder::ptx_version`]), as LLVM spells it (`83` = PTX 8.3).
#![warn(missing_docs)]

use std::collections::BTreeSet;
use std::env;
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

#[cfg(test)]
#[path = "linker.rs"]
mod linker;

/// The linker program's source, compiled once by [`Builder::start`].
const LINKER_SOURCE: &str = include_str!("linker.rs");
/// Components the nightly toolchain needs for device code.
const COMPONENTS: [&str; 2] = ["rust-src", "llvm-tools"];
/// LLVM tools the linker runs.
const LLVM_TOOLS: [&str; 4] = ["llvm-link", "opt", "llc", "llvm-dis"];

/// Why a device build failed: the message names the condition and, where there is one, the
/// command that fixes it.
///
/// # Example
/// ```
/// let e = cute_rs_build::Builder::new("no/such/crate").build().unwrap_err();
/// assert!(e.to_string().contains("no/such/crate"));
/// ```
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

// `fn main() -> Result<(), Error>` prints the Debug form: make it the readable message.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl Error {
    /// An error with `message`, for build scripts that add their own conditions.
    ///
    /// # Example
    /// ```
    /// let e = cute_rs_build::Error::new("CUTE_PTX_VERSION=\"x\" is not a PTX ISA version");
    /// assert!(e.to_string().starts_with("CUTE_PTX_VERSION"));
    /// ```
    pub fn new(message: impl Into<String>) -> Error {
        Error(message.into())
    }
}

fn err<T>(message: impl Into<String>) -> Result<T, Error> {
    Err(Error(message.into()))
}

/// The code generator that turns a device crate into a GPU module.
///
/// # Example
/// ```
/// use cute_rs_build::{Backend, Builder};
/// let b = Builder::new("kernels").backend(Backend::RustcNvptx);
/// # let _ = b;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// rustc's `nvptx64-nvidia-cuda` target (nightly, `-Zbuild-std=core`), linked by
    /// `cute-ptx-linker` with the toolchain's `llvm-tools`.
    RustcNvptx,
}

impl Backend {
    /// The Rust target triple of device code.
    fn triple(self) -> &'static str {
        match self {
            Backend::RustcNvptx => "nvptx64-nvidia-cuda",
        }
    }
}

/// What a finished build left: the module's files.
///
/// # Example
/// ```no_run
/// let built = cute_rs_build::Builder::new("kernels").build()?;
/// println!("PTX at {}", built.ptx.display());
/// if let Some(cubin) = &built.cubin { println!("cubin at {}", cubin.display()); }
/// # Ok::<(), cute_rs_build::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Built {
    /// The module's name (the suffix of the `CUTE_PTX_<module>` variable).
    pub module: String,
    /// The PTX module.
    pub ptx: PathBuf,
    /// The module compiled by `ptxas` for the build's architecture, when `ptxas` was found.
    pub cubin: Option<PathBuf>,
}

/// Builds one device crate for one architecture and feature set: see the [crate docs](crate).
///
/// # Example
/// ```no_run
/// // Two modules of one device crate: the portable one, and one with sm_90a-only instructions.
/// use cute_rs_build::Builder;
/// let portable = Builder::new("kernels").arch("sm_90").start()?;
/// let hopper = Builder::new("kernels").arch("sm_90a").features(&["sm90a"]).module("kernels_sm90a").start()?;
/// let (portable, hopper) = (portable.finish()?, hopper.finish()?); // built side by side
/// # let _ = (portable, hopper);
/// # Ok::<(), cute_rs_build::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Builder {
    crate_dir: PathBuf,
    arch: String,
    ptx_version: Option<u32>,
    features: Vec<String>,
    module: Option<String>,
    out_dir: Option<PathBuf>,
    export_as: Vec<String>,
    cubin: bool,
    ptxas: Option<PathBuf>,
    backend: Backend,
    toolchain: Option<String>,
}

impl Builder {
    /// A build of the device crate in `crate_dir` (relative paths are taken from the calling
    /// package's directory, `CARGO_MANIFEST_DIR`), for `sm_90`, writing the module to the build
    /// script's `OUT_DIR`.
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("../my-kernels");
    /// # let _ = b;
    /// ```
    pub fn new(crate_dir: impl AsRef<Path>) -> Builder {
        let dir = crate_dir.as_ref();
        let crate_dir = match env::var_os("CARGO_MANIFEST_DIR") {
            Some(root) if dir.is_relative() => PathBuf::from(root).join(dir),
            _ => dir.to_path_buf(),
        };
        Builder {
            crate_dir,
            arch: "sm_90".into(),
            ptx_version: None,
            features: Vec::new(),
            module: None,
            out_dir: None,
            export_as: Vec::new(),
            cubin: true,
            ptxas: None,
            backend: Backend::RustcNvptx,
            toolchain: None,
        }
    }

    /// The GPU architecture: `sm_80`, `sm_90` (default), `sm_90a` (wgmma, `setmaxnreg`), ...
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").arch("sm_90a");
    /// # let _ = b;
    /// ```
    pub fn arch(mut self, arch: &str) -> Builder {
        self.arch = arch.to_owned();
        self
    }

    /// The PTX ISA version as LLVM spells it (`83` = PTX 8.3). Default: `CUTE_PTX_VERSION` when
    /// set, else 83 up to `sm_90a`, which covers `fence.proxy.tensormap`, and 88 from `sm_100` on.
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").ptx_version(85);
    /// # let _ = b;
    /// ```
    pub fn ptx_version(mut self, version: u32) -> Builder {
        self.ptx_version = Some(version);
        self
    }

    /// Cargo features of the device crate for this module.
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").features(&["sm90a"]);
    /// # let _ = b;
    /// ```
    pub fn features(mut self, features: &[&str]) -> Builder {
        self.features = features.iter().map(|f| (*f).to_owned()).collect();
        self
    }

    /// The module's name: its file names (`<module>.ptx`, `<module>.cubin`) and the variables
    /// `CUTE_PTX_<module>` and `CUTE_CUBIN_<module>`. Default: the device crate's library name
    /// (`my-kernels` gives `my_kernels`).
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").module("kernels_sm90a");
    /// # let _ = b;
    /// ```
    pub fn module(mut self, name: &str) -> Builder {
        self.module = Some(name.to_owned());
        self
    }

    /// The directory the module's files go to (default: the build script's `OUT_DIR`).
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").out_dir("target/ptx");
    /// # let _ = b;
    /// ```
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Builder {
        self.out_dir = Some(dir.into());
        self
    }

    /// Also exports the PTX module's path under the variable `name` (besides `CUTE_PTX_<module>`).
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").export_as("KERNELS_PTX");
    /// # let _ = b;
    /// ```
    pub fn export_as(mut self, name: &str) -> Builder {
        self.export_as.push(name.to_owned());
        self
    }

    /// Whether to compile a cubin with `ptxas` when one is found (default `true`; `CUTE_CUBIN=0`
    /// turns it off).
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").cubin(false);
    /// # let _ = b;
    /// ```
    pub fn cubin(mut self, cubin: bool) -> Builder {
        self.cubin = cubin;
        self
    }

    /// The `ptxas` to use, before the ones [`find_ptxas`] looks for.
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").ptxas("/opt/cuda/bin/ptxas");
    /// # let _ = b;
    /// ```
    pub fn ptxas(mut self, path: impl Into<PathBuf>) -> Builder {
        self.ptxas = Some(path.into());
        self
    }

    /// The code generator (default [`Backend::RustcNvptx`], the only one).
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").backend(cute_rs_build::Backend::RustcNvptx);
    /// # let _ = b;
    /// ```
    pub fn backend(mut self, backend: Backend) -> Builder {
        self.backend = backend;
        self
    }

    /// The rustup toolchain of device code (default: `CUTE_NIGHTLY_TOOLCHAIN`, else `nightly`).
    ///
    /// # Example
    /// ```
    /// let b = cute_rs_build::Builder::new("kernels").toolchain("nightly-x86_64-unknown-linux-gnu");
    /// # let _ = b;
    /// ```
    pub fn toolchain(mut self, toolchain: &str) -> Builder {
        self.toolchain = Some(toolchain.to_owned());
        self
    }

    /// Builds the module and waits for it: [`start`](Builder::start) then
    /// [`finish`](Running::finish).
    ///
    /// # Errors
    /// As [`start`](Builder::start) and [`finish`](Running::finish).
    ///
    /// # Example
    /// ```no_run
    /// let built = cute_rs_build::Builder::new("kernels").build()?;
    /// # let _ = built;
    /// # Ok::<(), cute_rs_build::Error>(())
    /// ```
    pub fn build(self) -> Result<Built, Error> {
        self.start()?.finish()
    }

    /// Checks the toolchain and starts the nested device build, which runs while the caller goes
    /// on (several builds run side by side).
    ///
    /// # Errors
    /// The device crate has no `Cargo.toml`; the architecture or PTX version is malformed; the
    /// toolchain or its components are missing (with the command that installs them); the linker
    /// cannot be compiled; `rustup` cannot be run.
    ///
    /// # Example
    /// ```no_run
    /// let running = cute_rs_build::Builder::new("kernels").start()?;
    /// let built = running.finish()?;
    /// # let _ = built;
    /// # Ok::<(), cute_rs_build::Error>(())
    /// ```
    pub fn start(self) -> Result<Running, Error> {
        let manifest = self.crate_dir.join("Cargo.toml");
        if !manifest.is_file() {
            return err(format!(
                "device crate: {} has no Cargo.toml (Builder::new takes the device crate's directory, relative to \
                 the calling package)",
                self.crate_dir.display()
            ));
        }
        let lib_name = lib_name(&manifest)?;
        let arch_number = arch_number(&self.arch)?;
        let from_env = match env::var("CUTE_PTX_VERSION").ok().filter(|v| !v.trim().is_empty()) {
            Some(v) => Some(v.trim().parse::<u32>().map_err(|_| {
                Error(format!("CUTE_PTX_VERSION={v:?} is not a PTX ISA version like 83 (PTX 8.3)"))
            })?),
            None => None,
        };
        let version = match self.ptx_version.or(from_env) {
            Some(v) => v,
            None if arch_number >= 100 => 88,
            None => 83,
        };
        let module = self.module.clone().unwrap_or_else(|| lib_name.clone());
        if module.is_empty() || !module.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return err(format!("module name {module:?}: use letters, digits and '_' (it names a variable)"));
        }
        for var in ["CUTE_NIGHTLY_TOOLCHAIN", "PTXAS", "CUDA_HOME", "CUDA_PATH", "CUTE_CUBIN", "CUTE_PTX_VERSION"] {
            println!("cargo:rerun-if-env-changed={var}");
        }

        let target = target_dir()?;
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => PathBuf::from(env::var_os("OUT_DIR").ok_or_else(|| Error("OUT_DIR is not set: a Builder runs in a build script, or give it out_dir(...)".into()))?),
        };
        fs::create_dir_all(&out_dir).map_err(|e| Error(format!("cannot create {}: {e}", out_dir.display())))?;

        let toolchain = self
            .toolchain
            .clone()
            .or_else(|| env::var("CUTE_NIGHTLY_TOOLCHAIN").ok().filter(|t| !t.trim().is_empty()))
            .unwrap_or_else(|| "nightly".into());
        let llvm_bin = ensure_toolchain(&toolchain)?;
        let linker = compile_linker(&target.join("cute-build"))?;

        let dir_name: String = std::iter::once(self.arch.as_str())
            .chain(self.features.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("+");
        let nested_target = target.join("cute-build").join(&lib_name).join(dir_name);
        let triple = self.backend.triple();
        let var_triple = triple.to_uppercase().replace('-', "_");

        let mut cmd = clean_command("rustup");
        cmd.args(["run", &toolchain, "cargo", "rustc", "--release", "--lib", "--crate-type", "cdylib"]);
        cmd.arg("--manifest-path").arg(&manifest);
        cmd.args(["--target", triple, "-Zbuild-std=core"]);
        if !self.features.is_empty() {
            cmd.arg("--features").arg(self.features.join(","));
        }
        cmd.arg("--target-dir").arg(&nested_target);
        let rustflags = format!("-Ctarget-cpu={} -Ctarget-feature=+ptx{version}", self.arch);
        cmd.env(format!("CARGO_TARGET_{var_triple}_LINKER"), &linker);
        cmd.env(format!("CARGO_TARGET_{var_triple}_RUSTFLAGS"), &rustflags);
        // Device code's profile, whatever the device crate's workspace says: a panic cannot
        // unwind on the GPU, and the linker sees one module either way.
        for (key, value) in [
            ("PANIC", "abort"),
            ("OPT_LEVEL", "3"),
            ("CODEGEN_UNITS", "1"),
            ("DEBUG", "false"),
            ("DEBUG_ASSERTIONS", "false"),
            ("OVERFLOW_CHECKS", "false"),
            ("INCREMENTAL", "false"),
            ("LTO", "false"),
        ] {
            cmd.env(format!("CARGO_PROFILE_RELEASE_{key}"), value);
        }
        cmd.env("CUTE_LLVM_BIN", &llvm_bin);
        // Cargo reads a build script's stdout for directives: the nested build's output goes to a
        // log, shown when the build fails.
        let log = out_dir.join(format!("{module}.build.log"));
        let log_file = fs::File::create(&log).map_err(|e| Error(format!("cannot create {}: {e}", log.display())))?;
        let log_err = log_file.try_clone().map_err(|e| Error(format!("cannot write {}: {e}", log.display())))?;
        cmd.stdout(Stdio::from(log_file)).stderr(Stdio::from(log_err));
        let shown = format!(
            "CARGO_TARGET_{var_triple}_LINKER={} CARGO_TARGET_{var_triple}_RUSTFLAGS={rustflags:?} {}",
            linker.display(),
            [cmd.get_program()].into_iter().chain(cmd.get_args()).map(OsStr::to_string_lossy).collect::<Vec<_>>().join(" ")
        );
        let child = cmd.spawn().map_err(|e| Error(format!("cannot run `rustup` ({e}); the command was: {shown}")))?;
        let release = nested_target.join(triple).join("release");
        Ok(Running {
            child,
            shown,
            log,
            artifact: release.join(format!("{lib_name}.ptx")),
            dep_info: release.join(format!("{lib_name}.d")),
            sysroot_rustlib: llvm_bin.ancestors().nth(2).map(Path::to_path_buf),
            manifest,
            module,
            out_dir,
            export_as: self.export_as,
            arch: self.arch,
            ptxas: if self.cubin && env::var("CUTE_CUBIN").as_deref() != Ok("0") {
                self.ptxas.filter(|p| p.is_file()).or_else(find_ptxas)
            } else {
                None
            },
        })
    }
}

/// A device build in progress, from [`Builder::start`].
#[derive(Debug)]
pub struct Running {
    child: Child,
    shown: String,
    log: PathBuf,
    artifact: PathBuf,
    dep_info: PathBuf,
    sysroot_rustlib: Option<PathBuf>,
    manifest: PathBuf,
    module: String,
    out_dir: PathBuf,
    export_as: Vec<String>,
    arch: String,
    ptxas: Option<PathBuf>,
}

/// How many of a device build's warnings [`Running::finish`] passes on to cargo; the rest are
/// counted, and the log holds them all.
const MAX_WARNINGS_SHOWN: usize = 20;

impl Running {
    /// Waits for the build, writes the module's files, runs `ptxas`, and prints the cargo
    /// directives: `cargo:rustc-env=CUTE_PTX_<module>=<ptx>`, `CUTE_CUBIN_<module>=<cubin>` (an
    /// empty file when there is no cubin, so that `include_bytes!` always finds one),
    /// `CUTE_ARCH_<module>=<arch>`, the
    /// [`export_as`](Builder::export_as) names, and `rerun-if-changed` for the device sources.
    ///
    /// # Errors
    /// The device build failed: the message holds the compiler's errors (the full output is in
    /// `<out_dir>/<module>.build.log`) and the command. `ptxas` failed on the PTX.
    ///
    /// # Example
    /// ```no_run
    /// let built = cute_rs_build::Builder::new("kernels").start()?.finish()?;
    /// # let _ = built;
    /// # Ok::<(), cute_rs_build::Error>(())
    /// ```
    pub fn finish(mut self) -> Result<Built, Error> {
        let status = self
            .child
            .wait()
            .map_err(|e| Error(format!("waiting for the device build failed ({e}); the command was: {}", self.shown)))?;
        // Sources to watch, also after a failure (so that fixing them reruns the build).
        self.print_rerun_directives();
        if !status.success() {
            let output = fs::read_to_string(&self.log).unwrap_or_default();
            return err(format!(
                "device crate {} failed to build for the GPU ({status}):\n{}\n(full output: {}; command: {})",
                self.manifest.display(),
                compiler_errors(&output),
                self.log.display(),
                self.shown
            ));
        }
        // The nested build's warnings would stay in its log: cargo shows a build script's
        // `cargo:warning` lines (for the packages of the user's workspace).
        let warnings = compiler_warnings(&fs::read_to_string(&self.log).unwrap_or_default());
        for warning in warnings.iter().take(MAX_WARNINGS_SHOWN) {
            println!("cargo:warning=device crate {} ({}): {warning}", self.manifest.display(), self.module);
        }
        if warnings.len() > MAX_WARNINGS_SHOWN {
            println!(
                "cargo:warning=device crate {}: {} more warnings in {}",
                self.manifest.display(),
                warnings.len() - MAX_WARNINGS_SHOWN,
                self.log.display()
            );
        }
        let ptx = fs::read(&self.artifact).map_err(|e| {
            Error(format!("the device build succeeded but left no {} ({e})", self.artifact.display()))
        })?;
        let ptx_path = self.out_dir.join(format!("{}.ptx", self.module));
        write_if_changed(&ptx_path, &ptx)?;
        let cubin_path = self.out_dir.join(format!("{}.cubin", self.module));
        let cubin = match &self.ptxas {
            Some(ptxas) => {
                let stale = modified(&cubin_path).zip(modified(&ptx_path)).is_none_or(|(c, p)| c < p)
                    || fs::metadata(&cubin_path).map(|m| m.len() == 0).unwrap_or(true);
                if stale {
                    // `-v` as tools/ptxas-cache.sh runs it (its report serves the offline checks
                    // too): the cubin then carries the same options note as the shipped ones.
                    let out = Command::new(ptxas)
                        .arg(format!("-arch={}", self.arch))
                        .arg("-v")
                        .arg("-o")
                        .arg(&cubin_path)
                        .arg(&ptx_path)
                        .output()
                        .map_err(|e| Error(format!("cannot run {} ({e})", ptxas.display())))?;
                    if !out.status.success() {
                        let _ = fs::write(&cubin_path, b"");
                        return err(format!(
                            "ptxas ({}) rejected {}:\n{}",
                            ptxas.display(),
                            ptx_path.display(),
                            String::from_utf8_lossy(&out.stderr).trim_end()
                        ));
                    }
                }
                Some(cubin_path.clone())
            }
            None => {
                write_if_changed(&cubin_path, b"")?;
                None
            }
        };
        println!("cargo:rustc-env=CUTE_PTX_{}={}", self.module, ptx_path.display());
        println!("cargo:rustc-env=CUTE_CUBIN_{}={}", self.module, cubin_path.display());
        println!("cargo:rustc-env=CUTE_ARCH_{}={}", self.module, self.arch);
        for name in &self.export_as {
            println!("cargo:rustc-env={name}={}", ptx_path.display());
        }
        Ok(Built { module: self.module, ptx: ptx_path, cubin })
    }

    fn print_rerun_directives(&self) {
        let mut watched = BTreeSet::new();
        watched.insert(self.manifest.clone());
        if let Some(dir) = self.manifest.parent() {
            // Before a first successful build there is no dep-info: watch the whole crate.
            watched.insert(dir.join("src"));
            for extra in ["Cargo.lock", "build.rs"] {
                if dir.join(extra).exists() {
                    watched.insert(dir.join(extra));
                }
            }
        }
        let registry = env::var_os("CARGO_HOME").map(PathBuf::from);
        for file in fs::read_to_string(&self.dep_info).map(|d| dep_info_files(&d)).unwrap_or_default() {
            let file = PathBuf::from(file);
            let immutable = |root: &Option<PathBuf>| root.as_ref().is_some_and(|r| file.starts_with(r));
            if immutable(&self.sysroot_rustlib) || immutable(&registry) {
                continue;
            }
            if let Some(manifest) = file.ancestors().skip(1).map(|d| d.join("Cargo.toml")).find(|m| m.is_file()) {
                watched.insert(manifest);
            }
            watched.insert(file);
        }
        for path in watched {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The files a Makefile-style dep-info lists (`target: a b\ c ...`, spaces escaped).
fn dep_info_files(dep_info: &str) -> Vec<String> {
    let mut files = Vec::new();
    for line in dep_info.lines() {
        let Some((_, deps)) = line.split_once(": ") else { continue };
        let mut current = String::new();
        let mut chars = deps.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => {
                    current.push(' ');
                    chars.next();
                }
                ' ' => {
                    if !current.is_empty() {
                        files.push(std::mem::take(&mut current));
                    }
                }
                c => current.push(c),
            }
        }
        if !current.is_empty() {
            files.push(current);
        }
    }
    files
}

/// The diagnostics of `kind` (`"error"` or `"warning"`) in a build's output: each block from a
/// line starting with `kind` to the next diagnostic or `Compiling` line.
fn diagnostics<'a>(output: &'a str, kind: &str) -> Vec<Vec<&'a str>> {
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    let mut open = false;
    for line in output.lines() {
        let starts = line.starts_with(kind);
        if starts {
            blocks.push(Vec::new());
            open = true;
        } else if line.starts_with("error") || line.starts_with("warning") || line.trim_start().starts_with("Compiling") {
            open = false;
        }
        if open {
            if let Some(block) = blocks.last_mut() {
                block.push(line);
            }
        }
    }
    blocks
}

/// The compiler's errors in a build's output, or its last lines when it has none.
fn compiler_errors(output: &str) -> String {
    let mut shown: Vec<&str> = diagnostics(output, "error").concat();
    if shown.is_empty() {
        let lines: Vec<&str> = output.lines().collect();
        shown = lines[lines.len().saturating_sub(40)..].to_vec();
    }
    shown.join("\n")
}

/// The compiler's warnings in a successful build's output, one line each: the message and where
/// (`warning: ... (src/lib.rs:3:5)`), each once, without cargo's closing count ("generated 2
/// warnings") or the unstable-feature note on the builder's own `-Ctarget-feature`.
fn compiler_warnings(output: &str) -> Vec<String> {
    diagnostics(output, "warning")
        .into_iter()
        .filter(|block| !block[0].contains(") generated "))
        // The builder's own `-Ctarget-feature=+ptx<N>` (rustc calls it unstable, for every crate).
        .filter(|block| !block[0].starts_with("warning: unstable feature specified for `-Ctarget-feature`"))
        .map(|block| {
            let at = block.iter().find_map(|l| l.trim_start().strip_prefix("--> "));
            match at {
                Some(at) => format!("{} ({at})", block[0]),
                None => block[0].to_string(),
            }
        })
        .fold(Vec::new(), |mut seen, w| {
            if !seen.contains(&w) {
                seen.push(w);
            }
            seen
        })
}

/// The library name of the crate whose manifest is `manifest`: `[lib] name`, else the package
/// name with `-` as `_`.
fn lib_name(manifest: &Path) -> Result<String, Error> {
    let text = fs::read_to_string(manifest).map_err(|e| Error(format!("cannot read {}: {e}", manifest.display())))?;
    let mut section = "";
    let (mut package, mut lib) = (None, None);
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        if key.trim() != "name" {
            continue;
        }
        let value = value.trim().trim_matches('"').to_owned();
        match section {
            "[package]" => package = Some(value),
            "[lib]" => lib = Some(value),
            _ => {}
        }
    }
    lib.or(package).map(|n| n.replace('-', "_")).ok_or_else(|| Error(format!("{} names no package", manifest.display())))
}

/// The number of an architecture name: `sm_90a` is 90.
fn arch_number(arch: &str) -> Result<u32, Error> {
    arch.strip_prefix("sm_")
        .map(|s| s.trim_end_matches(['a', 'f']))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| Error(format!("architecture {arch:?}: expected a GPU architecture like sm_80, sm_90 or sm_90a")))
}

/// The first `ptxas` found: `PTXAS`, then `bin/ptxas` under `CUDA_HOME`, `CUDA_PATH` and
/// `/usr/local/cuda`, then `PATH`.
///
/// # Example
/// ```
/// if let Some(ptxas) = cute_rs_build::find_ptxas() {
///     println!("cubins by {}", ptxas.display());
/// }
/// ```
pub fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = env::var_os("PTXAS").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let roots = ["CUDA_HOME", "CUDA_PATH"].into_iter().filter_map(env::var_os).map(PathBuf::from);
    let paths = env::var_os("PATH").map(|p| env::split_paths(&p).collect::<Vec<_>>()).unwrap_or_default();
    roots
        .chain(std::iter::once(PathBuf::from("/usr/local/cuda")))
        .map(|r| r.join("bin"))
        .chain(paths)
        .map(|d| d.join("ptxas"))
        .find(|p| p.is_file())
}

/// Checks that `toolchain` has [`COMPONENTS`], running `rustup component add` once if not;
/// returns the directory of its LLVM tools.
fn ensure_toolchain(toolchain: &str) -> Result<PathBuf, Error> {
    let first = missing_components(toolchain);
    if !matches!(&first, Ok(missing) if missing.is_empty()) {
        println!(
            "cargo:warning=device build: {}; running `rustup component add {} --toolchain {toolchain}`",
            describe_missing(toolchain, &first),
            COMPONENTS.join(" ")
        );
        let added = clean_command("rustup")
            .args(["component", "add"])
            .args(COMPONENTS)
            .args(["--toolchain", toolchain])
            .stdout(Stdio::from(std::io::stderr()))
            .stderr(Stdio::inherit())
            .status();
        let again = missing_components(toolchain);
        if !matches!(&again, Ok(missing) if missing.is_empty()) {
            let added = match added {
                Ok(status) => format!("`rustup component add` ended with {status}"),
                Err(e) => format!("`rustup` could not be run: {e}"),
            };
            return err(format!(
                "device code needs the `{toolchain}` toolchain with the rust-src and llvm-tools components, but {}. \
                 {added}. Install them with `rustup toolchain install {toolchain} --component rust-src,llvm-tools`.",
                describe_missing(toolchain, &again)
            ));
        }
    }
    let (sysroot, host) = toolchain_info(toolchain)?;
    Ok(sysroot.join("lib").join("rustlib").join(host).join("bin"))
}

fn missing_components(toolchain: &str) -> Result<BTreeSet<&'static str>, Error> {
    let (sysroot, host) = toolchain_info(toolchain)?;
    let rustlib = sysroot.join("lib").join("rustlib");
    let mut missing = BTreeSet::new();
    if !rustlib.join("src/rust/library/core/src/lib.rs").is_file() {
        missing.insert("rust-src");
    }
    if LLVM_TOOLS.iter().any(|tool| !rustlib.join(&host).join("bin").join(tool).is_file()) {
        missing.insert("llvm-tools");
    }
    Ok(missing)
}

fn describe_missing(toolchain: &str, missing: &Result<BTreeSet<&'static str>, Error>) -> String {
    match missing {
        Ok(missing) => format!(
            "the `{toolchain}` toolchain lacks the component(s) {}",
            missing.iter().copied().collect::<Vec<_>>().join(", ")
        ),
        Err(e) => format!("the `{toolchain}` toolchain is not usable ({e})"),
    }
}

/// `(sysroot, host triple)` of `toolchain`.
fn toolchain_info(toolchain: &str) -> Result<(PathBuf, String), Error> {
    let run = |args: &[&str]| -> Result<String, Error> {
        let out = clean_command("rustup")
            .args(["run", toolchain, "rustc"])
            .args(args)
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| Error(format!("`rustup` could not be run ({e}): device code needs rustup's `{toolchain}` toolchain")))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let first = stderr.lines().map(str::trim).find(|l| !l.is_empty());
            return err(format!(
                "`rustup run {toolchain} rustc {}` failed: {}",
                args.join(" "),
                first.unwrap_or("(no message)")
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let sysroot = PathBuf::from(run(&["--print", "sysroot"])?);
    let host = run(&["-vV"])?
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| Error("`rustc -vV` printed no host".into()))?;
    Ok((sysroot, host))
}

/// Compiles the linker program into `<dir>/linker-<hash>/cute-ptx-linker` unless it is there.
fn compile_linker(dir: &Path) -> Result<PathBuf, Error> {
    let dir = dir.join(format!("linker-{:016x}", fnv1a(LINKER_SOURCE.as_bytes())));
    let exe = dir.join(format!("cute-ptx-linker{}", env::consts::EXE_SUFFIX));
    if exe.is_file() {
        return Ok(exe);
    }
    fs::create_dir_all(&dir).map_err(|e| Error(format!("cannot create {}: {e}", dir.display())))?;
    // Builds running side by side each compile their own copy and rename it into place.
    let unique = format!("{}-{:?}", std::process::id(), std::thread::current().id()).replace(['(', ')'], "");
    let source = dir.join(format!("linker-{unique}.rs"));
    let tmp = dir.join(format!("cute-ptx-linker-{unique}{}", env::consts::EXE_SUFFIX));
    fs::write(&source, LINKER_SOURCE).map_err(|e| Error(format!("cannot write {}: {e}", source.display())))?;
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(&rustc)
        .args(["--edition", "2021", "-O", "--crate-name", "cute_ptx_linker", "--crate-type", "bin", "-o"])
        .arg(&tmp)
        .arg(&source)
        .env_remove("RUSTC_WRAPPER")
        .output()
        .map_err(|e| Error(format!("cannot run {} to compile the PTX linker: {e}", rustc.to_string_lossy())))?;
    let _ = fs::remove_file(&source);
    if !out.status.success() {
        return err(format!("compiling the PTX linker failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    fs::rename(&tmp, &exe).map_err(|e| Error(format!("cannot write {}: {e}", exe.display())))?;
    Ok(exe)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A command without the variables the outer cargo set for the build script (toolchain, flags,
/// target directory, package metadata), which would leak into the nested nightly build. Registry
/// and network settings (`CARGO_HOME`, `CARGO_NET_*`, ...) are kept.
fn clean_command(program: impl AsRef<OsStr>) -> Command {
    const KEEP_CARGO: [&str; 6] =
        ["CARGO_HOME", "CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTRIES_", "CARGO_REGISTRY_", "CARGO_TERM_"];
    const REMOVE_EXACT: [&str; 9] =
        ["RUSTFLAGS", "RUSTUP_TOOLCHAIN", "TARGET", "HOST", "OUT_DIR", "OPT_LEVEL", "PROFILE", "DEBUG", "NUM_JOBS"];
    let mut cmd = Command::new(program);
    for (key, _) in env::vars_os() {
        let Some(key) = key.to_str() else { continue };
        let remove = REMOVE_EXACT.contains(&key)
            || key.starts_with("RUSTC")
            || key.starts_with("RUSTDOC")
            || (key.starts_with("CARGO") && !KEEP_CARGO.iter().any(|k| key.starts_with(k)));
        if remove {
            cmd.env_remove(key);
        }
    }
    cmd
}

/// The calling build's target directory, found from `OUT_DIR` =
/// `<target>[/<triple>]/<profile>/build/<pkg>-<hash>/out`; outside a build script, `target/`
/// of the current directory.
///
/// # Errors
/// `OUT_DIR` does not have that shape.
///
/// # Example
/// ```no_run
/// let ptx_dir = cute_rs_build::target_dir()?.join("ptx");
/// # let _ = ptx_dir;
/// # Ok::<(), cute_rs_build::Error>(())
/// ```
pub fn target_dir() -> Result<PathBuf, Error> {
    let Some(out_dir) = env::var_os("OUT_DIR").map(PathBuf::from) else {
        return Ok(env::current_dir().map_err(|e| Error(format!("no current directory: {e}")))?.join("target"));
    };
    let unexpected = || Error(format!("unexpected OUT_DIR {}", out_dir.display()));
    let mut dir = out_dir.ancestors().nth(4).ok_or_else(unexpected)?;
    // `cargo build --target <triple>` adds a level.
    if let (Some(name), Ok(triple)) = (dir.file_name(), env::var("TARGET")) {
        if name == OsStr::new(&triple) {
            dir = dir.parent().ok_or_else(unexpected)?;
        }
    }
    Ok(dir.to_path_buf())
}

/// Writes `data` to `path` through a temporary file and a rename (builds of two profiles may run
/// at once), and only when the content changed, so that crates embedding it are not rebuilt.
fn write_if_changed(path: &Path, data: &[u8]) -> Result<(), Error> {
    if fs::read(path).map(|old| old == data).unwrap_or(false) {
        return Ok(());
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&tmp, data)
        .and_then(|()| fs::rename(&tmp, path))
        .map_err(|e| Error(format!("cannot write {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn linker_arguments_as_rustc_passes_them() {
        let args: Vec<String> = [
            "--export-symbol", "k1", "--export-symbol=k2", "a.rcgu.o", "libcore.rlib", "-L", "/deps", "-L/more",
            "--target", "nvptx64-nvidia-cuda", "--target-cpu", "sm_90", "--target-feature=+ptx83", "-o",
            "out.ptx", "-O3", "--frobnicate",
        ]
        .map(String::from)
        .to_vec();
        let inv = linker::parse_args(&args);
        assert_eq!(inv.exports, ["k1", "k2"]);
        assert_eq!(inv.inputs, ["a.rcgu.o", "libcore.rlib"]);
        assert_eq!(inv.dirs, ["/deps", "/more"]);
        assert_eq!(inv.cpu.as_deref(), Some("sm_90"));
        assert_eq!(inv.features, ["+ptx83"]);
        assert_eq!(inv.out.as_deref(), Some("out.ptx"));
        assert_eq!(inv.opt_level, "3");
        assert_eq!(inv.unknown, ["--frobnicate"]);
    }

    #[test]
    fn tensor_map_parameters_are_aligned_for_tma() {
        let ir = "@__cute_grid_constant_gemm__1 = constant i8 0\n\
                  @\"__cute_grid_constant_gemm__2\" = constant i8 0\n\
                  define ptx_kernel void @gemm(ptr %c, [8 x i128] %a, [8 x i128] %b) {\n";
        let marks = linker::grid_constants_in_ir(ir);
        assert_eq!(marks, BTreeMap::from([("gemm".into(), BTreeSet::from([1, 2]))]));
        let ptx = ".visible .entry gemm(\n\t.param .u64 .ptr .align 1 gemm_param_0,\n\t.param .align 16 .b8 gemm_param_1[128],\n\
                   \t.param .align 16 .b8 gemm_param_2[128]\n)\n{\n}\n\
                   .visible .entry other(\n\t.param .align 16 .b8 other_param_0[128]\n)\n";
        let out = linker::apply_grid_constants(ptx, &marks).unwrap();
        assert!(out.contains("\t.param .align 64 .b8 gemm_param_1[128],\n\t.param .align 64 .b8 gemm_param_2[128]\n)"), "{out}");
        assert!(out.contains("\t.param .align 16 .b8 other_param_0[128]"), "unmarked kernels stay: {out}");
        // A parameter that is not a 128-byte by-value one, one that does not exist, and an unknown
        // kernel are refused.
        let wrong = BTreeMap::from([("gemm".to_owned(), BTreeSet::from([0]))]);
        assert!(linker::apply_grid_constants(ptx, &wrong).unwrap_err().contains("not a 128-byte by-value parameter"));
        let wrong = BTreeMap::from([("gemm".to_owned(), BTreeSet::from([7]))]);
        assert!(linker::apply_grid_constants(ptx, &wrong).unwrap_err().contains("gemm (parameter 7)"));
        let wrong = BTreeMap::from([("nope".to_owned(), BTreeSet::from([0]))]);
        assert!(linker::apply_grid_constants(ptx, &wrong).unwrap_err().contains("nope (parameter 0)"));
    }

    #[test]
    fn kernels_and_launch_bounds_from_ir() {
        let ir = "@__cute_launch_bounds_gemm__384_1 = constant i8 0\n\
                  @\"__cute_launch_bounds_copy__256_\" = constant i8 0\n\
                  define ptx_kernel void @gemm(ptr %a) #0 {\n\
                  define internal void @helper() {\n\
                  define ptx_kernel void @\"copy\"(ptr %a) {\n";
        assert_eq!(linker::ptx_kernels_in_ir(ir), ["gemm", "copy"]);
        let bounds = linker::launch_bounds_in_ir(ir);
        assert_eq!(bounds, BTreeMap::from([("gemm".into(), (384, 1)), ("copy".into(), (256, 0))]));
        assert_eq!(linker::parse_launch_bounds_marker("__cute_launch_bounds_a__b__32_2"), Some(("a__b".into(), (32, 2))));
        assert_eq!(linker::parse_launch_bounds_marker("other"), None);
    }

    #[test]
    fn shared_variables_become_globals_of_the_shared_address_space() {
        let ir = "target triple = \"nvptx64-nvidia-cuda\"\n\
                  module asm \".shared .align 16 .b8 __cute_smem_TILE[4224];\"\n\
                  module asm \".extern .shared .align 1024 .b8 __cute_smem_RING[];\"\n\
                  module asm \".shared .align 4 .b8 other[8];\"\n\
                  \n\
                  define ptx_kernel void @k() {\n\
                  \x20 %5 = tail call ptr asm \"cvta.shared.u64 ${0}, __cute_smem_TILE;\", \"=&l\"() #3, !srcloc !7\n\
                  \x20 %p.i = call ptr asm \"cvta.shared.u64 $0, __cute_smem_RING;\", \"=l\"() #3\n\
                  \x20 %q = call ptr asm \"cvta.shared.u64 $0, other;\", \"=l\"()\n\
                  \x20 ret void\n\
                  }\n";
        let out = linker::shared_variables_as_globals(ir).unwrap().unwrap();
        let globals = "@__cute_smem_TILE = internal addrspace(3) global [4224 x i8] undef, align 16\n\
                       @__cute_smem_RING = external addrspace(3) global [0 x i8], align 1024\n\n\
                       define ptx_kernel";
        assert!(out.contains(globals), "{out}");
        assert!(out.contains("  %5 = addrspacecast ptr addrspace(3) @__cute_smem_TILE to ptr\n"), "{out}");
        assert!(out.contains("  %p.i = addrspacecast ptr addrspace(3) @__cute_smem_RING to ptr\n"), "{out}");
        // Variables of other names are left alone.
        assert!(out.contains("module asm \".shared .align 4 .b8 other[8];\""), "{out}");
        assert!(out.contains("cvta.shared.u64 $0, other;"), "{out}");
        assert!(!out.contains("module asm \".shared .align 16"), "{out}");
        assert_eq!(linker::shared_variables_as_globals("define void @f() {\n}\n").unwrap(), None);
        // generic_to_shared's conversion becomes address-space casts, constant operands included.
        let to_shared = "define void @f(ptr %p) {\n\
                         \x20 %a = tail call i32 asm \"{ .reg .b64 %cute_s; cvta.to.shared.u64 %cute_s, ${1}; cvt.u32.u64 ${0}, %cute_s; }\", \"=&r,l\"(ptr %p) #3, !srcloc !9\n\
                         \x20 %c = call i32 asm \"{ .reg .b64 %cute_s; cvta.to.shared.u64 %cute_s, ${1}; cvt.u32.u64 ${0}, %cute_s; }\", \"=&r,l\"(ptr nonnull align 16 %q)\n\
                         \x20 %b = call i32 asm \"{ .reg .b64 %cute_s; cvta.to.shared.u64 %cute_s, ${1}; cvt.u32.u64 ${0}, %cute_s; }\", \"=r,l\"(ptr getelementptr (i8, ptr @g, i64 8))\n\
                         }\n";
        let out = linker::shared_variables_as_globals(to_shared).unwrap().unwrap();
        assert!(out.contains("  %\"a.shared\" = addrspacecast ptr %p to ptr addrspace(3)\n  %a = ptrtoint ptr addrspace(3) %\"a.shared\" to i32\n"), "{out}");
        assert!(out.contains("  %\"c.shared\" = addrspacecast ptr %q to ptr addrspace(3)\n"), "{out}");
        assert!(out.contains("  %\"b.shared\" = addrspacecast ptr getelementptr (i8, ptr @g, i64 8) to ptr addrspace(3)\n"), "{out}");
        let undeclared = "define void @f() {\n  %a = call ptr asm \"cvta.shared.u64 $0, __cute_smem_X;\", \"=l\"()\n}\n";
        let e = linker::shared_variables_as_globals(undeclared).unwrap_err();
        assert!(e.contains("__cute_smem_X"), "{e}");
    }

    #[test]
    fn launch_bounds_go_after_the_parameter_list() {
        let ptx = ".visible .entry gemm(\n\t.param .u64 a\n)\n{\n\tret;\n}\n.visible .entry copy(\n)\n{\n}\n";
        let bounds = BTreeMap::from([("gemm".to_owned(), (384, 1))]);
        let out = linker::apply_launch_bounds(ptx, &bounds).unwrap();
        assert!(out.contains(".param .u64 a\n)\n.maxntid 384, 1, 1\n.minnctapersm 1\n{"), "{out}");
        assert_eq!(out.matches(".maxntid").count(), 1);
        let unknown = BTreeMap::from([("nope".to_owned(), (32, 0))]);
        assert_eq!(linker::apply_launch_bounds(ptx, &unknown), Err(vec!["nope".to_owned()]));
    }

    #[test]
    fn dep_info_with_escaped_spaces() {
        let d = "/t/k.ptx: /src/a.rs /src/my\\ dir/b.rs\n\n/src/a.rs:\n";
        assert_eq!(dep_info_files(d), ["/src/a.rs", "/src/my dir/b.rs"]);
    }

    #[test]
    fn library_names_and_architectures() {
        let dir = env::temp_dir().join(format!("cute-build-test-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let manifest = dir.join("Cargo.toml");
        fs::write(&manifest, "[package]\nname = \"my-kernels\"\n[dependencies]\nname = \"x\"\n").unwrap();
        assert_eq!(lib_name(&manifest).unwrap(), "my_kernels");
        fs::write(&manifest, "[package]\nname = \"a\"\n[lib]\nname = \"b\"\n").unwrap();
        assert_eq!(lib_name(&manifest).unwrap(), "b");
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(arch_number("sm_90a").unwrap(), 90);
        assert_eq!(arch_number("sm_100").unwrap(), 100);
        let e = arch_number("hopper").unwrap_err().to_string();
        assert!(e.contains("sm_90"), "{e}");
    }

    #[test]
    fn compiler_errors_are_picked_out() {
        let log = "   Compiling core\nwarning: unused\n  --> a.rs\nerror[E0425]: cannot find value `x`\n  --> src/lib.rs:3:5\n   Compiling other\n";
        let shown = compiler_errors(log);
        assert!(shown.starts_with("error[E0425]"), "{shown}");
        assert!(!shown.contains("unused"), "{shown}");
        assert_eq!(compiler_errors("a\nb\n"), "a\nb", "no error: the last lines");
    }

    #[test]
    fn compiler_warnings_are_one_line_each_with_their_place() {
        let log = "   Compiling core\nwarning: `extern` fn uses type `Static<Src>`, which is not FFI-safe\n  --> src/lib.rs:12:30\n   |\n12 | fn f()\nwarning: unused import\n --> src/a.rs:1:5\nwarning: unstable feature specified for `-Ctarget-feature`: `ptx83`\n  |\nwarning: unused import\n --> src/a.rs:1:5\nwarning: `k` (lib) generated 2 warnings\n    Finished release\n";
        assert_eq!(
            compiler_warnings(log),
            [
                "warning: `extern` fn uses type `Static<Src>`, which is not FFI-safe (src/lib.rs:12:30)",
                "warning: unused import (src/a.rs:1:5)",
            ]
        );
        assert!(compiler_warnings("   Compiling k\n    Finished\n").is_empty());
    }
}
