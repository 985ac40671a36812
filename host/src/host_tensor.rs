//! Host tensors for preparing test data and checking results: [`HostTensor`] (a `Vec` seen through a
//! [`Layout`] or a swizzled [`SwizzledLayout`](cute_rs_layout::SwizzledLayout)), fills (sequence, seeded
//! random through [`Rng`]), copies between layouts ([`HostTensor::to_layout`]), comparison with a
//! [`Tolerance`] ([`CompareError`] names the first differing coordinate) and printing.

use std::fmt;
use std::ops::{Index, IndexMut};

use cute_rs_layout::{IntTuple, Layout};
use cute_rs_tensor::LayoutSource;

use crate::error::invalid;
use crate::{DeviceBuffer, Gpu, Numeric, Result};

/// A small deterministic pseudo-random generator (SplitMix64): the same seed gives the same numbers
/// on every machine.
///
/// # Example
/// ```
/// let mut a = cute_rs_host::Rng::new(42);
/// let mut b = cute_rs_host::Rng::new(42);
/// assert_eq!(a.next_u64(), b.next_u64());
/// let x = a.next_f64();
/// assert!((0.0..1.0).contains(&x));
/// ```
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator seeded with `seed`.
    ///
    /// # Example
    /// ```
    /// let r = cute_rs_host::Rng::new(7);
    /// # let _ = r;
    /// ```
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    ///
    /// # Example
    /// ```
    /// let mut r = cute_rs_host::Rng::new(1);
    /// assert_ne!(r.next_u64(), r.next_u64());
    /// ```
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform number in `[0, 1)` (53 random bits).
    ///
    /// # Example
    /// ```
    /// let mut r = cute_rs_host::Rng::new(3);
    /// assert!((0..1000).map(|_| r.next_f64()).all(|x| (0.0..1.0).contains(&x)));
    /// ```
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// How close two values must be: `|got - expected| <= abs + rel * |expected|`, or both NaN, or
/// equal.
///
/// # Example
/// ```
/// use cute_rs_host::Tolerance;
/// let t = Tolerance::new(1e-6, 1e-5);
/// assert!(t.accepts(100.0005, 100.0));
/// assert!(!t.accepts(100.01, 100.0));
/// assert!(Tolerance::EXACT.accepts(f64::NAN, f64::NAN));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Absolute tolerance.
    pub abs: f64,
    /// Relative tolerance (times `|expected|`).
    pub rel: f64,
}

impl Tolerance {
    /// Bit-exact equality (NaN matches NaN).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    /// `abs` absolute plus `rel` relative tolerance.
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::Tolerance::new(0.0, 1e-3);
    /// assert!(t.accepts(1000.5, 1000.0));
    /// ```
    pub const fn new(abs: f64, rel: f64) -> Tolerance {
        Tolerance { abs, rel }
    }

    /// Whether `got` is close enough to `expected`.
    ///
    /// # Example
    /// ```
    /// assert!(cute_rs_host::Tolerance::new(0.5, 0.0).accepts(1.4, 1.0));
    /// ```
    pub fn accepts(&self, got: f64, expected: f64) -> bool {
        got == expected
            || (got.is_nan() && expected.is_nan())
            || (got - expected).abs() <= self.abs + self.rel * expected.abs()
    }

    fn accepts_elem<T: Numeric>(&self, got: T, expected: T) -> bool {
        got.same(expected) || (*self != Tolerance::EXACT && self.accepts(got.to_f64(), expected.to_f64()))
    }
}

/// Why [`HostTensor::compare`] failed.
///
/// # Example
/// ```
/// use cute_rs_host::{HostTensor, Tolerance};
/// use cute_rs_layout::Layout;
/// let want = HostTensor::<i32>::from_vec(Layout::parse("(2,2):(1,2)").unwrap(), vec![1, 2, 3, 4])?;
/// let got = HostTensor::<i32>::from_vec(Layout::parse("(2,2):(1,2)").unwrap(), vec![1, 2, 3, 5])?;
/// let e = got.compare(&want, Tolerance::EXACT).unwrap_err();
/// assert_eq!(e.to_string(), "at (1,1) (element 3): got 5, expected 4; 1 of 4 elements differ");
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum CompareError {
    /// The tensors' shapes differ (per top-level mode).
    Shape {
        /// The compared tensor's shape.
        got: String,
        /// The reference's shape.
        expected: String,
    },
    /// Values differ.
    Values {
        /// The first differing coordinate: one 1-D coordinate per top-level mode.
        coord: Vec<i64>,
        /// Its 1-D (colexicographic) index.
        index: usize,
        /// The compared tensor's value there.
        got: String,
        /// The reference's value there.
        expected: String,
        /// How many elements differ.
        mismatches: usize,
        /// How many elements were compared.
        size: usize,
    },
}

impl fmt::Display for CompareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompareError::Shape { got, expected } => {
                write!(f, "shape {got} differs from the expected shape {expected}")
            }
            CompareError::Values { coord, index, got, expected, mismatches, size } => {
                let c: Vec<String> = coord.iter().map(|c| c.to_string()).collect();
                write!(
                    f,
                    "at ({}) (element {index}): got {got}, expected {expected}; {mismatches} of {size} elements differ",
                    c.join(",")
                )
            }
        }
    }
}

impl std::error::Error for CompareError {}

