import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { AgentDefinition, AgentFormat } from '../../../../src/core/agents/definition';
import { discoverAgents } from '../../../../src/core/agents/catalog/discovery';
import { CODEX_CASES } from '../../../fixtures/formats/codex';
import { COPILOT_CASES } from '../../../fixtures/formats/copilot';
import { CURSOR_CASES } from '../../../fixtures/formats/cursor';
import { FACTORY_CASES } from '../../../fixtures/formats/factory';
import { GEMINI_CASES } from '../../../fixtures/formats/gemini';
import { KIRO_CASES } from '../../../fixtures/formats/kiro';
import { OH_MY_PI_CASES } from '../../../fixtures/formats/ohMyPi';
import { KILO_CASES, OPENCODE_CASES } from '../../../fixtures/formats/opencode';
import { QWEN_CASES } from '../../../fixtures/formats/qwen';
import { ROO_CASES } from '../../../fixtures/formats/roo';
import type { AgentExpectation, FixtureCase } from '../../../fixtures/formats/types';
import { layout, runtimeTools, writeFile } from './helpers';

// Real-world-shaped collections of each format, laid out where their home
// tool looks, must load with the right name, description, runtime tools and
// model, at least 98% per format; every file that does not load says why.
// Claude Code's files are checked on the generated workspace
// (generatedWorkspace.test.ts) and, where it is at hand, on the real-world
// corpus (test/corpus/).

const COLLECTIONS: Record<Exclude<AgentFormat, 'claude-code'>, FixtureCase[]> = {
  copilot: COPILOT_CASES,
  gemini: GEMINI_CASES,
  'oh-my-pi': OH_MY_PI_CASES,
  codex: CODEX_CASES,
  cursor: CURSOR_CASES,
  opencode: OPENCODE_CASES,
  kilo: KILO_CASES,
  roo: ROO_CASES,
  qwen: QWEN_CASES,
  kiro: KIRO_CASES,
  factory: FACTORY_CASES,
};

/** The format a collection's agents are read in: Kilo's modes file is Roo Code's format. */
function formatOf(collection: string, filePath: string): string {
  return collection === 'kilo' && filePath.endsWith('.kilocodemodes') ? 'roo' : collection;
}


interface Figure {
  files: number;
  right: number;
  /** Files the home tool itself would not load, each warned with its reason. */
  skippedWithReason: number;
  wrong: string[];
}

function describe(definition: AgentDefinition | undefined): string {
  return definition ? JSON.stringify({ name: definition.name, description: definition.description, tools: runtimeTools(definition), model: definition.model }) : 'not loaded';
}

test('real-world-shaped collections load right per format (≥ 98%), and every other file says why', async (t) => {
  const { home, cwd } = layout(t);
  const where = (relPath: string) => (relPath.startsWith('~/') ? path.join(home, relPath.slice(2)) : path.join(cwd, relPath));
  for (const cases of Object.values(COLLECTIONS)) for (const c of cases) writeFile(where(c.path), c.text);
  // A git repository: opencode and Kilo look for their folders up to its root.
  mkdirSync(path.join(cwd, '.git'), { recursive: true });
  const result = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null, editorStorage: path.join(home, '.config/Code/User/globalStorage') });
  const byFile = new Map<string, AgentDefinition>();
  const byFileAndName = new Map<string, AgentDefinition>();
  for (const definition of [...result.agents, ...result.shadowed.map((s) => s.definition)]) {
    if (!byFile.has(definition.filePath)) byFile.set(definition.filePath, definition);
    byFileAndName.set(`${definition.filePath}\0${definition.name}`, definition);
  }
  const loadsAs = (definition: AgentDefinition | undefined, expect: AgentExpectation, format: string) =>
    definition !== undefined &&
    definition.format === format &&
    definition.name === expect.name &&
    definition.description === expect.description &&
    JSON.stringify(runtimeTools(definition)) === JSON.stringify(expect.tools && [...new Set(expect.tools)]) &&
    definition.model === expect.model;

  const figures: Record<string, Figure> = {};
  for (const [format, cases] of Object.entries(COLLECTIONS)) {
    const figure: Figure = { files: cases.length, right: 0, skippedWithReason: 0, wrong: [] };
    for (const c of cases) {
      const filePath = where(c.path);
      const definition = byFile.get(filePath);
      const warnings = result.warnings.filter((w) => w.filePath === filePath).map((w) => w.message);
      const { expect } = c;
      if ('ignored' in expect) {
        if (!definition && warnings.length === 0) figure.skippedWithReason++;
        else figure.wrong.push(`${c.path}: should be ignored as its home tool does, got ${describe(definition)} ${JSON.stringify(warnings)}`);
      } else if ('skipped' in expect) {
        if (!definition && warnings.some((w) => expect.skipped.test(w))) figure.skippedWithReason++;
        else figure.wrong.push(`${c.path}: should be skipped (${expect.skipped}), got ${describe(definition)} ${JSON.stringify(warnings)}`);
      } else if ('agents' in expect) {
        // A file of several agents counts once per agent it holds.
        figure.files += expect.agents.length - 1;
        for (const agent of expect.agents) {
          const found = byFileAndName.get(`${filePath}\0${agent.name}`);
          if (loadsAs(found, agent, formatOf(format, filePath))) figure.right++;
          else figure.wrong.push(`${c.path} (${agent.name}): expected ${JSON.stringify(agent)}, got ${describe(found)}`);
        }
      } else {
        const ok = loadsAs(definition, expect, formatOf(format, filePath));
        if (ok) figure.right++;
        else figure.wrong.push(`${c.path}: expected ${JSON.stringify(expect)}, got ${describe(definition)}`);
        // Gemini subagents never get the spawn tool, whatever their list says.
        if (definition && format === 'gemini') assert.ok(definition.disallowedTools.includes('Task'), c.path);
      }
    }
    figures[format] = figure;
  }

  for (const [format, figure] of Object.entries(figures)) {
    for (const line of figure.wrong) t.diagnostic(line);
    const share = (figure.right + figure.skippedWithReason) / figure.files;
    t.diagnostic(`${format}: ${figure.right} of ${figure.files} load right, ${figure.skippedWithReason} not agents for their home tool either (warned or ignored as it does): ${(share * 100).toFixed(1)}%`);
    assert.ok(share >= 0.98, `${format}: ${(share * 100).toFixed(1)}%\n${figure.wrong.join('\n')}`);
  }
  // No file of any collection goes wrong at all: a regression shows by name.
  assert.deepEqual(Object.values(figures).flatMap((f) => f.wrong), []);
});
