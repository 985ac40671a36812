//! The tensor-core and TMA primitives on the CPU backend against plain references: `ldmatrix` /
//! `stmatrix` layouts and round trips, `mma.sync` against a naive product, TMA loads with every
//! swizzle and partial boxes, TMA stores of partial boxes, and the misuses they report.
//!
//! The references are written from the PTX ISA's tables (`groupID = lane / 4`,
//! `threadID_in_group = lane % 4`) and the swizzle's definition, not from the layouts the
//! implementation uses, so that each checks the other.

use std::format;
use std::string::{String, ToString};
use std::vec::Vec;

use super::*;
use crate::mma::*;
use crate::numeric::{bf16_to_f32, f32_to_bf16, pack_b16x2};
use crate::sync::{fence_mbarrier_init, Mbarrier};
use crate::tma::*;
use crate::{ids, sync, warp};
use cute_rs_layout::Swizzle;

/// Launches `entry` as one block of `threads` threads with 64-bit arguments `args`.
fn launch_with(entry: unsafe fn(&[&[u8]]), threads: u32, args: &[u64]) -> Result<(), CpuError> {
    static PARAMS: [usize; 8] = [8; 8];
    let k = CpuKernel { name: "tensor_core_test", params: &PARAMS[..args.len()], entry };
    let bytes: Vec<[u8; 8]> = args.iter().map(|a| a.to_le_bytes()).collect();
    let refs: Vec<&[u8]> = bytes.iter().map(|b| &b[..]).collect();
    launch(&k, &CpuLaunch::linear(1, threads), &refs)
}

/// Argument `i` as a pointer or a number.
unsafe fn arg<T>(args: &[&[u8]], i: usize) -> *mut T {
    core::ptr::read_unaligned(args[i].as_ptr() as *const *mut T)
}

fn ptr<T>(v: &mut [T]) -> u64 {
    v.as_mut_ptr() as usize as u64
}

/// A deterministic stream of pseudo-random 32-bit words.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    /// Uniform in `[-1, 1)`.
    fn unit(&mut self) -> f32 {
        self.next() as f32 / (1u64 << 30) as f32 - 1.0
    }
}

// ------------------------------------------------------------------------------------------------
// ldmatrix / stmatrix

/// Where lane `l` keeps the row it gives `ldmatrix` (row `l % 8` of matrix `l / 8`): rows
/// scattered over shared memory, 16 bytes each, so that only the per-lane addresses can put them
/// in order.
fn scattered_row(l: usize) -> usize {
    (l * 7 + 3) % 32
}

/// `ldmatrix` of every width, plain and transposed, from four 8x8 matrices `input` (u16
/// `[matrix][row][col]`) whose rows the lanes scatter in shared memory; then `stmatrix` of the x4
/// registers (plain and transposed) back to scattered rows, read back by their lanes.
/// `out` per lane: 14 registers (x1, x2, x4, x1.trans, x2.trans, x4.trans), then `back` gets the
/// two round trips as `[2][4][8][8]`.
unsafe fn ldmatrix_kernel(args: &[&[u8]]) {
    let (input, out, back) = (arg::<u16>(args, 0), arg::<u32>(args, 1), arg::<u16>(args, 2));
    let src = crate::shared_array!(CPU_TC_LDM_SRC: [u16; 256], align 16);
    let dst = crate::shared_array!(CPU_TC_LDM_DST: [u16; 512], align 16);
    let l = ids::lane_id() as usize;
    let row = src.as_mut_ptr().add(8 * scattered_row(l));
    for c in 0..8 {
        row.add(c).write(*input.add(8 * l + c));
    }
    sync::sync_warp(warp::FULL_MASK);
    // Lanes past the matrices an instruction reads give addresses it ignores: null here.
    let row_for = |n: usize| if l < 8 * n { row as *const u16 } else { core::ptr::null() };
    let mut regs = Vec::new();
    regs.extend(ldmatrix_x1(row_for(1)));
    regs.extend(ldmatrix_x2(row_for(2)));
    let x4 = ldmatrix_x4(row_for(4));
    regs.extend(x4);
    regs.extend(ldmatrix_x1_trans(row_for(1)));
    regs.extend(ldmatrix_x2_trans(row_for(2)));
    let x4t = ldmatrix_x4_trans(row_for(4));
    regs.extend(x4t);
    for (i, r) in regs.iter().enumerate() {
        *out.add(14 * l + i) = *r;
    }
    for (k, regs) in [x4, x4t].into_iter().enumerate() {
        let mine = dst.as_mut_ptr().add(256 * k + 8 * scattered_row(31 - l));
        if k == 0 {
            stmatrix_x4(mine, regs);
        } else {
            stmatrix_x4_trans(mine, regs);
        }
        // A lane's own row is complete right after the instruction (no barrier needed).
        for c in 0..8 {
            *back.add(256 * k + 8 * l + c) = mine.add(c).read();
        }
    }
}

