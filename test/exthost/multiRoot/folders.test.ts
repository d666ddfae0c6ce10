import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RunSnapshot } from '../../../src/protocol/runSnapshot';
import { isActiveStatus } from '../../../src/protocol/vocabulary';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';
import { subagents, waitFor } from '../api';

// Multi-root workspaces in a real window (test/e2e/exthost.test.ts opens a
// `.code-workspace` with two folders, alpha and beta, for this suite): each
// folder is a scope of its own, with its own agents, settings and runs, and
// the views show each run with its folder.


describe('a multi-root workspace: one scope per folder', function () {
  this.timeout(60_000);
  let server: ScriptedServer;
  const folder = (name: string) => {
    const found = vscode.workspace.workspaceFolders?.find((f) => f.name === name);
    assert.ok(found, `no workspace folder ${name}`);
    return found;
  };
  const config = () => vscode.workspace.getConfiguration('subagents');

  before(async () => {
    assert.deepEqual(vscode.workspace.workspaceFolders?.map((f) => f.name), ['alpha', 'beta']);
    server = await startScriptedServer((req) => ({ text: `${req.system.split('\n')[0]} done` }));
    await subagents();
    await config().update('apiBaseUrl', server.url, vscode.ConfigurationTarget.Workspace);
    await config().update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Workspace);
    assert.equal(await vscode.commands.executeCommand('subagents.setApiKey', 'sk-ant-exthost-multiroot'), true);
  });

  after(async () => {
    await config().update('apiBaseUrl', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('permissionMode', undefined, vscode.ConfigurationTarget.Workspace);
    await server?.close();
  });

  it("lists each folder's own agents under that folder in the Agents view", async () => {
    const api = await subagents();
    const folders = await waitFor(() => {
      const listed = api.agentsViewFolders();
      return listed.length === 2 && listed.every((f) => f.agents.length > 0) && listed;
    }, 'the Agents view did not list two folders');
    assert.deepEqual(folders.map((f) => f.folder), ['alpha', 'beta']);
    const [alpha, beta] = folders;
    assert.ok(alpha!.agents.includes('alpha-agent') && !alpha!.agents.includes('beta-agent'), `alpha lists ${alpha!.agents.join(', ')}`);
    assert.ok(beta!.agents.includes('beta-agent') && !beta!.agents.includes('alpha-agent'), `beta lists ${beta!.agents.join(', ')}`);
    // Both have the same name for a different file: each folder's own wins there.
    const shared = (name: string) => api.agents(name).find((a) => a.name === 'shared' && !a.shadowed)?.filePath;
    assert.equal(shared('alpha'), vscode.Uri.joinPath(folder('alpha').uri, '.claude/agents/shared.md').fsPath);
    assert.equal(shared('beta'), vscode.Uri.joinPath(folder('beta').uri, '.claude/agents/shared.md').fsPath);
  });

  it("reads each folder's own settings (beta's .vscode/settings.json disables explore there only)", async () => {
    const api = await subagents();
    const disabled = (name: string) => api.viewState().folders.find((f) => f.name === name)?.agents.find((a) => a.name === 'explore' && !a.shadowedBy)?.disabled;
    assert.equal(disabled('alpha'), false);
    assert.equal(disabled('beta'), true);
  });

  it('runs an agent in each folder: each run works in its folder and is shown with it', async () => {
    const api = await subagents();
    const rootIds: Record<string, string> = {};
    for (const name of ['alpha', 'beta']) {
      // Run Agent answers with the root agent's id.
      const rootId = await vscode.commands.executeCommand<string | undefined>('subagents.runAgent', { agent: 'shared', folder: name, task: `work in ${name}`, notify: false });
      assert.ok(rootId, `no run started in ${name}`);
      rootIds[name] = rootId;
    }
    const ended = (rootId: string) =>
      waitFor(() => {
        const run = api.runs().find((r) => r.rootAgentId === rootId);
        return run && !isActiveStatus(run.status) ? run : undefined;
      }, `the run of ${rootId} did not end`);
    for (const name of ['alpha', 'beta']) {
      const run: RunSnapshot = await ended(rootIds[name]!);
      assert.equal(run.status, 'completed', `${name}: ${run.status}`);
      const root = run.agents[run.rootAgentId]!;
      assert.equal(root.cwd, folder(name).uri.fsPath);
      // The folder's own definition of `shared` ran.
      assert.equal(root.output, `You are ${name}'s shared agent. done`);
      const header = api.runsViewHeaders().find((h) => h.runId === run.runId);
      assert.equal(header?.folder, name, `the Runs view shows ${name}'s run with its folder`);
    }
  });

  it("does not run one folder's agent in another", async () => {
    const runId = await vscode.commands.executeCommand<string | undefined>('subagents.runAgent', { agent: 'beta-agent', folder: 'alpha', task: 'x', notify: false });
    assert.equal(runId, undefined);
  });
});
