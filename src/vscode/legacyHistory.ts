import { copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomicFile';

/**
 * Earlier versions kept VS Code's run history in the extension's own
 * storage; it is now the user's, shared with the CLI and the agent host
 * (`$XDG_DATA_HOME/subagents`). On the first start of this version those
 * runs join it, once: run files, transcripts and waiting messages are copied
 * where the shared history has none of the same name, and consents for
 * agent files' permission modes are merged. The old folder stays (with a
 * note saying where its runs went) so nothing is lost if the copy is cut
 * short; worktrees made by earlier versions stay where they were, on their
 * `subagents/…` branches.
 */

const NOTE = 'MOVED.txt';

export async function adoptWindowHistory(globalStorage: string, dataDir: string): Promise<number> {
  const old = path.join(globalStorage, 'history');
  if (!(await exists(path.join(old, 'runs'))) || (await exists(path.join(old, NOTE)))) return 0;
  let copied = 0;
  for (const folder of ['runs', 'transcripts', 'mailbox']) copied += await copyMissing(path.join(old, folder), path.join(dataDir, folder), folder === 'runs');
  await mergeConsents(path.join(globalStorage, 'mode-consents.json'), path.join(dataDir, 'mode-consents.json'));
  await writeFile(path.join(old, NOTE), `The runs kept here were copied to ${dataDir}, the history VS Code shares with the subagents CLI.\n`);
  return copied;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

/** Copies the files of `from` that `to` lacks; returns how many (of `.json` files when `count` is set). */
async function copyMissing(from: string, to: string, count: boolean): Promise<number> {
  const names = await readdir(from).catch(() => [] as string[]);
  if (names.length === 0) return 0;
  await mkdir(to, { recursive: true });
  const present = new Set(await readdir(to));
  let copied = 0;
  for (const name of names) {
    if (present.has(name) || name.endsWith('.tmp')) continue;
    const source = path.join(from, name);
    if (!(await stat(source)).isFile()) continue;
    await copyFile(source, path.join(to, name));
    if (count && name.endsWith('.json')) copied++;
  }
  return copied;
}

async function mergeConsents(from: string, to: string): Promise<void> {
  const read = async (file: string): Promise<Array<{ digest?: unknown }>> => {
    try {
      const list = JSON.parse(await readFile(file, 'utf8')) as unknown;
      return Array.isArray(list) ? (list as Array<{ digest?: unknown }>) : [];
    } catch {
      return [];
    }
  };
  const old = await read(from);
  if (old.length === 0) return;
  const merged = new Map((await read(to)).map((c) => [String(c.digest), c]));
  for (const consent of old) if (!merged.has(String(consent.digest))) merged.set(String(consent.digest), consent);
  await mkdir(path.dirname(to), { recursive: true });
  await writeFileAtomic(to, JSON.stringify([...merged.values()], null, 2));
}