#[test]
fn ldmatrix_gives_the_ptx_fragments_and_stmatrix_inverts_it() {
    let mut input: Vec<u16> = (0..256).map(|i| (i * 37 + 5) as u16).collect();
    let mut out = std::vec![0u32; 32 * 14];
    let mut back = std::vec![0u16; 512];
    launch_with(ldmatrix_kernel, 32, &[ptr(&mut input), ptr(&mut out), ptr(&mut back)]).unwrap();
    let value = |m: usize, r: usize, c: usize| input[64 * m + 8 * r + c] as u32;
    for lane in 0..32 {
        let (g, t) = (lane / 4, lane % 4);
        // Register of matrix m: (g, 2t) low, (g, 2t + 1) high; transposed: (2t, g), (2t + 1, g).
        let plain = |m| value(m, g, 2 * t) | value(m, g, 2 * t + 1) << 16;
        let trans = |m| value(m, 2 * t, g) | value(m, 2 * t + 1, g) << 16;
        let want: Vec<u32> = [0, 0, 1, 0, 1, 2, 3]
            .iter()
            .map(|&m| plain(m))
            .chain([0, 0, 1, 0, 1, 2, 3].iter().map(|&m| trans(m)))
            .collect();
        assert_eq!(&out[14 * lane..14 * lane + 14], &want[..], "lane {lane}");
    }
    // `stmatrix` (of the same form) puts matrix i's row r at the address lane 8i + r gives, wherever
    // that is (other scattered places here): each lane reads back the row it gave `ldmatrix`.
    for k in 0..2 {
        for l in 0..32 {
            assert_eq!(&back[256 * k + 8 * l..][..8], &input[8 * l..][..8], "round trip {k}, lane {l}");
        }
    }
}

/// `ldmatrix.x4` of rows that each lane overwrites right after the instruction, without a barrier:
/// the instruction read them warp-wide before any lane went on. `out`: the x4 registers per lane.
unsafe fn ldmatrix_then_overwrite(args: &[&[u8]]) {
    let (input, out) = (arg::<u16>(args, 0), arg::<u32>(args, 1));
    let src = crate::shared_array!(CPU_TC_LDM_OVERWRITE: [u16; 256], align 16);
    let l = ids::lane_id() as usize;
    let row = src.as_mut_ptr().add(8 * l);
    for c in 0..8 {
        row.add(c).write(*input.add(8 * l + c));
    }
    sync::sync_warp(warp::FULL_MASK);
    let regs = ldmatrix_x4(row);
    for c in 0..8 {
        row.add(c).write(0xffff);
    }
    for (i, r) in regs.into_iter().enumerate() {
        *out.add(4 * l + i) = r;
    }
}

#[test]
fn ldmatrix_reads_its_rows_at_the_instruction_in_every_schedule() {
    let mut input: Vec<u16> = (0..256).map(|i| i as u16).collect();
    for schedule in [Schedule::Forward, Schedule::Reverse] {
        let mut out = std::vec![0u32; 32 * 4];
        let k = CpuKernel { name: "ldmatrix_then_overwrite", params: &[8, 8], entry: ldmatrix_then_overwrite };
        let args = [ptr(&mut input), ptr(&mut out)].map(u64::to_le_bytes);
        launch(&k, &CpuLaunch::linear(1, 32).with_schedule(schedule), &[&args[0], &args[1]]).unwrap();
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            for m in 0..4 {
                let at = 64 * m + 8 * g + 2 * t;
                let want = input[at] as u32 | (input[at + 1] as u32) << 16;
                assert_eq!(out[4 * lane + m], want, "{schedule:?}: lane {lane}, matrix {m}");
            }
        }
    }
}

/// `ldmatrix` with an address outside shared memory.
unsafe fn ldmatrix_global(args: &[&[u8]]) {
    let p = arg::<u16>(args, 0);
    let _ = ldmatrix_x1(p);
}

#[test]
fn ldmatrix_outside_shared_memory_is_reported() {
    let mut data = std::vec![0u16; 64];
    let m = launch_with(ldmatrix_global, 32, &[ptr(&mut data)]).unwrap_err().to_string();
    assert!(
        m.contains("ldmatrix.sync.aligned.m8n8.x1.shared.b16") && m.contains("not inside the block's shared memory"),
        "{m}"
    );
}

