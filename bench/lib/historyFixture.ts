import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runFileText } from '../../src/core/runs/runFiles';
import { RunStore } from '../../src/core/runs/runStore';
import type { RunSnapshot } from '../../src/protocol/runSnapshot';
import { EventScript } from '../../test/support/runEvents';

/**
 * A run history of `count` runs on disk, as processes that ended wrote it:
 * each run a lead with two helpers, a dozen tool rows, text and usage (about
 * the size of a short real run), one a minute back from now. Written without
 * the history's fsyncs: this is a benchmark's setup, not what it measures.
 */
export function writeHistory(historyDir: string, count: number): { bytes: number } {
  const runsDir = path.join(historyDir, 'runs');
  mkdirSync(runsDir, { recursive: true });
  const owner = { pid: 999_999, host: 'bench-host-that-ended', instance: 'bench' };
  let bytes = 0;
  const now = Date.now();
  for (let i = 0; i < count; i++) {
    const run = sampleRun(`r${i.toString(16).padStart(11, '0')}`, now - (count - i) * 60_000);
    const text = runFileText(run, owner);
    bytes += text.length;
    writeFileSync(path.join(runsDir, `${run.runId}.json`), text);
  }
  return { bytes };
}

function sampleRun(runId: string, startedAt: number): RunSnapshot {
  const script = new EventScript(runId);
  script.ts = startedAt;
  const lead = `${runId}a`;
  const helpers = [`${runId}b`, `${runId}c`];
  script.started(lead, 'lead', { description: 'Review the change and fix what the tests say' });
  script.tick(400);
  for (const [n, helper] of helpers.entries()) {
    script.started(helper, n ? 'tester' : 'reader', { parentId: lead, parentToolUseId: `t${n}`, depth: 1 });
    for (let k = 0; k < 5; k++) {
      script.tick(200);
      script.tool(helper, `${helper}-u${k}`, k % 2 ? 'Read' : 'Grep', `src/module${k}.ts`, { summary: `${20 + k} lines` });
    }
    script.usage(helper, { inputTokens: 4200, outputTokens: 380 }, 5);
    script.finished(helper, { output: 'Found the two call sites and the failing assertion; details in the summary above.' });
  }
  script.tool(lead, `${lead}-u0`, 'Edit', 'src/module1.ts', { summary: '+3 −1' });
  script.usage(lead, { inputTokens: 9100, outputTokens: 900 }, 4);
  script.finished(lead, { output: 'Fixed the off-by-one in module1 and the test that relied on it; all tests pass.' });
  const store = new RunStore({ coalesceMs: 0 });
  for (const event of script.events) store.apply(event);
  return store.get(runId)!;
}
