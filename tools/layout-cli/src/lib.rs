//! The library behind the `layout` tool: expressions of the layout algebra written with CuTe's
//! names ([`expr`]), JSON batch answers ([`batch`], what the conformance cases are checked with),
//! and pictures: layouts, thread-value maps and shared-memory bank conflicts as SVG ([`svg`],
//! [`tile`], [`banks`]). It depends on the algebra alone: building it needs no GPU toolchain.
//!
//! ```
//! let v = cute_rs_layout_cli::expr::eval("logical_divide((4,2,3):(2,1,8), 4:2)").unwrap();
//! assert_eq!(v.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
//! ```

pub mod banks;
pub mod batch;
pub mod expr;
pub mod svg;
pub mod tile;
