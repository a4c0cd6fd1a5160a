//! Images named in a prompt typed at the terminal (`tandem chat`, `tandem exec`): each word
//! `@path` whose path ends in `.png`, `.jpg`, `.jpeg`, `.webp` or `.gif` attaches that file,
//! read with the checks every workspace read gets (inside the root, or by absolute path inside
//! one of the session's other folders; not in `.git`, a regular file, within the size cap) and
//! checked to be the image it says. The mention stays in the text,
//! so the model knows which file it sees. Other `@path` words stay text, for the model to read.
//!
//! Two words attach more: `@changes` the uncommitted changes (`git diff`, of every folder of the
//! session), and `@https://…` (or
//! `@http://…`) a page, which the turn fetches first through `fetch_url`'s approval.

use std::path::{Path, PathBuf};

use tandem_agent::images;
use tandem_agent::prompt::{ContextItem, ContextKind};
use tandem_model::Image;
use tandem_tools::Workspace;

/// The session's folders: the root, and the others (`--add-dir`, a multi-root window's).
pub struct Folders<'a> {
    pub root: &'a Path,
    pub additional: &'a [PathBuf],
}

#[cfg(test)]
impl<'a> Folders<'a> {
    /// A session of one folder.
    pub fn one(root: &'a Path) -> Self {
        Folders {
            root,
            additional: &[],
        }
    }
}

/// The images `text` names, in order, each once; an error names the first that can't be attached.
pub fn images_in(folders: &Folders, text: &str) -> Result<Vec<Image>, String> {
    let root = folders.root;
    let mut paths: Vec<&str> = Vec::new();
    for word in text.split_whitespace() {
        let Some(path) = word.strip_prefix('@') else {
            continue;
        };
        // A sentence may end right after the path ("look at @shot.png.").
        let path = path.trim_end_matches([',', ';', ':', ')', '!', '?', '.', '"', '\'']);
        if images::is_image_path(path) && !paths.contains(&path) {
            paths.push(path);
        }
    }
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let ws = Workspace::new(root)
        .and_then(|ws| ws.with_additional_roots(folders.additional))
        .map_err(|e| format!("the workspace {} can't be opened: {e}", root.display()))?;
    let attached = paths
        .into_iter()
        .map(|p| images::read_file(&ws, p).map_err(|e| e.0))
        .collect::<Result<Vec<_>, _>>()?;
    images::check_prompt(&attached).map_err(|e| e.0)?;
    Ok(attached)
}

/// The context `text`'s `@changes` and `@URL` words attach, each once, in order; an error says
/// why `@changes` can't be had.
pub fn context_in(folders: &Folders, text: &str) -> Result<Vec<ContextItem>, String> {
    let mut items: Vec<ContextItem> = Vec::new();
    for word in text.split_whitespace() {
        let Some(what) = word.strip_prefix('@') else {
            continue;
        };
        let what = what.trim_end_matches([',', ';', ')', '!', '?', '.', '"', '\'']);
        let item = if what == "changes" {
            ContextItem {
                kind: ContextKind::Editor,
                text: Some(crate::changes::uncommitted_in(
                    folders.root,
                    folders.additional,
                )?),
                ..ContextItem::file("changes")
            }
        } else if what.starts_with("https://") || what.starts_with("http://") {
            ContextItem {
                kind: ContextKind::Url,
                ..ContextItem::file(what)
            }
        } else {
            continue;
        };
        if !items
            .iter()
            .any(|i| i.kind == item.kind && i.path == item.path)
        {
            items.push(item);
        }
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_changes_are_attached_once_and_paths_stay_text() {
        let dir = tempfile::tempdir().unwrap();
        let found = context_in(
            &Folders::one(dir.path()),
            "see @https://example.com/a?b=1, @https://example.com/a?b=1 and @src/x.rs or a@http://no",
        )
        .unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, ContextKind::Url);
        assert_eq!(found[0].path, "https://example.com/a?b=1");
        // Not a repository: `@changes` says why instead of sending nothing.
        assert!(context_in(&Folders::one(dir.path()), "what did I change? @changes").is_err());
    }

    const GIF: &[u8] = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x01D\x00;";

    #[test]
    fn mentions_of_images_attach_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("shots")).unwrap();
        std::fs::write(dir.path().join("shots/a.gif"), GIF).unwrap();
        let found = images_in(
            &Folders::one(dir.path()),
            "what is @shots/a.gif? and @shots/a.gif, @src/main.rs",
        )
        .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].width, found[0].height), (1, 1));
        assert!(
            images_in(&Folders::one(dir.path()), "no mentions, an email a@b.c")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_mention_that_cant_be_attached_says_why() {
        let outer = tempfile::tempdir().unwrap();
        let root = outer.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(outer.path().join("out.gif"), GIF).unwrap();
        std::fs::write(root.join("text.png"), "not an image").unwrap();
        let e = images_in(&Folders::one(&root), "see @../out.gif").unwrap_err();
        assert!(e.contains("outside the workspace"), "{e}");
        let e = images_in(&Folders::one(&root), "see @text.png").unwrap_err();
        assert!(
            e.contains("text.png is not a PNG, JPEG, WebP or GIF"),
            "{e}"
        );
        let e = images_in(&Folders::one(&root), "see @gone.png").unwrap_err();
        assert!(e.contains("gone.png can't be attached"), "{e}");
    }

    /// In a session of several folders an image of another one attaches by its absolute path;
    /// one beside them stays outside.
    #[test]
    fn an_image_in_another_folder_of_the_session_attaches_and_one_beside_does_not() {
        let outer = tempfile::tempdir().unwrap();
        let outer = outer.path().canonicalize().unwrap();
        for dir in ["ws", "extra", "sibling"] {
            std::fs::create_dir(outer.join(dir)).unwrap();
        }
        std::fs::write(outer.join("extra/a.gif"), GIF).unwrap();
        std::fs::write(outer.join("sibling/b.gif"), GIF).unwrap();
        let (root, extra) = (outer.join("ws"), vec![outer.join("extra")]);
        let folders = Folders {
            root: &root,
            additional: &extra,
        };
        let prompt = format!("see @{}", outer.join("extra/a.gif").display());
        assert_eq!(images_in(&folders, &prompt).unwrap().len(), 1);
        assert!(images_in(&Folders::one(&root), &prompt).is_err());
        let beside = format!("see @{}", outer.join("sibling/b.gif").display());
        let e = images_in(&folders, &beside).unwrap_err();
        assert!(e.contains("outside the workspace"), "{e}");
    }
}
