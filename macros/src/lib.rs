//! The `#[kernel]` attribute of cute-rs: a plain Rust function becomes a GPU kernel.
//!
//! Use it through `cute-rs-tensor`, which re-exports it (`cute_rs_tensor::kernel`) together with
//! everything the expansion refers to; see [`macro@kernel`].
//!
//! The attribute checks the function's shape and hands it to `cute_rs_tensor::__kernel!`, a
//! `macro_rules!` macro of the device-side crate: that crate is compiled for `nvptx64` by the
//! nightly toolchain and may use `allow_internal_unstable`, so the `extern "ptx-kernel"` ABI it
//! writes needs no `#![feature(abi_ptx)]` in the user's crate.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, ItemFn, Lit, LitInt, Pat, Path, ReturnType, Type};

/// Makes a function a GPU kernel: an entry point of the PTX module on the GPU, and a function the
/// CPU backend runs on the host.
///
/// ```ignore
/// use cute_rs_tensor::kernel;
/// use cute_rs_tensor::device::ids::global_thread_index_x;
///
/// /// `y[i] = a * x[i] + y[i]` for `i < n`.
/// #[kernel(launch_bounds(256))]
/// pub fn saxpy(a: f32, x: *const f32, y: *mut f32, n: u32) {
///     let i = global_thread_index_x() as usize;
///     if i < n as usize {
///         *y.add(i) = a * *x.add(i) + *y.add(i);
///     }
/// }
/// ```
///
/// # Expansion
/// - On `nvptx64`: `#[no_mangle] pub unsafe extern "ptx-kernel" fn saxpy(...)`, an entry of the
///   PTX module named as written (the name the host launches it by).
/// - On every other target: a constant of the same name, a
///   `cute_rs_tensor::KernelFn<(f32, *const f32, *mut f32, u32)>`, which the host launches with
///   typed arguments (`gpu.launch(&module, my_kernels::saxpy, cfg, (2.0, &x, &mut y, n))`); it
///   holds the body as a plain function, which the CPU backend runs. The kernel is also entered in
///   the CPU backend's registry (`cute_rs_tensor::device::cpu::KERNELS`) by name.
///
/// The body is an `unsafe` context: a kernel takes raw pointers, and its launch vouches for them.
///
/// # Arguments of the attribute
/// - `block(X[, Y[, Z]])`: the block shape the kernel must run with, as constant expressions
///   (`block(THREADS.size())`). A launch with another shape is refused by name on both backends
///   (its [`LaunchContract`](../cute_rs_tensor/struct.LaunchContract.html)). Literal dimensions also
///   give the launch bounds (`.maxntid` of their product) when `launch_bounds` is not given.
/// - `shared_mem(BYTES)`: the dynamic shared memory the kernel must be given, a constant expression
///   (`shared_mem(SMEM.cosize() * 4)`); a launch with another amount is refused.
/// - `gpu_only`: the kernel uses instructions the CPU backend does not have (wgmma, setmaxnreg):
///   its body is compiled for the GPU only. The host still gets its typed constant, and a launch on
///   the CPU backend reports that the kernel needs a GPU.
/// - `launch_bounds(MAX)` or `launch_bounds(MAX, MIN)`: CUDA's `__launch_bounds__`, which rustc
///   lacks. At most `MAX` threads per block, at least `MIN` blocks per SM; the PTX entry gets
///   `.maxntid MAX, 1, 1` and `.minnctapersm MIN` (ptxas then knows the register budget, which
///   `setmaxnreg` needs). Ignored on the host.
/// - `crate = path`: where `cute-rs-tensor` is, when the calling crate cannot name it
///   `::cute_rs_tensor` (a dependency renamed in `Cargo.toml` is found without it).
///
/// A `TmaDescriptorParam` parameter (a tensor map by value) is a grid constant (CUDA's
/// `__grid_constant__`): on the GPU the body sees a `&TmaDescriptorParam` to the map in the
/// launch's parameters (use its `as_ptr()` for the TMA copies), never a copy.
///
/// # Constraints
/// No generic parameters, no `self`, no return value, not `async`; each parameter is a name
/// (`x` or `mut x`) with a type the driver can pass by value: pointers, integers, floats and
/// `#[repr(C)]` structs of those.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    match expand(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// What `#[kernel(...)]` was given.
#[derive(Default)]
struct Options {
    launch_bounds: Option<(LitInt, Option<LitInt>)>,
    block: Vec<Expr>,
    shared_mem: Option<Expr>,
    gpu_only: bool,
    krate: Option<Path>,
}

