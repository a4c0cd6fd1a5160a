//! An approved edit as an LSP `WorkspaceEdit`, so the editor applies it to its buffer (and its
//! undo history) instead of the sidecar writing behind its back.
//!
//! Only the changed lines are replaced, one `TextEdit` per hunk, so the editor keeps marks and
//! folds elsewhere and its undo step is small.

use std::collections::HashMap;

use similar::{DiffOp, TextDiff};
use tower_lsp_server::lsp_types::{
    AnnotatedTextEdit, ChangeAnnotation, CreateFile, CreateFileOptions, DocumentChangeOperation,
    DocumentChanges, OneOf, OptionalVersionedTextDocumentIdentifier, Position, Range, ResourceOp,
    TextDocumentEdit, TextEdit, Uri, WorkspaceEdit,
};

/// What the client said it can take (`workspace.workspaceEdit`).
#[derive(Clone, Copy, Debug, Default)]
pub struct EditCapabilities {
    pub document_changes: bool,
    pub create_files: bool,
    /// `resourceOperations` includes `delete`: the client closes a file's buffer on a
    /// `DeleteFile`.
    pub delete_files: bool,
    pub change_annotations: bool,
}

const ANNOTATION: &str = "tandem";

/// The edit turning `original` (the file's text; `None` for a new file) into `content`, at the
/// document's `version` when the client told it (only `documentChanges` can carry it), or
/// `None` when the client can't express it (a new file without `create` support).
pub fn build(
    uri: &Uri,
    version: Option<i32>,
    original: Option<&str>,
    content: &str,
    description: &str,
    caps: EditCapabilities,
) -> Option<WorkspaceEdit> {
    let edits: Vec<TextEdit> = match original {
        Some(original) => line_edits(original, content),
        None => vec![TextEdit {
            range: Range::default(),
            new_text: content.to_string(),
        }],
    };
    let annotate = caps.change_annotations && caps.document_changes;
    let wrap = |e: TextEdit| {
        if annotate {
            OneOf::Right(AnnotatedTextEdit {
                text_edit: e,
                annotation_id: ANNOTATION.to_string(),
            })
        } else {
            OneOf::Left(e)
        }
    };
    let annotations = annotate.then(|| {
        HashMap::from([(
            ANNOTATION.to_string(),
            ChangeAnnotation {
                label: "Tandem".to_string(),
                needs_confirmation: Some(true),
                description: Some(description.to_string()),
            },
        )])
    });
    if original.is_none() {
        if !(caps.document_changes && caps.create_files) {
            return None;
        }
        let ops = vec![
            DocumentChangeOperation::Op(ResourceOp::Create(CreateFile {
                uri: uri.clone(),
                options: Some(CreateFileOptions {
                    overwrite: Some(false),
                    ignore_if_exists: Some(true),
                }),
                annotation_id: annotate.then(|| ANNOTATION.to_string()),
            })),
            DocumentChangeOperation::Edit(TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version: None,
                },
                edits: edits.into_iter().map(wrap).collect(),
            }),
        ];
        return Some(WorkspaceEdit {
            changes: None,
            document_changes: Some(DocumentChanges::Operations(ops)),
            change_annotations: annotations,
        });
    }
    if caps.document_changes {
        Some(WorkspaceEdit {
            changes: None,
            document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version,
                },
                edits: edits.into_iter().map(wrap).collect(),
            }])),
            change_annotations: annotations,
        })
    } else {
        Some(WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            document_changes: None,
            change_annotations: None,
        })
    }
}

