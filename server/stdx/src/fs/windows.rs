//! Private directories on Windows: a DACL that grants the current user alone full access,
//! protected from the parent's inherited entries, and inherited by everything created inside,
//! so transcripts and undo copies written there are the user's alone as well.

use std::io;
use std::os::windows::ffi::OsStrExt;
use std::path::Path;
use std::ptr::null_mut;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::Security::Authorization::{SE_FILE_OBJECT, SetNamedSecurityInfoW};
use windows_sys::Win32::Security::{
    ACCESS_ALLOWED_ACE, ACL, ACL_REVISION, AddAccessAllowedAceEx, CONTAINER_INHERIT_ACE,
    DACL_SECURITY_INFORMATION, GetLengthSid, GetTokenInformation, InitializeAcl,
    OBJECT_INHERIT_ACE, PROTECTED_DACL_SECURITY_INFORMATION, TOKEN_QUERY, TOKEN_USER, TokenUser,
};
use windows_sys::Win32::Storage::FileSystem::FILE_ALL_ACCESS;
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

/// Replaces `dir`'s DACL with one entry: full access for the current user, inherited by files
/// and subdirectories; the parent's entries no longer apply.
pub fn restrict_to_user(dir: &Path) -> io::Result<()> {
    let user = current_user_sid()?;
    let mut acl = user_only_acl(&user)?;
    let wide: Vec<u16> = dir.as_os_str().encode_wide().chain([0]).collect();
    // SAFETY: `wide` is NUL-terminated; `acl` is the ACL built above, alive until return.
    let status = unsafe {
        SetNamedSecurityInfoW(
            wide.as_ptr(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
            null_mut(),
            null_mut(),
            acl.as_mut_ptr() as *const ACL,
            null_mut(),
        )
    };
    if status != 0 {
        return Err(io::Error::from_raw_os_error(status as i32));
    }
    Ok(())
}

/// An ACL with one entry: full access for `user`, inherited by files and subdirectories.
/// Kept in u32s, which align it as Windows wants (DWORD alignment).
pub(crate) fn user_only_acl(user: &UserSid) -> io::Result<Vec<u32>> {
    let sid = user.as_ptr() as *mut core::ffi::c_void;
    // SAFETY: `sid` points into `user`, a TOKEN_USER buffer that outlives this call.
    let sid_len = unsafe { GetLengthSid(sid) };
    let acl_len = size_of::<ACL>() + size_of::<ACCESS_ALLOWED_ACE>() + sid_len as usize;
    let mut acl = vec![0u32; acl_len.div_ceil(4)];
    let acl_ptr = acl.as_mut_ptr() as *mut ACL;
    // SAFETY: `acl` holds at least `acl_len` bytes, as told; `sid` is a valid SID (above).
    let built = unsafe {
        InitializeAcl(acl_ptr, acl_len as u32, ACL_REVISION) != 0
            && AddAccessAllowedAceEx(
                acl_ptr,
                ACL_REVISION,
                OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE,
                FILE_ALL_ACCESS,
                sid,
            ) != 0
    };
    if !built {
        return Err(io::Error::last_os_error());
    }
    Ok(acl)
}

/// The current process's user, as a TOKEN_USER buffer (its SID points inside it).
pub(crate) fn current_user_sid() -> io::Result<UserSid> {
    let mut token: HANDLE = null_mut();
    // SAFETY: GetCurrentProcess is a pseudo-handle; `token` receives a handle closed below.
    if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
        return Err(io::Error::last_os_error());
    }
    let mut len = 0u32;
    // SAFETY: a size query (no buffer), then a call with a buffer of the size it answered.
    let result = unsafe {
        GetTokenInformation(token, TokenUser, null_mut(), 0, &mut len);
        let mut buf = vec![0u64; (len as usize).div_ceil(8)];
        if GetTokenInformation(token, TokenUser, buf.as_mut_ptr().cast(), len, &mut len) == 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(UserSid(buf))
        }
    };
    // SAFETY: `token` was opened above and is closed once.
    unsafe { CloseHandle(token) };
    result
}

/// A TOKEN_USER buffer (u64s keep it aligned); [`UserSid::as_ptr`] is the SID inside.
pub(crate) struct UserSid(Vec<u64>);

impl UserSid {
    pub(crate) fn as_ptr(&self) -> *const core::ffi::c_void {
        // SAFETY: the buffer holds a TOKEN_USER filled by GetTokenInformation.
        unsafe { (*(self.0.as_ptr() as *const TOKEN_USER)).User.Sid }
    }
}