/// A host tensor: values in a `Vec` seen through a layout `L`: a [`Layout`] (the default) or a
/// swizzled [`SwizzledLayout`](cute_rs_layout::SwizzledLayout) (any [`LayoutSource`] that prints).
///
/// The storage holds `cosize` elements (strides must be non-negative). Coordinates are one 1-D
/// coordinate per top-level mode of the layout (a nested mode is indexed colexicographically), as
/// in `t[[row, col]]`; the 1-D index of a tensor (fills, [`HostTensor::coord`]) runs over the shape
/// colexicographically (mode 0 fastest). [`to_layout`](HostTensor::to_layout) copies a tensor
/// into another layout of the same shape (packing a matrix into a swizzled tile, and back).
///
/// # Example
/// ```
/// use cute_rs_host::{HostTensor, Tolerance};
/// use cute_rs_layout::Layout;
/// // A 3 x 4 row-major matrix: mode 0 = rows (stride 4), mode 1 = columns (stride 1).
/// let mut a = HostTensor::<f32>::new(Layout::parse("(3,4):(4,1)").unwrap())?;
/// a.fill_sequence(0.0, 1.0); // a[[i, j]] = i + 3 j
/// assert_eq!(a[[2, 1]], 5.0);
/// assert_eq!(a.data()[2 * 4 + 1], 5.0);
/// a[[0, 0]] = -1.0;
/// let mut b = HostTensor::<f32>::new(Layout::parse("(3,4):(1,3)").unwrap())?; // column-major copy
/// b.fill_with(|c| a[[c[0], c[1]]]);
/// assert!(b.compare(&a, Tolerance::EXACT).is_ok());
/// println!("{a}");
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct HostTensor<T: Numeric, L: LayoutSource = Layout> {
    data: Vec<T>,
    layout: L,
    /// Size of each top-level mode.
    modes: Vec<i64>,
}

fn mode_sizes(layout: &Layout) -> Vec<i64> {
    if layout.is_int() {
        return vec![layout.size()];
    }
    (0..layout.rank()).map(|i| layout.mode(i).map(|m| m.size()).unwrap_or(1)).collect()
}

