//! Triton's `tl.store(pointer, value, mask, cache_modifier, eviction_policy)` over [`Pointers`]: a
//! builder like [`Load`](super::Load), with the store cache operators `.wb`, `.cg`, `.cs`, `.wt`.

use core::marker::PhantomData;

use super::{for_each_index, sealed, Broadcast, EvictionPolicy, LoadMask, Masked, NoCache, NoEviction, NoMask, Pointers};
use crate::device::memory;
pub use crate::device::memory::{Wb, Wt};
use crate::static_layout::StaticLayout;
use crate::tensor::Element;

/// Triton's store `cache_modifier`: [`NoCache`] (`""`), [`Wb`] (`".wb"`, write back), [`Cg`]
/// (`".cg"`, L2 only), [`Cs`] (`".cs"`, streaming), [`Wt`] (`".wt"`, write through). On the GPU
/// they apply to elements of 1, 2, 4, 8 and 16 bytes (`st.global.<op>[.L2::cache_hint]`; other
/// sizes are refused at compile time); on the CPU a store is a plain write. Sealed.
///
/// [`Cg`]: super::Cg
/// [`Cs`]: super::Cs
///
/// # Example
/// ```
/// fn modifier<C: cute_rs_tensor::triton::StoreCacheModifier>(_: C) {}
/// modifier(cute_rs_tensor::triton::Wt);
/// modifier(cute_rs_tensor::triton::Cs);
/// modifier(cute_rs_tensor::triton::NoCache);
/// ```
pub trait StoreCacheModifier: Copy + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn write<T: Element, E: EvictionPolicy>(p: *mut T, v: T, policy: Option<memory::L2Policy>);
}

impl StoreCacheModifier for NoCache {
    #[inline(always)]
    unsafe fn write<T: Element, E: EvictionPolicy>(p: *mut T, v: T, policy: Option<memory::L2Policy>) {
        // Without a cache operator the eviction priority applies to L1 as well (see `NoCache`'s
        // loads).
        #[cfg(target_arch = "nvptx64")]
        if policy.is_some() {
            return write_with::<T, E::L1>(p, v, policy);
        }
        let _ = policy;
        T::write(p, v)
    }
}

/// The store of one element with cache operator `C`: one `st.global` of 1, 2, 4, 8 or 16 bytes on
/// the GPU.
#[inline(always)]
#[allow(unused_variables)]
unsafe fn write_with<T: Element, C: memory::StoreCache + Default>(p: *mut T, v: T, policy: Option<memory::L2Policy>) {
    #[cfg(target_arch = "nvptx64")]
    {
        macro_rules! go {
            ($w:ty) => {{
                let bits: $w = core::mem::transmute_copy(&v);
                match policy {
                    Some(pol) => memory::store_with_policy(p as *mut $w, bits, C::default(), pol),
                    None => memory::store(p as *mut $w, bits, C::default()),
                }
                return;
            }};
        }
        match core::mem::size_of::<T>() {
            1 => go!(u8),
            2 => go!(u16),
            4 => go!(u32),
            8 => go!(u64),
            16 => go!([u32; 4]),
            _ => {}
        }
    }
    T::write(p, v)
}

impl sealed::Sealed for Wb {}
impl sealed::Sealed for Wt {}
macro_rules! store_modifier {
    ($($m:ty),*) => {$(
        impl StoreCacheModifier for $m {
            #[inline(always)]
            unsafe fn write<T: Element, E: EvictionPolicy>(p: *mut T, v: T, policy: Option<memory::L2Policy>) {
                write_with::<T, $m>(p, v, policy)
            }
        }
    )*};
}
store_modifier!(Wb, super::Cg, super::Cs, Wt);

/// A `tl.store` being built over [`Pointers`] (see [`Pointers::store_with`]): the value `V` (a
/// scalar or a tile), mask state `K`, cache modifier `C`, eviction policy `E`.
///
/// # Example
/// ```
/// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
/// use cute_rs_tensor::triton::{tile_from_fn, Pointers, Cs, EvictFirst};
/// static_layout!(T = "4:1");
/// let mut x = [0u32; 4];
/// let p = Pointers::<_, _, 4>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
/// p.store_with(7u32).mask(tile_from_fn::<bool, T, 4, 1>(|[i]| i % 2 == 0)).cache_modifier(Cs).eviction_policy(EvictFirst).run();
/// assert_eq!(x, [7, 0, 7, 0]);
/// ```
pub struct Store<'p, 'a, T, S, const N: usize, V, K, C, E> {
    ptrs: &'p Pointers<'a, T, S, N>,
    value: V,
    mask: K,
    _c: PhantomData<(C, E)>,
}

