//! Proves on the real PTX that a `const` layout built by the algebra costs nothing at run time.
//!
//! The kernel `layout_index_copy` (in `tests/kernels/src/lib.rs`) evaluates a layout computed at compile
//! time by `cute_rs_layout::logical_divide` for every thread. Once LLVM has inlined the `const fn`
//! evaluator and folded the constant layout, that evaluation must be a handful of shifts, masks,
//! multiplies and adds: no loop over the layout's modes, no division or remainder by its extents,
//! and no local memory (a layout that stayed a run-time value would live on the stack).

/// The test harness's PTX module, which holds the kernels checked here.
const KERNELS_PTX: &str = cute_rs_suite::TEST_KERNELS.ptx;

/// The body of kernel `name`: the text between the braces that follow `.entry name(...)`.
fn kernel_body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let header = format!(".entry {name}(");
    let start = ptx.find(&header).unwrap_or_else(|| {
        panic!(
            "kernel `{name}` not found in the PTX module ({}); its entries are:\n{}",
            env!("CUTE_PTX_test_kernels"),
            entries(ptx).join("\n")
        )
    });
    let rest = &ptx[start..];
    // The parameter list is in parentheses; the body is the first brace block after it.
    let open = rest
        .find(')')
        .and_then(|close| rest[close..].find('{').map(|o| close + o))
        .unwrap_or_else(|| panic!("kernel `{name}` has no body in:\n{rest}"));
    let mut depth = 0usize;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &rest[open..=open + i];
                }
            }
            _ => {}
        }
    }
    panic!("kernel `{name}`: unbalanced braces in:\n{rest}")
}

fn entries(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter(|l| l.contains(".entry "))
        .map(str::trim)
        .collect()
}

/// One instruction of a PTX body: its line number in the body, guard predicate removed, opcode
/// (with type suffixes, e.g. `div.u32`) and operands.
struct Instruction<'a> {
    line: usize,
    opcode: &'a str,
    operands: &'a str,
}

/// The labels (`$L__BB0_2:`) and instructions of a body, by line.
fn parse_body(body: &str) -> (Vec<(usize, &str)>, Vec<Instruction<'_>>) {
    let mut labels = Vec::new();
    let mut instructions = Vec::new();
    for (line, text) in body.lines().enumerate() {
        let text = text.split("//").next().unwrap_or("").trim();
        if text.is_empty() || text == "{" || text == "}" || text.starts_with('.') {
            continue; // blank, comment, scope brace or directive (.reg, .local, ...)
        }
        if let Some(label) = text.strip_suffix(':') {
            labels.push((line, label.trim()));
            continue;
        }
        let text = match text.strip_prefix('@') {
            // Guarded instruction: `@%p1 bra $L__BB0_2;` or `@!%p1 ...`.
            Some(guarded) => guarded
                .split_once(char::is_whitespace)
                .map_or("", |(_, rest)| rest.trim_start()),
            None => text,
        };
        let text = text.trim_end_matches(';');
        let (opcode, operands) = text
            .split_once(char::is_whitespace)
            .map_or((text, ""), |(o, rest)| (o, rest.trim()));
        instructions.push(Instruction {
            line,
            opcode,
            operands,
        });
    }
    (labels, instructions)
}

/// What keeps a kernel body from being folded straight-line code: local memory, divisions and
/// remainders, branches (backward ones are loops).
fn folding_problems(body: &str) -> Vec<String> {
    let (labels, instructions) = parse_body(body);
    let mut problems = Vec::new();

    if body.contains(".local") || body.contains("__local_depot") {
        problems.push(
            "uses local memory (.local / __local_depot): a value was spilled to the stack"
                .to_owned(),
        );
    }
    for ins in &instructions {
        if ins.opcode == "div"
            || ins.opcode.starts_with("div.")
            || ins.opcode == "rem"
            || ins.opcode.starts_with("rem.")
        {
            problems.push(format!(
                "line {}: `{} {}`: a division or remainder was not folded",
                ins.line, ins.opcode, ins.operands
            ));
        }
        if ins.opcode == "bra" || ins.opcode.starts_with("bra.") {
            let target = ins.operands.trim();
            let backward = labels
                .iter()
                .any(|&(line, label)| label == target && line <= ins.line);
            problems.push(format!(
                "line {}: `{} {}`: {}",
                ins.line,
                ins.opcode,
                target,
                if backward {
                    "a backward branch (a loop, e.g. over the layout's modes)"
                } else {
                    "a branch (the kernel should be straight-line code)"
                }
            ));
        }
    }
    problems
}

