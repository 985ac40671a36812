//! The CPU backend's buffers between guard pages, so that a kernel's raw-pointer access outside
//! them is reported by the launch instead of corrupting memory or crashing the process.
//!
//! Each buffer is its own mapping: an inaccessible page, the data pages, another inaccessible
//! page, the data ending (rounded up to 256 bytes, the buffers' alignment) at the second guard
//! page. A kernel that reads or writes a guard page raises `SIGSEGV`; the handler installed here
//! records the address for the running launch (through `cute_rs_tensor::device::cpu::note_fault`), opens
//! the page so that the access completes, and returns. The launch then fails with an error naming
//! the kernel, the block, the thread, the address and the buffer it missed
//! (`describe`), and the opened pages are closed again ([`close_opened`]).
//!
//! Accesses that land in a buffer's rounding slack (less than 256 bytes past its end) or far from
//! every buffer are not caught by this: the first stay within memory of the buffer, the second
//! fall to the process's previous handler. Faults outside a kernel go to that handler too.
//!
//! On non-Unix hosts, and past [`SLOTS`] live buffers, buffers come from the plain allocator.

/// The most buffers with guard pages alive at once.
pub(crate) const SLOTS: usize = 1 << 14;

#[cfg(unix)]
mod unix {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Once;

    use super::SLOTS;

    /// One live buffer: its mapping and its data.
    struct Slot {
        map: AtomicUsize,
        map_len: AtomicUsize,
        data: AtomicUsize,
        data_len: AtomicUsize,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: Slot =
        Slot { map: AtomicUsize::new(0), map_len: AtomicUsize::new(0), data: AtomicUsize::new(0), data_len: AtomicUsize::new(0) };
    static BUFFERS: [Slot; SLOTS] = [EMPTY; SLOTS];

    /// Guard pages the handler opened, to close after the launch.
    #[allow(clippy::declare_interior_mutable_const)]
    const NO_PAGE: AtomicUsize = AtomicUsize::new(0);
    static OPENED: [AtomicUsize; 256] = [NO_PAGE; 256];

    /// The `SIGSEGV` action before ours, which faults that are not ours go to.
    static mut PREVIOUS: Option<libc::sigaction> = None;
    static INSTALL: Once = Once::new();

    /// The page size, read once before the handler is installed (the handler reads the cache:
    /// `sysconf` is not async-signal-safe).
    static PAGE: AtomicUsize = AtomicUsize::new(0);

    fn page() -> usize {
        match PAGE.load(Ordering::Relaxed) {
            0 => {
                // SAFETY: sysconf has no preconditions.
                let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
                let p = if p > 0 { p as usize } else { 4096 };
                PAGE.store(p, Ordering::Relaxed);
                p
            }
            p => p,
        }
    }

