//! GPU check kernels: `cute_rs_tensor::device::shared` (static arrays of several types and
//! alignments in one kernel, dynamic shared memory sized at launch). Checked by
//! `cute_rs::gpu_suite` (`shared/*`).

use cute_rs_tensor::kernel;
use cute_rs_tensor::device::ids::{block_dim_x, block_idx_x, thread_idx_x};
use cute_rs_tensor::device::shared::{dynamic_shared_bytes, generic_to_shared, shared_to_generic};
use cute_rs_tensor::device::sync::sync_threads;
use cute_rs_tensor::{dynamic_shared, shared_array};

/// Threads per block of `shared_static_reverse`.
pub const STATIC_THREADS: u32 = 256;
/// Words `shared_static_reverse` writes per block into `info`.
pub const STATIC_INFO_WORDS: usize = 8;

/// Three static shared arrays in one kernel: `F: [f32; 1024]` aligned to 16, `S: [u16; 7]`
/// (2-byte alignment, an odd size), `D: [u64; 256]` aligned to 128. Block `b` of 256 threads:
///
/// - reverses `src_f[b*1024 ..][..1024]` through `F` into `dst_f` (4 elements per thread) and
///   `src_d[b*256 ..][..256]` through `D` into `dst_d`;
/// - threads 0-6 write `S[t] = t * 3 + b` (as `u16`);
/// - thread 0 writes `info[b*8 ..]`: the shared addresses of `F`, `S`, `D`
///   (`shared_addr()`), the sum of `S` after the barrier, whether
///   `shared_to_generic(generic_to_shared(p)) == p` for `F`, and `F.len()`, `S.len()`,
///   `D.len()`.
#[kernel]
pub fn shared_static_reverse(
    src_f: *const f32,
    src_d: *const u64,
    dst_f: *mut f32,
    dst_d: *mut u64,
    info: *mut u32,
) {
    let f = shared_array!(SHARED_CHECK_F: [f32; 1024], align 16);
    let s = shared_array!(SHARED_CHECK_S: [u16; 7]);
    let d = shared_array!(SHARED_CHECK_D: [u64; 256], align 128);
    let (t, b) = (thread_idx_x() as usize, block_idx_x() as usize);
    let mut i = t;
    while i < 1024 {
        f.write(i, *src_f.add(b * 1024 + i));
        i += STATIC_THREADS as usize;
    }
    d.write(t, *src_d.add(b * 256 + t));
    if t < 7 {
        s.write(t, (t * 3 + b) as u16);
    }
    sync_threads();
    let mut i = t;
    while i < 1024 {
        *dst_f.add(b * 1024 + i) = f.read(1023 - i);
        i += STATIC_THREADS as usize;
    }
    *dst_d.add(b * 256 + t) = d.read(255 - t);
    if t == 0 {
        let out = info.add(b * STATIC_INFO_WORDS);
        *out = f.shared_addr();
        *out.add(1) = s.shared_addr();
        *out.add(2) = d.shared_addr();
        let mut sum = 0u32;
        let mut k = 0;
        while k < 7 {
            sum += s.read(k) as u32;
            k += 1;
        }
        *out.add(3) = sum;
        let round_trip: *mut f32 = shared_to_generic(generic_to_shared(f.as_ptr()));
        *out.add(4) = (round_trip == f.as_mut_ptr()) as u32;
        *out.add(5) = f.len() as u32;
        *out.add(6) = s.len() as u32;
        *out.add(7) = d.len() as u32;
    }
}

/// Words `shared_dynamic_reverse` writes per block into `info`.
pub const DYNAMIC_INFO_WORDS: usize = 8;

/// Dynamic shared memory of `n` floats (`n` = the launch's bytes / 4) next to a static
/// `TAG: [u32; 32]`. Block `b` (any block size):
///
/// - threads 0-31 write `TAG[t] = 0xA5A5_0000 + t`;
/// - reverses `src[b*n ..][..n]` through the dynamic array into `dst`;
/// - thread 0 writes `info[b*8 ..]`: `len()` of the `f32` view, `dynamic_shared_bytes()`, the
///   dynamic array's shared address, whether a second `dynamic_shared!` (as `u32`, another
///   name) has the same address (1), the static `TAG`'s shared address, whether `TAG` still
///   holds its 32 values after the dynamic array was filled (1), the `u8` view's `len()`, 0.
#[kernel]
pub fn shared_dynamic_reverse(src: *const f32, dst: *mut f32, info: *mut u32) {
    let tag = shared_array!(SHARED_CHECK_TAG: [u32; 32]);
    let buf = dynamic_shared!(SHARED_CHECK_DYN: f32, align 16);
    let alias = dynamic_shared!(SHARED_CHECK_DYN_ALIAS: u32, align 16);
    let bytes = dynamic_shared!(SHARED_CHECK_DYN_BYTES: u8);
    let (t, b, threads) = (thread_idx_x() as usize, block_idx_x() as usize, block_dim_x() as usize);
    let n = buf.len();
    if t < 32 {
        tag.write(t, 0xA5A5_0000 + t as u32);
    }
    let mut i = t;
    while i < n {
        buf.write(i, *src.add(b * n + i));
        i += threads;
    }
    sync_threads();
    let mut i = t;
    while i < n {
        *dst.add(b * n + i) = buf.read(n - 1 - i);
        i += threads;
    }
    if t == 0 {
        let out = info.add(b * DYNAMIC_INFO_WORDS);
        *out = n as u32;
        *out.add(1) = dynamic_shared_bytes();
        *out.add(2) = buf.shared_addr();
        *out.add(3) = (alias.as_ptr() as usize == buf.as_ptr() as usize) as u32;
        *out.add(4) = tag.shared_addr();
        let mut intact = true;
        let mut k = 0;
        while k < 32 {
            intact &= tag.read(k) == 0xA5A5_0000 + k as u32;
            k += 1;
        }
        *out.add(5) = intact as u32;
        *out.add(6) = bytes.len() as u32;
        *out.add(7) = 0;
    }
}
