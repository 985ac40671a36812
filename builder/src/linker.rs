//! `cute-ptx-linker`: the linker rustc calls for the `nvptx64-nvidia-cuda` target.
//!
//! This file is a complete program (standard library only). [`Builder`](crate::Builder) compiles
//! it once with the host's `rustc` and hands it to the nested device build as the target's linker;
//! the library also includes it as a module, so that its text-processing parts are unit-tested.
//!
//! rustc's nvptx64 target expects `llvm-bitcode-linker` (a rustup component that is not
//! distributed for every host) and calls it as
//!
//! ```text
//! <linker> --export-symbol K1 --export-symbol K2 ... <crate>.rcgu.o lib*.rlib -L <dir> ...
//!          --target nvptx64-nvidia-cuda --target-cpu sm_90 --target-feature=+ptx83 -o k.ptx -O3
//! ```
//!
//! Every object and rlib holds LLVM bitcode. The program does the same job with the LLVM tools of
//! the nightly toolchain's `llvm-tools` component:
//! 1. `llvm-link` links every bitcode object (archive members included) into one module;
//! 2. shared variables: each `.shared` variable declared in module assembly by the device crate's
//!    `shared_array!` / `dynamic_shared!` (`__cute_smem_<name>`) becomes an IR global in the shared
//!    address space, each `cvta.shared.u64` of its address an `addrspacecast` of it, and each
//!    conversion of a generic pointer to a 32-bit shared address (`generic_to_shared`, which
//!    `ldmatrix`, `cp.async` and the mbarriers take) an `addrspacecast` back and a `ptrtoint`
//!    ([`shared_variables_as_globals`]). LLVM then knows which pointers are shared and emits
//!    `ld.shared`/`st.shared` for the accesses through them, as nvcc does for `__shared__`
//!    variables (a generic access costs the hardware an address-window check; rustc cannot
//!    declare a variable in an address space itself);
//! 3. `opt` runs the whole-module pipeline, then internalizes everything but the kernels and drops
//!    dead code;
//! 4. `llc` emits PTX for the requested `--target-cpu` and `--target-feature`s;
//! 5. launch bounds: each marker global `__cute_launch_bounds_<kernel>__<max>_<min>` (emitted by
//!    `#[kernel(launch_bounds(max, min))]`, read from the linked IR, dropped by step 2) becomes
//!    `.maxntid max, 1, 1` (and `.minnctapersm min` when `min > 0`) on that kernel's entry: rustc
//!    has no attribute for them, and ptxas needs them to know a kernel's register budget;
//! 6. grid constants: each marker global `__cute_grid_constant_<kernel>__<i>` (emitted by
//!    `#[kernel]` for a `TmaDescriptorParam` parameter `i`, whose body reads the map in place
//!    through `cvta.param` of `<kernel>_param_<i>`) aligns that parameter to 64 bytes
//!    ([`apply_grid_constants`]): TMA reads the tensor map straight from the launch's parameters,
//!    as CUDA's `__grid_constant__` (rustc's kernel ABI aligns by-value parameters to at most 16
//!    bytes; a tensor map needs 64).
//!
//! The kernels kept are the exported symbols plus every function with the `ptx_kernel` calling
//! convention.
//!
//! Environment: `CUTE_LLVM_BIN` names the directory of `llvm-link`, `opt`, `llc` and `llvm-dis`
//! (the builder sets it); `CUTE_PTX_KEEP_IR=1` also writes the optimized IR next to the output
//! (`<output>.opt.ll`).
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// The prefix of the launch-bound marker symbols.
pub const LAUNCH_BOUNDS_PREFIX: &str = "__cute_launch_bounds_";

/// The prefix of the grid-constant marker symbols.
pub const GRID_CONSTANT_PREFIX: &str = "__cute_grid_constant_";

/// What rustc asked the linker to do.
#[derive(Debug, Default, PartialEq)]
pub struct Invocation {
    pub inputs: Vec<String>,
    pub exports: Vec<String>,
    pub dirs: Vec<String>,
    pub out: Option<String>,
    pub cpu: Option<String>,
    pub features: Vec<String>,
    pub opt_level: String,
    pub triple: String,
    /// Options this linker does not know (reported as warnings, then ignored).
    pub unknown: Vec<String>,
}

