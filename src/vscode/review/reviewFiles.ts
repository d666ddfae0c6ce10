import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';

/**
 * The agent's side of a review, as `subagents-review://<agentId>/<path in
 * the repository>`: the worktree's files read and written through, so the
 * diff editor's edits and "revert block" arrows change the worktree, while
 * every header and tab names the file by its place in the repository
 * (package.json's `resourceLabelFormatters` shows the path alone), not by the
 * worktree's folder deep in the extension's storage.
 */

export const REVIEW_SCHEME = 'subagents-review';

export function reviewFileUri(agentId: string, relativePath: string): vscode.Uri {
  return vscode.Uri.from({ scheme: REVIEW_SCHEME, authority: agentId, path: `/${relativePath}` });
}

export class ReviewFiles implements vscode.FileSystemProvider {
  readonly #roots = new Map<string, string>();
  readonly #onDidChangeFile = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  readonly onDidChangeFile = this.#onDidChangeFile.event;

  /** Serves `agentId`'s files from its worktree folder. */
  serve(agentId: string, worktreePath: string): void {
    this.#roots.set(agentId, worktreePath);
  }

  /** The worktree file a review URI stands for. */
  realPath(uri: vscode.Uri): string {
    const root = this.#roots.get(uri.authority);
    if (!root) throw vscode.FileSystemError.Unavailable(`No open review of agent ${uri.authority}.`);
    const full = path.resolve(root, `.${uri.path}`);
    // A path that climbs out of the worktree is not the agent's file.
    if (full !== root && !full.startsWith(root + path.sep)) throw vscode.FileSystemError.NoPermissions(uri);
    return full;
  }

  async #wrap<T>(uri: vscode.Uri, act: (file: string) => Promise<T>): Promise<T> {
    const file = this.realPath(uri);
    try {
      return await act(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw vscode.FileSystemError.FileNotFound(uri);
      if (code === 'EEXIST') throw vscode.FileSystemError.FileExists(uri);
      if (code === 'EACCES' || code === 'EPERM') throw vscode.FileSystemError.NoPermissions(uri);
      throw error;
    }
  }

  watch(): vscode.Disposable {
    // Changes made here are announced by writeFile; the review reopens when the agent's side changes otherwise.
    return new vscode.Disposable(() => undefined);
  }

  stat(uri: vscode.Uri): Promise<vscode.FileStat> {
    return this.#wrap(uri, async (file) => {
      const s = await fs.stat(file);
      return { type: s.isDirectory() ? vscode.FileType.Directory : vscode.FileType.File, ctime: s.ctimeMs, mtime: s.mtimeMs, size: s.size };
    });
  }

  readDirectory(uri: vscode.Uri): Promise<Array<[string, vscode.FileType]>> {
    return this.#wrap(uri, async (dir) =>
      (await fs.readdir(dir, { withFileTypes: true })).map((e): [string, vscode.FileType] => [e.name, e.isDirectory() ? vscode.FileType.Directory : vscode.FileType.File]),
    );
  }

  createDirectory(uri: vscode.Uri): Promise<void> {
    return this.#wrap(uri, async (dir) => void (await fs.mkdir(dir, { recursive: true })));
  }

  readFile(uri: vscode.Uri): Promise<Uint8Array> {
    return this.#wrap(uri, (file) => fs.readFile(file));
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array, options: { create: boolean; overwrite: boolean }): Promise<void> {
    await this.#wrap(uri, async (file) => {
      const exists = await fs.stat(file).then(
        () => true,
        () => false,
      );
      if (!exists && !options.create) throw vscode.FileSystemError.FileNotFound(uri);
      if (exists && !options.overwrite) throw vscode.FileSystemError.FileExists(uri);
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, content);
    });
    this.#onDidChangeFile.fire([{ type: vscode.FileChangeType.Changed, uri }]);
  }

  async delete(uri: vscode.Uri, options: { recursive: boolean }): Promise<void> {
    await this.#wrap(uri, (file) => fs.rm(file, { recursive: options.recursive }));
    this.#onDidChangeFile.fire([{ type: vscode.FileChangeType.Deleted, uri }]);
  }

  async rename(oldUri: vscode.Uri, newUri: vscode.Uri): Promise<void> {
    const target = this.realPath(newUri);
    await this.#wrap(oldUri, (file) => fs.rename(file, target));
    this.#onDidChangeFile.fire([
      { type: vscode.FileChangeType.Deleted, uri: oldUri },
      { type: vscode.FileChangeType.Created, uri: newUri },
    ]);
  }

  dispose(): void {
    this.#onDidChangeFile.dispose();
  }
}
