//! The cute-rs demo: a placeholder until the host runtime can launch kernels.

fn main() {
    println!(
        "cute-rs demo: coming soon. The embedded PTX module ({} bytes, {}) holds these kernels:",
        cute_rs::KERNELS_PTX.len(),
        cute_rs::KERNELS_PTX_ARCH
    );
    for line in cute_rs::KERNELS_PTX.lines() {
        if let Some(rest) = line.strip_prefix(".visible .entry ") {
            println!("  {}", rest.trim_end_matches('('));
        }
    }
}
