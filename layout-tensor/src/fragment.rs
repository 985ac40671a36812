//! Register fragments: a `[T; N]` array viewed through a static layout of size `N` (CuTe's
//! `make_fragment_like`, Mojo's `stack_allocation` in local memory). With every index a constant
//! after unrolling, the array lives in registers.

use core::marker::PhantomData;
use cute_rs_layout::Layout;

use crate::mask::{Bounds, Full};
use crate::static_layout::{Static, StaticLayout};
use crate::tensor::{AddressSpace, Element, LayoutTensor, Local};

/// The compact column-major layout of `S`'s shape (the layout of a fragment like `S`).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, StaticLayout, fragment::CompactOf};
/// static_layout!(P = "(2,2):(8,2)");
/// assert_eq!(CompactOf::<P>::LAYOUT.to_string(), "(2,2):(1,2)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct CompactOf<S>(PhantomData<S>);
impl<S: StaticLayout> StaticLayout for CompactOf<S> {
    const LAYOUT: Layout = cute_rs_layout::unwrap!(cute_rs_layout::make_layout_col_major(S::LAYOUT.shape()));
}

/// `N` values of `T` in a local array (16-byte aligned, for vector elements), viewed through the static layout `S` (`N` must be
/// `size(S)` and cover `cosize(S)`: checked at compile time).
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, Fragment};
/// static_layout!(F = "(2,2):(2,1)");
/// let mut f = Fragment::<f32, F, 4>::new();
/// f.tensor().set_at([0, 1], 3.0);
/// assert_eq!(f.data, [0.0, 3.0, 0.0, 0.0]);
/// ```
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub struct Fragment<T, S, const N: usize> {
    /// The values, in storage order.
    pub data: [T; N],
    _s: PhantomData<S>,
}

impl<T: Element, S: StaticLayout, const N: usize> Fragment<T, S, N> {
    /// A zeroed fragment. Fails to compile when `N != size(S)` or `cosize(S) > N`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, Fragment};
    /// static_layout!(F = "4:1");
    /// assert_eq!(Fragment::<u8, F, 4>::new().data, [0; 4]);
    /// ```
    #[inline(always)]
    pub fn new() -> Self {
        const {
            assert!(N as i64 == S::LAYOUT.size(), "a fragment's N must be the size of its layout");
            assert!(S::LAYOUT.cosize() <= N as i64, "a fragment's layout must fit its N values");
        }
        Fragment { data: [T::ZERO; N], _s: PhantomData }
    }

    /// The fragment as a tensor (in [`Local`] memory).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, Fragment};
    /// static_layout!(F = "(2,2):(1,2)");
    /// let mut f = Fragment::<i32, F, 4>::new();
    /// f.tensor().set(3, 7);
    /// assert_eq!(f.data[3], 7);
    /// ```
    #[inline(always)]
    pub fn tensor(&mut self) -> LayoutTensor<'_, T, Static<S>, Local, Full> {
        unsafe { LayoutTensor::from_ptr_in(self.data.as_mut_ptr(), Static::new()) }
    }
}

impl<T: Element, S: StaticLayout, const N: usize> Default for Fragment<T, S, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, T: Element, S: StaticLayout, A: AddressSpace, B: Bounds> LayoutTensor<'a, T, Static<S>, A, B> {
    /// CuTe's `make_fragment_like`: a zeroed register fragment of the same shape (compact,
    /// column-major: [`CompactOf<S>`]; for a partial tile's view too, whose bounds the copies
    /// then apply); `N` is `size(S)` (checked at compile time; with a concrete
    /// `S`, `{ S::SIZE }` may be written).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// static_layout!(M = "(2,3):(3,1)");
    /// let mut v: Vec<u16> = (0..6).collect();
    /// let t = LayoutTensor::new(&mut v, Static::<M>::new()).unwrap();
    /// let mut f = t.make_fragment_like::<6>();
    /// f.tensor().copy_from(&t);
    /// assert_eq!(f.data, [0, 3, 1, 4, 2, 5]);
    /// ```
    #[inline(always)]
    pub fn make_fragment_like<const N: usize>(&self) -> Fragment<T, CompactOf<S>, N> {
        Fragment::new()
    }
}

/// A block's static shared-memory tensor with a static layout (Mojo's `stack_allocation` in shared
/// memory): `shared_tensor!(NAME: T, L)` or `shared_tensor!(NAME: T, L, align A)` declares the
/// shared array of `cosize(L)` elements with [`shared_array!`](crate::shared_array!) and evaluates
/// to a `LayoutTensor<T, Static<L>, Shared>` over it. `NAME` is unique in the PTX module; `T` and
/// `L` are concrete types. On the CPU backend each block of a launch gets its own copy, as on a
/// GPU.
///
/// # Example
/// ```no_run
/// use cute_rs_tensor::{shared_tensor, static_layout};
/// static_layout!(Padded = "(32,32):(33,1)");
/// let tile = shared_tensor!(TILE: f32, Padded, align 16);
/// tile.set_at([1, 2], 1.0);
/// ```
#[macro_export]
macro_rules! shared_tensor {
    ($name:ident : $t:ty, $layout:ty $(, align $align:expr)? $(,)?) => {{
        let __cute_array = $crate::shared_array!(
            $name: [$t; <$layout as $crate::StaticLayout>::LAYOUT.cosize() as usize] $(, align $align)?
        );
        // SAFETY: the array holds cosize(L) elements, every offset the layout produces.
        unsafe {
            $crate::LayoutTensor::<$t, $crate::Static<$layout>, $crate::Shared>::from_ptr_in(
                __cute_array.as_mut_ptr(),
                $crate::Static::new(),
            )
        }
    }};
}