/// Asserts that kernel `name` is straight-line code free of divisions and local memory.
fn assert_folded(name: &str) {
    let body = kernel_body(KERNELS_PTX, name);
    let problems = folding_problems(body);
    assert!(
        problems.is_empty(),
        "kernel `{name}` is not folded to straight-line code ({}):\n  {}\nits PTX body:\n{body}",
        env!("CUTE_PTX_test_kernels"),
        problems.join("\n  ")
    );
}

/// Asserts that kernel `name` is free of local memory, divisions and loops, allowing forward
/// branches (predication around accesses out of bounds, run-time alignment fallbacks); returns its
/// body.
fn assert_folded_but_predicated(name: &str) -> &'static str {
    let body = kernel_body(KERNELS_PTX, name);
    let problems: Vec<String> = folding_problems(body)
        .into_iter()
        .filter(|p| !p.ends_with("a branch (the kernel should be straight-line code)"))
        .collect();
    assert!(problems.is_empty(), "{name}:\n  {}\nits PTX body:\n{body}", problems.join("\n  "));
    body
}

#[test]
fn layout_index_copy_is_folded() {
    assert_folded("layout_index_copy");
}

#[test]
fn layout_tile_gather_is_folded() {
    assert_folded("layout_tile_gather");
}

#[test]
fn vector_copy_is_folded() {
    assert_folded("vector_copy");
}

#[test]
fn kernel_body_is_extracted() {
    let ptx = ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t{ // inner scope\n\t}\n\tret;\n}\n.visible .entry other(\n)\n{\n}\n";
    let body = kernel_body(ptx, "k");
    assert!(body.starts_with('{') && body.ends_with('}'));
    assert!(body.contains("ret;") && !body.contains("other"));
}

#[test]
fn checks_catch_loops_divisions_and_local_memory() {
    let body = "{\n\t.local .align 8 .b8 \t__local_depot0[16];\n$L__BB0_1:\n\tdiv.s64 \t%rd3, %rd1, %rd2;\n\t@%p1 bra \t$L__BB0_1;\n\tret;\n}";
    let (labels, instructions) = parse_body(body);
    assert_eq!(labels, vec![(2, "$L__BB0_1")]);
    let opcodes: Vec<_> = instructions.iter().map(|i| i.opcode).collect();
    assert_eq!(opcodes, ["div.s64", "bra", "ret"]);
    assert_eq!(instructions[1].operands, "$L__BB0_1");

    let problems = folding_problems(body);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("local memory"));
    assert!(problems[1].contains("div.s64"));
    assert!(problems[2].contains("backward branch"));

    let forward = "{\n\t@%p1 bra \t$L__BB0_2;\n\tadd.s64 \t%rd1, %rd1, 1;\n$L__BB0_2:\n\tret;\n}";
    let problems = folding_problems(forward);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(problems[0].contains("a branch (the kernel should be straight-line code)"));
}

/// The `LayoutTensor` copy (`tests/kernels/src/tensor_copy.rs`: static tile, `vectorize`, `distribute`,
/// register fragment) is straight-line code with no local memory, and moves each thread's four
/// vectors with four 128-bit loads and four 128-bit stores (no scalar global access).
#[test]
fn tensor_copy_f32_is_folded() {
    assert_folded("tensor_copy_f32");
    let body = kernel_body(KERNELS_PTX, "tensor_copy_f32");
    let (_, instructions) = parse_body(body);
    let wide = |prefix: &str| {
        instructions
            .iter()
            .filter(|i| i.opcode == format!("{prefix}.v2.b64") || i.opcode == format!("{prefix}.v4.b32") || i.opcode == format!("{prefix}.v4.f32"))
            .count()
    };
    let scalar_global = instructions
        .iter()
        .filter(|i| (i.opcode.starts_with("ld.global") || i.opcode.starts_with("st.global")) && !i.opcode.contains(".v"))
        .count();
    assert_eq!((wide("ld.global"), wide("st.global"), scalar_global), (4, 4, 0), "its PTX body:\n{body}");
}

