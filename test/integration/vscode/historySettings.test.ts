import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { access, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { RunHistory } from '../../../src/core/runs/history';
import { RunStore } from '../../../src/core/runs/runStore';
import { emptyUsage, type RunEvent } from '../../../src/protocol/runEvents';
import { watchHistorySettings } from '../../../src/vscode/settings';
import * as vscode from '../../support/vscodeFake';

// The `subagents.history.*` settings apply while the extension runs, through
// the same watcher Services installs: changed in the Settings editor, they
// act on the live store and on the files on disk, without a reload.

const DAY = 86_400_000;

function run(id: string, startedAt: number, finished: boolean, toolRows = 0): RunEvent[] {
  const events: RunEvent[] = [
    { type: 'agent_started', ts: startedAt, runId: id, agentId: id, parentId: null, parentToolUseId: null, agentName: 'a', description: 'd', prompt: 'p', model: 'm', depth: 0, cwd: '/', background: false, filePath: null, resumed: false },
  ];
  for (let i = 0; i < toolRows; i++) events.push({ type: 'tool_started', ts: startedAt + i, runId: id, agentId: id, toolUseId: `t${i}`, name: 'Read', inputSummary: `f${i}` });
  if (finished) events.push({ type: 'agent_finished', ts: startedAt + 1000, runId: id, agentId: id, status: 'completed', output: 'ok', error: null, usage: emptyUsage(), turns: 1, durationMs: 1000, worktree: null });
  return events;
}

const exists = (file: string) => access(file).then(() => true, () => false);

test('changing subagents.history.* at runtime applies at once: rows fold, old runs go from the store and the disk', async (t) => {
  vscode.resetFake();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-history-settings-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  const history = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 200, debounceMs: 5 });
  const store = new RunStore({ coalesceMs: 0, maxRuns: 200, maxEventsPerRun: 2000 });
  history.attach(store);
  const watcher = watchHistorySettings(history, store);
  const now = Date.now();
  for (const e of [...run('old', now - 10 * DAY, true), ...run('mid', now - 3 * DAY, true), ...run('new', now - DAY, true), ...run('live', now, false, 150)]) store.apply(e);
  await history.flush();
  const file = (id: string) => path.join(dir, 'runs', `${id}.json`);
  assert.ok(await exists(file('old')));

  vscode.setConfiguration('subagents.history.maxEventsPerRun', 100);
  assert.equal(store.agent('live')!.tools.length, 100, 'maxEventsPerRun: the running run now keeps 100 rows');
  assert.equal(store.agent('live')!.foldedTools, 50);

  vscode.setConfiguration('subagents.history.retentionDays', 5);
  assert.equal(history.retentionDays, 5, 'the expiry message names the new window');
  assert.equal(store.get('old'), undefined, 'retentionDays: the 10-day-old run left the store');
  await history.flush();
  assert.equal(await exists(file('old')), false, 'and its file was deleted');
  assert.equal(await history.load('old'), 'expired', 'a follow-up to it says it expired');
  assert.ok(store.get('mid') && store.get('new') && store.get('live'));

  vscode.setConfiguration('subagents.history.maxRuns', 2);
  assert.deepEqual(store.list().map((r) => r.runId), ['live', 'new'], 'maxRuns: the oldest finished run went; the running one stays');
  await history.flush();
  assert.equal(await exists(file('mid')), false);

  vscode.setConfiguration('subagents.history.maxRuns', 200);
  for (const e of run('later', now + 1, true)) store.apply(e);
  vscode.setConfiguration('subagents.maxDepth', 5);
  assert.equal(store.list().length, 3, 'raising a cap keeps new runs; other settings leave the history alone');

  watcher.dispose();
  vscode.setConfiguration('subagents.history.maxRuns', 1);
  assert.equal(store.list().length, 3, 'after dispose the watcher no longer acts');
  await history.close();
});

test('a workspace value of subagents.history.* deletes nothing: the shared history follows the user settings, and the log says so', async (t) => {
  vscode.resetFake();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-history-settings-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  const history = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 200, debounceMs: 5 });
  const store = new RunStore({ coalesceMs: 0, maxRuns: 200, maxEventsPerRun: 2000 });
  history.attach(store);
  const logged: string[] = [];
  const watcher = watchHistorySettings(history, store, (message) => logged.push(message));
  t.after(() => watcher.dispose());
  const now = Date.now();
  for (const e of [...run('a', now - 3 * DAY, true), ...run('b', now - 2 * DAY, true), ...run('c', now - DAY, true)]) store.apply(e);

  vscode.setConfiguration('subagents.history.maxRuns', 1, 'workspace');
  vscode.setConfiguration('subagents.history.retentionDays', 1, 'workspace');
  assert.equal(store.list().length, 3, "a workspace's values deleted nothing");
  assert.equal(history.retentionDays, 30);
  assert.match(logged.join('\n'), /subagents\.history\.maxRuns in the workspace settings is ignored: the run history is shared by every window and folder, so only your user settings set it\./);

  vscode.setConfiguration('subagents.history.maxRuns', 2, 'user');
  assert.deepEqual(store.list().map((r) => r.runId), ['c', 'b'], "the user's value applies");
  await history.close();
});
