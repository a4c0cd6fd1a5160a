//! Windows: modes are only the read-only bit, and a
//! new file takes its directory's ACL, so the mode functions keep nothing but that bit.

pub(crate) fn mode_of(permissions: &std::fs::Permissions) -> u32 {
    if permissions.readonly() { 0o444 } else { 0o644 }
}

pub(crate) fn cap_mode_of(permissions: &cap_std::fs::Permissions) -> u32 {
    if permissions.readonly() { 0o444 } else { 0o644 }
}

pub(crate) fn create_with_mode(_options: &mut cap_std::fs::OpenOptions, _mode: u32) {}

/// Only a mode without any write bit means something here: read-only.
pub(crate) fn set_mode(file: &cap_std::fs::File, mode: u32) -> std::io::Result<()> {
    if mode & 0o222 == 0 {
        let mut permissions = file.metadata()?.permissions();
        permissions.set_readonly(true);
        file.set_permissions(permissions)?;
    }
    Ok(())
}

pub(crate) fn temp_with_mode(_builder: &mut tempfile::Builder, _mode: u32) {}

pub(crate) fn std_set_mode(file: &std::fs::File, mode: u32) -> std::io::Result<()> {
    if mode & 0o222 == 0 {
        let mut permissions = file.metadata()?.permissions();
        permissions.set_readonly(true);
        file.set_permissions(permissions)?;
    }
    Ok(())
}