/// One edit per changed run of lines, in document order, ranges against `original`.
fn line_edits(original: &str, content: &str) -> Vec<TextEdit> {
    let diff = TextDiff::from_lines(original, content);
    let old: Vec<&str> = diff.iter_old_slices().collect();
    let new: Vec<&str> = diff.iter_new_slices().collect();
    let starts = line_starts(&old);
    let mut edits = Vec::new();
    for op in diff.ops() {
        let (old_range, new_range) = match *op {
            DiffOp::Equal { .. } => continue,
            DiffOp::Delete {
                old_index,
                old_len,
                new_index,
                ..
            } => (old_index..old_index + old_len, new_index..new_index),
            DiffOp::Insert {
                old_index,
                new_index,
                new_len,
            } => (old_index..old_index, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        edits.push(TextEdit {
            range: Range {
                start: starts[old_range.start],
                end: starts[old_range.end],
            },
            new_text: new[new_range].concat(),
        });
    }
    edits
}

/// The position where each line begins, plus the end of the text: a line's `\n` belongs to it, so
/// after a final line without one, the end is that line's last character (UTF-16 units, as LSP
/// counts by default).
fn line_starts(lines: &[&str]) -> Vec<Position> {
    let mut starts: Vec<Position> = (0..lines.len() as u32)
        .map(|line| Position { line, character: 0 })
        .collect();
    let end = match lines.last() {
        Some(last) if !last.ends_with('\n') => Position {
            line: lines.len() as u32 - 1,
            character: last.encode_utf16().count() as u32,
        },
        _ => Position {
            line: lines.len() as u32,
            character: 0,
        },
    };
    starts.push(end);
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies edits as an editor would (ranges against the original, back to front).
    fn apply(text: &str, edits: &[TextEdit]) -> String {
        let offset = |p: Position| -> usize {
            let mut off = 0;
            for (i, line) in text.split_inclusive('\n').enumerate() {
                if i as u32 == p.line {
                    let mut units = 0;
                    for (b, c) in line.char_indices() {
                        if units >= p.character {
                            return off + b;
                        }
                        units += c.len_utf16() as u32;
                    }
                    return off + line.len();
                }
                off += line.len();
            }
            text.len()
        };
        let mut out = text.to_string();
        let mut sorted = edits.to_vec();
        sorted.sort_by_key(|e| std::cmp::Reverse((e.range.start.line, e.range.start.character)));
        for e in sorted {
            out.replace_range(offset(e.range.start)..offset(e.range.end), &e.new_text);
        }
        out
    }

    #[test]
    fn edits_reproduce_the_new_text() {
        let cases = [
            ("a\nb\nc\n", "a\nB\nc\n"),
            ("a\nb\nc\n", "a\nc\n"),
            ("a\nb\nc\n", "x\na\nb\nc\ny\n"),
            ("a\nb\nc", "a\nb\nC"),
            ("a\nb\nc", "a\nb\nc\nd\n"),
            ("héllo 🦀\nb\n", "héllo 🦀\nB\n"),
            ("only", "changed"),
            ("", "new\n"),
            ("a\r\nb\r\n", "a\r\nX\r\n"),
        ];
        for (old, new) in cases {
            let edits = line_edits(old, new);
            assert_eq!(apply(old, &edits), new, "{old:?} -> {new:?}: {edits:?}");
        }
    }

    #[test]
    fn only_changed_lines_are_touched() {
        let old = "1\n2\n3\n4\n5\n6\n";
        let edits = line_edits(old, "1\n2\nthree\n4\n5\nsix\n");
        assert_eq!(edits.len(), 2);
        assert_eq!(
            edits[0].range.start,
            Position {
                line: 2,
                character: 0
            }
        );
        assert_eq!(
            edits[0].range.end,
            Position {
                line: 3,
                character: 0
            }
        );
    }

    #[test]
    fn new_files_need_create_support() {
        let uri: Uri = "file:///w/new.txt".parse().unwrap();
        let plain = EditCapabilities::default();
        assert!(build(&uri, None, None, "x\n", "d", plain).is_none());
        let full = EditCapabilities {
            document_changes: true,
            create_files: true,
            delete_files: true,
            change_annotations: true,
        };
        let edit = build(&uri, None, None, "x\n", "d", full).unwrap();
        let json = serde_json::to_value(&edit).unwrap();
        assert_eq!(json["documentChanges"][0]["kind"], "create");
        assert_eq!(
            json["changeAnnotations"]["tandem"]["needsConfirmation"],
            true
        );
    }

    #[test]
    fn without_document_changes_plain_changes_are_used() {
        let uri: Uri = "file:///w/a.txt".parse().unwrap();
        let edit = build(
            &uri,
            Some(7),
            Some("a\n"),
            "b\n",
            "d",
            EditCapabilities::default(),
        )
        .unwrap();
        assert!(edit.document_changes.is_none());
        assert_eq!(edit.changes.unwrap()[&uri].len(), 1);
    }

    #[test]
    fn edits_of_open_documents_carry_their_version() {
        let uri: Uri = "file:///w/a.txt".parse().unwrap();
        let caps = EditCapabilities {
            document_changes: true,
            ..EditCapabilities::default()
        };
        let edit = build(&uri, Some(7), Some("a\n"), "b\n", "d", caps).unwrap();
        let json = serde_json::to_value(&edit).unwrap();
        assert_eq!(json["documentChanges"][0]["textDocument"]["version"], 7);
        let edit = build(&uri, None, Some("a\n"), "b\n", "d", caps).unwrap();
        let json = serde_json::to_value(&edit).unwrap();
        assert!(json["documentChanges"][0]["textDocument"]["version"].is_null());
    }
}
