//! Compiles the device crate `kernels/` to PTX (and a cubin when `ptxas` is installed).
fn main() -> Result<(), cute_rs_build::Error> {
    cute_rs_build::Builder::new("kernels").arch("sm_90").build()?;
    Ok(())
}
