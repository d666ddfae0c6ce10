import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseAgentText } from '../../../../src/core/agents/parsing/parse';
import { trustWhen } from '../../../../src/core/trust/projectTrust';
import { harness } from '../../../support/engineHarness';
import { firstUserTexts, hookWorld } from './hookFixture';

// An agent file's own hooks (Kiro's agentSpawn and stop) run as that
// agent's start and stop hooks: what agentSpawn prints joins its context;
// a project's file runs them only in a trusted folder.

function kiroAgent(out: string, source: 'project' | 'user') {
  const text = JSON.stringify({
    name: 'kiro-worker',
    description: 'Works.',
    prompt: 'You work.',
    hooks: { agentSpawn: [{ command: 'echo "Branch: main"' }], stop: [{ command: `touch '${path.join(out, 'stopped')}'` }] },
  });
  const parsed = parseAgentText(text, { filePath: `/somewhere/.kiro/agents/kiro-worker.json`, source, family: '.kiro' });
  assert.ok(parsed.definition, JSON.stringify(parsed.warnings));
  return parsed.definition;
}

test("Kiro's agentSpawn hook adds what it prints to the agent's context; its stop hook runs when the agent ends", async () => {
  const w = await hookWorld();
  try {
    const h = await harness({ agents: [kiroAgent(w.out, 'user')], script: () => ({ text: 'done' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
    try {
      const result = await h.engine.run({ agent: 'kiro-worker', prompt: 'go', cwd: w.project });
      assert.equal(result.status, 'completed', result.error ?? '');
      assert.deepEqual(firstUserTexts(h.server.requests[0]!.messages), ['Branch: main', 'go']);
      assert.ok(existsSync(path.join(w.out, 'stopped')), 'the stop hook ran');
    } finally {
      await h.close();
    }
  } finally {
    await w.close();
  }
});

test("a project's agent file runs its hooks only in a trusted folder, and the log says why they did not run", async () => {
  const w = await hookWorld({ trust: trustWhen(() => false) });
  try {
    const h = await harness({ agents: [kiroAgent(w.out, 'project')], script: () => ({ text: 'done' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
    try {
      await h.engine.run({ agent: 'kiro-worker', prompt: 'go', cwd: w.project });
      assert.deepEqual(firstUserTexts(h.server.requests[0]!.messages), ['go']);
      assert.equal(existsSync(path.join(w.out, 'stopped')), false);
      assert.match(w.logs.map((l) => l.message).join('\n'), /The hooks of agent file \/somewhere\/\.kiro\/agents\/kiro-worker\.json do not run: its project folder is not trusted\./);
    } finally {
      await h.close();
    }
  } finally {
    await w.close();
  }
});
