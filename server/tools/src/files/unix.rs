//! Unix: permission modes.

use std::os::unix::fs::PermissionsExt;

pub(crate) fn mode_of(permissions: &std::fs::Permissions) -> u32 {
    permissions.mode() & 0o7777
}

pub(crate) fn cap_mode_of(permissions: &cap_std::fs::Permissions) -> u32 {
    use cap_std::fs::PermissionsExt;
    permissions.mode() & 0o7777
}

/// A new file gets `mode` (less the umask).
pub(crate) fn create_with_mode(options: &mut cap_std::fs::OpenOptions, mode: u32) {
    use cap_std::fs::OpenOptionsExt;
    options.mode(mode);
}

/// The exact bits, whatever the umask took away at creation.
pub(crate) fn set_mode(file: &cap_std::fs::File, mode: u32) -> std::io::Result<()> {
    use cap_std::fs::PermissionsExt;
    file.set_permissions(cap_std::fs::Permissions::from_mode(mode))
}

pub(crate) fn temp_with_mode(builder: &mut tempfile::Builder, mode: u32) {
    builder.permissions(std::fs::Permissions::from_mode(mode));
}

pub(crate) fn std_set_mode(file: &std::fs::File, mode: u32) -> std::io::Result<()> {
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}