/// The masked `LayoutTensor` copy (`tensor_copy_masked_f32`: partial tiles of a 1000 x 1000 matrix)
/// keeps its index math folded (no local memory, no division, no loop); its predication may branch
/// forward around the accesses of elements out of bounds, never backward.
#[test]
fn tensor_copy_masked_f32_is_folded_and_predicated() {
    let body = assert_folded_but_predicated("tensor_copy_masked_f32");
    let (_, instructions) = parse_body(body);
    let count = |prefix: &str| instructions.iter().filter(|i| i.opcode.starts_with(prefix)).count();
    // 16 predicated loads and 16 predicated stores per thread.
    assert_eq!((count("ld.global"), count("st.global")), (16, 16), "its PTX body:\n{body}");
}

/// Zero cost: the `LayoutTensor` copy compiles to as many PTX instructions as the same kernel
/// written with raw pointers (`tensor_copy_f32_raw`), within 5%.
#[test]
fn tensor_copy_f32_costs_what_raw_pointers_cost() {
    let ours = parse_body(kernel_body(KERNELS_PTX, "tensor_copy_f32")).1.len();
    let raw = parse_body(kernel_body(KERNELS_PTX, "tensor_copy_f32_raw")).1.len();
    assert!(
        ours as f64 <= raw as f64 * 1.05,
        "tensor_copy_f32: {ours} instructions, raw pointers: {raw}\n{}\n{}",
        kernel_body(KERNELS_PTX, "tensor_copy_f32"),
        kernel_body(KERNELS_PTX, "tensor_copy_f32_raw")
    );
    assert_folded("tensor_copy_f32_raw");
}

/// The shared-memory transpose written with `LayoutTensor` (`shared_tensor!`, `tile`,
/// `transpose`, `copy_partitioned`) is straight-line code with no local memory and no division.
#[test]
fn tensor_transpose_f32_is_folded() {
    assert_folded("tensor_transpose_f32");
}

/// Mojo's documented `copy_from_async` kernel (`tests/kernels/src/copy_async.rs`): each lane's fragment of
/// two 4-float vectors is two 16-byte `cp.async.cg` (full tiles: no zero-fill operand), then one
/// `cp.async.wait_all`; no local memory, division or loop.
#[test]
fn mojo_copy_from_async_f32_issues_two_16_byte_copies() {
    let body = assert_folded_but_predicated("mojo_copy_from_async_f32");
    let (_, instructions) = parse_body(body);
    let copies: Vec<_> = instructions.iter().filter(|i| i.opcode.starts_with("cp.async.")).map(|i| (i.opcode, i.operands)).collect();
    assert_eq!(copies.len(), 3, "its PTX body:\n{body}");
    for (op, args) in &copies[..2] {
        assert_eq!(*op, "cp.async.cg.shared.global", "its PTX body:\n{body}");
        assert!(args.ends_with(", 16"), "a whole 16-byte copy, got `{args}`");
    }
    assert_eq!(copies[2].0, "cp.async.wait_all");
}

/// The zero-filling staging kernel (`copy_async_zero_fill_f32`): a thread's run of 4 floats of a
/// partial tile is one 16-byte `cp.async.cg` with a source-size operand (the zero-fill); no local
/// memory, division or loop.
#[test]
fn copy_async_zero_fill_f32_copies_runs_with_zero_fill() {
    let body = assert_folded_but_predicated("copy_async_zero_fill_f32");
    assert_eq!(zero_filling_16_byte_copies(body), 1, "its PTX body:\n{body}");
}

/// 16-bit elements staged between masked tiles (`copy_async_clipped_b16`): a thread's run of 8
/// elements inside the shared tile's bounds is packed into one 16-byte `cp.async.cg` with a
/// source-size operand (the zero-fill at the matrix's edge), not copied synchronously; no local
/// memory, division or loop.
#[test]
fn copy_async_packs_16_bit_elements_into_16_byte_copies() {
    let body = assert_folded_but_predicated("copy_async_clipped_b16");
    assert_eq!(zero_filling_16_byte_copies(body), 1, "its PTX body:\n{body}");
}

