import { readFile, stat } from 'node:fs/promises';
import { structuredPatch } from 'diff';
import type { ApprovalPreview } from '../../protocol/host';

/**
 * What an approval approves, whole: the shell command as the model wrote it
 * (never a one-line summary that could hide `… | sh` behind an ellipsis),
 * the arguments of a call to another program's tool (an MCP server's: every
 * argument, however long, so `path=…/.ssh/authorized_keys` never sits
 * behind "…"), or a file's content before and after the write or edit.
 * Every surface that asks shows it: the card and chat whole (a diff for a
 * file), the notification whole or one click away (an editor), the terminal
 * whole.
 */

// One shape for every boundary it crosses (the agent host's socket among them): the protocol's schema.
export type { ApprovalPreview };

/** Files larger than this are not read for a preview; the call itself has the same kind of cap. */
const MAX_PREVIEW_BYTES = 1024 * 1024;
/** A diff preview shows at most this many lines; the rest is counted. */
export const MAX_DIFF_LINES = 400;

/** The current text of a file for a preview: null when it does not exist; undefined when it cannot be shown (too big, unreadable, not a file). */
export async function currentText(absolutePath: string): Promise<string | null | undefined> {
  const info = await stat(absolutePath).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : undefined));
  if (info === null) return null;
  if (!info?.isFile() || info.size > MAX_PREVIEW_BYTES) return undefined;
  return readFile(absolutePath, 'utf8').catch(() => undefined);
}

/**
 * The change as a unified diff (`--- a/x` / `+++ b/x`, hunks with three lines
 * of context), cut after `maxLines` lines with a line that says how many
 * more there are. A new file is all `+` lines against /dev/null.
 */
export function previewDiff(preview: Extract<ApprovalPreview, { kind: 'file' }>, maxLines = MAX_DIFF_LINES): string {
  const name = preview.path.replace(/^\/+/, '');
  const patch = structuredPatch(preview.before === null ? '/dev/null' : `a/${name}`, `b/${name}`, preview.before ?? '', preview.after, undefined, undefined, { context: 3 });
  const lines = [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`];
  for (const hunk of patch.hunks) {
    // As git writes it (and jsdiff's own formatPatch): an empty side starts one line earlier.
    lines.push(`@@ -${hunk.oldStart - (hunk.oldLines === 0 ? 1 : 0)},${hunk.oldLines} +${hunk.newStart - (hunk.newLines === 0 ? 1 : 0)},${hunk.newLines} @@`);
    // jsdiff marks a missing final newline with its own line; keep it, as git does.
    lines.push(...hunk.lines);
  }
  if (patch.hunks.length === 0) lines.push('(no change: the file would stay as it is)');
  if (lines.length <= maxLines) return lines.join('\n');
  const more = lines.length - maxLines;
  return [...lines.slice(0, maxLines), `… ${more} more line${more === 1 ? '' : 's'} of the diff`].join('\n');
}

/** The text a surface shows for a preview: the command itself, the arguments, or the diff. */
export function previewText(preview: ApprovalPreview, maxDiffLines = MAX_DIFF_LINES): string {
  if (preview.kind === 'command') return preview.command;
  if (preview.kind === 'arguments') return preview.arguments;
  return previewDiff(preview, maxDiffLines);
}

/** A tool call's arguments, whole, as a surface shows them: indented JSON. */
export function argumentsPreview(input: unknown): ApprovalPreview {
  return { kind: 'arguments', arguments: JSON.stringify(input ?? {}, null, 2) ?? '{}' };
}
