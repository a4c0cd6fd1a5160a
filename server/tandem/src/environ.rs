//! The sidecar's environment out of `/proc/PID/environ`.
//!
//! The kernel shows a process's *initial* environment block (the strings `execve` copied to the
//! top of the new stack) to every process of the same user, and to root, in `/proc/PID/environ`
//! (on macOS, `ps eww` and `KERN_PROCARGS2`, which read the same memory). `std::env::remove_var`
//! changes libc's array of pointers, not those strings. So, first thing in `main`, before any
//! thread starts, every variable is copied into memory of the process's own, libc's array is
//! pointed at the copies (where `std::env` and child processes find them), and the original
//! strings are overwritten with zeroes: the block the kernel shows stays, empty.
//!
//! This replaced a re-exec with the environment handed over on a pipe, which did the same at the
//! price of a second image starting (about half of the time to the `initialize` answer).
//!
//! Windows: a process's environment is readable by another process only with
//! `PROCESS_VM_READ` on it, which a process of another user or a lower integrity level does not
//! get, and `SetEnvironmentVariable` changes the only copy there is; nothing is done there.

/// Moves the environment out of the block the kernel shows. Call first in `main`, while the
/// process has one thread.
pub fn hide() {
    #[cfg(unix)]
    // SAFETY: the caller runs this first in `main`, before any thread exists, so nothing reads or
    // writes the environment meanwhile.
    unsafe {
        unix::hide()
    };
}

#[cfg(unix)]
mod unix {
    use std::ffi::{CStr, CString, c_char};

    /// libc's `environ`, the array `getenv`, `setenv` and `std::env` use.
    #[cfg(target_vendor = "apple")]
    fn environ_slot() -> *mut *mut *mut c_char {
        // SAFETY: a libSystem function without arguments that returns the address of `environ`.
        unsafe { libc::_NSGetEnviron() }
    }

    /// libc's `environ`, the array `getenv`, `setenv` and `std::env` use.
    #[cfg(not(target_vendor = "apple"))]
    fn environ_slot() -> *mut *mut *mut c_char {
        unsafe extern "C" {
            static mut environ: *mut *mut c_char;
        }
        // Taking the address of the POSIX global, not reading it, needs no `unsafe`.
        &raw mut environ
    }

    /// # Safety
    /// No other thread may exist (nothing else may touch the environment meanwhile).
    pub unsafe fn hide() {
        let slot = environ_slot();
        // SAFETY: one thread (the caller's promise); `environ` is a NULL-ended array of
        // NUL-ended strings, or NULL.
        unsafe {
            let original = *slot;
            if original.is_null() {
                return;
            }
            let mut copies: Vec<*mut c_char> = Vec::new();
            let mut strings: Vec<(*mut c_char, usize)> = Vec::new();
            let mut at = original;
            while !(*at).is_null() {
                let string = CStr::from_ptr(*at);
                // Every entry as it is, with or without an `=`: the copy changes nothing but where
                // the bytes live.
                copies.push(CString::from(string).into_raw());
                strings.push((*at, string.to_bytes().len()));
                at = at.add(1);
            }
            copies.push(std::ptr::null_mut());
            // Leaked on purpose: libc keeps using the array and its strings for the process's
            // life (a later `setenv` copies the array, as it does for any `environ` it didn't make).
            *slot = Box::leak(copies.into_boxed_slice()).as_mut_ptr();
            for (string, len) in strings {
                // `execve` puts the strings above the pointer arrays on the new stack; an entry
                // elsewhere (set before `main` by a preloaded library) is not in the block shown.
                if string as usize > original as usize {
                    for i in 0..len {
                        // Volatile: these bytes are read by other processes, not by this one,
                        // so the compiler must not decide the writes are dead.
                        string.add(i).write_volatile(0);
                    }
                }
            }
        }
    }
}