// ------------------------------------------------------------------------------------------------
// mma.sync

/// `d = a * b + c` in `f32`, `k` in increasing order after `c` (the documented CPU rounding):
/// `a` row-major `m x k`, `b` row-major `k x n`, `c` row-major `m x n`.
fn reference_mma(a: &[f32], b: &[f32], c: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut d = c.to_vec();
    for i in 0..m {
        for j in 0..n {
            for kk in 0..k {
                d[i * n + j] += a[i * k + kk] * b[kk * n + j];
            }
        }
    }
    d
}

/// m16n8k16: `a` (16x16 u16 row-major), `bt` (B's 8x16 transpose, row-major), `c`, `d` (16x8 f32
/// row-major), `mode`: 0 bf16 with fragments gathered by the PTX tables, 1 f16 with A and B
/// loaded by `ldmatrix` at the rows of `LDMATRIX_X4_A_ROWS` / `LDMATRIX_X2_B_ROWS`.
unsafe fn mma16_kernel(args: &[&[u8]]) {
    let (a, bt, c, d) = (arg::<u16>(args, 0), arg::<u16>(args, 1), arg::<f32>(args, 2), arg::<f32>(args, 3));
    let mode = arg::<u8>(args, 4) as usize;
    let lane = ids::lane_id() as usize;
    let (g, t) = (lane / 4, lane % 4);
    let cf: [f32; 4] = core::array::from_fn(|i| *c.add((g + 8 * (i / 2)) * 8 + 2 * t + i % 2));
    let out = if mode == 0 {
        let a_at = |i: usize| *a.add((g + 8 * ((i / 2) % 2)) * 16 + 2 * t + i % 2 + 8 * (i / 4));
        let b_at = |i: usize| *bt.add(g * 16 + 2 * t + (i & 1) + 8 * (i / 2));
        let fa = core::array::from_fn(|j| pack_b16x2(a_at(2 * j), a_at(2 * j + 1)));
        let fb = core::array::from_fn(|j| pack_b16x2(b_at(2 * j), b_at(2 * j + 1)));
        mma_m16n8k16_f32_bf16(fa, fb, cf)
    } else {
        let sa = crate::shared_array!(CPU_TC_MMA_A: [u16; 256], align 16);
        let sb = crate::shared_array!(CPU_TC_MMA_B: [u16; 128], align 16);
        for i in (lane..256).step_by(32) {
            sa.write(i, *a.add(i));
        }
        for i in (lane..128).step_by(32) {
            sb.write(i, *bt.add(i));
        }
        sync::sync_warp(warp::FULL_MASK);
        let i = LDMATRIX_X4_A_ROWS.call(lane as i64) as usize;
        let fa = ldmatrix_x4(sa.as_ptr().add((i % 16) * 16 + i / 16));
        let j = LDMATRIX_X2_B_ROWS.call(lane as i64 % 16) as usize;
        let fb = ldmatrix_x2(sb.as_ptr().add((j % 8) * 16 + j / 8));
        mma_m16n8k16_f32_f16(fa, fb, cf)
    };
    for (i, v) in out.into_iter().enumerate() {
        *d.add((g + 8 * (i / 2)) * 8 + 2 * t + i % 2) = v;
    }
}

/// Runs [`mma16_kernel`] on `a` (16x16), `b` (16x8), `c` (16x8), row-major values already
/// representable in the input format, encoded with `encode`.
fn run_mma16(mode: u64, a: &[f32], b: &[f32], c: &[f32], encode: fn(f32) -> u16) -> Vec<f32> {
    let mut ab: Vec<u16> = a.iter().map(|&x| encode(x)).collect();
    let mut bt: Vec<u16> = (0..128).map(|i| encode(b[(i % 16) * 8 + i / 16])).collect();
    let mut c = c.to_vec();
    let mut d = std::vec![0f32; 128];
    launch_with(mma16_kernel, 32, &[ptr(&mut ab), ptr(&mut bt), ptr(&mut c), ptr(&mut d), mode]).unwrap();
    d
}

/// The nearest f16 to `x`, for values in f16's normal range with at most 11 significant bits.
fn f32_to_f16_exact(x: f32) -> u16 {
    if x == 0.0 {
        return (x.to_bits() >> 16) as u16 & 0x8000;
    }
    let b = x.to_bits();
    let sign = (b >> 16) as u16 & 0x8000;
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    assert!((1..31).contains(&exp) && b & 0x1fff == 0, "{x} is not an exact f16 normal");
    sign | (exp as u16) << 10 | ((b >> 13) & 0x3ff) as u16
}

