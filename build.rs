//! Build script of the root package `cute-rs`: compiles the device crate `kernels/` to PTX.
//!
//! `cargo build` / `cargo test` at the workspace root run this script, which runs a nested
//!
//! ```text
//! rustup run nightly cargo build --release --manifest-path kernels/Cargo.toml \
//!     --target nvptx64-nvidia-cuda -Zbuild-std=core --target-dir <target>/nvptx/<arch>
//! ```
//!
//! with `tools/ptx-linker` as the target's linker (llvm-link + opt + llc from the nightly
//! toolchain's `llvm-tools`), copies the resulting module to `<target>/ptx/kernels.ptx` and hands its
//! path to the crate as `KERNELS_PTX` (`include_str!(env!("KERNELS_PTX"))`).
//!
//! It builds `kernels/` a second time, with the cargo feature `sm90a` for the `sm_90a` target
//! (wgmma and the other sm_90a-only instructions), into `<target>/ptx/kernels_sm90a.ptx`, handed to
//! the crate as `KERNELS_SM90A_PTX`. The two nested builds run side by side, each in its own target
//! directory; each one's output goes to `<target>/ptx/<module>.build.log`, and is shown when it
//! fails.
//!
//! Everything that depends on the device backend (target triple, flags, linker, artifact name) is
//! decided in one place, [`ptx_target`]; another backend is another such function.
//!
//! Environment (all optional):
//! - `CUTE_PTX_ARCH`: the GPU architecture of `kernels.ptx`, `sm_90` (default), `sm_80`, `sm_90a`,
//!   ... Each architecture (and feature set) gets its own nested target directory, so switching back
//!   and forth rebuilds nothing. `kernels_sm90a.ptx` is always for `sm_90a`.
//! - `CUTE_PTX_VERSION`: the PTX ISA version as LLVM spells it (`83` = PTX 8.3, the default up to
//!   sm_90a; `88` from sm_100 on).
//! - `CUTE_NIGHTLY_TOOLCHAIN`: the rustup toolchain that builds device code (default `nightly`).
//! - `CUTE_KERNELS_PTX`, `CUTE_KERNELS_SM90A_PTX`: paths of prebuilt PTX modules to use instead of
//!   building `kernels/` (for machines without the nightly toolchain); each replaces one module.
//!
//! The nightly toolchain needs the `rust-src` (for `-Zbuild-std=core`) and `llvm-tools` (for the
//! linker) components. When one is missing, this script runs
//! `rustup component add rust-src llvm-tools --toolchain nightly` once, and fails with a message
//! naming what is missing if that does not help.

use std::collections::BTreeSet;
use std::env;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Components the nightly toolchain needs for device code.
const COMPONENTS: [&str; 2] = ["rust-src", "llvm-tools"];
/// LLVM tools `tools/ptx-linker` runs.
const LLVM_TOOLS: [&str; 4] = ["llvm-link", "opt", "llc", "llvm-dis"];

/// How device code is built for one backend: the single seam to extend for another backend.
struct DeviceTarget {
    /// Rust target triple of the device code.
    triple: &'static str,
    /// Short name of the architecture (exported to the crate as `KERNELS_PTX_ARCH` for the default
    /// module).
    arch: String,
    /// Cargo features of `kernels/` for this module.
    features: &'static [&'static str],
    /// Name of the nested target directory under `<target>/nvptx/`: the architecture, plus the
    /// features (a build per architecture and feature set, so that none invalidates another).
    dir: String,
    /// `RUSTFLAGS` for the device crate and for `core` built with it.
    rustflags: Vec<String>,
    /// The linker rustc calls for `triple`.
    linker: PathBuf,
    /// File name of the cdylib artifact cargo leaves in `<target-dir>/<triple>/release/`.
    artifact: &'static str,
    /// File name of the module under `<target>/ptx/`.
    output: &'static str,
}

