//! Printing and assertions in kernels: [`device_println!`](crate::device_println) and
//! [`device_assert!`](crate::device_assert), on the GPU and on the CPU backend.
//!
//! On the GPU a line is formatted by `core::fmt` into a buffer of the calling thread (at most
//! [`LINE_BYTES`] bytes; longer lines end in `...`) and handed to CUDA's `vprintf`, whose output
//! the driver writes to standard output when the host next synchronizes. A failed assertion calls
//! CUDA's `__assertfail` with the formatted message: the driver prints it with the block and thread
//! to standard error, the kernel stops, and the host's next synchronization returns
//! `CUDA_ERROR_ASSERT`, which the host runtime reports as a named error.
//!
//! On the CPU backend a line goes to the process's standard output, and a failed assertion panics
//! with the message; the launch returns it as the kernel's error, naming the block and thread.
//!
//! Any other panic in a kernel (`assert!`, `unwrap`, a bounds check) ends it with a `trap` on the
//! GPU, without a message: a handler that prints costs the kernels that keep a panic path (see
//! the library's panic handler). Use `device_assert!` for checks whose message must reach the host.
//!
//! # Example
//! ```
//! use cute_rs_device::{device_assert, device_println};
//! let (x, n) = (3u32, 8u32);
//! device_println!("x = {x} of {n}");
//! device_assert!(x < n, "x = {} is out of range (n = {})", x, n);
//! let failed = std::panic::catch_unwind(|| device_assert!(x > n, "x = {x} must exceed {n}"));
//! assert!(failed.is_err());
//! ```

use core::fmt;

/// The most bytes of one printed line or assertion message on the GPU, the final NUL included.
pub const LINE_BYTES: usize = 256;

/// A line being formatted: a fixed buffer that keeps what fits and marks the cut with `...`.
///
/// # Example
/// ```
/// use core::fmt::Write;
/// let mut line = cute_rs_device::print::Line::new();
/// write!(line, "{} + {} = {}", 1, 2, 1 + 2).unwrap();
/// assert_eq!(line.as_str(), "1 + 2 = 3");
/// ```
pub struct Line {
    bytes: [u8; LINE_BYTES],
    len: usize,
    cut: bool,
}

impl Line {
    /// An empty line.
    ///
    /// # Example
    /// ```
    /// assert_eq!(cute_rs_device::print::Line::new().as_str(), "");
    /// ```
    pub const fn new() -> Line {
        Line { bytes: [0; LINE_BYTES], len: 0, cut: false }
    }

    /// What was written (whole characters only).
    ///
    /// # Example
    /// ```
    /// use core::fmt::Write;
    /// let mut line = cute_rs_device::print::Line::new();
    /// line.write_str(&"x".repeat(300)).unwrap(); // longer than a line: kept up to the limit
    /// assert_eq!(line.as_str().len(), cute_rs_device::print::LINE_BYTES - 1);
    /// ```
    pub fn as_str(&self) -> &str {
        match core::str::from_utf8(&self.bytes[..self.len]) {
            Ok(s) => s,
            Err(e) => {
                // SAFETY: the prefix up to the first invalid byte is valid UTF-8.
                unsafe { core::str::from_utf8_unchecked(&self.bytes[..e.valid_up_to()]) }
            }
        }
    }

    /// The text followed by a NUL (and `...` if it was cut), for C's `printf` family.
    ///
    /// # Example
    /// ```
    /// use core::fmt::Write;
    /// let mut line = cute_rs_device::print::Line::new();
    /// write!(line, "n = {}", 7).unwrap();
    /// let p = line.c_str();
    /// assert_eq!(unsafe { core::ffi::CStr::from_ptr(p as *const core::ffi::c_char) }.to_str(), Ok("n = 7"));
    /// ```
    pub fn c_str(&mut self) -> *const u8 {
        let room = LINE_BYTES - 1;
        if self.cut {
            self.len = self.len.min(room - 3);
            self.bytes[self.len..self.len + 3].copy_from_slice(b"...");
            self.len += 3;
        }
        self.bytes[self.len.min(room)] = 0;
        self.bytes.as_ptr()
    }
}

impl Default for Line {
    fn default() -> Self {
        Line::new()
    }
}

impl fmt::Write for Line {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = LINE_BYTES - 1 - self.len;
        let mut take = s.len().min(room);
        while !s.is_char_boundary(take) {
            take -= 1;
        }
        self.bytes[self.len..self.len + take].copy_from_slice(&s.as_bytes()[..take]);
        self.len += take;
        if take < s.len() {
            self.cut = true;
        }
        Ok(())
    }
}

#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    /// CUDA's device `printf`: `format` and a buffer of the arguments, each at its alignment.
    fn vprintf(format: *const u8, args: *const u8) -> i32;
    /// CUDA's device `assert` failure: prints the message with the block and thread, stops the
    /// kernel, and makes the context report `CUDA_ERROR_ASSERT`.
    fn __assertfail(message: *const u8, file: *const u8, line: u32, function: *const u8, char_size: usize) -> !;
}