#[test]
fn mma_m16n8k16_matches_a_naive_product() {
    let mut rng = Lcg(7);
    // Random bf16 values: the result is the documented f32 k-order sum, bit for bit.
    let a: Vec<f32> = (0..256).map(|_| bf16_to_f32(f32_to_bf16(rng.unit() * 4.0))).collect();
    let b: Vec<f32> = (0..128).map(|_| bf16_to_f32(f32_to_bf16(rng.unit()))).collect();
    let c: Vec<f32> = (0..128).map(|_| rng.unit()).collect();
    let d = run_mma16(0, &a, &b, &c, f32_to_bf16);
    let want = reference_mma(&a, &b, &c, 16, 8, 16);
    assert_eq!(d.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), want.iter().map(|x| x.to_bits()).collect::<Vec<_>>());
    // f16 through ldmatrix, small integers and halves: every partial sum is exact, so the result
    // equals the exact product (what the GPU gives too).
    let a: Vec<f32> = (0..256).map(|_| (rng.next() % 17) as f32 / 2.0 - 4.0).collect();
    let b: Vec<f32> = (0..128).map(|_| (rng.next() % 9) as f32 - 4.0).collect();
    let c: Vec<f32> = (0..128).map(|_| (rng.next() % 100) as f32).collect();
    let d = run_mma16(1, &a, &b, &c, f32_to_f16_exact);
    for i in 0..16 {
        for j in 0..8 {
            let exact: f64 =
                c[i * 8 + j] as f64 + (0..16).map(|k| a[i * 16 + k] as f64 * b[k * 8 + j] as f64).sum::<f64>();
            assert_eq!(d[i * 8 + j] as f64, exact, "d({i}, {j})");
        }
    }
}

/// m16n8k8 tf32: `a` 16x8, `b` 8x8 (row-major f32 bit patterns), `c`, `d` 16x8, fragments by the
/// PTX tables.
unsafe fn mma_tf32_kernel(args: &[&[u8]]) {
    let (a, b, c, d) = (arg::<u32>(args, 0), arg::<u32>(args, 1), arg::<f32>(args, 2), arg::<f32>(args, 3));
    let lane = ids::lane_id() as usize;
    let (g, t) = (lane / 4, lane % 4);
    let fa = core::array::from_fn(|i| *a.add((g + 8 * (i & 1)) * 8 + t + 4 * (i / 2)));
    let fb = core::array::from_fn(|i| *b.add((t + 4 * i) * 8 + g));
    let cf: [f32; 4] = core::array::from_fn(|i| *c.add((g + 8 * (i / 2)) * 8 + 2 * t + i % 2));
    let out = mma_m16n8k8_f32_tf32(fa, fb, cf);
    for (i, v) in out.into_iter().enumerate() {
        *d.add((g + 8 * (i / 2)) * 8 + 2 * t + i % 2) = v;
    }
}

#[test]
fn mma_m16n8k8_tf32_ignores_the_low_mantissa_bits() {
    let mut rng = Lcg(11);
    // Full f32 inputs: the instruction reads them as tf32 (low 13 bits dropped).
    let mut a: Vec<u32> = (0..128).map(|_| rng.unit().to_bits()).collect();
    let mut b: Vec<u32> = (0..64).map(|_| rng.unit().to_bits()).collect();
    let mut c: Vec<f32> = (0..128).map(|_| rng.unit()).collect();
    let mut d = std::vec![0f32; 128];
    launch_with(mma_tf32_kernel, 32, &[ptr(&mut a), ptr(&mut b), ptr(&mut c), ptr(&mut d)]).unwrap();
    let tf32 = |w: &u32| f32::from_bits(w & 0xffff_e000);
    let want =
        reference_mma(&a.iter().map(tf32).collect::<Vec<_>>(), &b.iter().map(tf32).collect::<Vec<_>>(), &c, 16, 8, 8);
    assert_eq!(d, want);
}

/// Half a warp reaches an `mma.sync`.
unsafe fn mma_divergent(args: &[&[u8]]) {
    let _ = arg::<u8>(args, 0);
    if ids::lane_id() < 16 {
        mma_m16n8k16_f32_bf16([0; 4], [0; 2], [0.0; 4]);
    }
}

#[test]
fn a_divergent_mma_is_reported() {
    let m = launch_with(mma_divergent, 32, &[0]).unwrap_err().to_string();
    assert!(m.contains("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32") && m.contains("never reached"), "{m}");
}