/// The PTX backend: `nvptx64-nvidia-cuda` for the GPU architecture `arch` (`sm_90`, `sm_90a`, ...),
/// `kernels/` built with the cargo `features`, the module written to `<target>/ptx/<output>`.
fn ptx_target(root: &Path, arch: &str, features: &'static [&'static str], output: &'static str) -> DeviceTarget {
    let arch = arch.to_owned();
    let number: u32 = arch
        .strip_prefix("sm_")
        .map(|s| s.trim_end_matches(['a', 'f']))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            fail(&format!(
                "CUTE_PTX_ARCH={arch:?} is not a GPU architecture like sm_80, sm_90 or sm_90a"
            ))
        });
    // PTX ISA 8.3 is what fence.proxy.tensormap needs and covers sm_50..sm_90a; Blackwell needs
    // a later one. The CUDA 13 driver (580) accepts up to 9.0.
    let default_version = if number >= 100 { "88" } else { "83" };
    let version = env_or("CUTE_PTX_VERSION", default_version);
    if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
        fail(&format!(
            "CUTE_PTX_VERSION={version:?} is not a PTX ISA version like 83 (PTX 8.3)"
        ));
    }
    let dir = std::iter::once(arch.as_str())
        .chain(features.iter().copied())
        .collect::<Vec<_>>()
        .join("+");
    DeviceTarget {
        triple: "nvptx64-nvidia-cuda",
        rustflags: vec![
            format!("-Ctarget-cpu={arch}"),
            format!("-Ctarget-feature=+ptx{version}"),
        ],
        arch,
        features,
        dir,
        linker: root.join("tools").join("ptx-linker"),
        artifact: "kernels.ptx",
        output,
    }
}

/// The PTX modules the crate embeds: (target, env variable the crate reads its path from,
/// env variable naming a prebuilt replacement).
fn modules(root: &Path) -> [(DeviceTarget, &'static str, &'static str); 2] {
    [
        (
            ptx_target(root, &env_or("CUTE_PTX_ARCH", "sm_90"), &[], "kernels.ptx"),
            "KERNELS_PTX",
            "CUTE_KERNELS_PTX",
        ),
        (
            ptx_target(root, "sm_90a", &["sm90a"], "kernels_sm90a.ptx"),
            "KERNELS_SM90A_PTX",
            "CUTE_KERNELS_SM90A_PTX",
        ),
    ]
}