/// The 16-byte `cp.async.cg` copies in `body` that take a source-size operand (zero-filling what
/// they do not read).
fn zero_filling_16_byte_copies(body: &str) -> usize {
    let (_, instructions) = parse_body(body);
    instructions
        .iter()
        .filter(|i| i.opcode == "cp.async.cg.shared.global" && i.operands.split(',').nth(2).map(str::trim) == Some("16") && i.operands.split(',').count() == 4)
        .count()
}

/// How many times `needle` occurs in kernel `name`'s body (inline-asm instructions, which the
/// compiler emits inside `{ ... }` scopes, included).
fn occurrences(name: &str, needle: &str) -> usize {
    kernel_body(KERNELS_PTX, name).matches(needle).count()
}

/// The names of a module's kernels.
fn entry_names(ptx: &str) -> Vec<&str> {
    entries(ptx)
        .into_iter()
        .filter_map(|l| l.split(".entry ").nth(1))
        .map(|rest| rest.split('(').next().unwrap_or(rest).trim())
        .collect()
}

/// No kernel of either module uses local memory (ptxas then reports a 0-byte stack frame): every
/// layout, including the run-time shape and strides a Triton block pointer holds, stays in
/// registers. The one exception is the kernel that prints (`device_println!` builds its
/// `fmt::Arguments` on the stack).
#[test]
fn no_kernel_uses_local_memory() {
    const PRINTS: &[&str] = &["print_and_check"];
    let modules = [
        ("test_kernels", KERNELS_PTX),
        ("test_kernels_sm90a", cute_rs_suite::TEST_KERNELS_SM90A.ptx),
        ("gemm", cute_rs_ops::modules::gemm().ptx),
        ("gemm_sm90a", cute_rs_ops::modules::gemm_sm90a().ptx),
    ];
    for (module, ptx) in modules {
        let names = entry_names(ptx);
        assert!(names.len() > 4, "{module}: entries not found");
        let local: Vec<&str> = names
            .into_iter()
            .filter(|n| !PRINTS.contains(n))
            .filter(|n| {
                let body = kernel_body(ptx, n);
                body.contains(".local") || body.contains("__local_depot")
            })
            .collect();
        assert!(local.is_empty(), "{module}: kernels with local memory (a stack frame): {local:?}");
    }
}

/// The kernels of cuTile's `load`/`store` documentation examples (`tests/kernels/src/cutile.rs`: 1-D, 2-D "F", 3-D permuted and scalar loads,
/// partial and scalar stores) keep their tile-space index math folded: no local memory, no
/// division, no loop (branches only around out-of-bounds elements and tiles).
#[test]
fn cutile_seed_kernels_are_folded() {
    for name in [
        "cutile_seed_load_1d",
        "cutile_seed_load_2d_f",
        "cutile_seed_load_3d",
        "cutile_seed_load_scalar",
        "cutile_seed_store_partial",
        "cutile_seed_store_scalar",
    ] {
        assert_folded_but_predicated(name);
    }
}

/// The cuTile tiled copy moves each thread's tile of 4 vectors with four 128-bit loads and four
/// 128-bit stores, no scalar global access, its only branch the tile-space bounds check.
#[test]
fn cutile_copy_f32_is_four_128_bit_loads_and_stores() {
    let body = assert_folded_but_predicated("cutile_copy_f32");
    let (_, instructions) = parse_body(body);
    let count = |f: &dyn Fn(&str) -> bool| instructions.iter().filter(|i| f(i.opcode)).count();
    let wide = |op: &str| op.ends_with(".v2.b64") || op.ends_with(".v4.b32");
    assert_eq!(count(&|op| op.starts_with("ld.global") && wide(op)), 4, "{body}");
    assert_eq!(count(&|op| op.starts_with("st.global") && wide(op)), 4, "{body}");
    assert_eq!(count(&|op| (op.starts_with("ld.global") || op.starts_with("st.global")) && !wide(op)), 0, "{body}");
}

