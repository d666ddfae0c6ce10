// MCP tools in real VS Code (code-server + Chromium) against the scripted
// model server: a Claude Code agent with a server of its own (run by
// Subagents) and a Copilot-format agent naming `tally/*`, a server of the
// workspace's .vscode/mcp.json that VS Code itself runs (reached through
// vscode.lm.invokeTool), both started from the chat. The chat response and
// the Runs view name the server each call went to; screenshots of both are
// saved.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { type Script } from '../support/scriptedServer';
import { TEST_SERVER } from '../support/mcp/servers';
import { finishedText, openChat, responseText, sendChat, setColorTheme } from './support/chatPanel';
import { poll, withDiagnostics } from './support/diagnostics';
import { codeServerSuite } from './support/suite';

/** Each agent calls the echo tool it was given (scribe: the note tool, which changes things), then says what came back. */
const script: Script = (req) => {
  const echo = req.toolNames.find((name) => /^mcp__(notes|tally)__(echo|note)$/.test(name));
  if (req.toolResults.size === 0) {
    return echo ? { text: 'Asking the server.', toolUses: [{ name: echo, input: { text: 'how many words?' } }], delayMs: 300 } : { text: `No echo tool among ${req.toolNames.join(', ')}` };
  }
  return { text: `The server said: ${[...req.toolResults.values()][0]!.content}` };
};

