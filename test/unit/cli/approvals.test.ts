import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { terminalQuestions } from '../../../src/cli/approvals';

test('terminal questions: one at a time, approvals with their scope, mode consent only on an explicit yes', async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d: Buffer) => (shown += d.toString()));
  const q = terminalQuestions(input, output);
  const signal = new AbortController().signal;
  const request = { id: 'ap_1', runId: 'r', agentId: 'a', agentName: 'worker', toolUseId: 't', toolName: 'Write', kind: 'edit' as const, summary: '.claude/settings.json', background: false, protectedReason: 'it is inside .claude/' };
  const widening = { agentName: 'escalate', filePath: '/p/.claude/agents/escalate.md', requested: 'bypassPermissions' as const, current: 'default' as const };
  const answers = [q.approvals(request, signal), q.modeConsent(widening, signal), q.modeConsent(widening, signal)];
  input.write('r\n');
  await new Promise((r) => setTimeout(r, 20));
  input.write('\n');
  await new Promise((r) => setTimeout(r, 20));
  input.write('yes\n');
  const [approval, defaulted, consented] = await Promise.all(answers);
  assert.deepEqual(approval, { allow: true, scope: 'run', by: 'terminal' });
  assert.equal(defaulted, false, 'Enter alone is no');
  assert.equal(consented, true);
  assert.match(shown, /This file is protected: it is inside \.claude\/\./);
  assert.match(shown, /The agent file \/p\/\.claude\/agents\/escalate\.md asks to run "escalate" with permissionMode bypassPermissions, wider than default\./);
});