impl<T: Numeric, L: LayoutSource + fmt::Display> HostTensor<T, L> {
    /// A tensor of `layout` filled with zeros (`T::default()`).
    ///
    /// # Errors
    /// [`HostError::Invalid`](crate::HostError::Invalid) for a layout with a negative stride (or,
    /// swizzled, a negative offset).
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::<u8>::new(cute_rs_layout::Layout::parse("(4,8):(8,1)").unwrap())?;
    /// assert_eq!(t.data().len(), 32);
    /// assert!(t.data().iter().all(|&v| v == 0));
    /// // Swizzled: Sw<1,0,1> o 3:1 puts element 2 at offset 3, so the storage holds 4.
    /// let sw = cute_rs_layout::make_swizzled(cute_rs_layout::Swizzle::new(1, 0, 1).unwrap(), cute_rs_layout::Layout::parse("3:1").unwrap());
    /// assert_eq!(cute_rs_host::HostTensor::<u8, _>::new(sw)?.data().len(), 4);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn new(layout: L) -> Result<HostTensor<T, L>> {
        let n = Self::storage_len(&layout)?;
        Ok(HostTensor { data: vec![T::default(); n], modes: mode_sizes(&layout.layout()), layout })
    }

    /// A tensor of `layout` over `data` (at least `cosize` elements: e.g. a downloaded buffer).
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::from_vec(cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap(), vec![0, 1, 2, 3, 4, 5])?;
    /// assert_eq!(t[[1, 0]], 3);
    /// assert!(cute_rs_host::HostTensor::from_vec(cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap(), vec![0; 5]).is_err());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn from_vec(layout: L, data: Vec<T>) -> Result<HostTensor<T, L>> {
        let n = Self::storage_len(&layout)?;
        if data.len() < n {
            invalid!("a tensor of layout {layout} needs {n} elements of storage, {} given", data.len());
        }
        Ok(HostTensor { data, modes: mode_sizes(&layout.layout()), layout })
    }

    fn storage_len(layout: &L) -> Result<usize> {
        let flat = cute_rs_layout::flatten(layout.layout());
        if let Some(d) = flat.stride().leaves().iter().zip(flat.shape().leaves()).find(|&(&d, &s)| d < 0 && s > 1) {
            invalid!("host tensors need non-negative strides; layout {layout} has stride {}", d.0);
        }
        // Non-negative strides put the inner layout's smallest offset at index 0; only a swizzled
        // layout's own offset can move it below the storage.
        let first = layout.offset(0);
        if first < 0 {
            invalid!("host tensors need non-negative offsets; layout {layout} maps index 0 to {first}");
        }
        Ok(layout.cosize().max(0) as usize)
    }

    /// The layout.
    ///
    /// # Example
    /// ```
    /// let l = cute_rs_layout::Layout::parse("(4,4):(1,4)").unwrap();
    /// assert_eq!(cute_rs_host::HostTensor::<f64>::new(l)?.layout(), l);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn layout(&self) -> L {
        self.layout
    }

    /// The shape.
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::<f64>::new(cute_rs_layout::Layout::parse("(4,(2,2)):(4,(1,2))").unwrap())?;
    /// assert_eq!(t.shape().to_string(), "(4,(2,2))");
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn shape(&self) -> IntTuple {
        self.layout.layout().shape()
    }

    /// Number of coordinates (the size of the shape).
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::<f64>::new(cute_rs_layout::Layout::parse("(4,4):(1,8)").unwrap())?;
    /// assert_eq!(t.size(), 16);
    /// assert_eq!(t.data().len(), 28); // padded rows
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn size(&self) -> usize {
        LayoutSource::size(&self.layout) as usize
    }

    /// The storage.
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::from_vec(cute_rs_layout::Layout::parse("4:1").unwrap(), vec![1, 2, 3, 4])?;
    /// assert_eq!(t.data(), [1, 2, 3, 4]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The storage, mutable.
    ///
    /// # Example
    /// ```
    /// let mut t = cute_rs_host::HostTensor::<i32>::new(cute_rs_layout::Layout::parse("4:1").unwrap())?;
    /// t.data_mut()[3] = 9;
    /// assert_eq!(t[[3]], 9);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn data_mut(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The storage, by value.
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::<i32>::new(cute_rs_layout::Layout::parse("2:1").unwrap())?;
    /// assert_eq!(t.into_vec(), vec![0, 0]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// The storage offset of `coord` (one 1-D coordinate per top-level mode).
    ///
    /// # Errors
    /// [`HostError::Invalid`](crate::HostError::Invalid) when the coordinate has the wrong rank or
    /// is out of bounds.
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::<f32>::new(cute_rs_layout::Layout::parse("(4,(2,3)):(6,(1,2))").unwrap())?;
    /// assert_eq!(t.offset(&[1, 5])?, 6 + 5);
    /// assert!(t.offset(&[4, 0]).is_err());
    /// assert!(t.offset(&[1]).is_err());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn offset(&self, coord: &[i64]) -> Result<usize> {
        if coord.len() != self.modes.len() {
            invalid!(
                "coordinate {coord:?} has {} values, the tensor of layout {} has {} modes",
                coord.len(),
                self.layout,
                self.modes.len()
            );
        }
        for (i, (&c, &n)) in coord.iter().zip(&self.modes).enumerate() {
            if c < 0 || c >= n {
                invalid!("coordinate {coord:?} is out of bounds in mode {i} (extent {n}) of layout {}", self.layout);
            }
        }
        Ok(self.layout.offset_at(coord) as usize)
    }

    /// The value at `coord`.
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::from_vec(cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap(), vec![1, 2, 3, 4])?;
    /// assert_eq!(t.get(&[0, 1])?, 2);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn get(&self, coord: &[i64]) -> Result<T> {
        Ok(self.data[self.offset(coord)?])
    }

    /// Sets the value at `coord`.
    ///
    /// # Example
    /// ```
    /// let mut t = cute_rs_host::HostTensor::<u16>::new(cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap())?;
    /// t.set(&[1, 0], 7)?;
    /// assert_eq!(t.data(), [0, 0, 7, 0]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn set(&mut self, coord: &[i64], value: T) -> Result<()> {
        let o = self.offset(coord)?;
        self.data[o] = value;
        Ok(())
    }

    /// The coordinate (one value per top-level mode) of the 1-D index `i` (`i < size()`).
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::<f32>::new(cute_rs_layout::Layout::parse("(3,4):(4,1)").unwrap())?;
    /// assert_eq!(t.coord(7), [1, 2]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn coord(&self, i: usize) -> Vec<i64> {
        let mut rest = i as i64;
        self.modes
            .iter()
            .map(|&n| {
                let c = rest % n;
                rest /= n;
                c
            })
            .collect()
    }

    /// The value at 1-D index `i` (colexicographic over the shape).
    ///
    /// # Example
    /// ```
    /// let t = cute_rs_host::HostTensor::from_vec(cute_rs_layout::Layout::parse("(2,2):(2,1)").unwrap(), vec![1, 2, 3, 4])?;
    /// assert_eq!(t.at_index(1), 3); // coordinate (1, 0)
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn at_index(&self, i: usize) -> T {
        self.data[self.layout.offset(i as i64) as usize]
    }

    /// Sets every element from its coordinate.
    ///
    /// # Example
    /// ```
    /// let mut t = cute_rs_host::HostTensor::<i64>::new(cute_rs_layout::Layout::parse("(3,3):(3,1)").unwrap())?;
    /// t.fill_with(|c| 10 * c[0] + c[1]);
    /// assert_eq!(t[[2, 1]], 21);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn fill_with(&mut self, mut f: impl FnMut(&[i64]) -> T) {
        for i in 0..self.size() {
            let c = self.coord(i);
            let o = self.layout.offset(i as i64) as usize;
            self.data[o] = f(&c);
        }
    }

    /// Sets the element of 1-D index `i` to `start + i * step` (converted to `T`).
    ///
    /// # Example
    /// ```
    /// let mut t = cute_rs_host::HostTensor::<f32>::new(cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap())?;
    /// t.fill_sequence(1.0, 0.5);
    /// assert_eq!(t.data(), [1.0, 2.0, 3.0, 1.5, 2.5, 3.5]);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn fill_sequence(&mut self, start: f64, step: f64) {
        for i in 0..self.size() {
            let o = self.layout.offset(i as i64) as usize;
            self.data[o] = T::from_f64(start + step * i as f64);
        }
    }

    /// Fills with random values from `seed`: integers over their whole range, floats in `[-1, 1)`.
    ///
    /// # Example
    /// ```
    /// let l = cute_rs_layout::Layout::parse("(8,8):(8,1)").unwrap();
    /// let (mut a, mut b) = (cute_rs_host::HostTensor::<f32>::new(l)?, cute_rs_host::HostTensor::<f32>::new(l)?);
    /// a.fill_random(5);
    /// b.fill_random(5);
    /// assert_eq!(a.data(), b.data());
    /// assert!(a.data().iter().all(|v| (-1.0..1.0).contains(v)));
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn fill_random(&mut self, seed: u64) {
        let mut rng = Rng::new(seed);
        for i in 0..self.size() {
            let o = self.layout.offset(i as i64) as usize;
            self.data[o] = T::from_random_bits(rng.next_u64());
        }
    }

    /// Fills with values uniform in `[lo, hi)` from `seed` (integers: rounded down).
    ///
    /// # Example
    /// ```
    /// let mut t = cute_rs_host::HostTensor::<i32>::new(cute_rs_layout::Layout::parse("100:1").unwrap())?;
    /// t.fill_random_range(1, -3.0, 3.0);
    /// assert!(t.data().iter().all(|v| (-3..3).contains(v)));
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn fill_random_range(&mut self, seed: u64, lo: f64, hi: f64) {
        let mut rng = Rng::new(seed);
        for i in 0..self.size() {
            let o = self.layout.offset(i as i64) as usize;
            let v = lo + (hi - lo) * rng.next_f64();
            self.data[o] = T::from_f64(if T::IS_FLOAT { v } else { v.floor() });
        }
    }

    /// Compares with `expected` coordinate by coordinate (the layouts may differ; the sizes of the
    /// top-level modes must agree).
    ///
    /// # Errors
    /// [`CompareError::Values`] naming the first differing coordinate (and how many differ), or
    /// [`CompareError::Shape`].
    ///
    /// # Example
    /// ```
    /// use cute_rs_host::{HostTensor, Tolerance};
    /// let l = cute_rs_layout::Layout::parse("(2,2):(1,2)").unwrap();
    /// let got = HostTensor::from_vec(l, vec![1.0f32, 2.0, 3.0, 4.0001])?;
    /// let want = HostTensor::from_vec(l, vec![1.0f32, 2.0, 3.0, 4.0])?;
    /// assert!(got.compare(&want, Tolerance::new(1e-3, 0.0)).is_ok());
    /// let e = got.compare(&want, Tolerance::EXACT).unwrap_err();
    /// assert!(matches!(e, cute_rs_host::CompareError::Values { index: 3, .. }));
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn compare<L2: LayoutSource + fmt::Display>(
        &self,
        expected: &HostTensor<T, L2>,
        tol: Tolerance,
    ) -> std::result::Result<(), CompareError> {
        if self.modes != expected.modes {
            return Err(CompareError::Shape { got: self.shape().to_string(), expected: expected.shape().to_string() });
        }
        let mut first = None;
        let mut mismatches = 0;
        for i in 0..self.size() {
            let (g, e) = (self.at_index(i), expected.at_index(i));
            if !tol.accepts_elem(g, e) {
                mismatches += 1;
                if first.is_none() {
                    first = Some((i, g, e));
                }
            }
        }
        match first {
            None => Ok(()),
            Some((index, g, e)) => Err(CompareError::Values {
                coord: self.coord(index),
                index,
                got: g.to_string(),
                expected: e.to_string(),
                mismatches,
                size: self.size(),
            }),
        }
    }

    /// A copy in `layout`: the element at each coordinate is this tensor's element at that
    /// coordinate. Packs a matrix into a swizzled or tiled layout, or unpacks it back (CuTe's
    /// `copy` between two tensors of one shape).
    ///
    /// The shapes must agree mode by mode in size (their nesting may differ: a nested mode is
    /// indexed colexicographically, as everywhere in [`HostTensor`]). Storage the layout does not
    /// reach (padding) is zero.
    ///
    /// # Errors
    /// [`HostError::Invalid`](crate::HostError::Invalid) `shape mismatch: A vs B` when the ranks or
    /// the sizes of the top-level modes differ; the errors of [`HostTensor::new`] for `layout`.
    ///
    /// # Example
    /// ```
    /// use cute_rs_host::{HostTensor, Tolerance};
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// let rows = Layout::parse("(8,8):(8,1)").unwrap();
    /// let mut a = HostTensor::<i32>::new(rows)?;
    /// a.fill_with(|c| (10 * c[0] + c[1]) as i32);
    /// // Into the 8 x 8 tile a kernel reads through Sw<3,0,3>: row r's columns XORed with r.
    /// let tile = make_swizzled(Swizzle::new(3, 0, 3).unwrap(), rows);
    /// let packed = a.to_layout(tile)?;
    /// assert_eq!(packed[[2, 3]], 23);
    /// assert_eq!(packed.data()[2 * 8 + (3 ^ 2)], 23);
    /// // Unpacking gives the matrix back; a tiled layout of the same mode sizes works alike.
    /// assert_eq!(packed.to_layout(rows)?.data(), a.data());
    /// let tiled = a.to_layout(Layout::parse("((4,2),(4,2)):((1,32),(4,16))").unwrap())?;
    /// assert!(tiled.compare(&a, Tolerance::EXACT).is_ok());
    /// // The shapes must agree.
    /// let e = a.to_layout(Layout::parse("(4,16):(16,1)").unwrap()).unwrap_err();
    /// assert_eq!(e.to_string(), "invalid: to_layout: shape mismatch: (8,8) vs (4,16) (the sizes of the top-level modes must agree)");
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn to_layout<L2: LayoutSource + fmt::Display>(&self, layout: L2) -> Result<HostTensor<T, L2>> {
        let to = layout.layout();
        if mode_sizes(&to) != self.modes {
            invalid!(
                "to_layout: shape mismatch: {} vs {} (the sizes of the top-level modes must agree)",
                self.shape(),
                to.shape()
            );
        }
        let mut out = HostTensor::new(layout)?;
        // Equal top-level mode sizes give every 1-D index the same per-mode coordinate in both.
        for i in 0..self.size() {
            let o = out.layout.offset(i as i64) as usize;
            out.data[o] = self.at_index(i);
        }
        Ok(out)
    }
}

