import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { WrittenFiles } from '../../../../../src/core/engine/tree/worktreeWrites';
import type { RuntimeTool } from '../../../../../src/core/tools/runtimeTool';
import { builtinTool } from '../../../../../src/protocol/tools';

/** What an isolated agent's finish may stage on its own: only files named by calls whose effect is known. */

/** A tool as the engine has it: the registry's facts (kind, subject), and an origin for one known only at run time. */
const tool = (name: string, origin?: string) => ({ ...builtinTool(name)!, ...(origin ? { origin } : {}) }) as unknown as RuntimeTool;
const cwd = path.resolve('/work/tree/src');

test('Write, Edit and MultiEdit name their files, resolved in the agent\'s folder; reading tools change nothing', () => {
  const w = new WrittenFiles();
  assert.equal(w.only(), undefined, 'nothing written: only a look at everything can say "unchanged"');
  w.record(tool('Read'), { file_path: 'a.ts' }, cwd);
  w.record(tool('Grep'), { pattern: 'x' }, cwd);
  assert.equal(w.only(), undefined);
  w.record(tool('Write'), { file_path: 'a.ts', content: '' }, cwd);
  w.record(tool('Edit'), { file_path: '../README.md' }, cwd);
  w.record(tool('MultiEdit'), { file_path: path.join(cwd, 'a.ts') }, cwd);
  assert.deepEqual(w.only()?.sort(), [path.resolve('/work/tree/README.md'), path.join(cwd, 'a.ts')]);
});

test('a shell command, a spawn, a message, an MCP tool named like ours, an unknown tool or a write without its path make the list incomplete', () => {
  const cases: Array<[RuntimeTool | undefined, unknown]> = [
    [tool('Bash'), { command: 'true' }],
    [tool('Task'), {}],
    [tool('SendMessage'), {}],
    [tool('Write', 'some-server'), { file_path: 'a.ts' }],
    [tool('Read', 'read-only-server'), { file_path: 'a.ts' }],
    [undefined, {}],
    [tool('Write'), { content: 'no path' }],
  ];
  for (const [t, input] of cases) {
    const w = new WrittenFiles();
    w.record(tool('Write'), { file_path: 'a.ts' }, cwd);
    w.record(t, input, cwd);
    assert.equal(w.only(), undefined, `${t?.name ?? 'unknown'} ${JSON.stringify(input)}`);
  }
});
