import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type { ApprovalRequest } from '../../../src/core/tools/permissions';
import { VsCodeApprovals } from '../../../src/vscode/approvals';
import * as vscode from '../../support/vscodeFake';

// The approval notification, under a fake of the vscode API: every answer
// the other surfaces offer, closed (and cleaned up) however it is settled.

const log = { info: () => undefined } as unknown as ConstructorParameters<typeof VsCodeApprovals>[0];

function request(id: string): ApprovalRequest {
  return { id, runId: 'r1', agentId: 'a1', agentName: 'test-runner', toolUseId: 't1', toolName: 'Bash', kind: 'bash', summary: 'npm test', background: false };
}

/** The links of a notification: label and the answer it sends. */
function links(message: string): Array<[string, string]> {
  return [...message.matchAll(/\[([^\]]+)\]\(command:subagents\.answerApproval\?([^)]+)\)/g)].map((m) => [m[1]!, (JSON.parse(decodeURIComponent(m[2]!)) as string[])[1]!]);
}

beforeEach(() => vscode.resetFake());

test('the notification offers all four answers; an answer from elsewhere closes it and drops its listener', async () => {
  const approvals = new VsCodeApprovals(log);
  const decision = approvals.handler(request('ap1'), new AbortController().signal);
  const note = vscode.shown.progress[0]!;
  assert.equal(note.title, 'test-runner wants to run: npm test');
  assert.deepEqual(links(note.reports[0]!), [
    ['Allow', 'allow'],
    ['Allow for this agent', 'allowAgent'],
    ['Allow for this run', 'allowRun'],
    ['Deny', 'deny'],
  ]);
  assert.ok(approvals.answer('ap1', 'allowRun', 'runs view'));
  assert.deepEqual(await decision, { allow: true, scope: 'run', by: 'runs view' });
  await note.done;
  assert.equal(note.token.token.listeners, 0, 'the Cancel listener outlived the question');
  approvals.dispose();
});

test('Cancel on the notification denies, and closes it', async () => {
  const approvals = new VsCodeApprovals(log);
  const decision = approvals.handler(request('ap2'), new AbortController().signal);
  const note = vscode.shown.progress[0]!;
  note.token.cancel();
  assert.deepEqual(await decision, { allow: false, reason: 'denied in VS Code (notification)', by: 'notification' });
  await note.done;
  assert.equal(note.token.token.listeners, 0);
  approvals.dispose();
});