/// Indexing by coordinate (one value per top-level mode); panics out of bounds.
impl<T: Numeric, L: LayoutSource + fmt::Display, const N: usize> Index<[i64; N]> for HostTensor<T, L> {
    type Output = T;
    fn index(&self, coord: [i64; N]) -> &T {
        match self.offset(&coord) {
            Ok(o) => &self.data[o],
            Err(e) => panic!("{e}"),
        }
    }
}

impl<T: Numeric, L: LayoutSource + fmt::Display, const N: usize> IndexMut<[i64; N]> for HostTensor<T, L> {
    fn index_mut(&mut self, coord: [i64; N]) -> &mut T {
        match self.offset(&coord) {
            Ok(o) => &mut self.data[o],
            Err(e) => panic!("{e}"),
        }
    }
}

/// Rows and columns printed unless `{:#}` asks for everything.
const PRINT_ROWS: usize = 64;
const PRINT_COLS: usize = 32;

impl<T: Numeric, L: LayoutSource + fmt::Display> HostTensor<T, L> {
    fn cell(&self, v: T, f: &fmt::Formatter<'_>) -> String {
        match f.precision() {
            Some(p) if T::IS_FLOAT => format!("{:.*}", p, v),
            _ => v.to_string(),
        }
    }

    /// The value at a coordinate known to be in bounds. Through the whole coordinate rather than
    /// per-mode offsets: a swizzled layout's offsets do not add up mode by mode.
    fn value_at(&self, coord: &[i64]) -> T {
        self.data[self.layout.offset_at(coord) as usize]
    }