/// cuTile memory orders on PTX (`cutile_orders_f32`): each ordered access of an element is one
/// strong instruction at its scope (`ld.relaxed.cta`, `ld.acquire.gpu`, `ld.acquire.sys`,
/// `ld.relaxed.gpu`; `st.release.gpu`, `st.relaxed.cta`), weak ones are plain, and no fence or
/// volatile access is left.
#[test]
fn cutile_orders_emit_strong_accesses_at_their_scope() {
    let name = "cutile_orders_f32";
    let body = kernel_body(KERNELS_PTX, name);
    // 5 loads of the 2 in-bounds elements of tile 2: 4 ordered, 1 weak.
    for op in ["ld.relaxed.cta.global.b32", "ld.acquire.gpu.global.b32", "ld.acquire.sys.global.b32", "ld.relaxed.gpu.global.b32", "ld.global.b32"] {
        assert_eq!(occurrences(name, op), 2, "{op}:\n{body}");
    }
    // Stores of 4 (tile 0, release at device scope) and 2 (tile 2, relaxed at block scope) elements.
    assert_eq!(occurrences(name, "st.release.gpu.global.b32"), 4, "{body}");
    assert_eq!(occurrences(name, "st.relaxed.cta.global.b32"), 2, "{body}");
    assert_eq!(occurrences(name, "fence") + occurrences(name, ".volatile"), 0, "{body}");
}

/// Triton's masked copy (`triton_masked_copy_f32`): 4 predicated `ld.global.cg` with the L2
/// evict-first policy of one `createpolicy`, no local memory, division or loop.
#[test]
fn triton_masked_copy_f32_loads_with_cg_and_evict_first() {
    let name = "triton_masked_copy_f32";
    let body = assert_folded_but_predicated(name);
    assert_eq!(occurrences(name, "ld.global.cg.L2::cache_hint.b32"), 4, "{body}");
    assert_eq!(occurrences(name, "createpolicy.fractional.L2::evict_first"), 1, "{body}");
    assert_eq!(occurrences(name, "st.global.b32"), 4, "{body}");
}

/// Memory orders on 1- and 2-byte elements (`cutile_orders_narrow`): one strong access of the
/// element's width each, `ld.acquire.gpu.global.b8` / `st.release.sys.global.b8` and
/// `ld.relaxed.cta.global.b16` / `st.relaxed.cta.global.b16`.
#[test]
fn cutile_orders_on_narrow_elements_keep_their_width() {
    let name = "cutile_orders_narrow";
    let body = kernel_body(KERNELS_PTX, name);
    for op in ["ld.acquire.gpu.global.b8", "st.release.sys.global.b8", "ld.relaxed.cta.global.b16", "st.relaxed.cta.global.b16"] {
        assert_eq!(occurrences(name, op), 4, "{op}:\n{body}");
    }
}

/// Triton's `volatile=True` on `bool`s (`triton_volatile_bool`): the 4 masked loads are
/// predicated `ld.volatile.global.b8`, and no other load reads `src`.
#[test]
fn triton_volatile_bool_loads_are_volatile_bytes() {
    let name = "triton_volatile_bool";
    let body = kernel_body(KERNELS_PTX, name);
    assert_eq!(occurrences(name, "ld.volatile.global.b8"), 4, "{body}");
    assert_eq!(occurrences(name, "ld.global"), 0, "{body}");
    assert!(!body.contains(".local"), "{body}");
}

/// Triton's broadcasting (`triton_broadcast_f32`): the `i32` scalar `other` is converted when
/// compiled (the constant `-1.0`, `0fBF800000`, and no `cvt` from an integer), and the `(2, 1)`
/// mask gives two comparisons for the thread's eight loads; no local memory.
#[test]
fn triton_broadcast_folds_the_converted_other() {
    let name = "triton_broadcast_f32";
    let body = kernel_body(KERNELS_PTX, name);
    assert!(body.contains("0fBF800000"), "{body}");
    assert_eq!(occurrences(name, "cvt.rn.f32.s32"), 0, "{body}");
    assert_eq!(occurrences(name, "setp."), 2, "{body}");
    assert!(!body.contains(".local"), "{body}");
}