impl<'a, T: Element, S: StaticLayout, const N: usize> Pointers<'a, T, S, N> {
    /// Starts `tl.store(pointers, value, ...)`: add [`mask`](Store::mask),
    /// [`cache_modifier`](Store::cache_modifier), [`eviction_policy`](Store::eviction_policy),
    /// and [`run`](Store::run) it.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, Wt};
    /// static_layout!(T = "2:1");
    /// let mut x = [0i64; 2];
    /// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// p.store_with(-3i64).cache_modifier(Wt).run();
    /// assert_eq!(x, [-3, -3]);
    /// ```
    #[inline(always)]
    pub fn store_with<V: Broadcast<T, S, N>>(&self, value: V) -> Store<'_, 'a, T, S, N, V, NoMask, NoCache, NoEviction> {
        Store { ptrs: self, value, mask: NoMask, _c: PhantomData }
    }
}

impl<'p, 'a, T: Element, S: StaticLayout, const N: usize, V, C, E> Store<'p, 'a, T, S, N, V, NoMask, C, E> {
    /// `mask=`: a `bool` or a tile of them; masked-out elements are not written (their pointers
    /// need not be valid).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::Pointers;
    /// static_layout!(T = "2:1");
    /// let mut x = [1u8, 2];
    /// let p = Pointers::<_, _, 2>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// p.store_with(9u8).mask(false).run();
    /// assert_eq!(x, [1, 2]);
    /// ```
    #[inline(always)]
    pub fn mask<M: Broadcast<bool, S, N>>(self, mask: M) -> Store<'p, 'a, T, S, N, V, Masked<M>, C, E> {
        Store { ptrs: self.ptrs, value: self.value, mask: Masked(mask), _c: PhantomData }
    }
}

impl<'p, 'a, T: Element, S: StaticLayout, const N: usize, V: Broadcast<T, S, N>, K: LoadMask<S, N>, C: StoreCacheModifier, E: EvictionPolicy>
    Store<'p, 'a, T, S, N, V, K, C, E>
{
    /// `cache_modifier=`: [`Wb`], [`Cg`](super::Cg), [`Cs`](super::Cs), [`Wt`] or [`NoCache`]
    /// (load-only operators such as `Ca` do not compile).
    ///
    /// ```compile_fail
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, Ca};
    /// static_layout!(T = "1:1");
    /// let mut x = [0u32];
    /// let p = Pointers::<_, _, 1>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// p.store_with(1u32).cache_modifier(Ca).run(); // `.ca` is not a store operator
    /// ```
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, Cg};
    /// static_layout!(T = "1:1");
    /// let mut x = [0u32];
    /// let p = Pointers::<_, _, 1>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// p.store_with(5u32).cache_modifier(Cg).run();
    /// assert_eq!(x, [5]);
    /// ```
    #[inline(always)]
    pub fn cache_modifier<C2: StoreCacheModifier>(self, _: C2) -> Store<'p, 'a, T, S, N, V, K, C2, E> {
        super::hinted_size::<T>();
        Store { ptrs: self.ptrs, value: self.value, mask: self.mask, _c: PhantomData }
    }

    /// `eviction_policy=`: [`EvictFirst`](super::EvictFirst), [`EvictLast`](super::EvictLast),
    /// [`EvictNormal`](super::EvictNormal) or [`NoEviction`] (an L2 policy on the GPU, and the L1
    /// priority without a cache operator).
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::{Pointers, EvictLast};
    /// static_layout!(T = "1:1");
    /// let mut x = [0f64];
    /// let p = Pointers::<_, _, 1>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// p.store_with(0.5).eviction_policy(EvictLast).run();
    /// assert_eq!(x, [0.5]);
    /// ```
    #[inline(always)]
    pub fn eviction_policy<E2: EvictionPolicy>(self, _: E2) -> Store<'p, 'a, T, S, N, V, K, C, E2> {
        super::hinted_size::<T>();
        Store { ptrs: self.ptrs, value: self.value, mask: self.mask, _c: PhantomData }
    }

    /// Performs the store: every masked-in element is written.
    ///
    /// # Example
    /// ```
    /// use cute_rs_tensor::{static_layout, LayoutTensor, Static};
    /// use cute_rs_tensor::triton::Pointers;
    /// static_layout!(T = "3:2");
    /// let mut x = [0u16; 6];
    /// let p = Pointers::<_, _, 3>::from_tensor(&LayoutTensor::new(&mut x, Static::<T>::new()).unwrap());
    /// p.store_with(4u16).run();
    /// assert_eq!(x, [4, 0, 4, 0, 4, 0]);
    /// ```
    #[inline(always)]
    pub fn run(self) {
        let policy = E::policy();
        for_each_index::<N>(|i| {
            if self.mask.active(i) {
                // SAFETY: masked-in pointers are valid (constructor contracts).
                unsafe { C::write::<T, E>(self.ptrs.ptr(i), self.value.at(i), policy) };
            }
        });
    }
}
