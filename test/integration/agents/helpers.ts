import type { TestContext } from 'node:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A fresh temp dir, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'subagents-agents-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function agentText(name: string, fields = '', body = `You are ${name}.`): string {
  return `---\nname: ${name}\ndescription: Agent ${name} for tests.\n${fields}${fields && !fields.endsWith('\n') ? '\n' : ''}---\n${body}\n`;
}

/** Writes a file, creating its folders. Returns its path. */
export function writeFile(filePath: string, content: string | Buffer): string {
  mkdirSync(path.dirname(filePath), { recursive: true });
  writeFileSync(filePath, content);
  return filePath;
}

export function writeAgent(dir: string, relPath: string, name: string, fields = ''): string {
  return writeFile(path.join(dir, relPath), agentText(name, fields));
}

/** A workspace and a home folder side by side, for discovery tests. */
export function layout(t: TestContext): { root: string; home: string; cwd: string } {
  const root = tempDir(t);
  const home = path.join(root, 'home');
  const cwd = path.join(root, 'work', 'repo');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  return { root, home, cwd };
}
