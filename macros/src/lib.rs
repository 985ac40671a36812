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
use syn::{FnArg, ItemFn, LitInt, Pat, Path, ReturnType};

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
/// - On every other target: a plain `pub unsafe fn` with the same body, plus an entry in the CPU
///   backend's registry (`cute_rs_tensor::device::cpu::KERNELS`) holding the kernel's name, the
///   sizes of its parameters and a function that reads the arguments from bytes and calls it.
///
/// The body is an `unsafe` context: a kernel takes raw pointers, and its launch vouches for them.
///
/// # Arguments of the attribute
/// - `launch_bounds(MAX)` or `launch_bounds(MAX, MIN)`: CUDA's `__launch_bounds__`, which rustc
///   lacks. At most `MAX` threads per block, at least `MIN` blocks per SM; the PTX entry gets
///   `.maxntid MAX, 1, 1` and `.minnctapersm MIN` (ptxas then knows the register budget, which
///   `setmaxnreg` needs). Ignored on the host.
/// - `crate = path`: where `cute-rs-tensor` is, when the calling crate cannot name it
///   `::cute_rs_tensor` (a dependency renamed in `Cargo.toml` is found without it).
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
        } else if meta.path.is_ident("crate") {
            let value = meta.value()?;
            options.krate = Some(if value.peek(syn::LitStr) {
                value.parse::<syn::LitStr>()?.parse()?
            } else {
                value.parse()?
            });
            Ok(())
        } else {
            Err(meta.error("unknown #[kernel] argument: expected `launch_bounds(MAX[, MIN])` or `crate = path`"))
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
    for input in &sig.inputs {
        let typed = match input {
            FnArg::Typed(t) => t,
            FnArg::Receiver(r) => return Err(syn::Error::new(r.span(), "a kernel takes no `self`")),
        };
        let ident = match &*typed.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
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
    let vis = &func.vis;
    let name = &sig.ident;
    let stmts = &func.block.stmts;
    let bounds = options.launch_bounds.map(|(max, min)| {
        let min = min.map(|m| quote!(, #m));
        quote!(#![launch_bounds(#max #min)])
    });
    Ok(quote! {
        #krate::__kernel! {
            #bounds
            #(#attrs)*
            #vis fn #name( #(#names : #types),* ) { #rebinds #(#stmts)* }
        }
    })
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
        assert!(out.contains("# ! [launch_bounds (384 , 1)]"), "{out}");
        assert!(out.contains("pub fn k (a : * const f32 , n : u32)"), "{out}");
        assert!(out.contains("let mut n = n ;"), "{out}");
        assert!(out.contains("# [doc = \" doc\"]"), "{out}");
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