// ------------------------------------------------------------------------------------------------
// TMA

/// One thread loads the box at `coords` (`i32 [5]`, `rank` of them) with the tensor map `desc`
/// into 1024-byte-aligned shared memory, waits for it on an mbarrier, and copies `bytes` bytes of
/// shared memory to `out`.
unsafe fn tma_load_kernel(args: &[&[u8]]) {
    let (desc, coords) = (arg::<TmaDescriptor>(args, 0) as *const TmaDescriptor, arg::<i32>(args, 1));
    let (rank, out, bytes) = (arg::<u8>(args, 2) as usize, arg::<u8>(args, 3), arg::<u8>(args, 4) as usize);
    let smem = crate::shared_array!(CPU_TC_TMA_LOAD: [u8; 16384], align 1024);
    let bar_word = crate::shared_array!(CPU_TC_TMA_BAR: [u64; 1]);
    let bar = Mbarrier::from_ptr(bar_word.as_mut_ptr() as *mut u8);
    let c: [i32; 5] = core::array::from_fn(|i| if i < rank { *coords.add(i) } else { 0 });
    bar.init(1);
    fence_mbarrier_init();
    fence_proxy_tensormap_acquire(desc);
    bar.arrive_expect_tx(CpuTensorMap::decode(&*desc).unwrap().box_bytes());
    let dst = smem.as_mut_ptr();
    match rank {
        1 => tma_load_1d(dst, desc, [c[0]], bar),
        2 => tma_load_2d(dst, desc, [c[0], c[1]], bar),
        3 => tma_load_3d(dst, desc, [c[0], c[1], c[2]], bar),
        4 => tma_load_4d(dst, desc, [c[0], c[1], c[2], c[3]], bar),
        _ => tma_load_5d(dst, desc, c, bar),
    }
    bar.wait_parity(0);
    core::ptr::copy_nonoverlapping(dst, out, bytes);
}

/// Where box element `i` (innermost mode fastest) of 4 bytes lands in a 1024-byte-aligned buffer:
/// byte `Sw<B,4,3>(4 i)`, with `B` the swizzle span's log2 over 16 bytes (the 16-byte chunk index
/// XORed with the 128-byte row index); the identity without a swizzle.
fn byte_swizzle(swizzle_bytes: u32) -> Swizzle {
    let bits = match swizzle_bytes {
        0 => 0,
        32 => 1,
        64 => 2,
        128 => 3,
        _ => unreachable!("swizzle {swizzle_bytes}"),
    };
    Swizzle::new(bits, 4, 3).unwrap()
}

/// A tensor of 32-bit words `extents` (innermost first, dense), its TMA box `box_dim` at
/// `coords`: the expected shared image (`image_bytes` bytes) computed from the swizzle's definition.
struct LoadCase<'a> {
    extents: &'a [u64],
    box_dim: &'a [u32],
    coords: &'a [i32],
    swizzle: u32,
    nan: bool,
}

impl LoadCase<'_> {
    /// A dense box.
    fn run(&self) {
        self.run_strided(&std::vec![1; self.extents.len()]);
    }

    /// Every `element_strides[d]`-th element of mode `d`: `ceil(box_dim[d] / element_strides[d])`
    /// of them.
    fn run_strided(&self, element_strides: &[u32]) {
        let what = format!(
            "{:?} box {:?} / {element_strides:?} at {:?}, swizzle {}, nan {}",
            self.extents, self.box_dim, self.coords, self.swizzle, self.nan
        );
        let n: u64 = self.extents.iter().product();
        let mut data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761) | 1).collect();
        let strides: Vec<u64> =
            (1..self.extents.len()).map(|d| 4 * self.extents[..d].iter().product::<u64>()).collect();
        let desc = CpuTensorMap::encode(
            ptr(&mut data),
            4,
            self.extents,
            &strides,
            self.box_dim,
            element_strides,
            self.swizzle,
            self.nan,
        )
        .unwrap();
        let counts: Vec<usize> =
            (0..self.extents.len()).map(|d| self.box_dim[d].div_ceil(element_strides[d]) as usize).collect();
        let box_elems: usize = counts.iter().product();
        let image_bytes = (4 * box_elems).next_multiple_of(128);
        let mut out = std::vec![0u8; image_bytes];
        let mut coords = self.coords.to_vec();
        launch_with(
            tma_load_kernel,
            1,
            &[
                &desc as *const _ as usize as u64,
                ptr(&mut coords),
                self.extents.len() as u64,
                ptr(&mut out),
                image_bytes as u64,
            ],
        )
        .unwrap();
        let sw = byte_swizzle(self.swizzle);
        for i in 0..box_elems {
            let (mut rest, mut index, mut inside, mut scale) = (i, 0u64, true, 1u64);
            for d in 0..self.extents.len() {
                let g = self.coords[d] as i64 + ((rest % counts[d]) * element_strides[d] as usize) as i64;
                rest /= counts[d];
                inside &= g >= 0 && (g as u64) < self.extents[d];
                index += g.max(0) as u64 * scale;
                scale *= self.extents[d];
            }
            let at = sw.apply(4 * i as i64) as usize;
            let got = u32::from_le_bytes(out[at..at + 4].try_into().unwrap());
            let want = match (inside, self.nan) {
                (true, _) => data[index as usize],
                (false, false) => 0,
                (false, true) => crate::tma::oob_nan_bits(4) as u32,
            };
            assert_eq!(got, want, "{what}: box element {i} at byte {at} (inside: {inside})");
        }
    }
}

