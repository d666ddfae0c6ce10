import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RunStore } from '../../../../src/core/runs/runStore';
import { ChatRunStream, type ChatSink } from '../../../../src/surfaces/chat/chatStream';
import { EventScript } from '../../../support/runEvents';

interface Write {
  at: number;
  kind: string;
  text: string;
}

function recorder(): { sink: ChatSink; writes: Write[] } {
  const writes: Write[] = [];
  const at = () => performance.now();
  return {
    writes,
    sink: {
      markdown: (text) => writes.push({ at: at(), kind: 'markdown', text }),
      progress: (text) => writes.push({ at: at(), kind: 'progress', text }),
      reference: (filePath) => writes.push({ at: at(), kind: 'reference', text: filePath }),
      button: (title, command, args) => writes.push({ at: at(), kind: 'button', text: `${title} ${command} ${JSON.stringify(args)}` }),
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('however fast events come, the response gets about ten writes a second, and nothing is lost', async () => {
  const store = new RunStore({ coalesceMs: 0 });
  const script = new EventScript();
  const { sink, writes } = recorder();
  store.apply(script.started('root', 'lead'));
  const stream = new ChatRunStream(store, 'run1', sink);
  const started = performance.now();
  // 1.5 s of events at full speed: 20 agents, each starting and finishing tools.
  let n = 0;
  for (let i = 0; i < 20; i++) store.apply(script.started(`a${i}`, `worker-${i}`, { parentId: 'root', depth: 1 }));
  while (performance.now() - started < 1500) {
    for (let k = 0; k < 200; k++, n++) {
      for (const e of script.tool(`a${n % 20}`, `t${n}`, 'Read', `file-${n}.ts`)) store.apply(e);
    }
    await sleep(1);
  }
  for (let i = 0; i < 20; i++) store.apply(script.finished(`a${i}`));
  store.apply(script.finished('root'));
  await sleep(300);
  stream.finish();
  const seconds = (performance.now() - started) / 1000;
  const live = writes.filter((w) => w.kind !== 'reference');
  assert.ok(n > 2000, `the test produced only ${n} tool calls`);
  assert.ok(live.length / seconds <= 11, `${live.length} writes in ${seconds.toFixed(2)} s`);
  // No one-second window holds more than ten writes plus one look's burst.
  for (const w of live) {
    const inWindow = live.filter((x) => x.at >= w.at && x.at < w.at + 1000).length;
    assert.ok(inWindow <= 16, `${inWindow} writes within a second from ${Math.round(w.at - started)} ms`);
  }
  // Every agent's start and end made it into the log.
  const text = writes.filter((w) => w.kind === 'markdown').map((w) => w.text).join('');
  for (let i = 0; i < 20; i++) {
    assert.match(text, new RegExp(`▸ \\*\\*worker-${i}\\*\\*`));
    assert.match(text, new RegExp(`✓ \\*\\*worker-${i}\\*\\* finished`));
  }
  const tools = [...text.matchAll(/Read (?:×(\d+)|`file)|(\d+) more tool calls?/g)].reduce((sum, m) => sum + (m[1] ? Number(m[1]) : m[2] ? Number(m[2]) : 1), 0);
  assert.equal(tools, n, 'every tool call is in a line or a count');
  stream.dispose();
});

test('an approval is written at once with its four buttons; the progress line waits for a quiet moment', async () => {
  const store = new RunStore({ coalesceMs: 0 });
  const script = new EventScript();
  const { sink, writes } = recorder();
  store.apply(script.started('a', 'test-runner'));
  const stream = new ChatRunStream(store, 'run1', sink);
  await sleep(150);
  store.apply(script.tool('a', 't1', 'Bash', 'npm test', null)[0]!);
  store.apply(script.approval('a', 'ap_7', 't1', 'npm test'));
  await sleep(250);
  const buttons = writes.filter((w) => w.kind === 'button').map((w) => w.text);
  assert.deepEqual(buttons, [
    'Allow subagents.answerApproval ["ap_7","allow","chat"]',
    'Allow for this agent subagents.answerApproval ["ap_7","allowAgent","chat"]',
    'Allow for this run subagents.answerApproval ["ap_7","allowRun","chat"]',
    'Deny subagents.answerApproval ["ap_7","deny","chat"]',
  ]);
  assert.equal(writes.filter((w) => w.kind === 'progress').length, 0, 'no progress line right after log lines');
  await sleep(800);
  assert.deepEqual(writes.filter((w) => w.kind === 'progress').map((w) => w.text), ['test-runner is waiting for your approval: Bash npm test']);
  stream.dispose();
});
