import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCliProcess } from '../../support/cliProcess';
import { startScriptedServer, type ScriptedServer } from '../../support/scriptedServer';

/**
 * S7.2: the API key never lands anywhere the product shows or writes, even
 * when the server, the model or a tool hands it back.
 */

const KEY = 'sk-ant-api03-TEST-0123456789abcdefghijklmnopqrstuvwxyz-ZYXWVU';
let server: ScriptedServer;
let project: string;
let home: string;
let data: string;

before(async () => {
  server = await startScriptedServer();
  project = await mkdtemp(path.join(os.tmpdir(), 'subagents-secrets-'));
  home = await mkdtemp(path.join(os.tmpdir(), 'subagents-secrets-home-'));
  data = path.join(home, 'data');
  await mkdir(path.join(project, '.claude/agents'), { recursive: true });
  await writeFile(path.join(project, '.claude/agents/leaky.md'), '---\nname: leaky\ndescription: Leaks\ntools: Read\n---\nYou leak. [agent:leaky]\n');
  await writeFile(path.join(project, '.env'), `ANTHROPIC_API_KEY=${KEY}\n`);
});

after(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

function env(): NodeJS.ProcessEnv {
  return { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, HOME: home, XDG_DATA_HOME: data };
}

async function filesUnder(dir: string): Promise<Array<{ file: string; text: string }>> {
  const out: Array<{ file: string; text: string }> = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.push({ file, text: await readFile(file, 'utf8') });
  }
  return out;
}

async function assertNoKeyAnywhere(r: { stdout: string; stderr: string }): Promise<void> {
  assert.equal(r.stdout.includes(KEY), false, `stdout holds the key: ${r.stdout}`);
  assert.equal(r.stderr.includes(KEY), false, `stderr holds the key: ${r.stderr}`);
  const saved = await filesUnder(data);
  assert.ok(saved.some((f) => f.file.endsWith('.json')), 'the run was saved');
  for (const { file, text } of saved) assert.equal(text.includes(KEY), false, `${file} holds the key`);
}

test('a 401 whose message echoes the key: redacted in the NDJSON result, on stderr and in the saved run', async () => {
  server.setScript(() => ({ error: { status: 401, type: 'authentication_error', message: `invalid x-api-key: ${KEY}` } }));
  for (const json of [true, false]) {
    const r = await runCliProcess(['run', 'leaky', 'hi', '--cwd', project, ...(json ? ['--json'] : [])], { env: env() });
    assert.equal(r.code, 1);
    await assertNoKeyAnywhere(r);
    assert.match(json ? r.stdout : r.stderr, /The API key was rejected \(401\): invalid x-api-key: \[redacted\]/);
  }
});

test('the key read from a file by a tool and repeated by the model across stream chunks: redacted in events, answer, transcript and history', async () => {
  server.setScript((req) => {
    if (req.turn === 0) return { toolUses: [{ name: 'Read', input: { file_path: '.env' } }] };
    // Streamed in 24-character chunks, so the key is split across several text events.
    return { text: `The key is ${[...req.toolResults.values()][0]!.content.split('=')[1]!.trim()} — keep it safe.` };
  });
  for (const json of [true, false]) {
    const r = await runCliProcess(['run', 'leaky', 'read .env', '--cwd', project, ...(json ? ['--json'] : [])], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    await assertNoKeyAnywhere(r);
    if (json) {
      const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; text?: string; output?: string });
      const streamed = events.filter((e) => e.type === 'text').map((e) => e.text).join('');
      assert.equal(streamed, 'The key is [redacted] — keep it safe.', 'the text events put together');
      assert.equal(events.at(-1)!.output, 'The key is [redacted] — keep it safe.');
    } else {
      assert.equal(r.stdout, 'The key is [redacted] — keep it safe.\n');
    }
  }
  const transcripts = (await filesUnder(data)).filter((f) => f.file.endsWith('.ndjson'));
  assert.ok(transcripts.some((f) => f.text.includes('ANTHROPIC_API_KEY=[redacted]')), 'the tool result is in the transcript, redacted');
});