fn parse_options(attr: TokenStream2) -> syn::Result<Options> {
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("launch_bounds") {
            let content;
            syn::parenthesized!(content in meta.input);
            let max: LitInt = content.parse()?;
            let min = if content.is_empty() {
                None
            } else {
                content.parse::<syn::Token![,]>()?;
                Some(content.parse::<LitInt>()?)
            };
            if !content.is_empty() {
                return Err(content.error("launch_bounds takes (MAX) or (MAX, MIN)"));
            }
            for lit in std::iter::once(&max).chain(min.as_ref()) {
                lit.base10_parse::<u32>()?;
            }
            if max.base10_parse::<u32>()? == 0 || max.base10_parse::<u32>()? > 1024 {
                return Err(syn::Error::new(max.span(), "launch_bounds: MAX threads per block must be in 1..=1024"));
            }
            options.launch_bounds = Some((max, min));
            Ok(())
        } else if meta.path.is_ident("block") {
            let content;
            syn::parenthesized!(content in meta.input);
            let dims = Punctuated::<Expr, syn::Token![,]>::parse_terminated(&content)?;
            if dims.is_empty() || dims.len() > 3 {
                return Err(meta.error("block takes one to three dimensions: block(X), block(X, Y) or block(X, Y, Z)"));
            }
            options.block = dims.into_iter().collect();
            Ok(())
        } else if meta.path.is_ident("shared_mem") {
            let content;
            syn::parenthesized!(content in meta.input);
            options.shared_mem = Some(content.parse()?);
            if !content.is_empty() {
                return Err(content.error("shared_mem takes one expression: the bytes of dynamic shared memory"));
            }
            Ok(())
        } else if meta.path.is_ident("gpu_only") {
            options.gpu_only = true;
            Ok(())
        } else if meta.path.is_ident("crate") {
            let value = meta.value()?;
            options.krate = Some(if value.peek(syn::LitStr) {
                value.parse::<syn::LitStr>()?.parse()?
            } else {
                value.parse()?
            });
            Ok(())
        } else {
            Err(meta.error("unknown #[kernel] argument: expected `launch_bounds(MAX[, MIN])`, `block(X[, Y[, Z]])`, \
                 `shared_mem(BYTES)`, `gpu_only` or `crate = path`"))
        }
    });
    syn::parse::Parser::parse2(parser, attr)?;
    Ok(options)
}