/// Prints one formatted line (what [`device_println!`](crate::device_println) calls).
///
/// # Example
/// ```
/// cute_rs_device::print::print_line(format_args!("{} threads", 128));
/// ```
#[inline(never)]
#[cold]
pub fn print_line(args: fmt::Arguments<'_>) {
    #[cfg(target_arch = "nvptx64")]
    {
        let mut line = Line::new();
        let _ = fmt::Write::write_fmt(&mut line, args);
        let _ = fmt::Write::write_str(&mut line, "\n");
        let text = line.c_str();
        // SAFETY: a NUL-terminated format and one pointer argument, as `%s` reads it.
        unsafe { vprintf(c"%s".as_ptr() as *const u8, &text as *const *const u8 as *const u8) };
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let mut captured = CAPTURED.lock().unwrap_or_else(|e| e.into_inner());
        match captured.as_mut() {
            Some(out) => {
                let _ = fmt::Write::write_fmt(out, args);
                out.push('\n');
            }
            None => std::println!("{args}"),
        }
    }
}

/// What [`capture`] collects instead of printing.
#[cfg(not(target_arch = "nvptx64"))]
static CAPTURED: std::sync::Mutex<Option<std::string::String>> = std::sync::Mutex::new(None);

/// Runs `f` on the host and returns what kernels printed meanwhile (on the CPU backend), instead
/// of printing it: for tests of kernels that print. Captures run one at a time; a capture inside
/// a capture waits forever.
///
/// # Example
/// ```
/// let out = cute_rs_device::print::capture(|| cute_rs_device::device_println!("n = {}", 4));
/// assert_eq!(out, "n = 4\n");
/// ```
#[cfg(not(target_arch = "nvptx64"))]
pub fn capture(f: impl FnOnce()) -> std::string::String {
    // One capture at a time (tests run in parallel).
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    *CAPTURED.lock().unwrap_or_else(|e| e.into_inner()) = Some(std::string::String::new());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let out = CAPTURED.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
    if let Err(p) = result {
        std::panic::resume_unwind(p);
    }
    out
}

/// Stops the kernel with the formatted message (what [`device_assert!`](crate::device_assert)
/// calls when its condition is false).
///
/// # Example
/// ```
/// let r = std::panic::catch_unwind(|| {
///     cute_rs_device::print::assert_failed(format_args!("n = {}", 0), "kernel.rs", 7)
/// });
/// assert!(r.is_err());
/// ```
#[inline(never)]
#[cold]
#[track_caller]
pub fn assert_failed(args: fmt::Arguments<'_>, file: &str, line: u32) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let mut message = Line::new();
        let _ = fmt::Write::write_fmt(&mut message, args);
        fail(&mut message, file, line)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = (file, line);
        panic!("{args}")
    }
}

/// `__assertfail` with `message` at `file:line`.
#[cfg(target_arch = "nvptx64")]
fn fail(message: &mut Line, file: &str, line: u32) -> ! {
    let mut file_name = Line::new();
    let _ = fmt::Write::write_str(&mut file_name, file);
    let (message, file) = (message.c_str(), file_name.c_str());
    // SAFETY: NUL-terminated strings that live until the kernel stops.
    unsafe { __assertfail(message, file, line, c"kernel".as_ptr() as *const u8, 1) }
}

/// `println!` in a kernel: formats its arguments as `format!` does and prints one line, on the GPU
/// (through `vprintf`, at most [`LINE_BYTES`](crate::print::LINE_BYTES) bytes) and on the CPU
/// backend. Include `block_idx_x()`, `thread_idx_x()` and the like to say who prints.
///
/// # Example
/// ```
/// use cute_rs_device::device_println;
/// let (block, thread) = (2u32, 17u32);
/// device_println!("block {block}, thread {thread}: sum = {:.3}", 1.5f32);
/// ```
#[macro_export]
macro_rules! device_println {
    ($($arg:tt)*) => {
        $crate::print::print_line(::core::format_args!($($arg)*))
    };
}

/// `assert!` in a kernel whose message reaches the host: on the GPU a failed condition prints the
/// formatted message with the block and thread (CUDA's device assert) and the host's next
/// synchronization returns a named error; on the CPU backend the launch returns the message as the
/// kernel's error.
///
/// # Example
/// ```
/// use cute_rs_device::device_assert;
/// let n = 4;
/// device_assert!(n % 2 == 0);
/// device_assert!(n <= 8, "n = {n} exceeds the tile");
/// let r = std::panic::catch_unwind(|| device_assert!(n > 8, "n = {n} must exceed 8"));
/// assert!(r.is_err());
/// ```
#[macro_export]
macro_rules! device_assert {
    ($cond:expr $(,)?) => {
        $crate::device_assert!($cond, "assertion failed: {}", ::core::stringify!($cond))
    };
    ($cond:expr, $($arg:tt)+) => {
        if !$cond {
            $crate::print::assert_failed(::core::format_args!($($arg)+), ::core::file!(), ::core::line!())
        }
    };
}