    /// A buffer of `bytes` (at least 1) between guard pages, its data filled with `poison` and
    /// 256-byte aligned; `None` when no slot or mapping is left.
    pub(crate) fn alloc(bytes: usize, poison: u8) -> Option<u64> {
        INSTALL.call_once(install);
        let page = page();
        let rounded = bytes.checked_next_multiple_of(256)?;
        let data_pages = rounded.div_ceil(page);
        let map_len = (data_pages + 2).checked_mul(page)?;
        let free = BUFFERS.iter().find(|s| s.map.compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed).is_ok())?;
        // SAFETY: a fresh private anonymous mapping; the data pages become readable and writable.
        let map = unsafe {
            let m = libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            );
            if m == libc::MAP_FAILED
                || libc::mprotect((m as *mut u8).add(page) as *mut libc::c_void, data_pages * page, libc::PROT_READ | libc::PROT_WRITE)
                    != 0
            {
                if m != libc::MAP_FAILED {
                    libc::munmap(m, map_len);
                }
                free.map.store(0, Ordering::Release);
                return None;
            }
            m as usize
        };
        let data = map + page + data_pages * page - rounded;
        // SAFETY: `rounded` writable bytes at `data`.
        unsafe { std::ptr::write_bytes(data as *mut u8, poison, rounded) };
        free.map_len.store(map_len, Ordering::Relaxed);
        free.data.store(data, Ordering::Relaxed);
        free.data_len.store(bytes, Ordering::Relaxed);
        free.map.store(map, Ordering::Release);
        Some(data as u64)
    }

    /// Unmaps the buffer at `ptr` if [`alloc`] made it; whether it did.
    pub(crate) fn free(ptr: u64) -> bool {
        let Some(slot) = BUFFERS.iter().find(|s| s.data.load(Ordering::Acquire) == ptr as usize) else { return false };
        let (map, map_len) = (slot.map.load(Ordering::Acquire), slot.map_len.load(Ordering::Relaxed));
        slot.data.store(0, Ordering::Relaxed);
        // SAFETY: the mapping `alloc` made, unmapped once.
        unsafe { libc::munmap(map as *mut libc::c_void, map_len) };
        slot.map.store(0, Ordering::Release);
        true
    }

    /// Where `address` lies against the live buffers, for the launch's error.
    pub(crate) fn describe(address: usize) -> String {
        for s in &BUFFERS {
            let map = s.map.load(Ordering::Acquire);
            if map == 0 || map == usize::MAX {
                continue;
            }
            let (map_len, data, len) = (s.map_len.load(Ordering::Relaxed), s.data.load(Ordering::Relaxed), s.data_len.load(Ordering::Relaxed));
            if (map..map + map_len).contains(&address) {
                let side = if address >= data + len {
                    format!("{} bytes past the end", address - (data + len))
                } else {
                    format!("{} bytes before the start", data - address)
                };
                return format!("{side} of a buffer of {len} bytes at {data:#x}");
            }
        }
        "outside every buffer of the CPU backend".to_string()
    }

    /// Closes the guard pages the handler opened.
    pub(crate) fn close_opened() {
        let page = page();
        for p in &OPENED {
            let at = p.swap(0, Ordering::AcqRel);
            if at != 0 {
                // SAFETY: a guard page of a live (or already unmapped: then this fails harmlessly)
                // mapping.
                unsafe { libc::mprotect(at as *mut libc::c_void, page, libc::PROT_NONE) };
            }
        }
    }

    fn install() {
        page();
        cute_rs_tensor::device::cpu::describe_faults_with(describe);
        // SAFETY: a zeroed sigaction is valid; the handler is async-signal-safe (atomics, mprotect).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER | libc::SA_ONSTACK;
            libc::sigemptyset(&mut action.sa_mask);
            let mut previous: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(libc::SIGSEGV, &action, &mut previous) == 0 {
                PREVIOUS = Some(previous);
            }
        }
    }

    /// The guard page `address` is in, if it is one of a live buffer.
    fn guard_page_of(address: usize) -> Option<usize> {
        let page = page();
        for s in &BUFFERS {
            let map = s.map.load(Ordering::Acquire);
            if map == 0 || map == usize::MAX {
                continue;
            }
            let map_len = s.map_len.load(Ordering::Relaxed);
            let last = map + map_len - page;
            if (map..map + page).contains(&address) {
                return Some(map);
            }
            if (last..map + map_len).contains(&address) {
                return Some(last);
            }
        }
        None
    }

    extern "C" fn handler(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
        // SAFETY: the kernel fills `info` for SIGSEGV.
        let address = unsafe { (*info).si_addr() } as usize;
        if let Some(guard) = guard_page_of(address) {
            if cute_rs_tensor::device::cpu::note_fault(address) {
                // Remembered to close after the launch (if the list is full, the page stays open).
                let _ = OPENED.iter().find(|p| p.compare_exchange(0, guard, Ordering::AcqRel, Ordering::Relaxed).is_ok());
                // SAFETY: a page of our own mapping; the faulting access completes once it is open.
                unsafe { libc::mprotect(guard as *mut libc::c_void, page(), libc::PROT_READ | libc::PROT_WRITE) };
                return;
            }
        }
        // Not ours: the previous action, or the default (the fault recurs and ends the process).
        // SAFETY: PREVIOUS is written once, before the handler is installed.
        unsafe {
            match *std::ptr::addr_of!(PREVIOUS) {
                Some(previous) if previous.sa_sigaction != libc::SIG_DFL && previous.sa_sigaction != libc::SIG_IGN => {
                    if previous.sa_flags & libc::SA_SIGINFO != 0 {
                        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                            std::mem::transmute(previous.sa_sigaction);
                        f(signal, info, context);
                    } else {
                        let f: extern "C" fn(libc::c_int) = std::mem::transmute(previous.sa_sigaction);
                        f(signal);
                    }
                }
                _ => {
                    let mut default: libc::sigaction = std::mem::zeroed();
                    default.sa_sigaction = libc::SIG_DFL;
                    libc::sigaction(libc::SIGSEGV, &default, std::ptr::null_mut());
                }
            }
        }
    }
}

#[cfg(unix)]
pub(crate) use unix::{alloc, close_opened, free};

#[cfg(not(unix))]
pub(crate) fn alloc(_bytes: usize, _poison: u8) -> Option<u64> {
    None
}
#[cfg(not(unix))]
pub(crate) fn free(_ptr: u64) -> bool {
    false
}
#[cfg(not(unix))]
pub(crate) fn close_opened() {}