fn expand(attr: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    let options = parse_options(attr)?;
    let func: ItemFn = syn::parse2(item)?;
    let sig = &func.sig;
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            sig.generics.span(),
            "a kernel cannot be generic: the GPU entry needs one concrete signature; call a generic function \
             from a non-generic #[kernel] for each instantiation",
        ));
    }
    if let Some(clause) = &sig.generics.where_clause {
        return Err(syn::Error::new(clause.span(), "a kernel cannot have a where clause"));
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        return Err(syn::Error::new(ty.span(), "a kernel returns nothing: write its results through pointers"));
    }
    if let Some(a) = &sig.asyncness {
        return Err(syn::Error::new(a.span(), "a kernel cannot be async"));
    }
    if let Some(v) = &sig.variadic {
        return Err(syn::Error::new(v.span(), "a kernel cannot be variadic"));
    }
    if let Some(abi) = &sig.abi {
        return Err(syn::Error::new(abi.span(), "#[kernel] chooses the ABI itself: remove the `extern`"));
    }

    let mut names = Vec::new();
    let mut types = Vec::new();
    let mut rebinds = TokenStream2::new();
    let mut grid_constants = Vec::new();
    for (index, input) in sig.inputs.iter().enumerate() {
        let typed = match input {
            FnArg::Typed(t) => t,
            FnArg::Receiver(r) => return Err(syn::Error::new(r.span(), "a kernel takes no `self`")),
        };
        let ident = match &*typed.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                if is_grid_constant(&typed.ty) {
                    if p.mutability.is_some() {
                        return Err(syn::Error::new(
                            p.span(),
                            "a `TmaDescriptorParam` parameter is a grid constant (CUDA's `__grid_constant__`): it cannot be `mut`",
                        ));
                    }
                    grid_constants.push((p.ident.clone(), LitInt::new(&index.to_string(), Span::call_site())));
                }
                if p.mutability.is_some() {
                    let name = &p.ident;
                    rebinds.extend(quote_spanned!(p.span()=> #[allow(unused_mut)] let mut #name = #name;));
                }
                p.ident.clone()
            }
            other => {
                return Err(syn::Error::new(other.span(), "a kernel parameter is a name (`x` or `mut x`), not a pattern"))
            }
        };
        names.push(ident);
        types.push(typed.ty.to_token_stream());
    }

    let krate = match options.krate {
        Some(path) => path.to_token_stream(),
        None => crate_path(),
    };
    let attrs = &func.attrs;
    let cfgs: Vec<_> = attrs.iter().filter(|a| a.path().is_ident("cfg")).collect();
    let vis = &func.vis;
    let name = &sig.ident;
    let stmts = &func.block.stmts;
    // Without explicit launch bounds, a block of literal dimensions gives them: the compiler then
    // knows the register budget for exactly that block.
    let bounds = match options.launch_bounds {
        Some((max, min)) => {
            let min = min.map(|m| quote!(, #m));
            quote!(#max #min)
        }
        None => match literal_product(&options.block) {
            Some(threads) if threads > 1024 => {
                return Err(syn::Error::new(
                    options.block[0].span(),
                    format!("block: {threads} threads per block; at most 1024"),
                ))
            }
            Some(threads) => {
                let lit = LitInt::new(&threads.to_string(), Span::call_site());
                quote!(#lit)
            }
            None => quote!(),
        },
    };
    let block = &options.block;
    let shared = options.shared_mem.iter();
    let (grid_names, grid_indices): (Vec<_>, Vec<_>) = grid_constants.into_iter().unzip();
    let host_types = types.iter().map(|t| {
        let mut ty: Type = syn::parse2(t.clone()).expect("a parsed type");
        StaticLifetimes.visit_type_mut(&mut ty);
        ty
    });
    // A GPU-only kernel's body is not compiled for the host (it calls instructions the CPU backend
    // refuses at compile time): there its launch reports that it needs a GPU.
    let host_body = if options.gpu_only {
        let message = format!(
            "kernel `{name}` runs only on a GPU (#[kernel(gpu_only)]: it uses instructions the CPU backend does not have)"
        );
        quote!({ let _ = (#(#names),*); ::core::panic!(#message) })
    } else {
        quote!({ #rebinds #(#stmts)* })
    };
    Ok(quote! {
        #krate::__kernel! {
            bounds: [#bounds],
            grid_constants: [#(#grid_names #grid_indices),*],
            block: [#(#block),*],
            shared_mem: [#(#shared)*],
            host_params: [#(#host_types),*],
            cfg: [#(#cfgs)*],
            host_body: #host_body,
            #(#attrs)*
            #vis fn #name( #(#names : #types),* ) { #rebinds #(#stmts)* }
        }
    })
}

/// Whether a parameter of type `ty` is passed as a grid constant: a `TmaDescriptorParam` (the
/// tensor map TMA reads from the kernel's parameter space, as CUDA's `const __grid_constant__
/// CUtensorMap`).
fn is_grid_constant(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "TmaDescriptorParam" && s.arguments.is_empty()),
        Type::Paren(p) => is_grid_constant(&p.elem),
        Type::Group(g) => is_grid_constant(&g.elem),
        _ => false,
    }
}

/// The product of `dims` when each is an integer literal.
fn literal_product(dims: &[Expr]) -> Option<u64> {
    if dims.is_empty() {
        return None;
    }
    dims.iter().try_fold(1u64, |p, d| match d {
        Expr::Lit(syn::ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<u64>().ok().map(|v| p * v),
        _ => None,
    })
}

/// Makes every lifetime of a parameter type `'static`: the host's [`KernelFn`] names the types in
/// a constant.
struct StaticLifetimes;

impl VisitMut for StaticLifetimes {
    fn visit_lifetime_mut(&mut self, l: &mut syn::Lifetime) {
        *l = syn::Lifetime::new("'static", l.span());
    }
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(syn::Lifetime::new("'static", Span::call_site()));
        }
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
}

/// The path of `cute-rs-tensor` in the calling crate: the name its `Cargo.toml` gives the
/// dependency (`tensor = { package = "cute-rs-tensor", ... }` is `::tensor`), else
/// `::cute_rs_tensor`.
fn crate_path() -> TokenStream2 {
    let renamed = std::env::var_os("CARGO_MANIFEST_DIR")
        .and_then(|dir| std::fs::read_to_string(std::path::Path::new(&dir).join("Cargo.toml")).ok())
        .and_then(|manifest| dependency_key(&manifest, "cute-rs-tensor"));
    let name = renamed.unwrap_or_else(|| "cute_rs_tensor".to_owned());
    let ident = syn::Ident::new(&name, Span::call_site());
    quote!(::#ident)
}

/// The key under which `manifest` depends on `package` through a `package = "..."` rename,
/// with `-` as `_`.
fn dependency_key(manifest: &str, package: &str) -> Option<String> {
    let wanted = format!("\"{package}\"");
    let mut table_key: Option<String> = None;
    for line in manifest.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            // `[dependencies.tensor]` / `[target.'cfg(..)'.dependencies.tensor]`
            table_key = header.rsplit_once("dependencies.").map(|(_, key)| key.trim().trim_matches('"').to_owned());
            continue;
        }
        let Some((key, value)) = line.split_once('=') else { continue };
        let (key, value) = (key.trim(), value.trim());
        if key == "package" && value.starts_with(&wanted) {
            if let Some(k) = &table_key {
                return Some(k.replace('-', "_"));
            }
        }
        if value.starts_with('{') {
            let inline = value.replace(' ', "");
            if inline.contains(&format!("package={wanted}")) {
                return Some(key.trim_matches('"').replace('-', "_"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renamed_dependencies_are_found() {
        let inline = "[dependencies]\nlayout-tensor = { package = \"cute-rs-tensor\", path = \"../t\" }\n";
        assert_eq!(dependency_key(inline, "cute-rs-tensor").as_deref(), Some("layout_tensor"));
        let table = "[dependencies.cute]\npath = \"x\"\npackage = \"cute-rs-tensor\"\n";
        assert_eq!(dependency_key(table, "cute-rs-tensor").as_deref(), Some("cute"));
        let plain = "[dependencies]\ncute-rs-tensor = { path = \"x\" }\n";
        assert_eq!(dependency_key(plain, "cute-rs-tensor"), None);
    }

    fn expanded(attr: &str, item: &str) -> String {
        match expand(attr.parse().unwrap(), item.parse().unwrap()) {
            Ok(t) => t.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn a_kernel_goes_to_the_device_crate_macro() {
        let out = expanded("launch_bounds(384, 1), crate = ::t", "/// doc\npub fn k(a: *const f32, mut n: u32) { n += 1; }");
        assert!(out.starts_with(":: t :: __kernel !"), "{out}");
        assert!(out.contains("bounds : [384 , 1]"), "{out}");
        assert!(out.contains("pub fn k (a : * const f32 , n : u32)"), "{out}");
        assert!(out.contains("host_params : [* const f32 , u32]"), "{out}");
        assert!(out.contains("let mut n = n ;"), "{out}");
        assert!(out.contains("grid_constants : []"), "{out}");
        assert!(out.contains("# [doc = \" doc\"]"), "{out}");
    }

    #[test]
    fn tensor_maps_by_value_are_grid_constants() {
        let out = expanded("", "fn k(a: *const f32, map: TmaDescriptorParam, b: tma::TmaDescriptorParam, p: *const TmaDescriptor) {}");
        assert!(out.contains("grid_constants : [map 1 , b 2]"), "{out}");
        assert!(expanded("", "fn k(mut map: TmaDescriptorParam) {}").contains("cannot be `mut`"));
    }

    #[test]
    fn contracts_and_host_types() {
        let out = expanded("block(32, 4), shared_mem(SMEM.cosize() * 4)", "fn k(t: Tensor<'_, f32>, r: &u32) {}");
        assert!(out.contains("bounds : [128]"), "a literal block gives the launch bounds: {out}");
        assert!(out.contains("block : [32 , 4]"), "{out}");
        assert!(out.contains("shared_mem : [SMEM . cosize () * 4]"), "{out}");
        assert!(out.contains("host_params : [Tensor < 'static , f32 > , & 'static u32]"), "{out}");
        let out = expanded("block(THREADS)", "#[cfg(feature = \"x\")] fn k() {}");
        assert!(out.contains("bounds : []"), "no literal, no bounds: {out}");
        assert!(out.contains("cfg : [# [cfg (feature = \"x\")]]"), "{out}");
        assert!(expanded("block(64, 32)", "fn k() {}").contains("2048 threads"));
        assert!(expanded("block()", "fn k() {}").contains("one to three"));
    }

    #[test]
    fn bad_kernels_are_refused_with_the_reason() {
        assert!(expanded("", "fn k<T>(a: T) {}").contains("cannot be generic"));
        assert!(expanded("", "fn k() -> u32 { 0 }").contains("returns nothing"));
        assert!(expanded("", "fn k((a, b): (u32, u32)) {}").contains("not a pattern"));
        assert!(expanded("launch_bounds(2048)", "fn k() {}").contains("1..=1024"));
        assert!(expanded("grid(4)", "fn k() {}").contains("unknown #[kernel] argument"));
        assert!(expanded("", "extern \"C\" fn k() {}").contains("chooses the ABI"));
    }
}