#[test]
fn tma_loads_with_every_swizzle_and_partial_boxes() {
    // 52 x 37 words; box rows of exactly one swizzle span (the hardware checks' shapes), 16 rows:
    // two periods of every swizzle; corners inside, over the low ends and over the high ends.
    for (swizzle, bx) in [(0, 32), (32, 8), (64, 16), (128, 32)] {
        for coords in [[0, 0], [8, 3], [-8, -5], [44, 30], [48, -15]] {
            LoadCase { extents: &[52, 37], box_dim: &[bx, 16], coords: &coords, swizzle, nan: false }.run();
        }
    }
    LoadCase { extents: &[52, 37], box_dim: &[32, 16], coords: &[40, 30], swizzle: 128, nan: true }.run();
    LoadCase { extents: &[52, 37], box_dim: &[8, 8], coords: &[-4, 33], swizzle: 0, nan: true }.run();
}

#[test]
fn tma_loads_of_every_rank() {
    LoadCase { extents: &[100], box_dim: &[64], coords: &[60], swizzle: 0, nan: false }.run();
    LoadCase { extents: &[24, 10, 9], box_dim: &[8, 4, 2], coords: &[20, -2, 8], swizzle: 32, nan: false }.run();
    LoadCase { extents: &[8, 3, 4, 5], box_dim: &[4, 2, 3, 2], coords: &[4, 2, -1, 4], swizzle: 0, nan: true }.run();
    LoadCase {
        extents: &[16, 2, 3, 2, 4],
        box_dim: &[16, 2, 2, 2, 3],
        coords: &[0, 1, 2, -1, 2],
        swizzle: 64,
        nan: false,
    }
    .run();
}

#[test]
fn tma_loads_with_element_strides() {
    LoadCase { extents: &[52, 37], box_dim: &[32, 16], coords: &[8, 30], swizzle: 0, nan: false }.run_strided(&[1, 3]);
    LoadCase { extents: &[24, 10, 9], box_dim: &[8, 5, 3], coords: &[16, -1, 7], swizzle: 0, nan: true }
        .run_strided(&[1, 2, 2]);
}

/// One thread copies `bytes` bytes of `image` into 1024-byte-aligned shared memory and stores the
/// box at `coords` (`rank` of them) with the tensor map `desc`.
unsafe fn tma_store_kernel(args: &[&[u8]]) {
    let (desc, coords) = (arg::<TmaDescriptor>(args, 0) as *const TmaDescriptor, arg::<i32>(args, 1));
    let (rank, image, bytes) = (arg::<u8>(args, 2) as usize, arg::<u8>(args, 3), arg::<u8>(args, 4) as usize);
    let smem = crate::shared_array!(CPU_TC_TMA_STORE: [u8; 16384], align 1024);
    core::ptr::copy_nonoverlapping(image, smem.as_mut_ptr(), bytes);
    fence_proxy_async_shared_cta();
    sync::sync_threads();
    fence_proxy_tensormap_acquire(desc);
    let c: [i32; 5] = core::array::from_fn(|i| if i < rank { *coords.add(i) } else { 0 });
    let src = smem.as_ptr();
    match rank {
        1 => tma_store_1d(desc, [c[0]], src),
        2 => tma_store_2d(desc, [c[0], c[1]], src),
        3 => tma_store_3d(desc, [c[0], c[1], c[2]], src),
        4 => tma_store_4d(desc, [c[0], c[1], c[2], c[3]], src),
        _ => tma_store_5d(desc, c, src),
    }
    bulk_commit_group();
    bulk_wait_group_read::<0>();
    bulk_wait_group::<0>();
}

