//! CuTe's atom layer: single instructions described by their thread-value layouts ([`mma`]), and
//! the same instructions tiled over values and threads ([`tiled_mma`]). The algorithms that run
//! them are in [`algorithm`](crate::algorithm).
//!
//! A kernel's main loop then reads as CuTe's tutorials do:
//! ```
//! use cute_rs_tensor::algorithm::gemm;
//! use cute_rs_tensor::atom::{TiledMma, UniversalFma};
//! use cute_rs_tensor::{static_layout, LayoutTensor, Static};
//! static_layout!(Threads = "(2,2,1)");  // 4 threads, 2 x 2 over C
//! static_layout!(TileA = "(4,8):(8,1)"); // 4 x 8 A, row-major
//! static_layout!(TileB = "(4,8):(8,1)"); // 4 x 8 B^T (B column-major)
//! static_layout!(TileC = "(4,4):(4,1)");
//! type Mma = TiledMma<UniversalFma<f32>, Threads>;
//! let mut a: Vec<f32> = (0..32).map(|i| (i % 5) as f32).collect();
//! let mut b: Vec<f32> = (0..32).map(|i| (i % 3) as f32).collect();
//! let mut c = vec![0f32; 16];
//! let (sa, sb) = (LayoutTensor::new(&mut a, Static::<TileA>::new()).unwrap(), LayoutTensor::new(&mut b, Static::<TileB>::new()).unwrap());
//! let gc = LayoutTensor::new(&mut c, Static::<TileC>::new()).unwrap();
//! for tid in 0..Mma::THREADS {
//!     let thr = Mma::get_slice(tid);
//!     let mut acc = thr.partition_fragment_c::<TileC, 4>();
//!     gemm(Mma::default(), thr.partition_a(sa), thr.partition_b(sb), acc.tensor());
//!     cute_rs_tensor::algorithm::axpby(1.0, acc.tensor(), 0.0, thr.partition_c(gc));
//! }
//! let want = |m: usize, n: usize| (0..8).map(|k| a[m * 8 + k] * b[n * 8 + k]).sum::<f32>();
//! assert!((0..16).all(|i| c[i] == want(i / 4, i % 4)));
//! ```

pub mod copy;
pub mod fragment_copy;
pub mod mma;
pub mod tiled_copy;
pub mod tiled_mma;
pub mod tma;
pub mod wgmma;

pub use mma::{
    MmaAtom, UniversalFma, SM80_16x8x16_F32BF16BF16F32_TN, SM80_16x8x16_F32F16F16F32_TN, SM80_16x8x8_F32TF32TF32F32_TN,
};
pub use copy::{make_tiled_copy_a, make_tiled_copy_b, CopyAtom, MmaCopy, ThrCopy};
pub use fragment_copy::{make_tiled_copy_c, FragmentCopy, ThrFragmentCopy};
pub use tiled_copy::{copy_if, make_tiled_copy, ThrTiledCopy, TiledCopy};
pub use tiled_mma::{ThrMma, TiledMma};
