//! GPU checks: `mbarrier` phases and TMA bulk tensor copies (kernels in
//! `tests/kernels/src/checks/tma.rs`).
//!
//! The expected shared-memory image of a TMA box is computed with the layout algebra: the box is the
//! column-major layout of its extents in **bytes** (`(b0, b1, ..) : (4, 4 b0, ..)` for 32-bit
//! elements), composed with the swizzle of the tensor map as a [`Swizzle`] on byte offsets:
//! `Sw<1,4,3>` (32 B), `Sw<2,4,3>` (64 B), `Sw<3,4,3>` (128 B): the 16-byte chunk index (bits 4..)
//! is XORed with the 128-byte row index (bits 7..), over 1, 2 or 3 bits. Box element `i` lands at
//! byte `SwizzledLayout(i)` of the (1024-byte-aligned) buffer.
//!
//! Coordinates obey what the hardware requires (seen on an H200: otherwise the copy is an illegal
//! instruction): the innermost start coordinate is a multiple of 16 bytes (4 elements here), and a
//! store's coordinates are not negative (a store box may hang over the high end only).

use cute_rs_host::{DeviceElem, Gpu, LaunchConfig, Module, TmaOobFill, TmaSwizzle};
use cute_rs_layout::{IntTuple, Layout, Swizzle, SwizzledLayout};
use test_kernels::checks::tma;

use super::cp_async::compare_words;
use super::{fail, fresh_seed, random_f32, random_u32, Check};

pub fn checks() -> Vec<Check> {
    vec![
        Check { name: "tma/mbarrier_phases", run: mbarrier_phases },
        Check { name: "tma/load_2d_swizzle_none", run: |g, m| load_2d_swizzled(g, m, TmaSwizzle::None) },
        Check { name: "tma/load_2d_swizzle_32b", run: |g, m| load_2d_swizzled(g, m, TmaSwizzle::B32) },
        Check { name: "tma/load_2d_swizzle_64b", run: |g, m| load_2d_swizzled(g, m, TmaSwizzle::B64) },
        Check { name: "tma/load_2d_swizzle_128b", run: |g, m| load_2d_swizzled(g, m, TmaSwizzle::B128) },
        Check { name: "tma/load_1d_edges", run: |g, m| load_edges(g, m, &[200], &[64]) },
        Check { name: "tma/load_3d_edges", run: |g, m| load_edges(g, m, &[24, 10, 9], &[8, 4, 2]) },
        Check { name: "tma/load_4d_edges", run: |g, m| load_edges(g, m, &[16, 6, 5, 7], &[8, 2, 3, 2]) },
        Check { name: "tma/load_5d_edges", run: |g, m| load_edges(g, m, &[8, 4, 3, 5, 6], &[4, 2, 2, 2, 2]) },
        Check { name: "tma/load_2d_oob_fill_zero", run: |g, m| load_oob(g, m, TmaOobFill::Zero, TmaSwizzle::None) },
        Check { name: "tma/load_2d_oob_fill_nan_swizzle_128b", run: |g, m| load_oob(g, m, TmaOobFill::Nan, TmaSwizzle::B128) },
        Check { name: "tma/store_2d_clipped", run: |g, m| store_clipped(g, m, &[100, 70], &[32, 16], TmaSwizzle::None, false) },
        Check {
            name: "tma/store_2d_clipped_swizzle_128b",
            run: |g, m| store_clipped(g, m, &[100, 70], &[32, 16], TmaSwizzle::B128, false),
        },
        Check { name: "tma/reduce_add_2d_clipped (f32, 128-byte swizzle)", run: |g, m| store_clipped(g, m, &[100, 70], &[32, 16], TmaSwizzle::B128, true) },
        Check { name: "tma/reduce_add_4d_clipped (f32)", run: |g, m| store_clipped(g, m, &[40, 10, 3, 2], &[8, 4, 2, 1], TmaSwizzle::None, true) },
        Check { name: "tma/store_3d_clipped", run: |g, m| store_clipped(g, m, &[24, 10, 9], &[8, 4, 2], TmaSwizzle::None, false) },
    ]
}

/// `test_kernels::checks::tma::MBARRIER_PROBES`.
const MBARRIER_PROBES: usize = 5;

/// What `mbarrier_phases` writes in round `r` for thread `t`.
fn phase_value(seed: u32, r: u32, t: u32) -> u32 {
    seed ^ r.wrapping_mul(0x0100_0193) ^ t.wrapping_mul(0x9E37_79B9)
}

