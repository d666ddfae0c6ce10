import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '../../src/cli/commands';

// The usage block of the README and of docs/cli.md lists every command
// `subagents --help` does, with every flag its own --help names, so neither
// can fall behind the CLI.

const root = path.join(import.meta.dirname, '../..');

const flagsOf = (text: string) => new Set([...text.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]).filter((f) => f !== '--help'));

/** The flags a usage block gives each command: its `subagents <name>` lines and their indented continuations. */
function blockFlags(doc: string): Map<string, Set<string>> {
  const block = /```sh\n\s*(subagents agents[\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(block, 'no usage block starting with "subagents agents"');
  const flags = new Map<string, Set<string>>();
  let current = '';
  for (const line of block.split('\n')) {
    const start = /^\s*subagents (\w+)/.exec(line);
    if (start) current = start[1]!;
    else if (!/^\s+\[/.test(line)) continue;
    const set = flags.get(current) ?? new Set<string>();
    for (const flag of flagsOf(line)) set.add(flag);
    flags.set(current, set);
  }
  return flags;
}

for (const file of ['README.md', 'docs/cli.md']) {
  test(`${file}: the CLI usage block lists every command and its flags`, async () => {
    const documented = blockFlags(readFileSync(path.join(root, file), 'utf8'));
    for (const entry of COMMANDS) {
      const command = await entry.load();
      assert.ok(documented.has(command.name), `${file}: "subagents ${command.name}" is not in the usage block`);
      const own = flagsOf(command.usage);
      assert.deepEqual([...own].filter((f) => !documented.get(command.name)?.has(f)), [], `${file}: flags of "subagents ${command.name}" missing from the usage block`);
    }
  });
}
