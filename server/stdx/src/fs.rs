use std::path::Path;

#[cfg(windows)]
mod windows;

/// Creates `dir` (and its missing parents) readable by the user alone, and narrows it if it
/// exists: it will hold transcripts and copies of files, which may be secret. On Unix its mode
/// is 0700; on Windows its DACL grants the current user alone full access, inherited by all it
/// holds, and no longer inherits the parent's entries.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
    }
    #[cfg(windows)]
    {
        std::fs::create_dir_all(dir)?;
        windows::restrict_to_user(dir)
    }
    #[cfg(not(any(unix, windows)))]
    std::fs::create_dir_all(dir)
}

/// Options to create (or append to) a file readable by the user alone: 0600 on Unix; on Windows
/// the file takes the DACL of the [`private_dir`] it is created in.
pub fn private_file() -> std::fs::OpenOptions {
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Writes `bytes` to `path`, created readable by the user alone (or truncated if it exists):
/// for a file in a [`private_dir`] that is not written atomically (a rendering, a diff to show).
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    private_file()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?
        .write_all(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn private_dirs_and_files_are_the_users_alone() {
        let base = tempfile_dir();
        let dir = base.join("a/b");
        private_dir(&dir).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&dir), 0o700);
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let file = dir.join("f");
        private_file()
            .create(true)
            .append(true)
            .open(&file)
            .unwrap();
        assert_eq!(mode(&file), 0o600);
        let rendered = dir.join("g");
        write_private(&rendered, b"x").unwrap();
        assert_eq!(mode(&rendered), 0o600);
        std::fs::remove_dir_all(&base).unwrap();
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("stdx-{}-{}", std::process::id(), line!()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }
}

#[cfg(all(test, windows))]
mod windows_tests {
    use super::*;
    use std::os::windows::ffi::OsStrExt;
    use std::ptr::null_mut;
    use windows_sys::Win32::Foundation::LocalFree;
    use windows_sys::Win32::Security::Authorization::{GetNamedSecurityInfoW, SE_FILE_OBJECT};
    use windows_sys::Win32::Security::{
        ACCESS_ALLOWED_ACE, ACL, ACL_SIZE_INFORMATION, AclSizeInformation, CONTAINER_INHERIT_ACE,
        DACL_SECURITY_INFORMATION, EqualSid, GetAce, GetAclInformation,
        GetSecurityDescriptorControl, OBJECT_INHERIT_ACE, PSECURITY_DESCRIPTOR, SE_DACL_PROTECTED,
    };
    use windows_sys::Win32::Storage::FileSystem::FILE_ALL_ACCESS;

    /// Each entry of `acl`: (type, flags without INHERITED_ACE, mask, SID is the current user's).
    ///
    /// # Safety
    /// `acl` must point to a valid ACL.
    unsafe fn entries(acl: *const ACL) -> Vec<(u8, u8, u32, bool)> {
        let user = windows::current_user_sid().unwrap();
        let mut size = ACL_SIZE_INFORMATION::default();
        // SAFETY: `acl` is valid (the caller's promise); `size` is the struct the class names.
        unsafe {
            assert_ne!(
                GetAclInformation(
                    acl,
                    (&mut size as *mut ACL_SIZE_INFORMATION).cast(),
                    size_of::<ACL_SIZE_INFORMATION>() as u32,
                    AclSizeInformation,
                ),
                0
            );
            (0..size.AceCount)
                .map(|i| {
                    let mut ace = null_mut();
                    assert_ne!(GetAce(acl, i, &mut ace), 0);
                    let ace = ace as *const ACCESS_ALLOWED_ACE;
                    let sid = std::ptr::addr_of!((*ace).SidStart) as *mut core::ffi::c_void;
                    let is_user = EqualSid(sid, user.as_ptr() as *mut _) != 0;
                    let h = (*ace).Header;
                    (h.AceType, h.AceFlags & !0x10, (*ace).Mask, is_user)
                })
                .collect()
        }
    }

    /// A file's DACL as Windows stores it: whether it is protected, and its entries.
    fn dacl_of(path: &Path) -> (bool, Vec<(u8, u8, u32, bool)>) {
        let wide: Vec<u16> = path.as_os_str().encode_wide().chain([0]).collect();
        let mut dacl: *mut ACL = null_mut();
        let mut sd: PSECURITY_DESCRIPTOR = null_mut();
        // SAFETY: out-pointers to locals; `dacl` points inside `sd`, freed last.
        unsafe {
            let status = GetNamedSecurityInfoW(
                wide.as_ptr(),
                SE_FILE_OBJECT,
                DACL_SECURITY_INFORMATION,
                null_mut(),
                null_mut(),
                &mut dacl,
                null_mut(),
                &mut sd,
            );
            assert_eq!(status, 0, "GetNamedSecurityInfoW({})", path.display());
            assert!(
                !dacl.is_null(),
                "{} has no DACL: anyone may read it",
                path.display()
            );
            let (mut control, mut revision) = (0u16, 0u32);
            assert_ne!(
                GetSecurityDescriptorControl(sd, &mut control, &mut revision),
                0
            );
            let aces = entries(dacl);
            LocalFree(sd);
            (control & SE_DACL_PROTECTED != 0, aces)
        }
    }

    const USER_ONLY: (u8, u8, u32, bool) = (
        0, // ACCESS_ALLOWED_ACE_TYPE
        (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE) as u8,
        FILE_ALL_ACCESS,
        true,
    );

    #[test]
    fn the_private_acl_grants_the_user_alone_inherited_by_all_inside() {
        let user = windows::current_user_sid().unwrap();
        let acl = windows::user_only_acl(&user).unwrap();
        // SAFETY: `user_only_acl` built a valid ACL.
        assert_eq!(unsafe { entries(acl.as_ptr().cast()) }, vec![USER_ONLY]);
    }

    #[test]
    fn private_dirs_are_created_and_narrowed() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("a").join("b");
        private_dir(&dir).unwrap();
        private_dir(&dir).unwrap();
        assert!(dir.is_dir());
    }

    /// Upstream Wine keeps no ACLs (it maps a DACL to Unix mode bits and reads back a default
    /// one), so this runs on Windows only: `cargo test -p tandem-stdx -- --ignored`.
    #[test]
    #[ignore = "needs real Windows: Wine does not store ACLs"]
    fn private_dirs_and_files_are_the_users_alone() {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("a").join("b");
        private_dir(&dir).unwrap();
        assert_eq!(dacl_of(&dir), (true, vec![USER_ONLY]));
        private_dir(&dir).unwrap();
        assert_eq!(dacl_of(&dir), (true, vec![USER_ONLY]));
        let file = dir.join("f");
        private_file()
            .create(true)
            .append(true)
            .open(&file)
            .unwrap();
        let (_, aces) = dacl_of(&file);
        assert_eq!(
            aces.len(),
            1,
            "the file inherits the directory's one entry: {aces:?}"
        );
        assert!(aces[0].3, "{aces:?}");
    }
}
