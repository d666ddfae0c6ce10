import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolvedMarkdown, type ResolvedDefinition } from '../../../src/surfaces/resolvedDefinition';

const resolved: ResolvedDefinition = {
  name: 'release',
  displayName: null,
  description: 'Prepares a release.',
  format: 'opencode',
  family: '.opencode',
  source: 'project',
  filePath: '/repo/.opencode/agents/release.md',
  mergedFrom: [],
  prompt: { text: 'You prepare the release.', files: [], warnings: [] },
  model: { written: null, runsOn: 'inherit', effect: 'the parent’s model', runs: true },
  permissionMode: { mode: 'default', fromFile: false },
  tools: { offered: ['Bash', 'Read'], mcp: [], listed: null, denied: [] },
  spawns: '*',
  rules: [
    { action: 'allow', tools: ['Bash'], pattern: 'git *', origin: 'permission.bash "git *": allow' },
    { action: 'deny', tools: ['Bash'], pattern: 'echo `x`', origin: 'permission.bash "echo `x`": deny' },
  ],
  limits: { maxTurns: null, thinkingLevel: null, background: false, isolation: null },
  invocable: { byUser: true, byAgents: true },
  warnings: [],
  shadows: [{ filePath: '/home/me/.config/opencode/agents/release.md', merged: true }],
};

test('resolvedMarkdown: rules and paths as code, readable in the source view as written', () => {
  const text = resolvedMarkdown(resolved);
  assert.match(text, /^- \*\*allow\*\* — `permission\.bash "git \*": allow`$/m);
  // A backtick inside: a longer run of backticks around it.
  assert.match(text, /^- \*\*deny\*\* — ``permission\.bash "echo `x`": deny``$/m);
  assert.match(text, /^- `\/home\/me\/\.config\/opencode\/agents\/release\.md` \(merged into this one\)$/m);
});
