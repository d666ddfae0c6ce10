import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { AgentArchive } from '../../../../src/core/engine/tree/archive';
import { Engine } from '../../../../src/core/engine/engine';
import { WriteFailed } from '../../../../src/core/persistence';
import { RunHistory } from '../../../../src/core/runs/history';
import { RunStore } from '../../../../src/core/runs/runStore';
import type { RunEvent } from '../../../../src/protocol/runEvents';
import { agent, catalogOf, settings } from '../../../support/agents';
import { startScriptedServer, type ScriptedRequest, type ScriptedServer } from '../../../support/scriptedServer';

// A follow-up never loses the conversation silently: a transcript write that
// fails is retried and said, and a transcript part that cannot be read back
// is named while the rest of the conversation goes on.

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-transcripts-'));
  t.after(() => rm(dir, { recursive: true, force: true, maxRetries: 5 }));
  return dir;
}

/** An engine on the history in `dir` (as one process has it), its events kept; `archive` may wrap the history. */
async function open(server: ScriptedServer, dir: string, wrap: (history: RunHistory) => AgentArchive = (h) => h) {
  const history = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50, debounceMs: 5 });
  const store = new RunStore({ coalesceMs: 0 });
  history.attach(store);
  const engine = new Engine({ client: new Anthropic({ apiKey: 'k', baseURL: server.url }), catalog: catalogOf(agent('solo')), settings: settings(), archive: wrap(history) });
  const events: RunEvent[] = [];
  engine.onEvent((e) => {
    events.push(e);
    store.apply(e);
  });
  return { history, engine, events };
}

/** The history, with transcript writes that fail (as a full disk would) while `failing()` says so. */
function failingWrites(history: RunHistory, failing: () => boolean): AgentArchive {
  return {
    appendTranscript: (agentId, messages) => {
      if (failing()) return Promise.reject(new WriteFailed(`Could not save the transcript ${history.transcriptPath(agentId)}: ENOSPC: no space left on device, write`, 'ENOSPC', { cause: null }));
      return history.appendTranscript(agentId, messages);
    },
    transcriptPath: (agentId) => history.transcriptPath(agentId),
    load: (agentId) => history.load(agentId),
    begin: (runId) => history.begin(runId),
    get retentionDays() {
      return history.retentionDays;
    },
  };
}

const texts = (messages: readonly unknown[]) => JSON.stringify(messages);
const notices = (events: RunEvent[]) => events.flatMap((e) => (e.type === 'notice' ? [`${e.level}: ${e.message}`] : []));

test('a transcript write that fails is retried at the next turn and said; the transcript ends whole and in order', async (t) => {
  const dir = await tempDir(t);
  const server = await startScriptedServer((req: ScriptedRequest) => (req.turn < 2 ? { text: `turn ${req.turn}`, toolUses: [{ name: 'LS', input: {} }] } : { text: 'all done' }));
  t.after(() => server.close());
  // Only the first write fails: the one after the first answer.
  let writes = 0;
  const { history, engine, events } = await open(server, dir, (h) => failingWrites(h, () => ++writes === 1));
  const result = await engine.run({ agent: 'solo', prompt: 'list twice', cwd: dir });
  assert.equal(result.status, 'completed');
  assert.deepEqual(notices(events), [
    `warning: The conversation could not be saved to this agent's transcript (Could not save the transcript ${history.transcriptPath(result.agentId)}: ENOSPC: no space left on device, write). It is tried again at its next turn; until then a follow-up from another window or terminal would miss its newest messages.`,
    "info: The conversation is saved to this agent's transcript now.",
  ]);
  // Another process reads the whole conversation back: nothing was skipped by the failed write.
  const other = await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50 });
  const saved = await other.transcripts.load(result.agentId);
  assert.deepEqual(saved?.problems, []);
  assert.deepEqual(saved?.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
  assert.match(texts(saved!.messages), /list twice.*turn 0.*tool_result.*turn 1.*tool_result.*all done/s);
});

test('when the last write still fails, the user is told, and a follow-up in the same process writes what was missing first', async (t) => {
  const dir = await tempDir(t);
  const server = await startScriptedServer((req: ScriptedRequest) => ({ text: `answer ${req.messages.length}` }));
  t.after(() => server.close());
  let failing = true;
  const { engine, events } = await open(server, dir, (h) => failingWrites(h, () => failing));
  const first = await engine.run({ agent: 'solo', prompt: 'first question', cwd: dir });
  assert.equal(first.status, 'completed');
  assert.match(notices(events).join('\n'), /^warning: The conversation could not be saved to this agent's transcript \(.*ENOSPC/);
  failing = false;
  const followUp = await engine.sendFollowUp(first.agentId, 'second question');
  assert.equal((await followUp.done).status, 'completed');
  const saved = await (await RunHistory.open({ dir, retentionDays: 30, maxRuns: 50 })).transcripts.load(first.agentId);
  assert.deepEqual(saved?.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant'], 'the first exchange was written before the second');
  assert.match(texts(saved!.messages), /first question.*answer 1.*second question.*answer 3/s);
});

test('a transcript line that cannot be read back is named as the follow-up starts; every other message, after it too, goes on', async (t) => {
  const dir = await tempDir(t);
  const server = await startScriptedServer((req: ScriptedRequest) => (req.turn === 0 ? { text: 'first', toolUses: [{ name: 'LS', input: {} }] } : { text: `seen ${req.messages.length} messages` }));
  t.after(() => server.close());
  const first = await (async () => {
    const { history, engine } = await open(server, dir);
    const result = await engine.run({ agent: 'solo', prompt: 'look around', cwd: dir });
    await history.close();
    return result;
  })();
  // A line in the middle damaged on disk: the tool results the agent got.
  const file = path.join(dir, 'transcripts', `${first.agentId}.ndjson`);
  const lines = (await readFile(file, 'utf8')).split('\n');
  assert.equal(lines[0], '{"subagents":"transcript","version":1}', 'the transcript names its kind and version');
  const damaged = lines.findIndex((l) => l.includes('tool_result'));
  lines[damaged] = lines[damaged]!.slice(0, 40);
  await writeFile(file, lines.join('\n'));

  const { engine, events } = await open(server, dir);
  const followUp = await engine.sendFollowUp(first.agentId, 'and now?');
  assert.equal((await followUp.done).status, 'completed');
  assert.equal(notices(events).length, 1);
  assert.match(notices(events)[0]!, new RegExp(`^warning: The transcript of this agent could not be read back whole: line ${damaged + 1} is not JSON \\(.+\\)\\. It continues with the rest of its conversation\\.$`));
  // The model got every readable message, the ones after the damaged line included, in a shape the API takes.
  const sent = server.requests.at(-1)!.messages;
  assert.match(texts(sent), /look around.*first.*could not be read back from the transcript.*seen 3 messages.*and now\?/s);
  assert.deepEqual(sent.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user']);
});
