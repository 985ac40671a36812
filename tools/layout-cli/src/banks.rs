//! Shared-memory banks: which bank holds an element of a (swizzled) layout, and how many bank
//! conflicts a warp's access to a tile has.
//!
//! # The bank model
//! Shared memory has [`BANKS`] banks of [`BANK_BYTES`] bytes: the byte at address `a` lies in the
//! 4-byte word `a / 4`, which lives in bank `(a / 4) mod 32`. A layout gives element offsets; with
//! elements of `E` bytes the element at offset `o` occupies bytes `o*E .. o*E + E`.
//!
//! One access is one load instruction of a warp: every thread of the [`Access`]'s thread layout
//! reads its block of values at once (one vector of `VM*VN*E` bytes, 1 to 16). The hardware serves
//! it in *phases* of 128 bytes: the whole warp when each thread reads at most 4 bytes, half-warps
//! for 8 bytes, quarter-warps for 16 bytes. A phase takes as many *wavefronts* as the largest number
//! of distinct words it requests from one bank (threads reading the same word are served together,
//! a broadcast). The conflicts of an access are its wavefronts minus the ideal, one per phase: a
//! warp reading one column of a row-major `32x32` float tile reads bank 0 32 times, 31 conflicts.
//!
//! ```
//! use cute_rs_layout_cli::{banks::{conflicts, Access}, tile::Tile};
//! use cute_rs_layout::Layout;
//! let column = Access::column(32, (1, 1)).unwrap();
//! let plain = Tile::new(Layout::parse("(32,32):(32,1)").unwrap()).unwrap();
//! let padded = Tile::new(Layout::parse("(32,32):(33,1)").unwrap()).unwrap();
//! assert_eq!(conflicts(plain, 4, &column).unwrap()[0].conflicts(), 31);
//! assert_eq!(conflicts(padded, 4, &column).unwrap()[0].conflicts(), 0);
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use cute_rs_layout::Layout;

use crate::tile::{Tile, TileError};

/// The number of shared-memory banks.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_layout_cli::banks::BANKS, 32);
/// ```
pub const BANKS: i64 = 32;

/// The width of a bank word, in bytes.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_layout_cli::banks::BANK_BYTES, 4);
/// ```
pub const BANK_BYTES: i64 = 4;

/// The element size assumed when none is given: 4 bytes (`float`, `int`), one element per bank
/// word, so that an element's bank is simply its offset mod 32.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_layout_cli::banks::DEFAULT_ELEMENT_BYTES, 4);
/// ```
pub const DEFAULT_ELEMENT_BYTES: i64 = 4;

/// The most threads one access has: a warp.
///
/// # Example
/// ```
/// assert_eq!(cute_rs_layout_cli::banks::WARP, 32);
/// ```
pub const WARP: i64 = 32;

fn fail<T>(msg: String) -> Result<T, TileError> {
    Err(TileError(msg))
}

/// Checks an element size: a power of two from 1 to 16 bytes.
///
/// # Errors
/// A [`TileError`] naming the condition.
///
/// # Example
/// ```
/// assert!(cute_rs_layout_cli::banks::check_element_bytes(2).is_ok());
/// assert_eq!(cute_rs_layout_cli::banks::check_element_bytes(3).unwrap_err().to_string(),
///            "element size must be 1, 2, 4, 8 or 16 bytes, found 3");
/// ```
pub fn check_element_bytes(bytes: i64) -> Result<(), TileError> {
    if matches!(bytes, 1 | 2 | 4 | 8 | 16) {
        Ok(())
    } else {
        fail(format!("element size must be 1, 2, 4, 8 or 16 bytes, found {bytes}"))
    }
}

/// The bank holding byte address `byte`.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::banks::bank_of_byte;
/// assert_eq!(bank_of_byte(0), 0);
/// assert_eq!(bank_of_byte(7), 1);
/// assert_eq!(bank_of_byte(128), 0);
/// ```
pub fn bank_of_byte(byte: i64) -> i64 {
    byte.div_euclid(BANK_BYTES).rem_euclid(BANKS)
}

