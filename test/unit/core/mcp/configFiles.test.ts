import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readConfiguredServers } from '../../../../src/core/mcp/configFiles';

// Configuration files are JSON with comments and trailing commas, as VS Code and Gemini CLI write them.

function workspace(mcpJson: string): { cwd: string; home: string; done: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-config-'));
  const cwd = path.join(dir, 'project');
  const home = path.join(dir, 'home');
  mkdirSync(path.join(cwd, '.vscode'), { recursive: true });
  mkdirSync(home);
  writeFileSync(path.join(cwd, '.vscode', 'mcp.json'), mcpJson);
  return { cwd, home, done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('.vscode/mcp.json with comments and trailing commas is read', async () => {
  const w = workspace(`{
    // the notes server
    "servers": {
      "notes": { "type": "stdio", "command": "node", "args": ["notes.js",], }, /* trailing */
    },
  }`);
  try {
    const warnings: string[] = [];
    const servers = await readConfiguredServers({ cwd: w.cwd, home: w.home, vscodeWorkspace: true }, { warn: (m: string) => warnings.push(m) });
    assert.deepEqual(warnings, []);
    assert.deepEqual(servers.map((s) => s.name), ['notes']);
  } finally {
    w.done();
  }
});

test('a .vscode/mcp.json that is not JSON is a warning naming it, and no server comes of it', async () => {
  const w = workspace('{ "servers": { "notes": { "command": "node" } ');
  try {
    const warnings: string[] = [];
    const servers = await readConfiguredServers({ cwd: w.cwd, home: w.home, vscodeWorkspace: true }, { warn: (m: string) => warnings.push(m) });
    assert.deepEqual(servers, []);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /mcp\.json: not a valid JSON object/);
  } finally {
    w.done();
  }
});