describe('MCP tools from the chat', () => {
  let calls = '';
  const { subject, live } = codeServerSuite({
    label: 'mcp',
    prepare(workspace) {
      calls = path.join(workspace.dir, '..', 'mcp-calls.ndjson');
      const server = (name: string) => ({ command: process.execPath, args: [TEST_SERVER, '--name', name, '--calls', calls] });
      mkdirSync(path.join(workspace.dir, '.claude/agents'), { recursive: true });
      writeFileSync(
        path.join(workspace.dir, '.claude/agents/noter.md'),
        `---\nname: noter\ndescription: Takes notes with its own MCP server.\ntools: Read, mcp__notes__echo\nmcpServers:\n  - notes: ${JSON.stringify(server('notes'))}\n---\nYou take notes.\n`,
      );
      writeFileSync(
        path.join(workspace.dir, '.claude/agents/scribe.md'),
        `---\nname: scribe\ndescription: Writes notes with its own MCP server.\ntools: Read, mcp__notes__note\nmcpServers:\n  - notes: ${JSON.stringify(server('notes'))}\n---\nYou write notes.\n`,
      );
      mkdirSync(path.join(workspace.dir, '.vscode'), { recursive: true });
      writeFileSync(path.join(workspace.dir, '.vscode/mcp.json'), JSON.stringify({ servers: { tally: { type: 'stdio', ...server('tally') } } }, null, 2));
      mkdirSync(path.join(workspace.dir, '.github/agents'), { recursive: true });
      writeFileSync(path.join(workspace.dir, '.github/agents/counter.agent.md'), "---\ndescription: Counts things with the tally server.\ntools: ['read', 'tally/*']\n---\nYou count things.\n");
    },
    model: script,
    ready: openChat,
  });
  const recorded = () => (existsSync(calls) ? readFileSync(calls, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { server: string; tool: string }) : []);

  it('an agent file’s own server: the call is shown as “notes › echo” in the chat and in the Runs view', { timeout: 180_000 }, () =>
    withDiagnostics('mcp own server', subject, async () => {
      const { workbench, page } = live();
      const response = await sendChat(workbench, '@agent noter note this');
      const text = await finishedText(response, 90_000);
      assert.match(text, /The server said: notes echoes: how many words\?/);
      assert.match(text, /notes › echo/, 'the chat names the server');
      assert.deepEqual(recorded().filter((c) => c.server === 'notes').map((c) => c.tool), ['echo']);
      await page.setViewportSize({ width: 1400, height: 1100 });
      await workbench.settled();
      console.log(`screenshot: ${await workbench.screenshot('mcp-chat-light')}`);

      await workbench.openViewContainer('Subagents');
      const view = workbench.webview();
      await workbench.byTestId('runs-view-root').waitFor({ timeout: 60_000 });
      const row = view.locator('li[data-agent-name="noter"]').first();
      await poll(async () => (await row.getAttribute('data-status')) === 'completed', { timeoutMs: 30_000, message: 'noter is not shown as completed' });
      const tool = view.locator('.tool-name', { hasText: 'notes › echo' }).first();
      await tool.waitFor({ timeout: 10_000 });
      // The Agents view lists noter's server under it, reachable since the run (Project › Claude Code › noter).
      const agentsRow = page.locator('.monaco-list-row[aria-level="3"]', { hasText: /^noter/ }).first();
      await agentsRow.locator('.monaco-tl-twistie').click();
      await page.locator('.monaco-list-row[aria-level="4"]', { hasText: /notes/ }).first().waitFor({ timeout: 10_000 });
      await page.mouse.move(700, 450);
      console.log(`screenshot: ${await workbench.screenshot('mcp-runs-light')}`);
      await setColorTheme(workbench, 'Dark Modern');
      console.log(`screenshot: ${await workbench.screenshot('mcp-runs-dark')}`);
      await setColorTheme(workbench, 'Light Modern');
      await page.setViewportSize({ width: 1400, height: 900 });
    }),
  );

  it('a tool its server does not mark read-only asks first, in the chat: “wants to use notes › note”', { timeout: 180_000 }, () =>
    withDiagnostics('mcp approval', subject, async () => {
      const { workbench, page } = live();
      await workbench.runCommand('Chat: Open Chat');
      const response = await sendChat(workbench, '@agent /new scribe write it down');
      await response.getByText('Approval needed').waitFor({ timeout: 60_000 });
      assert.match(await responseText(response), /Approval needed: scribe wants to use notes › note/);
      // The Runs view asks the same, with every argument whole.
      await workbench.openViewContainer('Subagents');
      const args = workbench.webview().locator('[data-testid="approval-arguments"]').first();
      await args.waitFor({ timeout: 30_000 });
      assert.equal(await args.innerText(), '{\n  "text": "how many words?"\n}');
      await workbench.screenshotsAtWidths('mcp-runs-approval');
      await page.setViewportSize({ width: 1400, height: 1100 });
      await workbench.settled();
      console.log(`screenshot: ${await workbench.screenshot('mcp-chat-approval')}`);
      await page.setViewportSize({ width: 1400, height: 900 });
      await response.locator('.monaco-button', { hasText: /^Allow$/ }).first().click();
      const text = await finishedText(response, 60_000);
      assert.match(text, /The server said: notes noted: how many words\?/);
      assert.deepEqual(recorded().filter((c) => c.tool === 'note').length, 1);
    }),
  );

  it('a Copilot agent’s tally/*: VS Code starts the .vscode/mcp.json server without a prompt and the call goes through vscode.lm.invokeTool', { timeout: 180_000 }, () =>
    withDiagnostics('mcp vscode server', subject, async () => {
      const { workbench, page } = live();
      await workbench.runCommand('Chat: Open Chat');
      // /new: a fresh agent rather than a follow-up to noter.
      const response = await sendChat(workbench, '@agent /new counter count the words');
      const text = await finishedText(response, 120_000);
      assert.match(text, /The server said: tally echoes: how many words\?/);
      assert.match(text, /tally › echo/);
      assert.deepEqual(recorded().filter((c) => c.server === 'tally').map((c) => c.tool), ['echo']);
      await page.setViewportSize({ width: 1400, height: 1100 });
      await workbench.settled();
      console.log(`screenshot: ${await workbench.screenshot('mcp-chat-vscode-light')}`);
      await page.setViewportSize({ width: 1400, height: 900 });
    }),
  );
});
