import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { readSettings, userOnlySettings } from '../../../src/vscode/settings';

// Values written at the workspace level (the harness opens a throw-away copy
// of the sample workspace) and read back through the one typed accessor.
const target = vscode.ConfigurationTarget.Workspace;
const written = ['maxDepth', 'permissionMode', 'disabledAgents', 'budget.maxCostUsd'] as const;

describe('readSettings()', () => {
  const config = () => vscode.workspace.getConfiguration('subagents');

  afterEach(async () => {
    for (const key of written) await config().update(key, undefined, target);
  });

  it('returns the declared defaults when nothing is set', () => {
    const { settings, problems } = readSettings();
    assert.deepEqual(problems, []);
    assert.equal(settings.maxDepth, 3);
    assert.equal(settings.permissionMode, 'default');
    assert.deepEqual(settings.disabledAgents, []);
  });

  it('returns the values written with workspace.getConfiguration().update()', async () => {
    await config().update('maxDepth', 5, target);
    await config().update('permissionMode', 'acceptEdits', target);
    await config().update('disabledAgents', ['docs-writer'], target);
    await config().update('budget.maxCostUsd', 2.5, target);
    const { settings, problems } = readSettings();
    assert.deepEqual(problems, []);
    assert.equal(settings.maxDepth, 5);
    assert.equal(settings.permissionMode, 'acceptEdits');
    assert.deepEqual(settings.disabledAgents, ['docs-writer']);
    assert.equal(settings['budget.maxCostUsd'], 2.5);
  });

  it('falls back to the default for an invalid value and reports it', async () => {
    await config().update('maxDepth', 99, target);
    const { settings, problems } = readSettings();
    assert.equal(settings.maxDepth, 3);
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /subagents\.maxDepth/);
  });
});

describe('userOnlySettings()', () => {
  const config = () => vscode.workspace.getConfiguration('subagents');

  afterEach(async () => {
    await config().update('history.maxRuns', undefined, vscode.ConfigurationTarget.Global);
  });

  it('the history settings are user-level: VS Code refuses a workspace value, and the user value is what counts', async () => {
    await assert.rejects(Promise.resolve(config().update('history.maxRuns', 1, vscode.ConfigurationTarget.Workspace)));
    await config().update('history.maxRuns', 7, vscode.ConfigurationTarget.Global);
    const { settings, problems } = userOnlySettings();
    assert.deepEqual(problems, []);
    assert.equal(settings['history.maxRuns'], 7);
  });
});