/// The bank of the first byte of the element at `offset` (elements of `element_bytes` bytes).
///
/// # Example
/// ```
/// use cute_rs_layout_cli::banks::bank_of_element;
/// assert_eq!(bank_of_element(33, 4), 1);
/// assert_eq!(bank_of_element(33, 2), 16); // byte 66
/// assert_eq!(bank_of_element(5, 16), 20); // bytes 80..96: banks 20..24
/// ```
pub fn bank_of_element(offset: i64, element_bytes: i64) -> i64 {
    bank_of_byte(offset * element_bytes)
}

/// A warp's access pattern, CuTe-style: a thread layout `(TM,TN) -> thread id` over a grid of
/// threads, each reading a `(VM,VN)` block of values (as in `make_tiled_copy(atom, threads,
/// values)`: thread `(i,j)` reads rows `i*VM ..`, columns `j*VN ..`). One access covers
/// `(TM*VM, TN*VN)` cells; a tile is read by repeating it over the tile.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::banks::Access;
/// use cute_rs_layout::Layout;
/// // 4 rows of 8 threads, each reading 8 contiguous elements of its row.
/// let a = Access::new(Layout::parse("(4,8):(8,1)").unwrap(), (1, 8)).unwrap();
/// assert_eq!(a.extent(), (4, 64));
/// assert_eq!(a.to_string(), "threads (4,8):(8,1) x values (1,8)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    threads: Layout,
    grid: (i64, i64),
    values: (i64, i64),
}

impl Access {
    /// The access of thread layout `threads` (rank 1 or 2, at most [`WARP`] threads with distinct
    /// ids below 32), each thread reading a `values = (VM, VN)` block.
    ///
    /// # Errors
    /// A [`TileError`] for a rank above 2, more than 32 threads, a repeated or out-of-warp thread id,
    /// or a value block dimension below 1.
    ///
    /// # Example
    /// ```
    /// use cute_rs_layout_cli::banks::Access;
    /// use cute_rs_layout::Layout;
    /// assert!(Access::new(Layout::parse("(8,4):(1,8)").unwrap(), (1, 4)).is_ok());
    /// let e = Access::new(Layout::parse("(8,4):(1,4)").unwrap(), (1, 1)).unwrap_err();
    /// assert_eq!(e.to_string(),
    ///            "access: each thread must have one place: thread 4 is at (4,0) and at (0,1)");
    /// ```
    pub fn new(threads: Layout, values: (i64, i64)) -> Result<Access, TileError> {
        let grid = Tile::new(threads)
            .map(|t| (t.rows(), t.cols()))
            .map_err(|e| TileError(format!("access: thread layout: {e}")))?;
        if threads.size() > WARP {
            return fail(format!("access: one access is one warp, at most 32 threads, found {}", threads.size()));
        }
        if values.0 < 1 || values.1 < 1 {
            return fail(format!("access: a value block must be at least (1,1), found ({},{})", values.0, values.1));
        }
        let mut seen: BTreeMap<i64, (i64, i64)> = BTreeMap::new();
        for n in 0..grid.1 {
            for m in 0..grid.0 {
                let t = threads.call(m + n * grid.0);
                if !(0..WARP).contains(&t) {
                    return fail(format!("access: thread ids must lie in 0..32, found {t} at ({m},{n})"));
                }
                if let Some((pm, pn)) = seen.insert(t, (m, n)) {
                    return fail(format!(
                        "access: each thread must have one place: thread {t} is at ({pm},{pn}) and at ({m},{n})"
                    ));
                }
            }
        }
        Ok(Access { threads, grid, values })
    }

    /// `threads` threads reading along one row, thread `t` at column `t`, each reading `values`.
    ///
    /// # Errors
    /// As [`Access::new`].
    ///
    /// # Example
    /// ```
    /// let a = cute_rs_layout_cli::banks::Access::row(32, (1, 1)).unwrap();
    /// assert_eq!(a.extent(), (1, 32));
    /// ```
    pub fn row(threads: i64, values: (i64, i64)) -> Result<Access, TileError> {
        Access::new(line(1, threads)?, values)
    }