fn mbarrier_phases(gpu: &Gpu, module: &Module) -> Result<(), String> {
    let (n, rounds) = (256u32, 5u32);
    let seed = fresh_seed() as u32;
    let len = (rounds * n) as usize + MBARRIER_PROBES;
    let mut out = gpu.alloc::<u32>(len).map_err(fail("alloc"))?;
    gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
    unsafe { gpu.launch(module, tma::mbarrier_phases, LaunchConfig::linear(1, n), (seed, rounds, &mut out)).run() }
        .map_err(fail("launch"))?;
    let got = gpu.download(&out).map_err(fail("download"))?;
    let mut want: Vec<u32> = (0..rounds)
        .flat_map(|r| (0..n).map(move |t| phase_value(seed, r, (t + r + 1) % n)))
        .collect();
    want.extend([0, 1, 1, 0, 1]);
    const PROBES: [&str; MBARRIER_PROBES] = [
        "test_wait.parity(0) right after init (the first phase is pending: 0)",
        "test_wait.parity(1) right after init (the phase before the first counts as complete: 1)",
        "try_wait.parity(1) right after init (1)",
        "test_wait.parity of the phase after the last round (pending: 0)",
        "test_wait.parity of the last round's phase (complete: 1)",
    ];
    compare_words(&got, &want, |i| {
        let i = i as u32;
        if i >= rounds * n {
            format!("probe {}, {}", i - rounds * n, PROBES[(i - rounds * n) as usize])
        } else {
            let (r, t) = (i / n, i % n);
            format!(
                "round {r}, thread {t} read the slot of thread {} (seed {seed:#x}): a stale or early value means \
                 the parity wait did not wait for the phase",
                (t + r + 1) % n
            )
        }
    })
}

/// The shared-memory swizzle of a TMA mode as a swizzle of byte offsets.
fn byte_swizzle(s: TmaSwizzle) -> Swizzle {
    let bits = match s {
        TmaSwizzle::None => 0,
        TmaSwizzle::B32 => 1,
        TmaSwizzle::B64 => 2,
        TmaSwizzle::B128 => 3,
    };
    Swizzle::new(bits, 4, 3).expect("valid swizzle")
}

/// The compact column-major layout of `extents`, its strides multiplied by `scale`.
fn col_major(extents: &[i64], scale: i64) -> Layout {
    let mut strides = Vec::with_capacity(extents.len());
    let mut s = scale;
    for e in extents {
        strides.push(s);
        s *= e;
    }
    Layout::new(IntTuple::from_slice(extents).expect("rank <= 5"), IntTuple::from_slice(&strides).expect("rank <= 5"))
        .expect("valid layout")
}

/// `(box element index) -> byte offset in shared memory` of a box of 32-bit elements: the box's
/// column-major layout in bytes, swizzled.
fn box_image(box_shape: &[u32], swizzle: TmaSwizzle) -> SwizzledLayout {
    let extents: Vec<i64> = box_shape.iter().map(|&b| b as i64).collect();
    SwizzledLayout::new(byte_swizzle(swizzle), 0, col_major(&extents, 4))
}

/// The index of the tensor element at coordinates `g` (in bounds) of the layout `global`.
fn element(global: Layout, g: &[i64]) -> usize {
    let coord = IntTuple::from_slice(g).expect("rank <= 5");
    cute_rs_layout::crd2idx(coord, global).expect("coordinate in bounds") as usize
}

/// Mixed-radix coordinates of `i` in `extents` (first mode fastest).
fn coords(mut i: i64, extents: &[i64]) -> Vec<i64> {
    extents
        .iter()
        .map(|&e| {
            let c = i % e;
            i /= e;
            c
        })
        .collect()
}

/// One `tma_load_boxes` launch: the tensor (column-major `extents`, 32-bit elements whose bits are
/// `bits`), `reps` boxes of `box_shape` at `corner`, the last coordinate advanced by `step` per box.
struct LoadCase<'a> {
    extents: &'a [i64],
    box_shape: &'a [u32],
    swizzle: TmaSwizzle,
    fill: TmaOobFill,
    /// Upload as `f32` (a float tensor map: NaN fill allowed) rather than `u32`.
    float: bool,
    corner: Vec<i32>,
    step: i32,
    reps: u32,
}

