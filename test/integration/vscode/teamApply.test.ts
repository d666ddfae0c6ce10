import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunStore } from '../../../src/core/runs/runStore';
import type { RunEvent } from '../../../src/protocol/runEvents';
import type { ReviewEditors } from '../../../src/vscode/review/reviewEditors';
import type { Services } from '../../../src/vscode/services';
import { applyTeamCommand } from '../../../src/vscode/teamApply';
import { applyChangesOf } from '../../../src/vscode/worktreeCommands';
import { until } from '../../support/until';
import * as vscode from '../../support/vscodeFake';
import { makeSandbox, type Sandbox } from '../core/isolation/helpers';

/**
 * Applying a team's work in VS Code, with real worktrees and git: one
 * teammate's apply that would merge over another's applied change asks first
 * (a modal naming the file) and, applied anyway, opens the conflict in the
 * merge editor with both sides and their base; Apply All asks once for the
 * whole team and stops at the first conflict.
 */

/** Two teammates of one run whose worktrees both changed README.md (and bob notes.txt too). */
async function team(sb: Sandbox) {
  const manager = sb.manager();
  const store = new RunStore({ coalesceMs: 0 });
  let ts = 1;
  const start = (agentId: string, parentId: string | null, name: string, member?: string) =>
    store.apply({ type: 'agent_started', ts: ts++, runId: 'run1', agentId, parentId, parentToolUseId: null, agentName: name, description: '', prompt: '', model: 'm', depth: parentId ? 1 : 0, cwd: sb.repo, background: false, filePath: null, resumed: false, ...(member ? { member } : {}) } as RunEvent);
  start('run1', null, 'lead');
  for (const [id, member, files] of [['a1', 'alice', { 'README.md': '# by alice\n' }], ['b1', 'bob', { 'README.md': '# by bob\n', 'notes.txt': 'notes by bob\n' }]] as const) {
    start(id, 'run1', 'worker', member);
    const rec = await manager.create({ cwd: sb.repo, agentName: 'worker', agentId: id });
    for (const [file, text] of Object.entries(files)) sb.write(file, text, rec.path);
    const info = await manager.finish(id);
    store.apply({ type: 'agent_finished', ts: ts++, runId: 'run1', agentId: id, status: 'completed', output: 'done', error: null, usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 }, turns: 1, durationMs: 1, worktree: info } as RunEvent);
  }
  const logged: string[] = [];
  const services = { store, worktrees: manager, log: { info: () => undefined, warn: (m: string) => logged.push(m), error: (m: string) => logged.push(m), show: () => undefined } } as unknown as Services;
  const reviews = { refresh: async () => undefined, worktreePath: () => undefined } as unknown as ReviewEditors;
  return { services, reviews, manager };
}

test('a teammate\'s apply over another\'s applied change asks first; declined, nothing is applied; applied anyway, the conflict opens in the merge editor', async (t) => {
  const sb = makeSandbox({ 'README.md': '# project\n', 'notes.txt': 'notes\n' });
  t.after(() => sb.cleanup());
  vscode.resetFake();
  const { services, reviews } = await team(sb);
  assert.ok(await applyChangesOf(services, reviews, 'a1'), 'nothing to ask about for the first');
  assert.equal(sb.read('README.md'), '# by alice\n');
  assert.equal(vscode.shown.messages.filter((m) => m.modal).length, 0);

  vscode.fakeOptions.holdMessages = true;
  const declined = applyChangesOf(services, reviews, 'b1');
  const ask = await until('the question', () => vscode.shown.messages.find((m) => m.modal));
  assert.equal(ask.text, "Apply bob's changes?");
  assert.deepEqual(ask.items, ['Apply Anyway']);
  assert.match(ask.detail ?? '', /^bob's changes touch a file another teammate's applied changes hold: README\.md \(also changed by alice\)\./);
  ask.choose(undefined);
  assert.equal(await declined, null);
  assert.equal(sb.read('notes.txt'), 'notes\n', 'nothing of bob\'s was applied');

  vscode.shown.messages.length = 0;
  const anyway = applyChangesOf(services, reviews, 'b1');
  (await until('the question again', () => vscode.shown.messages.find((m) => m.modal))).choose('Apply Anyway');
  const outcome = await anyway;
  vscode.fakeOptions.holdMessages = false;
  assert.deepEqual(outcome?.conflicts, ['README.md']);
  assert.equal(sb.read('notes.txt'), 'notes by bob\n');
  const merge = vscode.shown.commands.find((c) => c.command === '_open.mergeEditor');
  assert.ok(merge, 'the merge editor was asked for');
  const input = merge.args[0] as { base: vscode.Uri; input1: { uri: vscode.Uri; title: string }; input2: { uri: vscode.Uri; title: string }; output: vscode.Uri };
  assert.equal(input.output.fsPath, `${sb.repo}/README.md`);
  assert.deepEqual([input.input1.title, input.input2.title], ['Yours', 'bob']);
  for (const side of [input.base, input.input1.uri, input.input2.uri]) assert.match(side.toString(), /^subagents-worktree:\/b1\/[0-9a-f]{40}\/README\.md$/);
  // Each side is the file as it was: yours with alice's change, bob's, and the base they both started from.
  const { WorktreeContent } = await import('../../../src/vscode/review/worktreeContent');
  const content = new WorktreeContent(services.worktrees);
  assert.deepEqual(
    await Promise.all([input.base, input.input1.uri, input.input2.uri].map((u) => content.provideTextDocumentContent(u as never))),
    ['# project\n', '# by alice\n', '# by bob\n'],
  );
});

test('Apply All asks once for the whole team, naming each file one teammate would merge over another\'s, then applies them in turn', async (t) => {
  const sb = makeSandbox({ 'README.md': '# project\n', 'notes.txt': 'notes\n' });
  t.after(() => sb.cleanup());
  vscode.resetFake();
  const { services, reviews } = await team(sb);
  vscode.fakeOptions.holdMessages = true;
  const all = applyTeamCommand(services, 'run1', (agentId) => applyChangesOf(services, reviews, agentId, { confirmed: true }));
  const ask = await until('the question', () => vscode.shown.messages.find((m) => m.modal));
  assert.equal(ask.text, 'Apply the changes of alice, bob?');
  assert.match(ask.detail ?? '', /bob's changes touch a file another teammate's applied changes hold: README\.md \(also changed by alice\)/);
  ask.choose('Apply All Anyway');
  vscode.fakeOptions.holdMessages = false;
  assert.equal(await all, false, 'it stopped at the conflict');
  assert.equal(vscode.shown.messages.filter((m) => m.modal).length, 1, 'asked once');
  assert.match(sb.read('README.md'), /^<<<<<<< [\s\S]*# by alice\n=======\n# by bob\n>>>>>>> /);
  assert.ok(vscode.shown.commands.some((c) => c.command === '_open.mergeEditor'));
  assert.match(vscode.shown.messages.at(-1)?.text ?? '', /^Applied alice, bob; bob's changes left conflicts to resolve\.$/);
});