/// Parses rustc's linker command line (without the program name).
pub fn parse_args(args: &[String]) -> Invocation {
    let mut inv = Invocation { opt_level: "3".into(), triple: "nvptx64-nvidia-cuda".into(), ..Default::default() };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        // `--flag value` and `--flag=value` both appear.
        let mut take = |flag: &str| -> Option<String> {
            if arg == flag {
                it.next().cloned()
            } else {
                arg.strip_prefix(flag).and_then(|rest| rest.strip_prefix('=')).map(str::to_owned)
            }
        };
        if let Some(v) = take("--export-symbol") {
            inv.exports.push(v);
        } else if let Some(v) = take("--target-cpu") {
            inv.cpu = Some(v);
        } else if let Some(v) = take("--target-feature") {
            inv.features.push(v);
        } else if let Some(v) = take("--target") {
            inv.triple = v;
        } else if arg == "-L" {
            inv.dirs.extend(it.next().cloned());
        } else if let Some(dir) = arg.strip_prefix("-L") {
            inv.dirs.push(dir.to_owned());
        } else if arg == "-o" {
            inv.out = it.next().cloned();
        } else if let Some(level) = arg.strip_prefix("-O") {
            inv.opt_level = level.to_owned();
        } else if arg == "--debug" {
        } else if arg.starts_with('-') {
            inv.unknown.push(arg.clone());
        } else {
            inv.inputs.push(arg.clone());
        }
    }
    inv
}

/// The names of the functions defined with the `ptx_kernel` calling convention in textual IR.
pub fn ptx_kernels_in_ir(ir: &str) -> Vec<String> {
    ir.lines()
        .filter(|l| l.starts_with("define ") && l.contains("ptx_kernel "))
        .filter_map(|l| ir_symbol_after(l, '@'))
        .collect()
}

/// The prefix of the shared variables the device crate declares in module assembly.
pub const SHARED_PREFIX: &str = "__cute_smem_";