impl LoadCase<'_> {
    fn box_words(&self) -> usize {
        self.box_shape.iter().map(|&b| b as usize).product()
    }

    /// Runs the kernel; returns the raw shared-memory images of the boxes, one after the other.
    fn run<T: DeviceElem>(&self, gpu: &Gpu, module: &Module, data: &[T]) -> Result<Vec<u32>, String> {
        let buf = gpu.upload(data).map_err(fail("upload"))?;
        let global = col_major(self.extents, 1);
        let map = gpu
            .tensor_map(&buf, global, self.box_shape, self.swizzle, self.fill)
            .map_err(fail("tensor_map"))?;
        let desc = gpu.upload(&map.bytes).map_err(fail("upload tensor map"))?;
        let mut out = gpu.alloc::<u32>(self.box_words() * self.reps as usize).map_err(fail("alloc"))?;
        gpu.memset(&mut out, 0xff).map_err(fail("poison"))?;
        let rank = self.box_shape.len() as u32;
        let mut c = [0i32; 5];
        c[..self.corner.len()].copy_from_slice(&self.corner);
        let box_bytes = 4 * self.box_words() as u32;
        unsafe {
            gpu.launch(
                module,
                tma::tma_load_boxes,
                LaunchConfig::linear(1, 128),
                (&desc, rank, c[0], c[1], c[2], c[3], c[4], self.step, self.reps, box_bytes, &mut out),
            )
            .run()
        }
        .map_err(fail("launch"))?;
        gpu.download(&out).map_err(fail("download"))
    }

    /// Loads the boxes from a tensor holding `bits` and compares each box's shared-memory image
    /// with the one the layout algebra predicts.
    fn check(&self, gpu: &Gpu, module: &Module, what: &str, bits: &[u32]) -> Result<(), String> {
        let got = if self.float {
            let data: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
            self.run(gpu, module, &data)?
        } else {
            self.run(gpu, module, bits)?
        };
        let image = box_image(self.box_shape, self.swizzle);
        let box_extents: Vec<i64> = self.box_shape.iter().map(|&b| b as i64).collect();
        let global = col_major(self.extents, 1);
        let words = self.box_words();
        let mut bad = Vec::new();
        for r in 0..self.reps as usize {
            for i in 0..words {
                let at = image.call(i as i64);
                if at % 4 != 0 || at < 0 || at as usize / 4 >= words {
                    return Err(format!("{what}: the swizzled image {image} maps box element {i} to byte {at}"));
                }
                let pos = r * words + at as usize / 4;
                let mut g: Vec<i64> = coords(i as i64, &box_extents)
                    .iter()
                    .zip(&self.corner)
                    .map(|(b, c)| b + *c as i64)
                    .collect();
                *g.last_mut().expect("rank >= 1") += r as i64 * self.step as i64;
                let inside = g.iter().zip(self.extents).all(|(c, e)| (0..*e).contains(c));
                let ok = if inside {
                    let want = bits[element(global, &g)];
                    (got[pos] == want).then_some(()).ok_or(format!("{want:#010x} (tensor element {g:?})"))
                } else {
                    match self.fill {
                        TmaOobFill::Zero => (got[pos] == 0).then_some(()).ok_or(format!("0 (out-of-bounds {g:?})")),
                        TmaOobFill::Nan => f32::from_bits(got[pos])
                            .is_nan()
                            .then_some(())
                            .ok_or(format!("NaN (out-of-bounds {g:?})")),
                    }
                };
                if let Err(want) = ok {
                    bad.push((r, i, pos, want));
                }
            }
        }
        match bad.first() {
            None => Ok(()),
            Some((r, i, pos, want)) => Err(format!(
                "{what}: box {r} (of {}), element {i} = {:?} of the box, at shared-memory word {} (image {image}): \
                 got {:#010x}{}, expected {want}; {} of {} elements differ",
                self.reps,
                coords(*i as i64, &box_extents),
                pos - r * words,
                got[*pos],
                if got[*pos] == u32::MAX { " (the output poison: never written)" } else { "" },
                bad.len(),
                words * self.reps as usize
            )),
        }
    }
}

/// A random integer in `lo..=hi`.
fn pick(seed: u64, salt: u64, lo: i64, hi: i64) -> i64 {
    lo + (random_u32(seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15), 1)[0] as i64) % (hi - lo + 1)
}