/// Triton's hints on 2- and 1-byte elements at block level (`block_hinted_copy`, 4 values a
/// thread): `evict_last` without a cache operator sets the L1 and the L2 priority
/// (`ld.global.L1::evict_last.L2::cache_hint.b16`), `.cs` stores are `st.global.cs.b16`, and the
/// bytes move with `ld.global.cg.L2::cache_hint.b8` and `st.global.wt.L2::cache_hint.b8`; one
/// `createpolicy` per priority; no local memory.
#[test]
fn block_hinted_copy_hints_half_and_byte_elements() {
    let name = "block_hinted_copy";
    let body = kernel_body(KERNELS_PTX, name);
    assert_eq!(occurrences(name, "ld.global.L1::evict_last.L2::cache_hint.b16"), 4, "{body}");
    assert_eq!(occurrences(name, "st.global.cs.b16"), 4, "{body}");
    assert_eq!(occurrences(name, "ld.global.cg.L2::cache_hint.b8"), 4, "{body}");
    assert_eq!(occurrences(name, "st.global.wt.L2::cache_hint.b8"), 4, "{body}");
    assert_eq!(occurrences(name, "createpolicy.fractional.L2::evict_last"), 1, "{body}");
    assert_eq!(occurrences(name, "createpolicy.fractional.L2::evict_first"), 1, "{body}");
    assert!(!body.contains(".local"), "{body}");
}