/// Stores a box of 32-bit words whose element `i` holds `1000 + i`, swizzled as the map says,
/// into a tensor of `extents` filled with a sentinel: the box's elements inside the tensor are
/// written, the rest of the tensor is untouched.
fn store_case(extents: &[u64], box_dim: &[u32], coords: &[i32], swizzle: u32) {
    let what = format!("store {extents:?} box {box_dim:?} at {coords:?}, swizzle {swizzle}");
    let n: u64 = extents.iter().product();
    let mut data = std::vec![0xdead_beefu32; n as usize];
    let strides: Vec<u64> = (1..extents.len()).map(|d| 4 * extents[..d].iter().product::<u64>()).collect();
    let ones = std::vec![1u32; extents.len()];
    let desc = CpuTensorMap::encode(ptr(&mut data), 4, extents, &strides, box_dim, &ones, swizzle, false).unwrap();
    let box_elems: u32 = box_dim.iter().product();
    let image_bytes = (4 * box_elems as usize).next_multiple_of(128);
    let sw = byte_swizzle(swizzle);
    let mut image = std::vec![0u8; image_bytes];
    for i in 0..box_elems as usize {
        let at = sw.apply(4 * i as i64) as usize;
        image[at..at + 4].copy_from_slice(&(1000 + i as u32).to_le_bytes());
    }
    let mut c = coords.to_vec();
    launch_with(
        tma_store_kernel,
        1,
        &[&desc as *const _ as usize as u64, ptr(&mut c), extents.len() as u64, ptr(&mut image), image_bytes as u64],
    )
    .unwrap();
    let mut want = std::vec![0xdead_beefu32; n as usize];
    for i in 0..box_elems as usize {
        let (mut rest, mut index, mut inside, mut scale) = (i, 0u64, true, 1u64);
        for d in 0..extents.len() {
            let g = coords[d] as u64 + (rest % box_dim[d] as usize) as u64;
            rest /= box_dim[d] as usize;
            inside &= g < extents[d];
            index += g * scale;
            scale *= extents[d];
        }
        if inside {
            want[index as usize] = 1000 + i as u32;
        }
    }
    assert_eq!(data, want, "{what}");
}

#[test]
fn tma_stores_write_the_inside_of_partial_boxes() {
    store_case(&[100, 70], &[32, 16], &[0, 0], 0);
    store_case(&[100, 70], &[32, 16], &[96, 64], 0);
    store_case(&[100, 70], &[32, 16], &[88, 60], 128);
    store_case(&[100, 70], &[16, 16], &[92, 66], 64);
    store_case(&[24, 10, 9], &[8, 4, 2], &[16, 8, 8], 0);
    store_case(&[40], &[16], &[32], 0);
}

/// A TMA load through a descriptor that is not a CPU tensor map.
unsafe fn tma_load_foreign(args: &[&[u8]]) {
    let desc = arg::<TmaDescriptor>(args, 0) as *const TmaDescriptor;
    let smem = crate::shared_array!(CPU_TC_TMA_FOREIGN: [u8; 1024], align 1024);
    let bar = Mbarrier::new();
    bar.init(1);
    tma_load_2d(smem.as_mut_ptr(), desc, [0, 0], &bar);
}

/// A TMA store with a negative coordinate (an illegal instruction on the GPU).
unsafe fn tma_store_negative(args: &[&[u8]]) {
    let desc = arg::<TmaDescriptor>(args, 0) as *const TmaDescriptor;
    let smem = crate::shared_array!(CPU_TC_TMA_NEGATIVE: [u8; 4096], align 1024);
    tma_store_2d(desc, [0, -1], smem.as_ptr());
}

/// A TMA load whose innermost coordinate is not 16-byte aligned.
unsafe fn tma_load_misaligned(args: &[&[u8]]) {
    let desc = arg::<TmaDescriptor>(args, 0) as *const TmaDescriptor;
    let smem = crate::shared_array!(CPU_TC_TMA_MISALIGNED: [u8; 4096], align 1024);
    let bar = Mbarrier::new();
    bar.init(1);
    tma_load_2d(smem.as_mut_ptr(), desc, [2, 0], &bar);
}

/// A TMA load with the 128-byte swizzle into shared memory aligned to 512 bytes only.
unsafe fn tma_load_off_period(args: &[&[u8]]) {
    let desc = arg::<TmaDescriptor>(args, 0) as *const TmaDescriptor;
    let smem = crate::shared_array!(CPU_TC_TMA_OFF_PERIOD: [u8; 8192], align 1024);
    let bar = Mbarrier::new();
    bar.init(1);
    tma_load_2d(smem.as_mut_ptr().add(512), desc, [0, 0], &bar);
}

