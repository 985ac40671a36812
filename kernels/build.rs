//! Tells dependents where this crate's sources are (`DEP_CUTE_RS_KERNELS_SOURCE`), so that the
//! build script of `cute-rs-ops` can compile them for the GPU, from a checkout or from the
//! unpacked package alike.
fn main() {
    println!("cargo:source={}", std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
}