/// cuTile's `allow_tma` load at block level (`block_tma_pad`): one
/// `cp.async.bulk.tensor.2d` per tile (the column loop keeps it once), read back from the stage
/// with two 16-byte `ld.shared.v4` a thread and no scalar shared load; no local memory.
#[test]
fn block_tma_pad_loads_each_tile_with_one_tma_copy() {
    let name = "block_tma_pad";
    let body = kernel_body(KERNELS_PTX, name);
    assert_eq!(occurrences(name, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"), 1, "{body}");
    assert_eq!(occurrences(name, "ld.shared.v4.b32"), 2, "{body}");
    assert_eq!(occurrences(name, "ld.shared.b32"), 0, "{body}");
    assert!(!body.contains(".local"), "{body}");
}

/// `allow_tma` as a flag of the cuTile front end (`block_tma_flag_copy`): the kernel holds both
/// paths, one TMA load and one TMA store a tile (`cp.async.bulk.tensor.2d` each way, the store
/// committed and waited for) beside the ordinary global loads and stores it falls back to.
#[test]
fn block_tma_flag_copy_has_tma_and_ordinary_paths() {
    let name = "block_tma_flag_copy";
    let body = kernel_body(KERNELS_PTX, name);
    assert_eq!(occurrences(name, "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"), 1, "{body}");
    assert_eq!(occurrences(name, "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group"), 1, "{body}");
    assert_eq!(occurrences(name, "cp.async.bulk.commit_group"), 1, "{body}");
    assert_eq!(occurrences(name, "cp.async.bulk.wait_group 0"), 1, "{body}");
    // The ordinary path: 16-byte vectors through the arrays' generic addresses.
    let vectors = |op: &str| occurrences(name, &format!("{op}.v4.b32")) + occurrences(name, &format!("{op}.global.v4.b32"));
    assert!(vectors("ld") >= 1 && vectors("st") >= 1, "{body}");
    assert!(!body.contains(".local"), "{body}");
}

/// 03 on `wgmma` with TMA copies (`tutorial_matmul_wgmma_f16_tma`): the operand tiles arrive by
/// `cp.async.bulk.tensor.2d`, five a step (A's one 64-column panel, B's four), waited for on the
/// slots' transaction barriers; the products are `wgmma`; no local memory (the 128 accumulators
/// a thread stay in registers).
#[test]
fn tma_matmul_copies_each_step_with_five_tma_copies() {
    let name = "tutorial_matmul_wgmma_f16_tma";
    let body = kernel_body(cute_rs_suite::TEST_KERNELS_SM90A.ptx, name);
    let copies = body.matches("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes").count();
    assert!(copies >= 5 && copies % 5 == 0, "{copies} TMA copies: {body}");
    assert!(body.contains("mbarrier.try_wait.parity"), "{body}");
    assert!(body.contains("wgmma.mma_async"), "{body}");
    assert!(!body.contains(".local"), "{body}");
}

/// Block-pointer loads with hints (`block_ptr_pad`, `.cg` and `evict_last`): every global load,
/// vectors and edge elements alike, is `ld.global.cg.L2::cache_hint`, with one `createpolicy`.
#[test]
fn block_ptr_pad_hints_every_load() {
    let name = "block_ptr_pad";
    let body = kernel_body(KERNELS_PTX, name);
    assert!(occurrences(name, "ld.global.cg.L2::cache_hint.v4.b32") >= 1, "{body}");
    assert_eq!(occurrences(name, "ld.global.cg.L2::cache_hint"), occurrences(name, "ld.global"), "{body}");
    assert_eq!(occurrences(name, "createpolicy.fractional.L2::evict_last"), 1, "{body}");
    assert!(!body.contains(".local"), "{body}");
}

/// Triton's block pointers (`triton_block_pad_f32`): the shape and strides are registers (no
/// local memory: ptxas reported a 1368-byte stack frame when the pointer held a run-time
/// `Layout`), 8 boundary-checked `ld.global.cg` and 8 stores, no division or loop.
#[test]
fn triton_block_pad_f32_keeps_its_block_pointer_in_registers() {
    let name = "triton_block_pad_f32";
    let body = assert_folded_but_predicated(name);
    assert_eq!(occurrences(name, "ld.global.cg.b32"), 8, "{body}");
    assert_eq!(occurrences(name, "st.global.b32"), 8, "{body}");
}

/// Triton's indirect load example (`triton_ldst_indirect_07`) is straight-line code: 4 + 16 index
/// loads, 64 gathered loads and 64 stores, no branch, local memory or division.
#[test]
fn triton_ldst_indirect_07_is_folded() {
    let name = "triton_ldst_indirect_07";
    assert_folded(name);
    assert_eq!(occurrences(name, "ld.global.b64"), 20);
    assert_eq!(occurrences(name, "ld.global.b32"), 64);
    assert_eq!(occurrences(name, "st.global.b32"), 64);
}

/// Triton scalar loads and hinted stores (`triton_scalar_affine_f32`): two 0-d loads (the masked
/// one behind a branch) and 4 data loads, then 4 predicated `st.global.cs` with the evict-first
/// L2 policy; no local memory, division or loop.
#[test]
fn triton_scalar_affine_f32_stores_with_cs_and_evict_first() {
    let name = "triton_scalar_affine_f32";
    let body = assert_folded_but_predicated(name);
    assert_eq!(occurrences(name, "ld.global.b32"), 6, "{body}");
    assert_eq!(occurrences(name, "st.global.cs.L2::cache_hint.b32"), 4, "{body}");
    assert_eq!(occurrences(name, "createpolicy.fractional.L2::evict_first"), 1, "{body}");
    // The bias (params + 4 bytes) is read only when masked in: a guarded branch jumps over it.
    let (labels, instructions) = parse_body(body);
    let bias = instructions.iter().position(|i| i.opcode == "ld.global.b32" && i.operands.ends_with("+4]")).expect("the bias load");
    assert_eq!(instructions[bias - 1].opcode, "bra", "{body}");
    assert!(!labels.is_empty());
}

/// The thread-value tiled copy (`tiled_copy_async_f32`: `TiledCopy<(32,8):(8,1), (4,1)>`) stages
/// each thread's 4 values with one 16-byte `cp.async.cg` and writes another thread's 4 values
/// with one 128-bit load and store (beside the 4-byte fallbacks for misaligned pointers, which
/// the run-time alignment test selects): no local memory, division or loop.
#[test]
fn tiled_copy_async_f32_moves_values_as_16_byte_vectors() {
    let name = "tiled_copy_async_f32";
    let body = assert_folded_but_predicated(name);
    assert_eq!(occurrences(name, "cp.async.cg.shared.global"), 1, "{body}");
    let (_, instructions) = parse_body(body);
    let wide = |op: &str| op.ends_with(".v2.b64") || op.ends_with(".v4.b32") || op.ends_with(".v4.f32");
    let loads = instructions.iter().filter(|i| i.opcode.starts_with("ld.") && wide(i.opcode)).count();
    let stores = instructions.iter().filter(|i| i.opcode.starts_with("st.global") && wide(i.opcode)).count();
    assert_eq!((loads, stores), (1, 1), "{body}");
}

/// The TMA box load through `LayoutTensor` (`tma_tile_load_f32`): one 2-D bulk tensor copy
/// announced as 1024 bytes (32 x 8 f32) on the mbarrier, and the 128-byte swizzle of the read-back
/// folded to shifts, masks and one XOR: no local memory, no division (its only loop is the
/// mbarrier wait).
#[test]
fn tma_tile_load_f32_is_one_bulk_copy_and_a_folded_swizzle() {
    let name = "tma_tile_load_f32";
    let body = kernel_body(KERNELS_PTX, name);
    let problems: Vec<String> = folding_problems(body).into_iter().filter(|p| !p.contains("branch")).collect();
    assert!(problems.is_empty(), "{name}:\n  {}\n{body}", problems.join("\n  "));
    assert_eq!(occurrences(name, "cp.async.bulk.tensor.2d.shared::cluster.global"), 1, "{body}");
    assert_eq!(occurrences(name, "mbarrier.arrive.expect_tx"), 1, "{body}");
    assert!(body.contains("1024;"), "the box's 1024 bytes are announced:\n{body}");
    assert_eq!(occurrences(name, "xor.b"), 1, "{body}");
}

/// A run-time layout of small rank ([`Strided`](cute_rs_tensor::Strided), sizes from kernel
/// arguments) costs what the index arithmetic costs: no local memory, no division, no loop, and no
/// panic path (`trap`); its masking branches forward only.
#[test]
fn strided_masked_axpy_has_no_local_memory_and_no_panic_path() {
    let body = assert_folded_but_predicated("strided_masked_axpy");
    assert!(!body.contains("trap"), "a panic path is left in strided_masked_axpy:\n{body}");
    let (_, instructions) = parse_body(body);
    let count = |prefix: &str| instructions.iter().filter(|i| i.opcode.starts_with(prefix)).count();
    assert_eq!((count("ld.global"), count("st.global")), (8, 4), "its PTX body:\n{body}");
    assert!(instructions.len() < 120, "{} instructions:\n{body}", instructions.len());
}

/// The production modules call neither `vprintf` nor `__assertfail`: the panic handler is a bare
/// `trap` (a handler that prints puts a call with a stack frame behind every panic path and slows
/// the Hopper GEMMs: `docs/performance.md`), and the GEMMs print nothing.
#[test]
fn production_kernels_have_no_printing_calls() {
    for (module, ptx) in [("gemm", cute_rs_ops::modules::gemm().ptx), ("gemm_sm90a", cute_rs_ops::modules::gemm_sm90a().ptx)] {
        for call in ["vprintf", "__assertfail"] {
            assert!(!ptx.contains(call), "{module} calls {call}");
        }
    }
    // The test module's printing kernel does, which is what the check would catch.
    assert!(KERNELS_PTX.contains("__assertfail") && KERNELS_PTX.contains("vprintf"));
}

/// rocPRIM's `block_load_vectorize` (`block_io_vectorize_*`): a thread's items move as one
/// access of 8 bytes (`.b64`) or 16 bytes (`.v4.b32`) each way, and the kernel keeps the
/// per-item path that misaligned input falls back to (one scalar load of each item); items that
/// do not fill an even vector (3 floats) only take the per-item path.
#[test]
fn vectorize_moves_items_as_8_and_16_byte_accesses_and_keeps_a_fallback() {
    for (name, vector_load, vector_store, items, scalar_load) in [
        ("block_io_vectorize_f32_128x2", "ld.global.ca.b64", "st.global.wb.b64", 2, "ld.global.b32"),
        ("block_io_vectorize_f32_128x4", "ld.global.ca.v4.b32", "st.global.wb.v4.b32", 4, "ld.global.b32"),
        ("block_io_vectorize_f64_128x2", "ld.global.ca.v4.b32", "st.global.wb.v4.b32", 2, "ld.global.b64"),
        ("block_io_vectorize_bf16_128x8", "ld.global.ca.v4.b32", "st.global.wb.v4.b32", 8, "ld.global.b16"),
        ("block_io_vectorize_u8_128x16", "ld.global.ca.v4.b32", "st.global.wb.v4.b32", 16, "ld.global.b8"),
    ] {
        let body = kernel_body(KERNELS_PTX, name);
        assert_eq!((occurrences(name, vector_load), occurrences(name, vector_store)), (1, 1), "{name}:\n{body}");
        assert_eq!(occurrences(name, scalar_load), items, "{name}: the fallback's per-item loads\n{body}");
    }
    let name = "block_io_vectorize_f32_128x3";
    assert_eq!(occurrences(name, "ld.global.ca") + occurrences(name, "st.global.wb"), 0, "{name}:\n{}", kernel_body(KERNELS_PTX, name));
}