/// Two boxes one above the other, fully inside a 100 x 70 tensor of random words, with the given
/// swizzle (box rows of 32 / 8 / 16 / 32 words for none / 32 / 64 / 128 bytes, 16 rows: two
/// periods of every swizzle).
fn load_2d_swizzled(gpu: &Gpu, module: &Module, swizzle: TmaSwizzle) -> Result<(), String> {
    let seed = fresh_seed();
    let extents = [100i64, 70];
    let bx = match swizzle {
        TmaSwizzle::B32 => 8,
        TmaSwizzle::B64 => 16,
        TmaSwizzle::None | TmaSwizzle::B128 => 32,
    };
    let by = 16u32;
    let corner = vec![
        4 * pick(seed, 1, 0, (extents[0] - bx as i64) / 4) as i32,
        pick(seed, 2, 0, extents[1] - 2 * by as i64) as i32,
    ];
    let case = LoadCase {
        extents: &extents,
        box_shape: &[bx, by],
        swizzle,
        fill: TmaOobFill::Zero,
        float: false,
        corner: corner.clone(),
        step: by as i32,
        reps: 2,
    };
    let bits = random_u32(seed, 100 * 70);
    case.check(gpu, module, &format!("{swizzle:?} swizzle, boxes {bx}x{by} at {corner:?} (seed {seed})"), &bits)
}

/// `reps = 3` boxes, consecutive along the last mode, at a random corner where every mode may hang
/// over either end of the tensor (out-of-bounds elements read as zero); phases 0, 1, 0. The
/// innermost coordinate is a multiple of 4 (16 bytes).
fn load_edges(gpu: &Gpu, module: &Module, extents: &[i64], box_shape: &[u32]) -> Result<(), String> {
    let seed = fresh_seed();
    let reps = 3u32;
    let rank = extents.len();
    let corner: Vec<i32> = (0..rank)
        .map(|k| {
            let (e, b) = (extents[k], box_shape[k] as i64);
            // Every box overlaps the tensor in every mode (a box wholly outside is not tested).
            let hi = if k + 1 == rank { e - (reps as i64 - 1) * b - b / 2 } else { e - b / 2 };
            if k == 0 {
                4 * pick(seed, 1, -(b / 2) / 4, hi / 4) as i32
            } else {
                pick(seed, k as u64 + 1, -(b / 2), hi) as i32
            }
        })
        .collect();
    let case = LoadCase {
        extents,
        box_shape,
        swizzle: TmaSwizzle::None,
        fill: TmaOobFill::Zero,
        float: false,
        corner: corner.clone(),
        step: box_shape[rank - 1] as i32,
        reps,
    };
    let bits = random_u32(seed, extents.iter().product::<i64>() as usize);
    case.check(
        gpu,
        module,
        &format!("{rank}-D tensor {extents:?}, boxes {box_shape:?} at {corner:?} (seed {seed})"),
        &bits,
    )
}

/// A 52 x 37 f32 tensor, 32 x 16 boxes hanging over each corner: out-of-bounds elements read as
/// `fill`.
fn load_oob(gpu: &Gpu, module: &Module, fill: TmaOobFill, swizzle: TmaSwizzle) -> Result<(), String> {
    let seed = fresh_seed();
    let extents = [52i64, 37];
    let bits: Vec<u32> = random_f32(seed, 52 * 37).iter().map(|x| x.to_bits()).collect();
    for corner in [[36, 29], [-8, -5], [40, -11], [-20, 30]] {
        let case = LoadCase {
            extents: &extents,
            box_shape: &[32, 16],
            swizzle,
            fill,
            float: true,
            corner: corner.to_vec(),
            step: 0,
            reps: 1,
        };
        case.check(
            gpu,
            module,
            &format!("f32 52x37, {swizzle:?} swizzle, {fill:?} fill, box 32x16 at {corner:?} (seed {seed})"),
            &bits,
        )?;
    }
    Ok(())
}