    /// Writes the 2-D table of modes 0 (rows) and 1 (columns) at the coordinate `rest` of modes 2...
    fn table(&self, f: &mut fmt::Formatter<'_>, rows: i64, cols: i64, rest: &[i64]) -> fmt::Result {
        let all = f.alternate();
        let shown_rows = if all { rows } else { rows.min(PRINT_ROWS as i64) };
        let shown_cols = if all { cols } else { cols.min(PRINT_COLS as i64) };
        let mut cells = Vec::new();
        let mut coord = vec![0, 0];
        coord.extend_from_slice(rest);
        for r in 0..shown_rows {
            let row: Vec<String> = (0..shown_cols)
                .map(|c| {
                    coord[0] = r;
                    coord[1] = c;
                    self.cell(self.value_at(&coord), f)
                })
                .collect();
            cells.push(row);
        }
        let width = cells.iter().flatten().map(|s| s.len()).max().unwrap_or(1);
        let label = (shown_rows.max(1) - 1).to_string().len();
        write!(f, "{:>label$} ", "")?;
        for c in 0..shown_cols {
            write!(f, " {c:>width$}")?;
        }
        if shown_cols < cols {
            write!(f, " ... ({cols} columns)")?;
        }
        writeln!(f)?;
        for (r, row) in cells.iter().enumerate() {
            write!(f, "{r:>label$}:")?;
            for s in row {
                write!(f, " {s:>width$}")?;
            }
            if shown_cols < cols {
                write!(f, " ...")?;
            }
            writeln!(f)?;
        }
        if shown_rows < rows {
            writeln!(f, "... ({rows} rows; `{{:#}}` prints everything)")?;
        }
        Ok(())
    }
}

/// Prints the layout, then the values: a 2-D table (rows: mode 0, columns: mode 1) for rank 2, one
/// row for rank 1, and one table per coordinate of modes 2... for higher ranks. Large tensors are
/// cut to 64 rows and 32 columns unless printed with `{:#}`; `{:.3}` sets the precision of floats.
///
/// # Example
/// ```
/// let mut t = cute_rs_host::HostTensor::<i32>::new(cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap())?;
/// t.fill_sequence(0.0, 1.0);
/// assert_eq!(t.to_string(), "HostTensor<i32> (2,3):(3,1)\n   0 1 2\n0: 0 2 4\n1: 1 3 5\n");
/// # Ok::<(), cute_rs_host::HostError>(())
/// ```
impl<T: Numeric, L: LayoutSource + fmt::Display> fmt::Display for HostTensor<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "HostTensor<{}> {}", T::NAME, self.layout)?;
        match self.modes.len() {
            0 => writeln!(f, "{}", self.cell(self.data.first().copied().unwrap_or_default(), f)),
            1 => {
                // One row: columns are the single mode.
                let n = self.modes[0];
                let shown = if f.alternate() { n } else { n.min(PRINT_COLS as i64 * 4) };
                let vals: Vec<String> = (0..shown).map(|i| self.cell(self.value_at(&[i]), f)).collect();
                write!(f, "{}", vals.join(" "))?;
                if shown < n {
                    write!(f, " ... ({n} elements)")?;
                }
                writeln!(f)
            }
            2 => self.table(f, self.modes[0], self.modes[1], &[]),
            _ => {
                let outer: i64 = self.modes[2..].iter().product();
                for k in 0..outer {
                    let mut rest = k;
                    let mut idx = Vec::new();
                    for &n in &self.modes[2..] {
                        idx.push(rest % n);
                        rest /= n;
                    }
                    let names: Vec<String> = idx.iter().map(|c| c.to_string()).collect();
                    writeln!(f, "[:, :, {}]", names.join(", "))?;
                    self.table(f, self.modes[0], self.modes[1], &idx)?;
                }
                Ok(())
            }
        }
    }
}

impl<T: Numeric, L: LayoutSource + fmt::Display> fmt::Debug for HostTensor<T, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Gpu {
    /// Copies a host tensor's storage to a new device buffer.
    ///
    /// # Example
    /// ```
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let mut a = cute_rs_host::HostTensor::<f32>::new(cute_rs_layout::Layout::parse("(64,64):(64,1)").unwrap())?;
    /// a.fill_random(1);
    /// let buf = gpu.upload_tensor(&a)?;
    /// assert_eq!(buf.len(), 4096);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn upload_tensor<T: Numeric, L: LayoutSource + fmt::Display>(&self, t: &HostTensor<T, L>) -> Result<DeviceBuffer<T>> {
        self.upload(t.data())
    }

    /// Downloads `buf` as a host tensor of `layout` (the buffer must hold its `cosize` elements).
    /// A [`DeviceTensor`](crate::DeviceTensor) remembers its layout:
    /// [`DeviceTensor::download`](crate::DeviceTensor::download) needs none.
    ///
    /// # Example
    /// ```
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let l = cute_rs_layout::Layout::parse("(64,64):(64,1)").unwrap();
    /// let mut want = cute_rs_host::HostTensor::<f32>::new(l)?;
    /// want.fill_random(1);
    /// let buf = gpu.upload_tensor(&want)?;
    /// let got = gpu.download_tensor(&buf, l)?;
    /// got.compare(&want, cute_rs_host::Tolerance::EXACT).map_err(|e| cute_rs_host::HostError::Invalid(e.to_string()))?;
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn download_tensor<T: Numeric, L: LayoutSource + fmt::Display>(
        &self,
        buf: &DeviceBuffer<T>,
        layout: L,
    ) -> Result<HostTensor<T, L>> {
        HostTensor::from_vec(layout, self.download(buf)?)
    }
}

