//! Element types: [`DeviceElem`] (what device memory holds), [`TmaDataType`] (how a TMA descriptor
//! sees it) and [`Numeric`] (what host tensors can fill and compare).

use std::fmt;

/// Element type of a TMA descriptor (`CUtensorMapDataType`).
///
/// # Example
/// ```
/// use cute_rs_host::{DeviceElem, TmaDataType};
/// assert_eq!(f32::TMA_DATA_TYPE, TmaDataType::F32);
/// assert!(TmaDataType::F32.is_float());
/// assert_eq!(TmaDataType::U16.size_bytes(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TmaDataType {
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT8`.
    U8,
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT16`.
    U16,
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT32`.
    U32,
    /// `CU_TENSOR_MAP_DATA_TYPE_INT32`.
    I32,
    /// `CU_TENSOR_MAP_DATA_TYPE_UINT64`.
    U64,
    /// `CU_TENSOR_MAP_DATA_TYPE_INT64`.
    I64,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT16`.
    F16,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT32`.
    F32,
    /// `CU_TENSOR_MAP_DATA_TYPE_FLOAT64`.
    F64,
    /// `CU_TENSOR_MAP_DATA_TYPE_BFLOAT16`.
    BF16,
}

impl TmaDataType {
    /// Size of one element in bytes.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_host::TmaDataType::BF16.size_bytes(), 2);
    /// ```
    pub const fn size_bytes(self) -> usize {
        match self {
            TmaDataType::U8 => 1,
            TmaDataType::U16 | TmaDataType::F16 | TmaDataType::BF16 => 2,
            TmaDataType::U32 | TmaDataType::I32 | TmaDataType::F32 => 4,
            TmaDataType::U64 | TmaDataType::I64 | TmaDataType::F64 => 8,
        }
    }

    /// Whether it is a floating-point type (the only ones a NaN out-of-bounds fill is allowed for).
    ///
    /// # Example
    /// ```
    /// assert!(cute_rs_host::TmaDataType::F16.is_float());
    /// assert!(!cute_rs_host::TmaDataType::I32.is_float());
    /// ```
    pub const fn is_float(self) -> bool {
        matches!(self, TmaDataType::F16 | TmaDataType::F32 | TmaDataType::F64 | TmaDataType::BF16)
    }
}

/// Plain element types that can live in device memory and be passed to kernels.
///
/// Implement it only for plain-old-data types (no padding, no pointers, every bit pattern valid):
/// device memory is copied back into values of the type byte for byte.
///
/// # Example
/// ```
/// use cute_rs_host::DeviceElem;
/// assert_eq!(<u8 as DeviceElem>::NAME, "u8");
/// // Signed 8- and 16-bit integers are copied by TMA as unsigned (the bits are the same).
/// assert_eq!(i16::TMA_DATA_TYPE, cute_rs_host::TmaDataType::U16);
/// // The `half` crate's 16-bit floats (`cute_rs_tensor::half`):
/// assert_eq!(<cute_rs_tensor::half::bf16 as DeviceElem>::NAME, "bf16");
/// assert_eq!(cute_rs_tensor::half::f16::TMA_DATA_TYPE, cute_rs_host::TmaDataType::F16);
/// ```
pub trait DeviceElem: Copy + Default + Send + Sync + 'static {
    /// The element type a TMA descriptor of this type uses.
    const TMA_DATA_TYPE: TmaDataType;
    /// The type's name, for messages.
    const NAME: &'static str;
}

macro_rules! device_elem {
    ($($t:ty => $tma:ident),* $(,)?) => {
        $(impl DeviceElem for $t {
            const TMA_DATA_TYPE: TmaDataType = TmaDataType::$tma;
            const NAME: &'static str = stringify!($t);
        })*
    };
}

device_elem!(u8 => U8, i8 => U8, u16 => U16, i16 => U16, u32 => U32, i32 => I32, u64 => U64, i64 => I64,
    f32 => F32, f64 => F64);