#[test]
fn tma_misuses_are_reported() {
    let foreign = TmaDescriptor { bytes: [0x5a; 128] };
    let m = launch_with(tma_load_foreign, 1, &[&foreign as *const _ as usize as u64]).unwrap_err().to_string();
    assert!(m.contains("cp.async.bulk.tensor.2d (load)") && m.contains("not a CPU tensor map"), "{m}");
    let mut data = std::vec![0u32; 64 * 64];
    let desc = CpuTensorMap::encode(ptr(&mut data), 4, &[64, 64], &[256], &[32, 8], &[1, 1], 0, false).unwrap();
    let m = launch_with(tma_store_negative, 1, &[&desc as *const _ as usize as u64]).unwrap_err().to_string();
    assert!(m.contains("cp.async.bulk.tensor.2d (store)") && m.contains("low end"), "{m}");
    let m = launch_with(tma_load_misaligned, 1, &[&desc as *const _ as usize as u64]).unwrap_err().to_string();
    assert!(m.contains("multiple of 16 bytes"), "{m}");
    // A 1-D load through the 2-D map.
    let m = launch_with(
        tma_load_kernel,
        1,
        &[&desc as *const _ as usize as u64, ptr(&mut [0i32; 1]), 1, ptr(&mut [0u8; 1]), 1],
    )
    .unwrap_err()
    .to_string();
    assert!(m.contains("a 1-D copy with a 2-D tensor map"), "{m}");
    let swizzled = CpuTensorMap::encode(ptr(&mut data), 4, &[64, 64], &[256], &[32, 8], &[1, 1], 128, false).unwrap();
    let m = launch_with(tma_load_off_period, 1, &[&swizzled as *const _ as usize as u64]).unwrap_err().to_string();
    assert!(m.contains("not 1024-byte aligned"), "{m}");
}

#[test]
fn tensor_map_encoding_checks_the_parameters() {
    let ok = |r: Result<TmaDescriptor, String>| r.map(|_| ()).map_err(|e| e.to_string());
    let enc = |elem, dims: &[u64], strides: &[u64], boxes: &[u32], swz, nan| {
        let ones = std::vec![1u32; boxes.len()];
        ok(CpuTensorMap::encode(0x1000, elem, dims, strides, boxes, &ones, swz, nan))
    };
    assert_eq!(enc(4, &[64, 64], &[256], &[32, 8], 128, false), Ok(()));
    let cases: [(Result<(), String>, &str); 9] = [
        (enc(4, &[], &[], &[], 0, false), "TMA takes 1 to 5"),
        (enc(4, &[64, 64], &[], &[32, 8], 0, false), "global strides"),
        (enc(3, &[64], &[], &[16], 0, false), "1, 2, 4 or 8"),
        (enc(4, &[64, 64], &[200], &[32, 8], 0, false), "multiples of 16 bytes"),
        (enc(4, &[64, 64], &[256], &[32, 257], 0, false), "1 to 256"),
        (enc(4, &[64, 64], &[256], &[2, 8], 0, false), "= 8 bytes"),
        (enc(4, &[64, 64], &[256], &[32, 8], 64, false), "at most 64 bytes"),
        (enc(4, &[64, 64], &[256], &[8, 8], 16, false), "0, 32, 64 or 128"),
        (enc(1, &[64], &[], &[16], 0, true), "floating-point"),
    ];
    for (got, want) in cases {
        let e = got.unwrap_err();
        assert!(e.contains(want), "{e} (wanted {want:?})");
    }
    let e = ok(CpuTensorMap::encode(0x1004, 4, &[64], &[], &[16], &[1], 0, false)).unwrap_err();
    assert!(e.contains("16-byte aligned"), "{e}");
    let e = ok(CpuTensorMap::encode(0x1000, 4, &[64], &[], &[16], &[9], 0, false)).unwrap_err();
    assert!(e.contains("1 to 8"), "{e}");
    // The bytes read back as the same map.
    let d = CpuTensorMap::encode(0x2000, 2, &[64, 3, 5], &[128, 384], &[64, 2, 5], &[1, 2, 1], 128, true).unwrap();
    let map = CpuTensorMap::decode(&d).unwrap();
    assert_eq!((map.rank(), map.box_bytes()), (3, 64 * 1 * 5 * 2));
    let mut bad = d;
    bad.bytes[4] = 6; // rank 6
    assert!(CpuTensorMap::decode(&bad).unwrap_err().contains("1 to 5"));
}
