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
    // The formats added later: folders, and files that hold agents by their name alone.
    ['/repo/.cursor/agents/a.md', { family: '.cursor', format: 'cursor' }],
    ['/repo/.opencode/agents/team/lead.md', { family: '.opencode', format: 'opencode' }],
    ['/repo/.opencode/agent/a.md', { family: '.opencode', format: 'opencode' }],
    ['/home/me/.config/opencode/modes/a.md', { family: '.opencode', format: 'opencode' }],
    ['/repo/opencode.jsonc', { family: '.opencode', format: 'opencode' }],
    ['/repo/.kilocode/agents/a.md', { family: '.kilo', format: 'kilo' }],
    ['/repo/.kilo/agent/a.md', { family: '.kilo', format: 'kilo' }],
    ['/repo/kilo.json', { family: '.kilo', format: 'kilo' }],
    ['/repo/.kilocodemodes', { family: '.kilo', format: 'roo' }],
    ['/repo/.roomodes', { family: '.roo', format: 'roo' }],
    ['/home/me/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/settings/custom_modes.yaml', { family: '.roo', format: 'roo' }],
    ['/home/me/.kilocode/cli/global/settings/custom_modes.yaml', { family: '.kilo', format: 'roo' }],
    ['/repo/.qwen/agents/a.md', { family: '.qwen', format: 'qwen' }],
    ['/repo/.kiro/agents/a.json', { family: '.kiro', format: 'kiro' }],
    ['/repo/.kiro/agents/team/a.md', { family: '.kiro', format: 'kiro' }],
    ['/repo/.factory/droids/a.md', { family: '.factory', format: 'factory' }],
    // JSON is an agent only in Kiro's folders.
    ['/repo/.claude/agents/settings.json', null],
  ];
  for (const [filePath, expected] of cases) assert.deepEqual(agentFileKind(filePath), expected, filePath);
});

test('every format documents its fields, and each that names tools has a tool table', () => {
  for (const spec of Object.values(FORMATS)) {
    assert.ok(spec.fields.length >= 5, spec.format);
    for (const field of spec.fields) assert.ok(field.doc.length > 10 && field.doc.endsWith('.'), `${spec.format}.${field.key}`);
    // Codex and Cursor agents name no tools (they get all); Roo Code modes name tool groups.
    assert.equal(spec.tools === null, ['codex', 'cursor', 'roo'].includes(spec.format), spec.format);
  }
  assert.equal(formatOfFile('/p/agents/x.md', null), 'claude-code');
});
