import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { RunSnapshot } from '../../../src/protocol/runSnapshot';
import { isActiveStatus } from '../../../src/protocol/vocabulary';
import { startScriptedServer, type Script, type ScriptedServer } from '../../support/scriptedServer';
import { subagents, waitFor, workspaceFolder } from '../api';

// Runs in the real extension host against the scripted Messages API server:
// Run Agent, the run tree in the RunStore, Show Transcript, Send Follow-up,
// Stop Run / Stop All, and an isolated run's worktree (review, apply,
// discard). Permissions are bypassed here; the e2e suite clicks an approval.

const LEAD = 'You lead a small team of specialist agents';
const TEST_RUNNER = 'You run tests and report on them';
const DOCS = 'You keep the documentation of this project truthful';
const REVIEWER = 'Review the change you are given';
const EXPLORE = 'You are a read-only exploration agent';

/** explore's last turn waits for this, so a test can watch its transcript while it runs. */
let releaseExplore: () => void = () => undefined;
let exploreGate = Promise.resolve();

const script: Script = (req) => {
  if (req.system.includes(LEAD)) {
    if (req.toolResults.size > 0) return { text: 'Summary: test-runner read package.json; all good.' };
    if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { description: 'Check the tests', prompt: 'Look at package.json', subagent_type: 'test-runner' } }] };
    return { text: `Follow-up answered: ${req.lastUserText}` };
  }
  if (req.system.includes(TEST_RUNNER)) {
    if (req.toolResults.size > 0) return { text: 'package.json says: node --test test/.' };
    return { toolUses: [{ name: 'Read', input: { file_path: 'package.json' } }] };
  }
  if (req.system.includes(DOCS)) {
    if (req.toolResults.size > 0) return { text: 'Wrote RELEASE-NOTES.md.' };
    return { toolUses: [{ name: 'Write', input: { file_path: 'RELEASE-NOTES.md', content: '# Notes\n\nWritten by docs-writer.\n' } }] };
  }
  if (req.system.includes(REVIEWER)) return { hang: true };
  if (req.system.includes(EXPLORE)) {
    if (req.toolResults.size === 0) return { text: 'Looking at the manifest first.', toolUses: [{ name: 'Read', input: { file_path: 'package.json' } }] };
    return exploreGate.then(() => ({ text: 'Found it: the tests run with node --test.' }));
  }
  return { text: 'ok' };
};