impl<T: Numeric, L: LayoutSource + fmt::Display> crate::DeviceTensor<'_, T, L> {
    /// Downloads the buffer as a host tensor of this tensor's layout (no layout to repeat: the
    /// device tensor holds it).
    ///
    /// # Errors
    /// The errors of [`Gpu::download`] (the buffer belongs to another context, a CUDA failure).
    ///
    /// # Example
    /// ```
    /// use cute_rs_host::{Gpu, HostTensor, Tolerance};
    /// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
    /// let gpu = Gpu::cpu();
    /// let mut a = HostTensor::<f32>::new(Layout::parse("(8,8):(8,1)").unwrap())?;
    /// a.fill_random(3);
    /// let packed = a.to_layout(make_swizzled(Swizzle::new(3, 0, 3).unwrap(), a.layout()))?;
    /// let buf = gpu.upload_tensor(&packed)?;
    /// let t = buf.tensor(packed.layout())?;
    /// let back = t.download(&gpu)?;
    /// assert_eq!(back.layout(), packed.layout());
    /// assert!(back.compare(&a, Tolerance::EXACT).is_ok());
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn download(&self, gpu: &Gpu) -> Result<HostTensor<T, L>> {
        gpu.download_tensor(self.buffer(), *self.layout())
    }
}

