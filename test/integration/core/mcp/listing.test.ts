import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCliProcess } from '../../../support/cliProcess';
import { stdioServer, yaml } from '../../../support/mcp/servers';

// `subagents agents` shows each agent's MCP servers, where they are declared
// and whether they were reachable (without starting any); --check-mcp starts
// them once to find out.

let root: string;
let project: string;
let home: string;

function env(): NodeJS.ProcessEnv {
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache'), XDG_DATA_HOME: path.join(home, '.data') };
}

interface Listed {
  name: string;
  mcpServers: Array<{ name: string; source: string; state: string; target: string; tools?: string[]; error?: string }>;
  mcpProblems: string[];
}

async function listing(...flags: string[]): Promise<{ text: string; json: Listed[] }> {
  const text = await runCliProcess(['agents', '--cwd', project, ...flags], { env: env() });
  const json = await runCliProcess(['agents', '--json', '--cwd', project, ...flags], { env: env() });
  assert.equal(text.code, 0, text.stderr);
  return { text: text.stdout, json: (JSON.parse(json.stdout) as { agents: Listed[] }).agents };
}

before(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'subagents-mcp-list-'));
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  await mkdir(path.join(project, '.claude/agents'), { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(path.join(project, '.mcp.json'), JSON.stringify({ mcpServers: { broken: stdioServer('--fail', 'no config file found') } }));
  await writeFile(
    path.join(project, '.claude/agents/lister.md'),
    `---\nname: lister\ndescription: d\ntools: Read, mcp__notes__echo, mcp__broken, mcp__ghost__x\nmcpServers:\n  - notes: ${yaml({ ...stdioServer('--name', 'notes'), env: { API_TOKEN: 'literal-secret-1234', MODE: 'fast' } })}\n---\nx\n`,
  );
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

test("an untrusted folder's servers are listed as not started; literal secrets are not shown; names that reach nothing are problems", async () => {
  const { text, json } = await listing();
  const lister = json.find((a) => a.name === 'lister')!;
  assert.deepEqual(lister.mcpServers.map((s) => [s.name, s.source, s.state]), [['notes', 'agent', 'untrusted'], ['broken', 'claude-project', 'untrusted']]);
  assert.match(lister.mcpServers[0]!.target, /^API_TOKEN=\[redacted\] MODE=fast \S+ \S+testServer\.mjs --name notes$/);
  assert.doesNotMatch(text + JSON.stringify(json), /literal-secret-1234/);
  assert.equal(lister.mcpProblems.length, 1);
  assert.match(lister.mcpProblems[0]!, /"mcp__ghost__x" in its tools names the MCP server "ghost", which is neither declared in its mcpServers nor configured/);
  assert.match(text, /MCP servers \(last seen; --check-mcp starts each to check\):\n {2}lister:\n {4}notes \(its file\) — not started: the folder is not trusted\n {4}broken \(\.mcp\.json\) — not started: the folder is not trusted\n {4}⚠ "mcp__ghost__x"/);
  // Agents without servers are not listed there.
  assert.doesNotMatch(text, /^ {2}explore:$/m);
});

test('--check-mcp starts each server once and the listing says what it found; later listings remember it', async () => {
  const checked = await listing('--check-mcp', '--trust-project');
  const lister = checked.json.find((a) => a.name === 'lister')!;
  const notes = lister.mcpServers.find((s) => s.name === 'notes')!;
  assert.equal(notes.state, 'reachable');
  assert.ok(notes.tools?.includes('echo'));
  const broken = lister.mcpServers.find((s) => s.name === 'broken')!;
  assert.equal(broken.state, 'failed');
  assert.match(broken.error ?? '', /exited with code 2; its stderr: no config file found/);
  assert.match(checked.text, /notes \(its file\) — reachable, 8 tools, checked just now/);
  // Without the check (and from the listing cache): what was seen last.
  const later = await listing('--trust-project');
  assert.match(later.text, /notes \(its file\) — reachable, 8 tools/);
  assert.match(later.text, /broken \(\.mcp\.json\) — failed to start, checked just now: it exited with code 2/);
});
