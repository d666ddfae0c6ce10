import { test } from 'node:test';
import assert from 'node:assert/strict';
import { protectedReason } from '../../../src/core/tools/protectedPaths';

test('protected paths: settings and hook folders, git internals, editor and shell start-up files; not agent definitions or ordinary files', () => {
  for (const p of ['.claude/settings.json', '.claude/settings.local.json', '.claude/hooks/start.sh', '.git/config', '.git/hooks/pre-commit', '.vscode/tasks.json', 'sub/.VSCode/settings.json', '.idea/workspace.xml', '.husky/pre-push', '.subagents/settings.json', '.envrc', '.mcp.json', 'pkg/.gitmodules', '.bashrc', '.zshrc', '.profile', '.claude/agents']) {
    assert.ok(protectedReason(p), `${p} is protected`);
  }
  for (const p of ['src/app.ts', '.claude/agents/helper.md', '.claude/agents/nested/x.md', 'docs/claude/settings.json', '.github/agents/x.agent.md', 'README.md', '.gitignore', 'git/config']) {
    assert.equal(protectedReason(p), null, `${p} is not protected`);
  }
  assert.match(protectedReason('.claude/settings.json')!, /inside \.claude\//);
  assert.match(protectedReason('x/.envrc')!, /\.envrc runs commands/);
});
