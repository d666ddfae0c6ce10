import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { RunSnapshot } from '../../../src/protocol/runSnapshot';
import { isActiveStatus } from '../../../src/protocol/vocabulary';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';
import { subagents, waitFor, workspaceFolder } from '../api';

// VS Code's own MCP servers for our agents, in the real extension host: the
// workspace's .vscode/mcp.json configures `tally` (the project's test
// server), which VS Code itself runs; the Copilot-format agent `counter`
// lists `tally/*` in its tools and calls them through vscode.lm.invokeTool.

function fullReference(tool: vscode.LanguageModelToolInformation): string | undefined {
  const value = (tool as { fullReferenceName?: unknown }).fullReferenceName;
  return typeof value === 'string' ? value : undefined;
}

/** The calls the tally server recorded (the e2e harness points it at this file, beside the workspace). */
function tallyCalls(): Array<{ tool: string; args: Record<string, unknown>; pid: number }> {
  const file = path.join(workspaceFolder(), '..', 'tally-calls.ndjson');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { tool: string; args: Record<string, unknown>; pid: number }) : [];
}

describe("VS Code's own MCP servers reach our agents", function () {
  this.timeout(120_000);
  let server: ScriptedServer;
  const offered: string[][] = [];
  const config = () => vscode.workspace.getConfiguration('subagents');
  const target = vscode.ConfigurationTarget.Workspace;

  before(async () => {
    server = await startScriptedServer((req) => {
      if (!req.system.includes('[agent:counter]')) return { text: 'ok' };
      if (req.turn === 0) {
        offered.push(req.toolNames);
        return { toolUses: [{ name: 'mcp__tally__echo', input: { text: 'seven' } }] };
      }
      return { text: `tally said: ${[...req.toolResults.values()][0]?.content}` };
    });
    await subagents();
    await config().update('apiBaseUrl', server.url, target);
    assert.equal(await vscode.commands.executeCommand('subagents.setApiKey', 'sk-ant-exthost-mcp'), true);
  });

  after(async () => {
    await vscode.commands.executeCommand('subagents.stopAll');
    await config().update('apiBaseUrl', undefined, target);
    await server?.close();
  });

  async function ended(runId: string): Promise<RunSnapshot> {
    const api = await subagents();
    return waitFor(() => {
      const run = api.runs().find((r) => r.runId === runId);
      return run && !isActiveStatus(run.status) ? run : undefined;
    }, `run ${runId} did not end`, 60_000);
  }

  it('VS Code lists the tools of a workspace MCP server once it ran, by reference names `server/tool`, tagged mcp', async () => {
    // VS Code knows a server's tools only once it ran; nothing has started it yet.
    assert.equal(vscode.lm.tools.some((t) => fullReference(t)?.startsWith('tally/')), false);
    // VS Code runs a workspace's server only in a trusted workspace (the harness trusts it) and once the user
    // trusted that server: starting it as its mcp.json CodeLens does (autoTrustChanges) is that, with no dialog.
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { autoTrustChanges: true, waitForLiveTools: true });
    const echo = await waitFor(() => vscode.lm.tools.find((t) => fullReference(t) === 'tally/echo'), 'VS Code never listed tally/echo', 30_000);
    assert.deepEqual(echo.tags, ['mcp']);
  });

  it('a Copilot agent listing tally/* gets its tools and calls them through vscode.lm.invokeTool', async () => {
    const id = await vscode.commands.executeCommand<string | undefined>('subagents.runAgent', { agent: 'counter', task: 'Count to seven' });
    assert.ok(id, 'Run Agent returned no agent id');
    const run = await ended(id);
    const agent = run.agents[id]!;
    assert.equal(agent.status, 'completed', agent.error ?? '');
    assert.equal(agent.output, 'tally said: tally echoes: seven');
    // Its tools, under the names every MCP tool gets here; only tally's (and read), nothing else of VS Code's.
    assert.deepEqual(offered[0]?.filter((n) => n.startsWith('mcp__')).sort(), ['mcp__tally__big', 'mcp__tally__crash', 'mcp__tally__echo', 'mcp__tally__env', 'mcp__tally__fails', 'mcp__tally__grow', 'mcp__tally__hang', 'mcp__tally__note']);
    assert.deepEqual(agent.tools.map((t) => [t.name, t.server, t.status]), [['mcp__tally__echo', 'tally', 'ok']]);
    // The call reached the server VS Code runs: ours reads no .vscode/mcp.json in VS Code.
    assert.deepEqual(tallyCalls().map((c) => [c.tool, c.args]), [['echo', { text: 'seven' }]]);
  });
});

describe('the Agents view shows each agent’s MCP servers', function () {
  this.timeout(60_000);

  it('counter opens to the VS Code tool set it uses; Check MCP Servers finds nothing missing', async () => {
    const api = await subagents();
    const warnings = await vscode.commands.executeCommand<string[]>('subagents.checkMcpServers');
    assert.deepEqual(warnings, []);
    const item = await waitFor(() => {
      const found = api.agentsViewItem('counter');
      return found?.collapsibleState === vscode.TreeItemCollapsibleState.Collapsed ? found : undefined;
    }, 'the Agents view never showed counter with its servers');
    assert.equal(item.label && typeof item.label === 'object' ? item.label.label : item.label, 'counter');
  });
});