    /// `threads` threads reading down one column, thread `t` at row `t`, each reading `values`.
    ///
    /// # Errors
    /// As [`Access::new`].
    ///
    /// # Example
    /// ```
    /// let a = cute_rs_layout_cli::banks::Access::column(8, (1, 4)).unwrap();
    /// assert_eq!(a.extent(), (8, 4));
    /// ```
    pub fn column(threads: i64, values: (i64, i64)) -> Result<Access, TileError> {
        Access::new(line(threads, 1)?, values)
    }

    /// The thread layout.
    ///
    /// # Example
    /// ```
    /// let a = cute_rs_layout_cli::banks::Access::column(8, (1, 4)).unwrap();
    /// assert_eq!(a.threads().to_string(), "(8,1):(1,0)");
    /// ```
    pub fn threads(&self) -> Layout {
        self.threads
    }

    /// The block `(VM, VN)` each thread reads.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_layout_cli::banks::Access::row(8, (1, 8)).unwrap().values(), (1, 8));
    /// ```
    pub fn values(&self) -> (i64, i64) {
        self.values
    }

    /// The cells one access covers: `(TM*VM, TN*VN)`.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_layout_cli::banks::Access::row(8, (2, 4)).unwrap().extent(), (2, 32));
    /// ```
    pub fn extent(&self) -> (i64, i64) {
        (self.grid.0 * self.values.0, self.grid.1 * self.values.1)
    }

    /// For each thread of the access at cell `origin`: its id and the cells `(m, n)` it reads.
    ///
    /// # Example
    /// ```
    /// let a = cute_rs_layout_cli::banks::Access::row(2, (1, 2)).unwrap();
    /// assert_eq!(a.cells_at((3, 4)), vec![(0, vec![(3, 4), (3, 5)]), (1, vec![(3, 6), (3, 7)])]);
    /// ```
    pub fn cells_at(&self, origin: (i64, i64)) -> Vec<(i64, Vec<(i64, i64)>)> {
        let (vm, vn) = self.values;
        let mut out = Vec::new();
        for j in 0..self.grid.1 {
            for i in 0..self.grid.0 {
                let t = self.threads.call(i + j * self.grid.0);
                let mut cells = Vec::new();
                for b in 0..vn {
                    for a in 0..vm {
                        cells.push((origin.0 + i * vm + a, origin.1 + j * vn + b));
                    }
                }
                out.push((t, cells));
            }
        }
        out.sort_by_key(|(t, _)| *t);
        out
    }
}

/// The thread layout of `rows x cols` threads numbered along the longer side (`(1,T):(0,1)` or
/// `(T,1):(1,0)`).
fn line(rows: i64, cols: i64) -> Result<Layout, TileError> {
    if rows < 1 || cols < 1 {
        return fail(format!("access: the number of threads must be at least 1, found {}", rows * cols));
    }
    let text = if rows == 1 { format!("(1,{cols}):(0,1)") } else { format!("({rows},1):(1,0)") };
    Ok(Layout::parse(&text)?)
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "threads {} x values ({},{})", self.threads, self.values.0, self.values.1)
    }
}

/// The bank count of one access: where it lies in the tile and how many wavefronts it takes.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::{banks::{conflicts, Access}, tile::Tile};
/// let tile = Tile::new(cute_rs_layout::Layout::parse("(8,8):(8,1)").unwrap()).unwrap();
/// let counts = conflicts(tile, 4, &Access::column(8, (1, 1)).unwrap()).unwrap();
/// assert_eq!(counts.len(), 8); // one access per column
/// assert_eq!((counts[1].origin, counts[1].wavefronts, counts[1].ideal), ((0, 1), 2, 1));
/// assert_eq!(counts[1].conflicts(), 1); // rows 0 and 4 of a column share a bank
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessCount {
    /// The tile cell `(m, n)` at the access's top-left corner.
    pub origin: (i64, i64),
    /// The wavefronts the access takes.
    pub wavefronts: i64,
    /// The wavefronts it would take without conflicts: one per phase.
    pub ideal: i64,
}