impl<T: Numeric, L: LayoutSource + fmt::Display> crate::DeviceTensorMut<'_, T, L> {
    /// Downloads the buffer as a host tensor of this tensor's layout (a kernel's output, read
    /// back without repeating its layout).
    ///
    /// # Errors
    /// The errors of [`Gpu::download`].
    ///
    /// # Example
    /// ```
    /// let gpu = cute_rs_host::Gpu::cpu();
    /// let mut buf = gpu.upload(&[1u32, 2, 3, 4, 5, 6])?;
    /// let d = buf.tensor_mut(cute_rs_layout::Layout::parse("(2,3):(3,1)").unwrap())?;
    /// // ... a kernel writes `d` ...
    /// let got = d.download(&gpu)?;
    /// assert_eq!(got[[1, 0]], 4);
    /// # Ok::<(), cute_rs_host::HostError>(())
    /// ```
    pub fn download(&self, gpu: &Gpu) -> Result<HostTensor<T, L>> {
        gpu.download_tensor(self.as_buffer(), *self.layout())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HostError;

    fn l(s: &str) -> Layout {
        Layout::parse(s).unwrap()
    }

    #[test]
    fn rng_is_deterministic_and_spread() {
        let mut r = Rng::new(0);
        let first: Vec<u64> = (0..4).map(|_| r.next_u64()).collect();
        // SplitMix64 reference values for seed 0.
        assert_eq!(first[0], 0xE220_A839_7B1D_CDAF);
        assert_eq!(first[1], 0x6E78_9E6A_A1B9_65F4);
        let mut r = Rng::new(99);
        let mean: f64 = (0..10000).map(|_| r.next_f64()).sum::<f64>() / 10000.0;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
    }

    #[test]
    fn storage_and_offsets() {
        let t = HostTensor::<f32>::new(l("(4,(2,3)):(6,(1,2))")).unwrap();
        assert_eq!(t.data().len(), 24);
        assert_eq!(t.offset(&[3, 5]).unwrap(), 23);
        assert_eq!(t.offset(&[1, 2]).unwrap(), 6 + 2);
        match t.offset(&[0, 6]) {
            Err(HostError::Invalid(m)) => assert!(m.contains("out of bounds in mode 1 (extent 6)"), "{m}"),
            other => panic!("{other:?}"),
        }
        match t.offset(&[0, 0, 0]) {
            Err(HostError::Invalid(m)) => assert!(m.contains("has 3 values") && m.contains("2 modes"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(t.offset(&[-1, 0]).is_err());
        // Integer (rank-1) layouts and broadcasts.
        let t = HostTensor::<u8>::new(l("8:2")).unwrap();
        assert_eq!(t.data().len(), 15);
        assert_eq!(t.offset(&[7]).unwrap(), 14);
        let t = HostTensor::<u8>::new(l("(4,8):(1,0)")).unwrap();
        assert_eq!(t.data().len(), 4);
        assert_eq!(t.offset(&[3, 7]).unwrap(), 3);
        // Negative strides are rejected.
        match HostTensor::<u8>::new(l("(4,8):(1,-4)")) {
            Err(HostError::Invalid(m)) => assert!(m.contains("non-negative") && m.contains("-4"), "{m}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn index_and_coords() {
        let mut t = HostTensor::<i32>::new(l("(3,4):(4,1)")).unwrap();
        t.fill_with(|c| (c[0] * 10 + c[1]) as i32);
        assert_eq!(t[[2, 3]], 23);
        assert_eq!(t.data()[2 * 4 + 3], 23);
        t[[0, 1]] = -5;
        assert_eq!(t.get(&[0, 1]).unwrap(), -5);
        assert_eq!(t.coord(0), [0, 0]);
        assert_eq!(t.coord(11), [2, 3]);
        assert_eq!(t.at_index(4), t[[1, 1]]);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn index_panics_out_of_bounds() {
        let t = HostTensor::<i32>::new(l("(3,4):(4,1)")).unwrap();
        let _ = t[[3, 0]];
    }

    #[test]
    fn fills() {
        let mut t = HostTensor::<u8>::new(l("(2,2):(2,1)")).unwrap();
        t.fill_sequence(250.0, 3.0);
        assert_eq!(t.data(), [250, 255, 253, 255]); // saturating
        let mut a = HostTensor::<f64>::new(l("(16,16):(16,1)")).unwrap();
        let mut b = a.clone();
        a.fill_random(1);
        b.fill_random(2);
        assert_ne!(a.data(), b.data());
        let mut c = a.clone();
        c.fill_random(1);
        assert_eq!(a.data(), c.data());
        let mut i = HostTensor::<i8>::new(l("1000:1")).unwrap();
        i.fill_random(3);
        assert!(i.data().iter().any(|&v| v < -100) && i.data().iter().any(|&v| v > 100));
        i.fill_random_range(3, -2.0, 2.0);
        assert!(i.data().iter().all(|v| (-2..2).contains(v)));
        assert!(i.data().contains(&-2) && i.data().contains(&1));
        let mut f = HostTensor::<f32>::new(l("1000:1")).unwrap();
        f.fill_random_range(4, 10.0, 20.0);
        assert!(f.data().iter().all(|v| (10.0..20.0).contains(v)));
    }

    #[test]
    fn compare_reports_first_mismatch() {
        let mut want = HostTensor::<f32>::new(l("(4,4):(4,1)")).unwrap();
        want.fill_sequence(0.0, 1.0);
        // Same values in a column-major layout compare equal.
        let mut got = HostTensor::<f32>::new(l("(4,4):(1,4)")).unwrap();
        got.fill_sequence(0.0, 1.0);
        got.compare(&want, Tolerance::EXACT).unwrap();
        got[[1, 2]] += 0.5;
        got[[3, 3]] = f32::NAN;
        match got.compare(&want, Tolerance::new(0.1, 0.0)).unwrap_err() {
            CompareError::Values { coord, index, got, expected, mismatches, size } => {
                assert_eq!((coord, index), (vec![1, 2], 9));
                assert_eq!((got.as_str(), expected.as_str()), ("9.5", "9"));
                assert_eq!((mismatches, size), (2, 16));
            }
            e => panic!("{e}"),
        }
        got[[1, 2]] -= 0.45;
        match got.compare(&want, Tolerance::new(0.1, 0.0)).unwrap_err() {
            CompareError::Values { coord, mismatches, .. } => assert_eq!((coord, mismatches), (vec![3, 3], 1)),
            e => panic!("{e}"),
        }
        // Shapes.
        let other = HostTensor::<f32>::new(l("(4,2):(2,1)")).unwrap();
        assert_eq!(
            other.compare(&want, Tolerance::EXACT).unwrap_err().to_string(),
            "shape (4,2) differs from the expected shape (4,4)"
        );
        // Different nesting, same mode sizes: compared.
        let mut nested = HostTensor::<f32>::new(l("(4,(2,2)):(4,(1,2))")).unwrap();
        nested.fill_sequence(0.0, 1.0);
        nested.compare(&want, Tolerance::EXACT).unwrap();
    }

    #[test]
    fn compare_integers_and_nans() {
        let a = HostTensor::from_vec(l("3:1"), vec![u64::MAX, 1, 2]).unwrap();
        let b = HostTensor::from_vec(l("3:1"), vec![u64::MAX - 1, 1, 2]).unwrap();
        // Exact comparison of 64-bit integers does not go through f64.
        assert!(a.compare(&b, Tolerance::EXACT).is_err());
        let n = HostTensor::from_vec(l("2:1"), vec![f32::NAN, 1.0]).unwrap();
        n.compare(&n.clone(), Tolerance::EXACT).unwrap();
        let z = HostTensor::from_vec(l("2:1"), vec![0.0f32, 1.0]).unwrap();
        assert!(n.compare(&z, Tolerance::new(1.0, 1.0)).is_err());
        let rel = Tolerance::new(0.0, 0.01);
        assert!(rel.accepts(-101.0, -100.0) && !rel.accepts(-102.0, -100.0));
    }

    /// Every valid swizzle with `B <= 3`, `M <= 3`, `|S| <= 4` (the identity `B = 0` included).
    fn small_swizzles() -> Vec<cute_rs_layout::Swizzle> {
        let mut out = Vec::new();
        for b in 0..=3 {
            for m in 0..=3 {
                for s in -4..=4 {
                    if let Ok(sw) = cute_rs_layout::Swizzle::new(b, m, s) {
                        out.push(sw);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn to_layout_round_trips_through_every_small_swizzle() {
        let plains = ["(8,8):(8,1)", "(8,8):(1,8)", "(4,8):(8,1)", "(3,5):(5,1)", "(16,4):(1,20)", "(4,(2,4)):(8,(4,1))"];
        let mut checked = 0;
        for p in plains {
            let plain = l(p);
            let mut a = HostTensor::<i64>::new(plain).unwrap();
            a.fill_with(|c| 1000 * c[0] + c[1]);
            for sw in small_swizzles() {
                for origin in [0, 3, 16] {
                    let target = cute_rs_layout::SwizzledLayout::new(sw, origin, plain);
                    let packed = a.to_layout(target).unwrap();
                    // The element at each coordinate, at the swizzled offset of that coordinate.
                    for i in 0..a.size() {
                        let c = a.coord(i);
                        assert_eq!(packed.get(&c).unwrap(), a.get(&c).unwrap(), "{target} at {c:?}");
                        assert_eq!(packed.offset(&c).unwrap() as i64, target.call(i as i64), "{target} at {c:?}");
                    }
                    assert_eq!(packed.data().len() as i64, target.cosize());
                    // Back into the plain layout: the identity, storage included.
                    let back = packed.to_layout(plain).unwrap();
                    assert_eq!(back.data(), a.data(), "{target}");
                    assert_eq!(back, a);
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }

    #[test]
    fn to_layout_between_plain_layouts_keeps_coordinates() {
        let mut a = HostTensor::<u32>::new(l("(8,8):(8,1)")).unwrap();
        a.fill_sequence(0.0, 1.0);
        // Column-major, padded, and 4 x 4 tiles (tile rows and columns nested in each mode).
        for to in ["(8,8):(1,8)", "(8,8):(1,9)", "((4,2),(4,2)):((1,32),(4,16))"] {
            let b = a.to_layout(l(to)).unwrap();
            assert_eq!(b.layout(), l(to));
            b.compare(&a, Tolerance::EXACT).unwrap();
            for i in 0..a.size() {
                let c = a.coord(i);
                assert_eq!(b.get(&c).unwrap(), a.get(&c).unwrap(), "{to} at {c:?}");
            }
            assert_eq!(b.to_layout(l("(8,8):(8,1)")).unwrap(), a);
        }
        // Padding the target does not reach stays zero.
        let padded = a.to_layout(l("(8,8):(1,9)")).unwrap();
        assert_eq!(padded.data()[8], 0);
    }

    #[test]
    fn to_layout_refuses_other_shapes_by_name() {
        let a = HostTensor::<f32>::new(l("(4,8):(8,1)")).unwrap();
        for (to, shape) in [("(8,4):(4,1)", "(8,4)"), ("32:1", "32"), ("(4,8,1):(8,1,0)", "(4,8,1)")] {
            match a.to_layout(l(to)) {
                Err(HostError::Invalid(m)) => {
                    assert_eq!(m, format!("to_layout: shape mismatch: (4,8) vs {shape} (the sizes of the top-level modes must agree)"))
                }
                other => panic!("{to}: {other:?}"),
            }
        }
        let sw = cute_rs_layout::make_swizzled(cute_rs_layout::Swizzle::new(2, 0, 2).unwrap(), l("(8,4):(4,1)"));
        let e = a.to_layout(sw).unwrap_err().to_string();
        assert!(e.contains("shape mismatch: (4,8) vs (8,4)"), "{e}");
        // A target reaching below its storage is refused by HostTensor::new's condition.
        let below = cute_rs_layout::SwizzledLayout::new(cute_rs_layout::Swizzle::new(1, 0, 1).unwrap(), -1, l("(4,8):(8,1)"));
        let e = a.to_layout(below).unwrap_err().to_string();
        assert!(e.contains("non-negative offsets"), "{e}");
    }

    #[test]
    fn swizzled_tensors_index_print_and_compare() {
        let sw = cute_rs_layout::make_swizzled(cute_rs_layout::Swizzle::new(1, 0, 1).unwrap(), l("(2,2):(2,1)"));
        let mut t = HostTensor::<i32, _>::new(sw).unwrap();
        t.fill_with(|c| (10 * c[0] + c[1]) as i32);
        // Row 1's two columns trade places: (1,0) at 2 ^ 1 = 3.
        assert_eq!(t.data(), [0, 1, 11, 10]);
        assert_eq!(t[[1, 0]], 10);
        assert_eq!(t.offset(&[1, 0]).unwrap(), 3);
        assert_eq!(t.to_string(), "HostTensor<i32> Sw<1,0,1> o 0 o (2,2):(2,1)\n    0  1\n0:  0  1\n1: 10 11\n");
        let mut plain = HostTensor::<i32>::new(l("(2,2):(1,2)")).unwrap();
        plain.fill_with(|c| (10 * c[0] + c[1]) as i32);
        t.compare(&plain, Tolerance::EXACT).unwrap();
        plain.compare(&t, Tolerance::EXACT).unwrap();
        t[[0, 1]] = 5;
        assert!(matches!(t.compare(&plain, Tolerance::EXACT), Err(CompareError::Values { index: 2, .. })));
        // Rank 3: each table through the whole coordinate.
        let sw3 = cute_rs_layout::make_swizzled(cute_rs_layout::Swizzle::new(1, 0, 2).unwrap(), l("(2,2,2):(1,2,4)"));
        let mut c = HostTensor::<u8, _>::new(sw3).unwrap();
        c.fill_sequence(0.0, 1.0);
        let mut plain3 = HostTensor::<u8>::new(l("(2,2,2):(1,2,4)")).unwrap();
        plain3.fill_sequence(0.0, 1.0);
        let body = |t: String| t.split_once('\n').unwrap().1.to_string();
        assert_eq!(body(c.to_string()), body(plain3.to_string()));
        assert_ne!(c.data(), plain3.data());
    }

    #[test]
    fn device_tensors_download_with_their_layout() {
        let gpu = Gpu::cpu();
        let mut a = HostTensor::<f64>::new(l("(8,16):(16,1)")).unwrap();
        a.fill_random(9);
        let tile = cute_rs_layout::make_swizzled(cute_rs_layout::Swizzle::new(2, 1, 3).unwrap(), l("(8,16):(16,1)"));
        let packed = a.to_layout(tile).unwrap();
        let mut buf = gpu.upload_tensor(&packed).unwrap();
        let back = buf.tensor(tile).unwrap().download(&gpu).unwrap();
        assert_eq!(back, packed);
        back.compare(&a, Tolerance::EXACT).unwrap();
        let out = buf.tensor_mut(tile).unwrap().download(&gpu).unwrap();
        assert_eq!(out.to_layout(a.layout()).unwrap(), a);
        // The buffer check sees the swizzled offsets: Sw<1,0,1> o 3:1 reaches offset 3.
        let small = gpu.alloc::<f64>(3).unwrap();
        let e = small.tensor(cute_rs_layout::make_swizzled(cute_rs_layout::Swizzle::new(1, 0, 1).unwrap(), l("3:1"))).unwrap_err();
        assert!(e.to_string().contains("cosize 4"), "{e}");
        assert!(small.tensor(l("3:1")).is_ok());
    }

    #[test]
    fn printing() {
        let mut t = HostTensor::<f32>::new(l("(2,2):(1,2)")).unwrap();
        t.fill_sequence(0.5, 1.0);
        assert_eq!(format!("{t:.2}"), "HostTensor<f32> (2,2):(1,2)\n      0    1\n0: 0.50 2.50\n1: 1.50 3.50\n");
        let mut v = HostTensor::<i32>::new(l("4:1")).unwrap();
        v.fill_sequence(1.0, 1.0);
        assert_eq!(v.to_string(), "HostTensor<i32> 4:1\n1 2 3 4\n");
        let mut c = HostTensor::<u8>::new(l("(2,2,2):(1,2,4)")).unwrap();
        c.fill_sequence(0.0, 1.0);
        assert_eq!(
            c.to_string(),
            "HostTensor<u8> (2,2,2):(1,2,4)\n[:, :, 0]\n   0 1\n0: 0 2\n1: 1 3\n[:, :, 1]\n   0 1\n0: 4 6\n1: 5 7\n"
        );
        let big = HostTensor::<u8>::new(l("(100,100):(100,1)")).unwrap();
        let s = big.to_string();
        assert!(s.contains("... (100 rows") && s.contains("... (100 columns)"), "{s}");
        assert_eq!(s.lines().count(), 1 + 1 + 64 + 1);
        assert_eq!(format!("{big:#}").lines().count(), 1 + 1 + 100);
    }
}
