// Which folder of a multi-root window an `@` mention is in, and the path the sidecar accepts for
// it. With several folders the `@` menu names each file by its folder's name first, as VS Code's
// `asRelativePath` does; the sidecar takes a path in the primary root (the first folder) as it
// is, and one in an additional root as that root's absolute path, "/", and the rest.

/** A workspace folder as mentions name it. */
export interface MentionFolder {
  /** VS Code's name for it: the first segment of its files' paths in the `@` menu. */
  name: string;
  fsPath: string;
}

/** Where a mention is: its folder (an index into the folders) and the path inside it, with `/`. */
export interface MentionTarget {
  folder: number;
  /** '' for the folder itself. */
  rel: string;
}

/**
 * The folder and path a mention names. In a window of several folders a first segment that is a
 * folder's name picks that folder (the first of that name); any other mention, and every one in
 * a window of one folder, is in the first folder. Undefined without a folder, or for a path with
 * a `..` segment (no mention may climb out of its folder).
 */
export function mentionTarget(mention: string, folders: readonly MentionFolder[]): MentionTarget | undefined {
  if (folders.length === 0) return undefined;
  const segments = mention.split(/[\\/]+/).filter((s) => s !== '');
  if (segments.includes('..')) return undefined;
  if (folders.length > 1) {
    const index = folders.findIndex((f) => f.name === segments[0]);
    if (index >= 0) return { folder: index, rel: segments.slice(1).join('/') };
  }
  return { folder: 0, rel: segments.join('/') };
}

/**
 * The path the sidecar is sent for a mention: relative in the first folder ('.' for the folder
 * itself), absolute in another, in the form the sidecar shows such paths (root + "/" + rest).
 */
export function sidecarPath(target: MentionTarget, folders: readonly MentionFolder[]): string | undefined {
  const folder = folders[target.folder];
  if (folder === undefined) return undefined;
  if (target.folder === 0) return target.rel === '' ? '.' : target.rel;
  return target.rel === '' ? folder.fsPath : `${folder.fsPath.replace(/[\\/]+$/, '')}/${target.rel}`;
}