describe('running agents', function () {
  this.timeout(60_000);
  let server: ScriptedServer;
  const config = () => vscode.workspace.getConfiguration('subagents');
  const target = vscode.ConfigurationTarget.Workspace;

  before(async () => {
    server = await startScriptedServer(script);
    await subagents();
    await config().update('apiBaseUrl', server.url, target);
    await config().update('permissionMode', 'bypassPermissions', target);
    assert.equal(await vscode.commands.executeCommand('subagents.setApiKey', 'sk-ant-exthost-runs'), true);
  });

  after(async () => {
    await vscode.commands.executeCommand('subagents.stopAll');
    await config().update('apiBaseUrl', undefined, target);
    await config().update('permissionMode', undefined, target);
    await server?.close();
    rmSync(path.join(workspaceFolder(), 'RELEASE-NOTES.md'), { force: true });
  });

  async function ended(runId: string): Promise<RunSnapshot> {
    const api = await subagents();
    return waitFor(() => {
      const run = api.runs().find((r) => r.runId === runId);
      return run && !isActiveStatus(run.status) ? run : undefined;
    }, `run ${runId} did not end`);
  }

  let leadId = '';

  it('Run Agent starts an agent whose spawn and tool calls build the run tree', async () => {
    const id = await vscode.commands.executeCommand<string | undefined>('subagents.runAgent', { agent: 'tech-lead', task: 'Check the tests' });
    assert.ok(id, 'Run Agent returned no agent id');
    leadId = id;
    const run = await ended(id);
    assert.equal(run.status, 'completed');
    const lead = run.agents[id]!;
    const spawn = lead.tools.find((t) => t.name === 'Task');
    assert.ok(spawn?.childAgentId, 'the lead has no spawn row with a child');
    const child = run.agents[spawn.childAgentId]!;
    assert.equal(child.agentName, 'test-runner');
    assert.equal(child.status, 'completed');
    assert.deepEqual(child.tools.map((t) => [t.name, t.status]), [['Read', 'ok']]);
    assert.match(lead.output ?? '', /Summary/);
  });

  it('Show Run reveals a run and a nested agent in the Runs view', async () => {
    const api = await subagents();
    const childId = api.runs().find((r) => r.runId === leadId)!.agents[leadId]!.children[0]!;
    // True only once the webview has found, expanded to and selected the node.
    assert.equal(await vscode.commands.executeCommand('subagents.showRun', { runId: leadId, agentId: childId }), true);
    assert.equal(await vscode.commands.executeCommand('subagents.showRun', { runId: leadId }), true);
    assert.equal(await vscode.commands.executeCommand('subagents.showRun', childId), true, 'an agent id alone');
    assert.equal(await vscode.commands.executeCommand('subagents.showRun', { runId: 'no-such-run' }), false);
  });

  it('Clear Finished hides ended runs from the view; Show Run still finds one', async () => {
    const api = await subagents();
    await waitFor(() => api.runsViewRuns().includes(leadId), 'the Runs view never listed the run');
    const hidden = await vscode.commands.executeCommand<number>('subagents.clearFinishedRuns');
    assert.ok(hidden >= 1, `hid ${hidden} runs`);
    await waitFor(() => !api.runsViewRuns().includes(leadId), 'the Runs view still lists the finished run');
    assert.ok(api.runs().some((r) => r.runId === leadId), 'Clear Finished deleted history');
    assert.equal(await vscode.commands.executeCommand('subagents.showRun', { runId: leadId }), true);
    assert.ok(api.runsViewRuns().includes(leadId), 'Show Run lists it again');
    await vscode.commands.executeCommand('subagents.showClearedRuns');
  });

  it('Show Transcript opens the transcript in a view of its own, once per agent', async () => {
    const api = await subagents();
    const run = api.runs().find((r) => r.runId === leadId)!;
    const childId = run.agents[leadId]!.children[0]!;
    assert.equal(await vscode.commands.executeCommand('subagents.showTranscript', childId), true);
    const ours = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && /subagents\.transcript/.test(t.input.viewType));
    const tab = await waitFor(() => ours()[0], 'no transcript view opened');
    assert.match(tab.label, /^test-runner: /, 'the tab names the agent and the start of its task');
    // Asked again, the same view comes to the front rather than a second one.
    assert.equal(await vscode.commands.executeCommand('subagents.showTranscript', childId), true);
    assert.equal(ours().length, 1);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Show Transcript with { source: true } opens the Markdown text, as plain text, with tool calls and results', async () => {
    const api = await subagents();
    const run = api.runs().find((r) => r.runId === leadId)!;
    const childId = run.agents[leadId]!.children[0]!;
    assert.equal(await vscode.commands.executeCommand('subagents.showTranscript', childId, { source: true }), true);
    const doc = vscode.window.activeTextEditor?.document;
    assert.equal(doc?.uri.scheme, 'subagents-transcript');
    // Plain text: no Markdown preview to offer, which would load the model's remote images.
    assert.equal(doc?.languageId, 'plaintext');
    const text = doc!.getText();
    assert.match(text, /## test-runner/);
    assert.match(text, /calls `Read`/);
    assert.match(text, /"file_path": "package.json"/);
    assert.match(text, /\*\*Result\*\*/);
    assert.match(text, /"name": "tally"/, 'the tool result (package.json) is missing');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('Send Follow-up continues the agent with its conversation', async () => {
    const again = await vscode.commands.executeCommand<string | undefined>('subagents.sendFollowUp', leadId, 'And the docs?');
    assert.equal(again, leadId);
    const run = await ended(leadId);
    assert.equal(run.status, 'completed');
    assert.match(run.agents[leadId]!.output ?? '', /Follow-up answered: And the docs\?/);
  });

  it('Stop Run stops a running agent; Stop All stops the rest', async () => {
    const api = await subagents();
    const first = await vscode.commands.executeCommand<string>('subagents.runAgent', { agent: 'code-reviewer', task: 'Review it' });
    const second = await vscode.commands.executeCommand<string>('subagents.runAgent', { agent: 'code-reviewer', task: 'Review it again' });
    await waitFor(() => api.runs().find((r) => r.runId === second)?.status === 'running', 'the second run never ran');
    assert.equal(await vscode.commands.executeCommand('subagents.stopRun', first), true);
    assert.equal((await ended(first)).status, 'cancelled');
    assert.equal(await vscode.commands.executeCommand('subagents.stopAll'), 1);
    assert.equal((await ended(second)).status, 'cancelled');
  });

  it('an isolated run keeps its changes on a branch: review, apply, discard', async () => {
    const id = await vscode.commands.executeCommand<string>('subagents.runAgent', { agent: 'docs-writer', task: 'Write notes', isolation: 'worktree' });
    assert.ok(id);
    const run = await ended(id);
    assert.equal(run.status, 'completed', run.agents[id]?.error ?? '');
    const worktree = run.agents[id]!.worktree;
    assert.equal(worktree?.filesChanged, 1);
    const notes = path.join(workspaceFolder(), 'RELEASE-NOTES.md');
    assert.equal(existsSync(notes), false, 'the isolated agent wrote into the workspace');

    assert.equal(await vscode.commands.executeCommand('subagents.reviewWorktree', id), true);
    // The multi-file diff editor, labelled with the agent, its counts and its branch; no Untitled buffer.
    await waitFor(() => vscode.window.tabGroups.activeTabGroup.activeTab?.label.startsWith("docs-writer's changes (+"), 'the review did not open');
    assert.equal(vscode.workspace.textDocuments.some((d) => d.isUntitled), false, 'an Untitled buffer was left behind');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');

    assert.equal(await vscode.commands.executeCommand('subagents.applyWorktree', id), true);
    assert.match(readFileSync(notes, 'utf8'), /Written by docs-writer/);
    assert.equal(await vscode.commands.executeCommand('subagents.discardWorktree', id, { confirmed: true }), true);
    rmSync(notes);
  });

  it('Clean Up Worktrees lists kept worktrees and acts on one', async () => {
    const id = await vscode.commands.executeCommand<string>('subagents.runAgent', { agent: 'docs-writer', task: 'Write notes again', isolation: 'worktree' });
    assert.equal((await ended(id)).status, 'completed');
    const kept = await vscode.commands.executeCommand<string[]>('subagents.cleanUpWorktrees', { agentId: id, action: 'review' });
    assert.ok(kept?.includes(id), `the finished worktree is not listed: ${JSON.stringify(kept)}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    const left = await vscode.commands.executeCommand<string[]>('subagents.cleanUpWorktrees', { agentId: id, action: 'discard', confirmed: true });
    assert.equal(left?.includes(id), false, 'the discarded worktree is still listed');
    assert.equal(existsSync(path.join(workspaceFolder(), 'RELEASE-NOTES.md')), false);
  });

  it('a transcript open while its agent runs follows it to the end', async () => {
    const api = await subagents();
    exploreGate = new Promise<void>((resolve) => (releaseExplore = resolve));
    const id = await vscode.commands.executeCommand<string>('subagents.runAgent', { agent: 'explore', task: 'How are the tests run?' });
    await waitFor(() => api.runs().find((r) => r.runId === id)?.agents[id]?.tools.some((t) => t.status === 'ok'), 'explore never finished its Read');
    assert.equal(await vscode.commands.executeCommand('subagents.showTranscript', id, { source: true }), true);
    const doc = vscode.window.activeTextEditor!.document;
    await waitFor(() => doc.getText().includes('calls `Read`'), 'the transcript does not show the Read call yet');
    assert.equal(doc.getText().includes('Found it'), false);
    releaseExplore();
    assert.equal((await ended(id)).status, 'completed');
    await waitFor(() => doc.getText().includes('Found it: the tests run with node --test.'), 'the open transcript did not update when the agent finished');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
