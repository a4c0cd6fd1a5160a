//! Real editors driving `tandem lsp` in plain LSP mode: Neovim and Emacs (eglot), headless,
//! against the scripted model ([`mock_model`]).
//!
//! Each test writes a workspace, puts a `tandem` wrapper first on the editor's PATH (the real
//! binary pointed at the mock, its stderr kept in a log), loads the setup that docs/editors.md
//! tells users to write, and runs a script from this folder that plays the user: it asks, answers
//! the approval questions, and records what the editor received and what its buffers hold in a
//! JSON file. The assertions are here, on that file and on the files on disk.
//!
//! [`snippets`] runs every other code block of docs/editors.md, as far as this machine allows
//! (see there), and fails when a block is left unmarked or untested.
// Neovim and Emacs run here on Linux; their harness is Unix-only (shell wrappers, signals).
#![cfg(unix)]

mod drive;
mod emacs;
mod harness;
mod neovim;
mod snippets;
mod story;