fn main() {
    let root = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    for path in [
        "kernels/src",
        "kernels/Cargo.toml",
        "layout/src",
        "layout/Cargo.toml",
        "layout-tensor/src",
        "layout-tensor/Cargo.toml",
        "tools/ptx-linker",
        "build.rs",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
    for var in [
        "CUTE_PTX_ARCH",
        "CUTE_PTX_VERSION",
        "CUTE_NIGHTLY_TOOLCHAIN",
        "CUTE_KERNELS_PTX",
        "CUTE_KERNELS_SM90A_PTX",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let ptx_dir = outer_target_dir().join("ptx");
    fs::create_dir_all(&ptx_dir)
        .unwrap_or_else(|e| fail(&format!("cannot create {}: {e}", ptx_dir.display())));

    // Start every build that has no prebuilt replacement, then collect them: they run side by side.
    let modules = modules(&root);
    let mut llvm_bin = None;
    let started: Vec<_> = modules
        .iter()
        .map(|(target, _, prebuilt_var)| match env::var_os(prebuilt_var).filter(|p| !p.is_empty()) {
            Some(prebuilt) => {
                let prebuilt = PathBuf::from(prebuilt);
                println!("cargo:rerun-if-changed={}", prebuilt.display());
                Err(prebuilt)
            }
            None => {
                let llvm_bin = llvm_bin.get_or_insert_with(|| ensure_toolchain(&toolchain()));
                Ok(start_build(&root, target, llvm_bin, &ptx_dir))
            }
        })
        .collect();
    for ((target, env_var, _), build) in modules.iter().zip(started) {
        let built = match build {
            Ok(running) => running.finish(),
            Err(prebuilt) => prebuilt,
        };
        let output = ptx_dir.join(target.output);
        copy_atomically(&built, &output);
        println!("cargo:rustc-env={env_var}={}", output.display());
    }
    println!("cargo:rustc-env=KERNELS_PTX_ARCH={}", modules[0].0.arch);
}

/// The rustup toolchain that builds device code.
fn toolchain() -> String {
    env_or("CUTE_NIGHTLY_TOOLCHAIN", "nightly")
}

/// A nested device build in progress.
struct Running {
    child: Child,
    /// The command, as shown in error messages.
    shown: String,
    /// Where its output goes.
    log: PathBuf,
    artifact: PathBuf,
    triple: &'static str,
}

/// Starts building `kernels/` for `target` with the nightly toolchain (whose LLVM tools are in
/// `llvm_bin`); its output goes to `<ptx_dir>/<module>.build.log`.
fn start_build(root: &Path, target: &DeviceTarget, llvm_bin: &Path, ptx_dir: &Path) -> Running {
    let toolchain = toolchain();
    let target_dir = outer_target_dir().join("nvptx").join(&target.dir);
    let linker_var = format!(
        "CARGO_TARGET_{}_LINKER",
        target.triple.to_uppercase().replace('-', "_")
    );
    let rustflags_var = format!(
        "CARGO_TARGET_{}_RUSTFLAGS",
        target.triple.to_uppercase().replace('-', "_")
    );

    let mut cmd = clean_command("rustup");
    cmd.args(["run", &toolchain, "cargo", "build", "--release"]);
    cmd.arg("--manifest-path")
        .arg(root.join("kernels").join("Cargo.toml"));
    cmd.args(["--target", target.triple, "-Zbuild-std=core"]);
    if !target.features.is_empty() {
        cmd.arg("--features").arg(target.features.join(","));
    }
    cmd.arg("--target-dir").arg(&target_dir);
    cmd.env(&linker_var, &target.linker);
    cmd.env(&rustflags_var, target.rustflags.join(" "));
    cmd.env("CUTE_LLVM_BIN", llvm_bin);
    // Cargo reads a build script's stdout for directives: the nested build's output goes to a log
    // file (two builds run at once), which `Running::finish` shows when the build fails.
    let log = ptx_dir.join(target.output.replace(".ptx", ".build.log"));
    let log_file = fs::File::create(&log)
        .unwrap_or_else(|e| fail(&format!("cannot create {}: {e}", log.display())));
    let log_err = log_file
        .try_clone()
        .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", log.display())));
    cmd.stdout(Stdio::from(log_file));
    cmd.stderr(Stdio::from(log_err));
    let shown = format!(
        "{linker_var}={} {rustflags_var}={:?} CUTE_LLVM_BIN={} {} {}",
        target.linker.display(),
        target.rustflags.join(" "),
        llvm_bin.display(),
        cmd.get_program().to_string_lossy(),
        cmd.get_args()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let child = cmd.spawn().unwrap_or_else(|e| {
        fail(&format!(
            "cannot run `rustup` ({e}); the command was: {shown}"
        ))
    });
    let artifact = target_dir
        .join(target.triple)
        .join("release")
        .join(target.artifact);
    Running { child, shown, log, artifact, triple: target.triple }
}

impl Running {
    /// Waits for the build; returns the artifact's path, or fails showing the build's output.
    fn finish(mut self) -> PathBuf {
        let status = self.child.wait().unwrap_or_else(|e| {
            fail(&format!("waiting for `rustup` failed ({e}); the command was: {}", self.shown))
        });
        if !status.success() {
            let output = fs::read_to_string(&self.log).unwrap_or_default();
            eprintln!("{output}");
            fail(&format!(
                "building the device crate kernels/ for {} failed ({status}); its output is above and in {}; \
                 the command was: {}",
                self.triple,
                self.log.display(),
                self.shown
            ));
        }
        if !self.artifact.is_file() {
            fail(&format!(
                "the device build succeeded but left no {}",
                self.artifact.display()
            ));
        }
        self.artifact
    }
}

/// Checks that `toolchain` exists with [`COMPONENTS`]; runs `rustup component add` once if not.
/// Returns the directory of the toolchain's LLVM tools.
fn ensure_toolchain(toolchain: &str) -> PathBuf {
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
            .env("RUST_BACKTRACE", "0")
            .stdout(Stdio::from(std::io::stderr()))
            .stderr(Stdio::inherit())
            .status();
        let again = missing_components(toolchain);
        if !matches!(&again, Ok(missing) if missing.is_empty()) {
            let added = match added {
                Ok(status) => format!("`rustup component add` ended with {status}"),
                Err(e) => format!("`rustup` could not be run: {e}"),
            };
            fail(&format!(
                "device code needs the `{toolchain}` toolchain with the rust-src and llvm-tools \
                 components, but {}. {added}. Install them with `rustup toolchain install \
                 {toolchain} --component rust-src,llvm-tools`, or point CUTE_KERNELS_PTX at a \
                 prebuilt PTX module.",
                describe_missing(toolchain, &again)
            ));
        }
    }
    let (sysroot, host) = toolchain_info(toolchain).unwrap_or_else(|e| fail(&e));
    sysroot.join("lib").join("rustlib").join(host).join("bin")
}

/// Which of [`COMPONENTS`] `toolchain` lacks; `Err` when the toolchain itself cannot be run.
fn missing_components(toolchain: &str) -> Result<BTreeSet<&'static str>, String> {
    let (sysroot, host) = toolchain_info(toolchain)?;
    let rustlib = sysroot.join("lib").join("rustlib");
    let mut missing = BTreeSet::new();
    if !rustlib.join("src/rust/library/core/src/lib.rs").is_file() {
        missing.insert("rust-src");
    }
    if LLVM_TOOLS
        .iter()
        .any(|tool| !rustlib.join(&host).join("bin").join(tool).is_file())
    {
        missing.insert("llvm-tools");
    }
    Ok(missing)
}

fn describe_missing(toolchain: &str, missing: &Result<BTreeSet<&'static str>, String>) -> String {
    match missing {
        Ok(missing) => {
            let names: Vec<_> = missing.iter().copied().collect();
            format!(
                "the `{toolchain}` toolchain lacks the component(s) {}",
                names.join(", ")
            )
        }
        Err(e) => format!("the `{toolchain}` toolchain is not usable ({e})"),
    }
}

/// `(sysroot, host triple)` of `toolchain`.
fn toolchain_info(toolchain: &str) -> Result<(PathBuf, String), String> {
    let run = |args: &[&str]| -> Result<String, String> {
        let out = clean_command("rustup")
            .args(["run", toolchain, "rustc"])
            .args(args)
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("`rustup` could not be run: {e}"))?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let first = stderr.lines().map(str::trim).find(|l| !l.is_empty());
            return Err(format!(
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
        .ok_or("`rustc -vV` printed no host")?;
    Ok((sysroot, host))
}

/// A command without the variables the outer cargo set for this build script (toolchain, flags,
/// target dir, package metadata), which would otherwise leak into the nested nightly build.
/// Registry and network settings (`CARGO_HOME`, `CARGO_NET_*`, ...) are kept.
fn clean_command(program: impl AsRef<OsStr>) -> Command {
    const KEEP_CARGO: [&str; 6] = [
        "CARGO_HOME",
        "CARGO_NET_",
        "CARGO_HTTP_",
        "CARGO_REGISTRIES_",
        "CARGO_REGISTRY_",
        "CARGO_TERM_",
    ];
    const REMOVE_EXACT: [&str; 9] = [
        "RUSTFLAGS",
        "RUSTUP_TOOLCHAIN",
        "TARGET",
        "HOST",
        "OUT_DIR",
        "OPT_LEVEL",
        "PROFILE",
        "DEBUG",
        "NUM_JOBS",
    ];
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

/// The outer build's target directory (`target/` unless `--target-dir`/`CARGO_TARGET_DIR` say
/// otherwise), found from `OUT_DIR` = `<target>[/<triple>]/<profile>/build/<pkg>-<hash>/out`.
fn outer_target_dir() -> PathBuf {
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let profile_dir = out_dir
        .ancestors()
        .nth(3)
        .unwrap_or_else(|| fail(&format!("unexpected OUT_DIR {}", out_dir.display())));
    let mut dir = profile_dir
        .parent()
        .unwrap_or_else(|| fail(&format!("unexpected OUT_DIR {}", out_dir.display())));
    // `cargo build --target <triple>` adds a level.
    if let (Some(name), Ok(triple)) = (dir.file_name(), env::var("TARGET")) {
        if name == OsStr::new(&triple) {
            if let Some(parent) = dir.parent() {
                dir = parent;
            }
        }
    }
    dir.to_path_buf()
}

/// Copies `from` to `to` through a temporary file and a rename, so that a concurrent run of this
/// script (dev and test profiles) never leaves a half-written module behind. The file is rewritten
/// only when its content changed, so that crates embedding it are not rebuilt for nothing.
fn copy_atomically(from: &Path, to: &Path) {
    let data =
        fs::read(from).unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", from.display())));
    if fs::read(to).map(|old| old == data).unwrap_or(false) {
        return;
    }
    let tmp = to.with_extension(format!("ptx.tmp{}", std::process::id()));
    fs::write(&tmp, &data)
        .and_then(|()| fs::rename(&tmp, to))
        .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", to.display())));
}

fn env_or(var: &str, default: &str) -> String {
    match env::var(var) {
        Ok(v) if !v.trim().is_empty() => v.trim().to_owned(),
        _ => default.to_owned(),
    }
}

/// Ends the build script with `message` (cargo shows the script's stderr when it fails).
fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}
