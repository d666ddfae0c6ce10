import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentFileKind, FORMATS, formatOfFile } from '../../../../../src/core/agents/formats';

test('a path alone tells the family and format (for the language server)', () => {
  const cases: [string, ReturnType<typeof agentFileKind>][] = [
    ['/repo/.claude/agents/a.md', { family: '.claude', format: 'claude-code' }],
    ['/repo/.claude/agents/team/a.md', { family: '.claude', format: 'claude-code' }],
    ['/home/me/.omp/agent/agents/a.md', { family: '.omp', format: 'oh-my-pi' }],
    ['/repo/.omp/agents/a.md', { family: '.omp', format: 'oh-my-pi' }],
    ['/repo/.codex/agents/a.toml', { family: '.codex', format: 'codex' }],
    ['/repo/.codex/agents/a.md', { family: '.codex', format: 'claude-code' }],
    ['/repo/.gemini/agents/a.md', { family: '.gemini', format: 'gemini' }],
    ['/repo/.github/agents/a.md', { family: '.github', format: 'copilot' }],
    ['/repo/.github/chatmodes/a.chatmode.md', { family: '.github', format: 'copilot' }],
    ['/home/me/.copilot/agents/a.agent.md', { family: '.github', format: 'copilot' }],
    ['C:\\repo\\.gemini\\agents\\a.md', { family: '.gemini', format: 'gemini' }],
    ['/repo/docs/helper.agent.md', { family: null, format: 'copilot' }],
    // The innermost agents folder wins.
    ['/repo/.claude/agents/vendored/.gemini/agents/x.md', { family: '.gemini', format: 'gemini' }],
    ['/repo/.claude/agents/config.toml', null],
    ['/repo/src/index.md', null],
  ];
  for (const [filePath, expected] of cases) assert.deepEqual(agentFileKind(filePath), expected, filePath);
});

test('every format documents its fields, and each but Codex has a tool table', () => {
  for (const spec of Object.values(FORMATS)) {
    assert.ok(spec.fields.length >= 6, spec.format);
    for (const field of spec.fields) assert.ok(field.doc.length > 10 && field.doc.endsWith('.'), `${spec.format}.${field.key}`);
    assert.equal(spec.tools === null, spec.format === 'codex', spec.format);
  }
  assert.equal(formatOfFile('/p/agents/x.md', null), 'claude-code');
});
