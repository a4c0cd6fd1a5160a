//! What Tandem reads for itself and whom it trusts: special files in settings, project MCP
//! servers whose code changed, a project's model, an MCP server's flood.

use crate::support::rpc::RpcError;
use crate::support::*;

/// A named pipe where a file is expected (`mkfifo`).
fn mkfifo(path: &std::path::Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// `initialize` on a fresh sidecar, which must fail: its error.
async fn initialize_error(env: &Env, mock: &MockServer) -> RpcError {
    let tandem = Sidecar::spawn(env);
    tandem
        .request(
            "initialize",
            initialize_params(env, mock, Options::default()),
        )
        .await
        .expect_err("initialize should have failed")
}

#[tokio::test]
async fn a_fifo_as_the_project_config_is_a_clear_error_not_a_hang() {
    let env = Env::new();
    mkfifo(&env.workspace.join(".tandem/config.toml"));
    let mock = MockServer::start(Scenario::new([Reply::text("Hi.")]));
    let e = initialize_error(&env, &mock).await;
    assert!(
        e.message.contains(".tandem/config.toml") && e.message.contains("named pipe (FIFO)"),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_device_or_a_huge_project_config_is_refused_with_the_cap_named() {
    let env = Env::new();
    let path = env.workspace.join(".tandem/config.toml");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
    let mock = MockServer::start(Scenario::new([Reply::text("Hi.")]));
    let e = initialize_error(&env, &mock).await;
    assert!(e.message.contains("a device"), "{e:?}");

    std::fs::remove_file(&path).unwrap();
    std::fs::File::create(&path)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let e = initialize_error(&env, &mock).await;
    assert!(
        e.message
            .contains("2147483648 bytes, over the cap of 1048576 bytes"),
        "{e:?}"
    );
}
