// The language server and MCP: server names and MCP tool names in agent
// files are checked and completed against the servers configured around the
// folder and the tools each listed when a run last started it (here
// `subagents agents --check-mcp`, through the real CLI), without the
// language server ever starting one.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Diagnostic, MarkupContent } from 'vscode-languageserver-protocol/node';
import { runCliProcess } from '../../support/cliProcess';
import { LspClient } from '../../support/lspClient';
import { stdioServer, yaml } from '../../support/mcp/servers';

function message(d: Diagnostic): string {
  return typeof d.message === 'string' ? d.message : d.message.value;
}

function codes(diagnostics: Diagnostic[]): Array<[string, string]> {
  return diagnostics.map((d) => [String(d.code), message(d)]);
}

describe('the language server checks and completes MCP names without starting servers', () => {
  let parent: string;
  let root: string;
  let home: string;
  let starts: string;
  let client: LspClient;
  const env = () => ({ HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache'), XDG_DATA_HOME: path.join(home, '.data') });
  /** A server that writes a line to `starts` each time it is started. */
  const counted = (name: string) => {
    const { command, args } = stdioServer('--name', name);
    return { command: 'sh', args: ['-c', `echo ${name} >> "$0"; exec "$@"`, starts, command, ...args] };
  };

  before(async () => {
    parent = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-lsp-mcp-')));
    root = path.join(parent, 'project');
    home = path.join(parent, 'home');
    starts = path.join(parent, 'starts.txt');
    mkdirSync(path.join(root, '.claude/agents'), { recursive: true });
    mkdirSync(path.join(root, '.github/agents'), { recursive: true });
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(root, '.mcp.json'), JSON.stringify({ mcpServers: { notes: counted('notes') } }));
    writeFileSync(path.join(root, '.claude/agents/user.md'), `---\nname: user\ndescription: d\ntools: Read, mcp__notes__echo\nmcpServers:\n  - own: ${yaml(counted('own'))}\n---\nx\n`);
    // Starts each server once and records what it lists; the language server reads that.
    const check = await runCliProcess(['agents', '--check-mcp', '--trust-project', '--cwd', root], { env: env() });
    assert.equal(check.code, 0, check.stderr);
    assert.deepEqual(readFileSync(starts, 'utf8').trim().split('\n').sort(), ['notes']);
    client = await LspClient.start({ folders: [root], home, env: env() });
  });

  after(async () => {
    await client?.stop();
    rmSync(parent, { recursive: true, force: true });
  });

  it('flags a tool the server does not list (with the one it meant) and a server nothing declares', async () => {
    const file = path.join(root, '.claude/agents/user.md');
    const text = `---\nname: user\ndescription: d\ntools: Read, mcp__notes__echo, mcp__notes__ecko, mcp__nowhere__x\n---\nx\n`;
    const uri = await client.open(file, text);
    const diagnostics = await client.diagnostics(uri, (d) => d.length >= 2);
    assert.deepEqual(diagnostics.map((d) => d.code).sort(), ['unknown-mcp-server', 'unknown-mcp-tool'], JSON.stringify(codes(diagnostics)));
    const tool = diagnostics.find((d) => d.code === 'unknown-mcp-tool')!;
    assert.deepEqual([tool.range.start.line, tool.range.start.character, tool.range.end.character], [3, 31, 47]);
    assert.match(message(tool), /^MCP server "notes" has no tool "ecko" \(its tools when a run last started it, just now: echo, note, env, .*\)\. Did you mean "mcp__notes__echo"\?$/);
    const [fix] = await client.codeActions(uri, [tool]);
    assert.equal(fix?.title, 'Change to "mcp__notes__echo"');
    const server = diagnostics.find((d) => d.code === 'unknown-mcp-server')!;
    assert.equal(server.severity, 3, 'VS Code has not recorded its tool sets here: it might be one of them');
    assert.match(message(server), /^"mcp__nowhere__x" names the MCP server "nowhere", which is neither declared in its mcpServers nor configured \(\.mcp\.json, ~\/\.claude\.json, a plugin\), nor a tool set of VS Code's\. /);
    await client.close(uri);
  });

  it('completes the servers and the tools they listed, in the format\'s own spelling, and says on hover whose tool it is', async () => {
    const claude = path.join(root, '.claude/agents/complete.md');
    const uri = await client.open(claude, '---\nname: complete\ndescription: d\ntools: Read, \n---\nx\n');
    await client.diagnostics(uri, () => true);
    const items = await client.completion(uri, 3, 13);
    const labels = items.map((i) => i.label);
    assert.ok(labels.includes('Read') && labels.includes('mcp__notes') && labels.includes('mcp__notes__echo'), labels.join(', '));
    assert.equal(items.find((i) => i.label === 'mcp__notes__echo')!.detail, 'notes › echo (read-only)');
    assert.equal(items.find((i) => i.label === 'mcp__notes__note')!.detail, 'notes › note');
    await client.replace(uri, '---\nname: complete\ndescription: d\ntools: Read, mcp__notes__echo\n---\nx\n');
    const hover = await client.hover(uri, 3, 20);
    assert.match((hover!.contents as MarkupContent).value, /^Tool `echo` of MCP server \*\*notes\*\* \(\.mcp\.json\), read-only\.\n\nEchoes its text back\.$/);
    await client.close(uri);

    const copilot = path.join(root, '.github/agents/pilot.agent.md');
    const pilot = await client.open(copilot, "---\ndescription: d\ntools: ['notes/echo', 'notes/ech']\n---\nx\n");
    const diagnostics = await client.diagnostics(pilot, (d) => d.length > 0);
    assert.deepEqual(codes(diagnostics).map(([c]) => c), ['unknown-mcp-tool']);
    assert.match(message(diagnostics[0]!), /Did you mean "notes\/echo"\?/);
    const copilotItems = (await client.completion(pilot, 2, 9)).map((i) => i.label);
    assert.ok(copilotItems.includes('notes/*') && copilotItems.includes('notes/echo'), copilotItems.join(', '));
    await client.close(pilot);
  });

  it('an inline server of the file itself is known by its declaration; a name in mcpServers that reaches nothing is flagged on the field', async () => {
    const file = path.join(root, '.claude/agents/inline.md');
    const uri = await client.open(file, `---\nname: inline\ndescription: d\ntools: Read, mcp__own__ech, mcp__notes__echo\nmcpServers:\n  - own: ${yaml(counted('own'))}\n  - ghost\n---\nx\n`);
    const diagnostics = await client.diagnostics(uri, (d) => d.length > 0);
    // `own` never ran (user.md declared it without naming a tool of it, so --check-mcp left it): its tools are not known, and not checked.
    assert.deepEqual(codes(diagnostics).map(([c]) => c).sort(), ['mcp-server'], JSON.stringify(codes(diagnostics)));
    assert.match(message(diagnostics[0]!), /^Its mcpServers names "ghost", but no MCP server of that name is configured/);
    assert.equal(diagnostics[0]!.range.start.line, 4);
    await client.close(uri);
  });

  it('never started a server', () => {
    assert.deepEqual(readFileSync(starts, 'utf8').trim().split('\n'), ['notes']);
  });
});
