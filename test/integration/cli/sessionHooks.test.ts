import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openSession } from '../../../src/cli/session';
import { cliSettings } from '../../../src/cli/settingsFiles';
import { TrustedFolders } from '../../../src/core/trust/projectTrust';
import { startScriptedServer } from '../../support/scriptedServer';
import { firstUserTexts, group, hookWorld } from '../core/hooks/hookFixture';

test('the CLI session runs command hooks from ~/.claude and a trusted project, with the CLI environment minus ANTHROPIC_*', async () => {
  const server = await startScriptedServer(() => ({ text: 'done' }));
  const w = await hookWorld();
  await mkdir(path.join(w.project, '.claude', 'agents'), { recursive: true });
  await writeFile(path.join(w.project, '.claude', 'agents', 'worker.md'), '---\nname: worker\ndescription: Works\n---\nYou work. [agent:worker]\n');
  await w.userSettings({ SubagentStart: [group([`printf '%s' '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"from the user hook"}}'`])] });
  await w.projectSettings({ SubagentStop: [group([`env > '${w.out}/stop.env'`, `echo 'broken on purpose' >&2; exit 1`])] });
  let stderr = '';
  const stdout = { write: () => true };
  const env = { HOME: w.home, XDG_DATA_HOME: path.join(w.root, 'data'), PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-ant-cli-secret', ANTHROPIC_BASE_URL: server.url };
  const io = { stdout, stderr: { write: (text: string) => (stderr += text) }, env, cwd: w.project, signal: new AbortController().signal };
  // The session starts after the settings were written (as a command typed after editing them): they are its baseline.
  await new Promise((resolve) => setTimeout(resolve, 80));
  const trust = new TrustedFolders([w.project]);
  const session = await openSession(io, { cwd: w.project, pluginDirs: [], settings: cliSettings(io, w.project, { trust }), coalesceMs: 0, trust });
  try {
    const result = await (await session.runtime.start({ scope: session.scope, agent: 'worker', prompt: 'go', askApprovals: false })).result();
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.deepEqual(firstUserTexts(server.requests[0]!.messages), ['from the user hook', 'go']);
    const hookEnv = await w.read('stop.env');
    assert.doesNotMatch(hookEnv, /ANTHROPIC_|sk-ant-cli-secret/);
    assert.match(hookEnv, new RegExp(`^HOME=${w.home}$`, 'm'), 'hooks get the CLI environment');
    assert.match(stderr, /^subagents: warn: SubagentStop hook "echo 'broken on purpose' >&2; exit 1" \(from .+settings\.json\) exited with code 1: broken on purpose\.$/m);
    assert.doesNotMatch(stderr, /: info: /, 'per-hook info lines stay out of the terminal');
  } finally {
    await session.close();
    await server.close();
    await w.close();
  }
});

test('the CLI session honours hooks.enabled = false from the user settings file', async () => {
  const server = await startScriptedServer(() => ({ text: 'done' }));
  const w = await hookWorld();
  await mkdir(path.join(w.project, '.claude', 'agents'), { recursive: true });
  await writeFile(path.join(w.project, '.claude', 'agents', 'worker.md'), '---\nname: worker\ndescription: Works\n---\nYou work.\n');
  await w.projectSettings({ SubagentStart: [group([`touch '${w.out}/ran'`])] });
  await mkdir(path.join(w.root, 'config', 'subagents'), { recursive: true });
  await writeFile(path.join(w.root, 'config', 'subagents', 'settings.json'), '{ "hooks.enabled": false }');
  let stderr = '';
  const env = { HOME: w.home, XDG_DATA_HOME: path.join(w.root, 'data'), XDG_CONFIG_HOME: path.join(w.root, 'config'), ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url };
  const io = { stdout: { write: () => true }, stderr: { write: (text: string) => (stderr += text) }, env, cwd: w.project, signal: new AbortController().signal };
  const session = await openSession(io, { cwd: w.project, pluginDirs: [], settings: cliSettings(io, w.project), coalesceMs: 0 });
  try {
    assert.equal((await (await session.runtime.start({ scope: session.scope, agent: 'worker', prompt: 'go', askApprovals: false })).result()).status, 'completed');
    await assert.rejects(w.read('ran'), { code: 'ENOENT' });
    assert.equal(stderr, '');
  } finally {
    await session.close();
    await server.close();
    await w.close();
  }
});
