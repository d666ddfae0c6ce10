import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { discoverAgents } from '../../src/core/agents/catalog/discovery';
import type { AgentDefinition, DiscoveryWarning } from '../../src/core/agents/definition';
import { layout } from '../integration/core/agents/helpers';
import { expectedAgents, formatsCorpusDir, normalise, type CorpusFormat, type Expected } from '../support/formatsCorpus';

// Real public collections of the seven formats read by readers of their own,
// each laid out as a workspace the way its repository has it, through
// discovery: every agent its home tool would load loads with the name,
// description and prompt it should have, its model and tools resolved or
// warned about; every file or mode its home tool refuses is skipped with a
// warning. The files live outside the repository (SUBAGENTS_FORMATS_CORPUS_DIR,
// see test/support/formatsCorpus.ts); without them the test says so and is skipped.

const TARGET = 0.98;
const dir = formatsCorpusDir();

/** Whether the product got one expected agent right; the reason when not. */
function judge(e: Expected, cwd: string, loaded: AgentDefinition[], warnings: DiscoveryWarning[]): string | null {
  const filePath = path.join(cwd, e.file);
  const fromFile = loaded.filter((a) => a.filePath === filePath);
  const mine = warnings.filter((w) => w.filePath === filePath).map((w) => w.message);
  const agent = fromFile.find((a) => a.name === e.name);
  if (e.disabled) return agent ? 'a disabled agent loaded' : null;
  if (e.refused) {
    if (agent) return `loaded, but its home tool refuses it (${e.refused})`;
    return mine.length > 0 ? null : `neither loaded nor warned about (${e.refused})`;
  }
  if (!agent) return `not loaded${mine.length ? `: ${mine[0]!.slice(0, 100)}` : ''}`;
  if (e.merged) return null;
  if (e.description !== undefined && normalise(agent.description) !== normalise(e.description)) return 'description differs';
  if (e.prompt !== undefined && normalise(e.prompt) && !normalise(agent.systemPrompt).includes(normalise(e.prompt).slice(0, 300))) return 'prompt differs';
  if (e.model && !agent.model && !mine.some((m) => m.includes(e.model!))) return `model "${e.model}" dropped without a word`;
  if (e.tools && Array.isArray(agent.tools) && agent.tools.length === 0 && !mine.some((m) => /tool/.test(m))) return 'its tools vanished without a word';
  return null;
}

test('the seven formats: real public collections load right (≥ 98% per format)', { skip: dir ? false : 'no collections of the seven formats: set SUBAGENTS_FORMATS_CORPUS_DIR to a folder of them (see test/support/formatsCorpus.ts)' }, async (t) => {
  const tally = new Map<CorpusFormat, { right: number; total: number; collections: Set<string>; misses: Map<string, number> }>();
  for (const collection of readdirSync(dir!).sort()) {
    const expected = expectedAgents(path.join(dir!, collection));
    if (expected.length === 0) continue;
    const { home, cwd } = layout(t);
    cpSync(path.join(dir!, collection), cwd, { recursive: true });
    // A repository: opencode and Kilo look for their folders up to its root.
    mkdirSync(path.join(cwd, '.git'), { recursive: true });
    const result = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null, editorStorage: path.join(home, 'storage') });
    const loaded = [...result.agents, ...result.shadowed.map((s) => s.definition)];
    for (const e of expected) {
      const entry = tally.get(e.format) ?? { right: 0, total: 0, collections: new Set<string>(), misses: new Map<string, number>() };
      tally.set(e.format, entry);
      entry.total++;
      entry.collections.add(collection);
      const miss = judge(e, cwd, loaded, result.warnings);
      if (miss === null) entry.right++;
      else entry.misses.set(`${collection} ${e.file} ${e.name}: ${miss}`, 1);
    }
  }
  for (const [format, { right, total, collections, misses }] of [...tally].sort()) {
    t.diagnostic(`${format}: ${right} of ${total} right (${((100 * right) / total).toFixed(1)}%), ${collections.size} collections`);
    for (const miss of misses.keys()) t.diagnostic(`  ${miss}`);
  }
  for (const [format, { right, total }] of tally) assert.ok(right / total >= TARGET, `${format}: ${right} of ${total} load right, under ${TARGET * 100}%`);
});