/// Rewrites textual IR so that the shared variables declared in module assembly are IR globals in
/// the shared address space (step 2 of the [module documentation](self)):
/// - `module asm ".shared .align A .b8 __cute_smem_X[N];"` becomes
///   `@__cute_smem_X = internal addrspace(3) global [N x i8] undef, align A`;
/// - `module asm ".extern .shared .align A .b8 __cute_smem_X[];"` (dynamic shared memory) becomes
///   `@__cute_smem_X = external addrspace(3) global [0 x i8], align A`;
/// - `%p = ... call ptr asm "cvta.shared.u64 ${0}, __cute_smem_X;", "=&l"()...` becomes
///   `%p = addrspacecast ptr addrspace(3) @__cute_smem_X to ptr`.
///
/// Returns `None` when the IR has nothing to rewrite, and an error naming the variable when a
/// conversion names a variable that is not declared.
pub fn shared_variables_as_globals(ir: &str) -> Result<Option<String>, String> {
    let mut declared = BTreeSet::new();
    let mut globals = String::new();
    let mut out = String::with_capacity(ir.len());
    let mut changed = false;
    for line in ir.lines() {
        if let Some((name, global)) = shared_declaration(line) {
            declared.insert(name);
            globals.push_str(&global);
            globals.push('\n');
            changed = true;
            continue;
        }
        if let Some((value, pointer)) = shared_window_offset(line) {
            let cast = format!("%\"{}.shared\"", value[1..].trim_matches('"'));
            out.push_str(&format!("  {cast} = addrspacecast {pointer} to ptr addrspace(3)\n"));
            out.push_str(&format!("  {value} = ptrtoint ptr addrspace(3) {cast} to i32\n"));
            changed = true;
            continue;
        }
        if let Some((value, name)) = shared_address(line) {
            out.push_str(&format!("  {value} = addrspacecast ptr addrspace(3) @{name} to ptr\n"));
            changed = true;
            // LLVM prints the module assembly before every function: all declarations are seen.
            if !declared.contains(&name) {
                return Err(format!("shared variables: `{name}` is converted but never declared"));
            }
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    if !changed {
        return Ok(None);
    }
    // The globals go before the first function or declaration, after the module's header.
    let at = out.find("\ndefine ").or_else(|| out.find("\ndeclare ")).map_or(out.len(), |i| i + 1);
    out.insert_str(at, &format!("{globals}\n"));
    Ok(Some(out))
}

/// `(%value, pointer operand)` of a call to the device crate's `generic_to_shared` assembly
/// (`cvta.to.shared.u64` then `cvt.u32.u64`: a generic pointer's 32-bit shared address), which
/// becomes an `addrspacecast` to the shared address space and a `ptrtoint`: LLVM then folds the
/// conversion of a shared variable's pointer back into the variable's address plus an offset.
fn shared_window_offset(line: &str) -> Option<(String, String)> {
    let (value, rest) = line.trim_start().split_once(" = ")?;
    if !value.starts_with('%') {
        return None;
    }
    let rest = rest.strip_prefix("tail ").unwrap_or(rest);
    let rest = rest.strip_prefix(
        "call i32 asm \"{ .reg .b64 %cute_s; cvta.to.shared.u64 %cute_s, ${1}; cvt.u32.u64 ${0}, %cute_s; }\", \"=",
    )?;
    // rustc marks the output early-clobber (`=&r`).
    let rest = rest.strip_prefix("&").unwrap_or(rest).strip_prefix("r,l\"(")?;
    // The operand runs to the parenthesis that closes the call's argument list.
    let mut depth = 0usize;
    for (i, c) in rest.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => {
                return pointer_operand(&rest[..i]).map(|p| (value.to_owned(), format!("ptr {p}")));
            }
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The value of a call's pointer operand `ptr [attributes] value` (`ptr nonnull %5`,
/// `ptr align 16 getelementptr (...)`), without its parameter attributes.
fn pointer_operand(operand: &str) -> Option<&str> {
    let mut rest = operand.strip_prefix("ptr ")?;
    loop {
        let word = rest.split(' ').next()?;
        let skip = match word {
            "nonnull" | "noundef" | "readnone" | "readonly" | "nocapture" | "noalias" => word.len() + 1,
            "align" => word.len() + 1 + rest[word.len() + 1..].split(' ').next()?.len() + 1,
            _ if word.starts_with("dereferenceable") => word.len() + 1,
            _ => return Some(rest),
        };
        rest = rest.get(skip..)?;
    }
}

/// `(name, IR global)` of a `module asm` line declaring a shared variable.
fn shared_declaration(line: &str) -> Option<(String, String)> {
    let text = line.strip_prefix("module asm \"")?.strip_suffix('"')?;
    let (external, rest) = match text.strip_prefix(".extern ") {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let rest = rest.strip_prefix(".shared .align ")?;
    let (align, rest) = rest.split_once(" .b8 ")?;
    let align: u64 = align.parse().ok()?;
    let (name, rest) = rest.split_once('[')?;
    let count = rest.strip_suffix("];")?;
    if !name.starts_with(SHARED_PREFIX) || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let global = if external {
        if !count.is_empty() {
            return None;
        }
        format!("@{name} = external addrspace(3) global [0 x i8], align {align}")
    } else {
        let bytes: u64 = count.parse().ok()?;
        format!("@{name} = internal addrspace(3) global [{bytes} x i8] undef, align {align}")
    };
    Some((name.to_owned(), global))
}

/// `(%value, name)` of a call to the inline assembly `cvta.shared.u64 ${0}, <name>;`.
fn shared_address(line: &str) -> Option<(String, String)> {
    let (value, rest) = line.trim_start().split_once(" = ")?;
    if !value.starts_with('%') {
        return None;
    }
    let rest = rest.strip_prefix("tail ").unwrap_or(rest);
    let rest = rest.strip_prefix("call ptr asm \"cvta.shared.u64 ")?;
    // rustc writes the operand `${0}` and the constraint `=&l`; hand-written IR `$0` and `=l`.
    let rest = rest.strip_prefix("${0}, ").or_else(|| rest.strip_prefix("$0, "))?;
    let (name, rest) = rest.split_once(";\", \"=")?;
    rest.strip_prefix("&l\"()").or_else(|| rest.strip_prefix("l\"()"))?;
    if !name.starts_with(SHARED_PREFIX) || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    Some((value.to_owned(), name.to_owned()))
}

/// The symbol following the first `sigil` on `line`, quoted (`@"a b"`) or not (`@name(`).
fn ir_symbol_after(line: &str, sigil: char) -> Option<String> {
    let rest = &line[line.find(sigil)? + 1..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.split('"').next().map(str::to_owned);
    }
    let end = rest.find(|c: char| c == '(' || c == ' ' || c == ',').unwrap_or(rest.len());
    Some(rest[..end].to_owned())
}

/// Launch bounds `(max threads, min blocks per SM)` by kernel, from the marker globals of textual IR.
pub fn launch_bounds_in_ir(ir: &str) -> BTreeMap<String, (u32, u32)> {
    let mut bounds = BTreeMap::new();
    for line in ir.lines().filter(|l| l.starts_with('@')) {
        let Some(symbol) = ir_symbol_after(line, '@') else { continue };
        if let Some((kernel, b)) = parse_launch_bounds_marker(&symbol) {
            bounds.insert(kernel, b);
        }
    }
    bounds
}

/// `__cute_launch_bounds_<kernel>__<max>_<min>` (or `..._<max>_` without a minimum) as
/// `(kernel, (max, min))`.
pub fn parse_launch_bounds_marker(symbol: &str) -> Option<(String, (u32, u32))> {
    let rest = symbol.strip_prefix(LAUNCH_BOUNDS_PREFIX)?;
    let (kernel, numbers) = rest.rsplit_once("__")?;
    let (max, min) = numbers.split_once('_')?;
    let max = max.parse().ok()?;
    let min = if min.is_empty() { 0 } else { min.parse().ok()? };
    Some((kernel.to_owned(), (max, min)))
}

/// The grid-constant parameters of each kernel, from the marker globals
/// `__cute_grid_constant_<kernel>__<index>` of textual IR.
pub fn grid_constants_in_ir(ir: &str) -> BTreeMap<String, BTreeSet<usize>> {
    let mut out: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for line in ir.lines().filter(|l| l.starts_with('@')) {
        let Some(symbol) = ir_symbol_after(line, '@') else { continue };
        let Some(rest) = symbol.strip_prefix(GRID_CONSTANT_PREFIX) else { continue };
        let Some((kernel, index)) = rest.rsplit_once("__") else { continue };
        if let Ok(i) = index.parse() {
            out.entry(kernel.to_owned()).or_default().insert(i);
        }
    }
    out
}

/// Aligns parameter `i` of each kernel named in `params` to 64 bytes in `ptx` (step 6 of the
/// [module documentation](self)): `.param .align A .b8 <kernel>_param_<i>[128]` becomes
/// `.param .align 64 ...`, the alignment TMA needs of a tensor map.
///
/// # Errors
/// The kernels whose entry is not found, and any parameter that is not a 128-byte by-value one.
pub fn apply_grid_constants(ptx: &str, params: &BTreeMap<String, BTreeSet<usize>>) -> Result<String, String> {
    let mut out = String::with_capacity(ptx.len());
    let mut current: Option<(&str, &BTreeSet<usize>)> = None;
    let mut aligned: BTreeSet<(String, usize)> = BTreeSet::new();
    for line in ptx.lines() {
        if line.contains(GRID_CONSTANT_PREFIX) {
            continue;
        }
        if let Some(name) = ptx_entry_name(line) {
            current = params.get_key_value(name).map(|(k, v)| (k.as_str(), v));
        } else if line.starts_with(')') {
            current = None;
        } else if let Some((kernel, indices)) = current {
            let param = line.trim_start();
            // The parameter's name: its last word, without an array extent or a comma.
            let name = param.trim_end_matches(',').rsplit(' ').next().unwrap_or("").split('[').next().unwrap_or("");
            if let Some(i) = indices.iter().find(|i| name == format!("{kernel}_param_{i}")) {
                let declared = param.strip_prefix(".param .align ").and_then(|r| r.split_once(' ')).map(|(_, rest)| rest);
                match declared {
                    Some(rest) if rest.starts_with(".b8 ") && rest.trim_end_matches(',').ends_with("[128]") => {
                        out.push_str(&format!("\t.param .align 64 {rest}\n"));
                        aligned.insert((kernel.to_owned(), *i));
                        continue;
                    }
                    _ => {
                        return Err(format!(
                            "grid constant: parameter {i} of kernel `{kernel}` is not a 128-byte by-value parameter: `{param}`"
                        ))
                    }
                }
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    let missing: Vec<String> = params
        .iter()
        .flat_map(|(k, is)| is.iter().map(move |i| (k.clone(), *i)))
        .filter(|ki| !aligned.contains(ki))
        .map(|(k, i)| format!("{k} (parameter {i})"))
        .collect();
    if !missing.is_empty() {
        return Err(format!("grid constants not found: {}", missing.join(", ")));
    }
    Ok(out)
}

/// The name of the kernel whose entry `line` of PTX opens (`.visible .entry name(`).
fn ptx_entry_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(".visible .entry ").or_else(|| line.strip_prefix(".entry "))?;
    Some(rest.split('(').next().unwrap_or("").trim())
}

/// Adds `.maxntid` (and `.minnctapersm`) to the entries of `ptx` named in `bounds`, after each
/// entry's parameter list, and drops any line mentioning a marker.
///
/// # Errors
/// The kernels of `bounds` that `ptx` has no entry for.
pub fn apply_launch_bounds(ptx: &str, bounds: &BTreeMap<String, (u32, u32)>) -> Result<String, Vec<String>> {
    let mut out = String::with_capacity(ptx.len() + 64 * bounds.len());
    let mut pending: Option<&str> = None;
    let mut applied = BTreeSet::new();
    for line in ptx.lines() {
        if line.contains(LAUNCH_BOUNDS_PREFIX) {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if let Some(name) = ptx_entry_name(line) {
            pending = bounds.get_key_value(name).map(|(k, _)| k.as_str());
        } else if let Some(name) = pending.filter(|_| line.starts_with(')')) {
            let (max, min) = bounds[name];
            out.push_str(&format!(".maxntid {max}, 1, 1\n"));
            if min > 0 {
                out.push_str(&format!(".minnctapersm {min}\n"));
            }
            applied.insert(name);
            pending = None;
        }
    }
    let missing: Vec<_> = bounds.keys().filter(|k| !applied.contains(k.as_str())).cloned().collect();
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(missing)
    }
}

fn run(cmd: &mut Command) -> Result<Vec<u8>, String> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().map_err(|e| format!("cannot run {shown}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{shown} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    Ok(out.stdout)
}

fn llvm_dis(bin: &Path, bitcode: &Path) -> Result<String, String> {
    let ir = run(Command::new(bin.join("llvm-dis")).arg(bitcode).args(["-o", "-"]))?;
    String::from_utf8(ir).map_err(|e| format!("llvm-dis printed invalid UTF-8: {e}"))
}

fn llvm_bin() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("CUTE_LLVM_BIN").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let text = |args: &[&str]| -> Result<String, String> {
        Ok(String::from_utf8_lossy(&run(Command::new("rustc").args(args))?).trim().to_owned())
    };
    let sysroot = text(&["--print", "sysroot"])?;
    let verbose = text(&["-vV"])?;
    let host = verbose.lines().find_map(|l| l.strip_prefix("host: ")).ok_or("`rustc -vV` printed no host")?;
    Ok(Path::new(&sysroot).join("lib/rustlib").join(host).join("bin"))
}

/// Links, optimizes and compiles rustc's bitcode to PTX.
fn link(inv: &Invocation) -> Result<(), String> {
    for flag in &inv.unknown {
        eprintln!("cute-ptx-linker: warning: ignoring unknown option '{flag}'");
    }
    let out = inv.out.as_deref().ok_or("no output file (-o) given")?;
    if inv.inputs.is_empty() {
        return Err("no input files given".into());
    }
    if inv.triple != "nvptx64-nvidia-cuda" {
        return Err(format!("unsupported target '{}' (only nvptx64-nvidia-cuda)", inv.triple));
    }
    // rustc gives some inputs relative to an -L directory.
    let inputs = inv
        .inputs
        .iter()
        .map(|f| {
            std::iter::once(PathBuf::from(f))
                .chain(inv.dirs.iter().map(|d| Path::new(d).join(f)))
                .find(|p| p.exists())
                .ok_or_else(|| format!("input '{f}' not found"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let bin = llvm_bin()?;
    for tool in ["llvm-link", "opt", "llc", "llvm-dis"] {
        if !bin.join(tool).is_file() {
            return Err(format!(
                "'{}' not found: install it with 'rustup component add llvm-tools --toolchain nightly'",
                bin.join(tool).display()
            ));
        }
    }
    let (pipeline, llc_opt) = match inv.opt_level.as_str() {
        l @ ("0" | "1" | "2" | "3") => (format!("default<O{l}>"), format!("-O{l}")),
        l @ ("s" | "z") => (format!("default<O{l}>"), "-O2".to_owned()),
        l => return Err(format!("unsupported optimization level -O{l}")),
    };

    let work = std::env::temp_dir().join(format!("cute-ptx-linker.{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let result = (|| {
        let linked = work.join("linked.bc");
        run(Command::new(bin.join("llvm-link")).arg("--ignore-non-bitcode").args(&inputs).arg("-o").arg(&linked))?;
        let ir = llvm_dis(&bin, &linked)?;

        // Launch-bound and grid-constant markers are exported too, but only read from the IR:
        // never kept.
        let kernels: BTreeSet<String> = inv
            .exports
            .iter()
            .filter(|s| !s.starts_with(LAUNCH_BOUNDS_PREFIX) && !s.starts_with(GRID_CONSTANT_PREFIX))
            .cloned()
            .chain(ptx_kernels_in_ir(&ir))
            .collect();
        if kernels.is_empty() {
            return Err("no kernels found (no exported symbol, no ptx_kernel function)".to_owned());
        }
        let kernel_list = work.join("kernels.txt");
        let list: String = kernels.iter().map(|k| format!("{k}\n")).collect();
        std::fs::write(&kernel_list, list).map_err(|e| format!("cannot write {}: {e}", kernel_list.display()))?;

        // The shared variables as globals of the shared address space (opt reads textual IR too).
        let input = match shared_variables_as_globals(&ir)? {
            Some(rewritten) => {
                let text = work.join("linked.ll");
                std::fs::write(&text, rewritten).map_err(|e| format!("cannot write {}: {e}", text.display()))?;
                text
            }
            None => linked.clone(),
        };
        let optimized = work.join("opt.bc");
        run(Command::new(bin.join("opt"))
            .arg(&input)
            .arg("-o")
            .arg(&optimized)
            .arg(format!("--internalize-public-api-file={}", kernel_list.display()))
            .arg(format!("--passes={pipeline},internalize,globaldce")))?;
        if std::env::var("CUTE_PTX_KEEP_IR").as_deref() == Ok("1") {
            run(Command::new(bin.join("llvm-dis")).arg(&optimized).arg("-o").arg(format!("{out}.opt.ll")))?;
        }

        let mut llc = Command::new(bin.join("llc"));
        llc.args(["-mtriple=nvptx64-nvidia-cuda", &llc_opt]);
        if let Some(cpu) = &inv.cpu {
            llc.arg(format!("-mcpu={cpu}"));
        }
        if !inv.features.is_empty() {
            llc.arg(format!("-mattr={}", inv.features.join(",")));
        }
        let ptx_file = work.join("out.ptx");
        run(llc.arg(&optimized).arg("-o").arg(&ptx_file))?;
        let ptx = std::fs::read_to_string(&ptx_file).map_err(|e| format!("cannot read llc's PTX: {e}"))?;
        let ptx = apply_launch_bounds(&ptx, &launch_bounds_in_ir(&ir))
            .map_err(|missing| format!("launch bounds for unknown kernel(s): {}", missing.join(", ")))?;
        let ptx = apply_grid_constants(&ptx, &grid_constants_in_ir(&ir))?;
        std::fs::write(out, ptx).map_err(|e| format!("cannot write {out}: {e}"))
    })();
    let _ = std::fs::remove_dir_all(&work);
    result
}

/// The program's entry point (not called when this file is a module of the library).
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match link(&parse_args(&args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cute-ptx-linker: error: {e}");
            ExitCode::FAILURE
        }
    }
}