impl AccessCount {
    /// The bank conflicts: extra wavefronts, `wavefronts - ideal`.
    ///
    /// # Example
    /// ```
    /// let c = cute_rs_layout_cli::banks::AccessCount { origin: (0, 0), wavefronts: 4, ideal: 1 };
    /// assert_eq!(c.conflicts(), 3);
    /// ```
    pub fn conflicts(&self) -> i64 {
        self.wavefronts - self.ideal
    }
}

/// The threads served together: 128 bytes' worth (32 threads of up to 4 bytes, 16 of 8, 8 of 16).
///
/// # Example
/// ```
/// use cute_rs_layout_cli::banks::threads_per_phase;
/// assert_eq!([1, 4, 8, 16].map(threads_per_phase), [32, 32, 16, 8]);
/// ```
pub fn threads_per_phase(bytes_per_thread: i64) -> i64 {
    BANKS * BANK_BYTES / bytes_per_thread.max(BANK_BYTES)
}

/// The bank count of every access of `access` repeated over the tile `smem`, elements of
/// `element_bytes` bytes, in column-major order of the accesses (down the first column of accesses
/// first, as CuTe orders coordinates).
///
/// # Errors
/// A [`TileError`] when the element size is not 1, 2, 4, 8 or 16, a thread would read a size that
/// no load instruction reads (more than 16 bytes, or not a power of two), or the access's extent
/// does not divide the tile.
///
/// # Example
/// ```
/// use cute_rs_layout_cli::{banks::{conflicts, Access}, tile::Tile};
/// use cute_rs_layout::{make_swizzled, Layout, Swizzle};
/// // Sw<3,2,3> on 128-byte rows of floats: 16-byte reads down a column are conflict-free.
/// let rows = Layout::parse("(8,32):(32,1)").unwrap();
/// let sw = Tile::swizzled(make_swizzled(Swizzle::new(3, 2, 3).unwrap(), rows)).unwrap();
/// let down = Access::column(8, (1, 4)).unwrap();
/// assert!(conflicts(sw, 4, &down).unwrap().iter().all(|c| c.conflicts() == 0));
/// let plain = Tile::new(rows).unwrap();
/// assert!(conflicts(plain, 4, &down).unwrap().iter().all(|c| c.conflicts() == 7));
/// ```
pub fn conflicts(smem: Tile, element_bytes: i64, access: &Access) -> Result<Vec<AccessCount>, TileError> {
    check_element_bytes(element_bytes)?;
    let per_thread = access.values.0 * access.values.1 * element_bytes;
    if !matches!(per_thread, 1 | 2 | 4 | 8 | 16) {
        return fail(format!(
            "access: a thread reads values {}x{} of {element_bytes} bytes = {per_thread} bytes; one load must read 1, 2, 4, 8 or 16 bytes",
            access.values.0, access.values.1
        ));
    }
    let (rows, cols) = (smem.rows(), smem.cols());
    let (em, en) = access.extent();
    if rows % em != 0 || cols % en != 0 {
        return fail(format!(
            "access: its extent ({em},{en}) must divide the tile ({rows},{cols}) in both modes"
        ));
    }
    let phase = threads_per_phase(per_thread);
    let mut out = Vec::new();
    for n0 in (0..cols).step_by(en as usize) {
        for m0 in (0..rows).step_by(em as usize) {
            // For each phase, for each bank: the distinct words requested.
            let mut phases: BTreeMap<i64, BTreeMap<i64, BTreeSet<i64>>> = BTreeMap::new();
            for (t, cells) in access.cells_at((m0, n0)) {
                let banks = phases.entry(t / phase).or_default();
                for (m, n) in cells {
                    let first = smem.offset(m, n) * element_bytes;
                    // An element wider than a word touches every word it spans.
                    for byte in (first..first + element_bytes).step_by(BANK_BYTES as usize) {
                        banks.entry(bank_of_byte(byte)).or_default().insert(byte.div_euclid(BANK_BYTES));
                    }
                }
            }
            let wavefronts = phases.values().map(|b| b.values().map(|w| w.len() as i64).max().unwrap_or(0)).sum();
            out.push(AccessCount { origin: (m0, n0), wavefronts, ideal: phases.len() as i64 });
        }
    }
    Ok(out)
}