/// Two TMA stores of random boxes into a poisoned tensor, one at the origin and one hanging over the
/// high end of every mode: the tensor must hold the boxes' in-bounds elements and the poison
/// elsewhere. (A store box cannot start at a negative coordinate.) With `reduce`, two TMA
/// reductions (f32 additions) of random boxes into a random f32 tensor instead: each element must
/// be its first value plus the boxes' elements over it (small integers, so the sums are exact).
fn store_clipped(gpu: &Gpu, module: &Module, extents: &[i64], box_shape: &[u32], swizzle: TmaSwizzle, reduce: bool) -> Result<(), String> {
    let seed = fresh_seed();
    let n = extents.iter().product::<i64>() as usize;
    let rank = extents.len();
    let small = |s: u64, count: usize| -> Vec<u32> { random_u32(s, count).into_iter().map(|x| ((x % 17) as f32 - 8.0).to_bits()).collect() };
    let first = if reduce { small(seed ^ 0x5eed, n) } else { vec![u32::MAX; n] };
    // A reduction adds as the map's element type says: an f32 tensor, here seen as its words.
    let global = col_major(extents, 1);
    let (out_u32, out_f32) = if reduce {
        (None, Some(gpu.upload(&first.iter().map(|&w| f32::from_bits(w)).collect::<Vec<f32>>()).map_err(fail("upload"))?))
    } else {
        (Some(gpu.upload(&first).map_err(fail("upload"))?), None)
    };
    let map = match (&out_u32, &out_f32) {
        (Some(out), _) => gpu.tensor_map(out, global, box_shape, swizzle, TmaOobFill::Zero),
        (_, Some(out)) => gpu.tensor_map(out, global, box_shape, swizzle, TmaOobFill::Zero),
        _ => unreachable!("one of the two tensors exists"),
    }
    .map_err(fail("tensor_map"))?;
    let desc = gpu.upload(&map.bytes).map_err(fail("upload tensor map"))?;
    let image = box_image(box_shape, swizzle);
    let box_extents: Vec<i64> = box_shape.iter().map(|&b| b as i64).collect();
    let words = box_extents.iter().product::<i64>() as usize;

    let corners: [Vec<i32>; 2] = [
        vec![0; rank],
        // Innermost coordinate a multiple of 4 elements (16 bytes).
        extents.iter().zip(&box_extents).enumerate().map(|(k, (e, b))| (if k == 0 { (e - b / 2) / 4 * 4 } else { e - b / 2 }) as i32).collect(),
    ];
    // Which store wrote each tensor element, and the value.
    let mut want = first.clone();
    let mut origin = vec![None; n];
    for (s, corner) in corners.iter().enumerate() {
        let values = if reduce { small(seed + s as u64, words) } else { random_u32(seed + s as u64, words) };
        let mut smem = vec![0xdead_beefu32; words];
        for (i, v) in values.iter().enumerate() {
            smem[image.call(i as i64) as usize / 4] = *v;
            let g: Vec<i64> = coords(i as i64, &box_extents).iter().zip(corner).map(|(b, c)| b + *c as i64).collect();
            if g.iter().zip(extents).all(|(c, e)| (0..*e).contains(c)) {
                let flat = element(global, &g);
                want[flat] = if reduce { (f32::from_bits(want[flat]) + f32::from_bits(*v)).to_bits() } else { *v };
                origin[flat] = Some((s, i));
            }
        }
        let src = gpu.upload(&smem).map_err(fail("upload"))?;
        let r = rank as u32;
        let mut c = [0i32; 5];
        c[..rank].copy_from_slice(corner);
        let box_bytes = 4 * words as u32;
        unsafe {
            gpu.launch(
                module,
                tma::tma_store_box,
                LaunchConfig::linear(1, 128),
                (&desc, r, c[0], c[1], c[2], c[3], c[4], box_bytes, &src, reduce as u32),
            )
            .run()
        }
        .map_err(fail("launch"))?;
        gpu.synchronize().map_err(fail("synchronize"))?;
    }
    let got = match (&out_u32, &out_f32) {
        (Some(out), _) => gpu.download(out).map_err(fail("download"))?,
        (_, Some(out)) => gpu.download(out).map_err(fail("download"))?.into_iter().map(f32::to_bits).collect(),
        _ => unreachable!("one of the two tensors exists"),
    };
    compare_words(&got, &want, |i| {
        let at = coords(i as i64, extents);
        let source = match &origin[i] {
            Some((s, e)) => format!(
                "written by store {s} (box at {:?}) from its element {:?}",
                corners[*s],
                coords(*e as i64, &box_extents)
            ),
            None => "outside both boxes: must keep its first value".to_string(),
        };
        format!(
            "{rank}-D tensor {extents:?}, {swizzle:?} swizzle, boxes {box_shape:?} at {corners:?} (seed {seed}): \
             element {at:?}, {source}"
        )
    })
}
