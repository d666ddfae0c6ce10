import { stat } from 'node:fs/promises';
import { git } from './git';

/**
 * About how much disk a checkout of `commit` takes: its files' sizes rounded
 * up to whole 4 KiB blocks, plus the index. Asked of git (one `ls-tree`), so
 * it costs nothing like walking thousands of files; ignored files are not in
 * it (a pooled worktree has none).
 */
export async function checkoutDiskBytes(cwd: string, commit: string, indexFile?: string): Promise<number> {
  const res = await git(['ls-tree', '-r', '-l', '-z', commit], { cwd, okCodes: [0, 128] });
  let total = 0;
  for (const line of res.stdout.split('\0')) {
    const size = Number(/^\d+ blob [0-9a-f]+ +(\d+)\t/.exec(line)?.[1] ?? 0);
    total += Math.ceil(size / 4096) * 4096;
  }
  const index = indexFile ? await stat(indexFile).catch(() => null) : null;
  return total + (index?.size ?? 0);
}

/** `84 MB`, `1.2 GB`: disk use as people read it. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(bytes < 10 * 1024 ** 2 ? 1 : 0)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
}