// The 16-bit floats of the `half` crate (re-exported by `layout_tensor`, whose kernels take them):
// plain 2-byte values, every bit pattern valid. Named by their usual short names.
impl DeviceElem for cute_rs_tensor::half::bf16 {
    const TMA_DATA_TYPE: TmaDataType = TmaDataType::BF16;
    const NAME: &'static str = "bf16";
}
impl DeviceElem for cute_rs_tensor::half::f16 {
    const TMA_DATA_TYPE: TmaDataType = TmaDataType::F16;
    const NAME: &'static str = "f16";
}
// The 8-bit floats of the device crate (the fp8 GEMMs' inputs): one byte each, every bit pattern
// valid; TMA moves them as bytes.
impl DeviceElem for cute_rs_tensor::device::numeric::E4M3 {
    const TMA_DATA_TYPE: TmaDataType = TmaDataType::U8;
    const NAME: &'static str = "e4m3";
}
impl DeviceElem for cute_rs_tensor::device::numeric::E5M2 {
    const TMA_DATA_TYPE: TmaDataType = TmaDataType::U8;
    const NAME: &'static str = "e5m2";
}

/// Element types of host tensors: conversions for sequences, random fills and comparisons.
///
/// # Example
/// ```
/// use cute_rs_host::Numeric;
/// assert_eq!(<u8 as Numeric>::from_f64(300.0), 255); // saturating
/// assert_eq!(<i32 as Numeric>::from_f64(-2.7), -2); // towards zero
/// assert_eq!(2.5f32.to_f64(), 2.5);
/// assert!(f64::IS_FLOAT && !i64::IS_FLOAT);
/// ```
pub trait Numeric: DeviceElem + PartialEq + fmt::Debug + fmt::Display {
    /// Whether it is a floating-point type.
    const IS_FLOAT: bool;
    /// The value nearest to `v` (Rust's `as` conversion: saturating, towards zero for integers).
    fn from_f64(v: f64) -> Self;
    /// The value as `f64` (rounded for 64-bit integers beyond 2^53).
    fn to_f64(self) -> f64;
    /// A value from 64 random bits: integers take the whole range of the type, floats `[-1, 1)`.
    fn from_random_bits(bits: u64) -> Self;
    /// Whether the two values are equal bit for bit, or both NaN.
    fn same(self, other: Self) -> bool;
}

macro_rules! numeric_int {
    ($($t:ty),*) => {
        $(impl Numeric for $t {
            const IS_FLOAT: bool = false;
            fn from_f64(v: f64) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
            fn from_random_bits(bits: u64) -> Self { bits as $t }
            fn same(self, other: Self) -> bool { self == other }
        })*
    };
}
numeric_int!(u8, i8, u16, i16, u32, i32, u64, i64);

impl Numeric for f32 {
    const IS_FLOAT: bool = true;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_random_bits(bits: u64) -> Self {
        // 24 random mantissa bits: exact multiples of 2^-23 in [-1, 1).
        ((bits >> 40) as f32) * (1.0 / (1u64 << 23) as f32) - 1.0
    }
    fn same(self, other: Self) -> bool {
        self.to_bits() == other.to_bits() || (self.is_nan() && other.is_nan())
    }
}

impl Numeric for f64 {
    const IS_FLOAT: bool = true;
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn from_random_bits(bits: u64) -> Self {
        ((bits >> 11) as f64) * (1.0 / (1u64 << 52) as f64) - 1.0
    }
    fn same(self, other: Self) -> bool {
        self.to_bits() == other.to_bits() || (self.is_nan() && other.is_nan())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_floats_are_in_range() {
        for bits in [0u64, u64::MAX, 1 << 63, 12345] {
            let f = f32::from_random_bits(bits);
            assert!((-1.0..1.0).contains(&f), "{f}");
            let d = f64::from_random_bits(bits);
            assert!((-1.0..1.0).contains(&d), "{d}");
        }
        assert_eq!(f32::from_random_bits(0), -1.0);
        assert_eq!(f32::from_random_bits(1 << 63), 0.0);
    }

    #[test]
    fn same_treats_nan_as_equal() {
        assert!(f32::NAN.same(-f32::NAN));
        assert!(!0.0f32.same(-0.0));
        assert!(3u8.same(3));
    }

    #[test]
    fn tma_types() {
        assert_eq!(i8::TMA_DATA_TYPE.size_bytes(), 1);
        assert_eq!(u64::TMA_DATA_TYPE, TmaDataType::U64);
        assert_eq!(f64::TMA_DATA_TYPE.size_bytes(), std::mem::size_of::<f64>());
        assert_eq!(<f64 as DeviceElem>::NAME, "f64");
    }
}
