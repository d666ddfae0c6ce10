import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createFileTools } from '../../../../src/core/tools/fileTools';
import type { RuntimeTool } from '../../../../src/core/tools/runtimeTool';

// The file tools are confined to the agent's working directory, and a
// symlink inside it that points outside is no way out: reading, listing,
// searching or writing through it is refused, and nothing outside changes.

const SECRET = 'the secret outside the working directory\n';

function sandbox(t: TestContext) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-symlinks-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const work = path.join(root, 'work');
  const outside = path.join(root, 'outside');
  mkdirSync(path.join(work, 'src'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'secret.txt'), SECRET);
  writeFileSync(path.join(work, 'src', 'inside.txt'), 'inside\n');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(work, 'link-file'));
  symlinkSync(outside, path.join(work, 'link-dir'));
  // A link to a file that does not exist yet: writing through it would create it outside.
  symlinkSync(path.join(outside, 'planted.txt'), path.join(work, 'dangling'));
  // A link that stays inside is fine.
  symlinkSync(path.join(work, 'src', 'inside.txt'), path.join(work, 'inner-link'));
  const tools = createFileTools(work);
  t.after(() => {
    for (const tool of tools) void tool.close?.();
  });
  const byName = new Map(tools.map((tool) => [tool.name, tool] as const));
  const run = async (name: string, input: Record<string, unknown>): Promise<{ ok: boolean; text: string }> => {
    const tool: RuntimeTool | undefined = byName.get(name);
    assert.ok(tool?.run, `no ${name} tool`);
    try {
      const out = await tool.run(input, { toolUseId: `t-${name}`, signal: new AbortController().signal });
      return { ok: true, text: typeof out === 'string' ? out : JSON.stringify(out) };
    } catch (error) {
      return { ok: false, text: error instanceof Error ? error.message : String(error) };
    }
  };
  return { work, outside, run };
}

test('reading, listing and searching through a symlink that leaves the working directory are refused', async (t) => {
  const { run } = sandbox(t);
  const calls: Array<[string, Record<string, unknown>]> = [
    ['Read', { file_path: 'link-file' }],
    ['Read', { file_path: 'link-dir/secret.txt' }],
    ['LS', { path: 'link-dir' }],
    ['Glob', { pattern: '*.txt', path: 'link-dir' }],
    ['Grep', { pattern: 'secret', path: 'link-dir' }],
    ['Grep', { pattern: 'secret', path: 'link-file' }],
  ];
  for (const [name, input] of calls) {
    const result = await run(name, input);
    assert.equal(result.ok, false, `${name} ${JSON.stringify(input)} was not refused: ${result.text}`);
    assert.match(result.text, /outside|escapes|not allowed|symlink/i, `${name} ${JSON.stringify(input)}`);
    assert.doesNotMatch(result.text, /the secret outside/);
  }
  // A search of the whole directory does not follow the link out either.
  const grep = await run('Grep', { pattern: 'the secret' });
  assert.doesNotMatch(grep.text, /the secret outside/);
});

test('writing and editing through a symlink that leaves the working directory are refused and change nothing outside', async (t) => {
  const { outside, run } = sandbox(t);
  const calls: Array<[string, Record<string, unknown>]> = [
    ['Write', { file_path: 'link-file', content: 'overwritten\n' }],
    ['Write', { file_path: 'link-dir/new.txt', content: 'planted\n' }],
    ['Write', { file_path: 'dangling', content: 'planted\n' }],
    ['Edit', { file_path: 'link-file', old_string: 'secret', new_string: 'changed' }],
    ['MultiEdit', { file_path: 'link-file', edits: [{ old_string: 'secret', new_string: 'changed' }] }],
  ];
  for (const [name, input] of calls) {
    const result = await run(name, input);
    assert.equal(result.ok, false, `${name} ${JSON.stringify(input)} was not refused: ${result.text}`);
  }
  assert.equal(readFileSync(path.join(outside, 'secret.txt'), 'utf8'), SECRET);
  assert.equal(existsSync(path.join(outside, 'new.txt')), false);
  assert.equal(existsSync(path.join(outside, 'planted.txt')), false);
});

test('a symlink that stays inside the working directory works', async (t) => {
  const { work, run } = sandbox(t);
  const read = await run('Read', { file_path: 'inner-link' });
  assert.equal(read.ok, true, read.text);
  assert.match(read.text, /inside/);
  const edit = await run('MultiEdit', { file_path: 'inner-link', edits: [{ old_string: 'inside', new_string: 'edited inside' }] });
  assert.equal(edit.ok, true, edit.text);
  assert.equal(readFileSync(path.join(work, 'src', 'inside.txt'), 'utf8'), 'edited inside\n');
});
