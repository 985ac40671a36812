//! Proves on the real PTX that a `const` layout built by the algebra costs nothing at run time.
//!
//! The kernel `layout_index_copy` (in `kernels/src/lib.rs`) evaluates a layout computed at compile
//! time by `layout::logical_divide` for every thread. Once LLVM has inlined the `const fn`
//! evaluator and folded the constant layout, that evaluation must be a handful of shifts, masks,
//! multiplies and adds: no loop over the layout's modes, no division or remainder by its extents,
//! and no local memory (a layout that stayed a run-time value would live on the stack).

use cute_rs::KERNELS_PTX;

/// The body of kernel `name`: the text between the braces that follow `.entry name(...)`.
fn kernel_body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let header = format!(".entry {name}(");
    let start = ptx.find(&header).unwrap_or_else(|| {
        panic!(
            "kernel `{name}` not found in the PTX module ({}); its entries are:\n{}",
            env!("KERNELS_PTX"),
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
        env!("KERNELS_PTX"),
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

/// The `LayoutTensor` copy (`kernels/src/tensor_copy.rs`: static tile, `vectorize`, `distribute`,
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

/// The Mojo seed's `copy_from_async` kernel (`kernels/src/copy_async.rs`): each lane's fragment of
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
    let (_, instructions) = parse_body(body);
    let runs = instructions
        .iter()
        .filter(|i| i.opcode == "cp.async.cg.shared.global" && i.operands.split(',').nth(2).map(str::trim) == Some("16") && i.operands.split(',').count() == 4)
        .count();
    assert_eq!(runs, 1, "its PTX body:\n{body}");
}
