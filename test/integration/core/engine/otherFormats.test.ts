import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { AgentCatalog } from '../../../../src/core/agents/catalog/catalog';
import { trustWhen } from '../../../../src/core/trust/projectTrust';
import { harness } from '../../../support/engineHarness';
import type { ScriptedRequest } from '../../../support/scriptedServer';
import { writeFile } from '../agents/helpers';
import { makeSandbox } from '../isolation/helpers';

// What files of the formats read by readers of their own say, as the
// Messages API receives it: a Kiro agent's prompt file, a Roo Code mode's
// rules, opencode's primary agents kept from the spawn tool.

async function project(t: TestContext, files: Record<string, string>) {
  const sb = makeSandbox();
  t.after(() => sb.cleanup());
  for (const [relPath, text] of Object.entries(files)) writeFile(path.join(sb.repo, relPath), text);
  const catalog = await AgentCatalog.create({ cwd: sb.repo, home: path.join(sb.root, 'home'), pluginDirs: [], loadClaudePlugins: false, bundledDir: path.join(sb.root, 'none') });
  t.after(() => catalog.dispose());
  return { sb, catalog };
}

const requestFor = (requests: ScriptedRequest[], marker: string) => {
  const found = requests.find((r) => r.system.includes(marker));
  assert.ok(found, `no request with ${marker}: ${requests.map((r) => r.system.slice(0, 60)).join(' | ')}`);
  return found;
};

test("a Kiro agent's file:// prompt and a Roo Code mode's rules are read into the system prompt when the agent starts", async (t) => {
  const { sb, catalog } = await project(t, {
    '.kiro/agents/aws.json': JSON.stringify({ name: 'aws', description: 'AWS.', prompt: 'file://./aws-prompt.md', tools: ['read'] }),
    '.kiro/agents/aws-prompt.md': 'You know AWS. [agent:aws]\n',
    '.roomodes': 'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: You write docs. [agent:docs]\n    groups: [read]\n',
    '.roo/rules-docs/style.md': 'Use British spelling.\n',
  });
  const h = await harness({ agents: [], script: () => ({ text: 'ok' }), engine: { catalog, trust: trustWhen(() => true) } });
  t.after(() => h.close());
  await h.engine.run({ agent: 'aws', prompt: 'go', cwd: sb.repo });
  await h.engine.run({ agent: 'docs', prompt: 'go', cwd: sb.repo });
  assert.match(requestFor(h.server.requests, '[agent:aws]').system, /^You know AWS\. \[agent:aws\]\n\n<environment>/);
  assert.match(requestFor(h.server.requests, '[agent:docs]').system, /You write docs\. \[agent:docs\]\n\n====\n\nUSER'S CUSTOM INSTRUCTIONS[\s\S]*Rules:\n\n# Rules from .*rules-docs\/style\.md:\nUse British spelling\./);
});

test("opencode's primary agents are left out of the spawn tool's list, and a spawn of one is refused", async (t) => {
  const { sb, catalog } = await project(t, {
    '.opencode/agents/lead.md': '---\ndescription: Leads. [agent:lead]\nmode: all\n---\nYou lead. [agent:lead]\n',
    '.opencode/agents/helper.md': '---\ndescription: Helps with chores.\nmode: subagent\n---\nYou help. [agent:helper]\n',
    '.opencode/agents/build.md': '---\ndescription: The main build agent.\nmode: primary\n---\nYou build. [agent:build]\n',
  });
  const h = await harness({
    agents: [],
    engine: { catalog },
    script: (req) => (req.system.includes('[agent:lead]') && req.turn === 0 ? { toolUses: [{ name: 'Task', input: { description: 'b', prompt: 'go', subagent_type: 'build' } }] } : { text: 'ok' }),
  });
  t.after(() => h.close());
  await h.engine.run({ agent: 'lead', prompt: 'go', cwd: sb.repo });
  const lead = requestFor(h.server.requests, '[agent:lead]');
  const task = lead.tools.find((tool) => tool.name === 'Task');
  assert.ok(task);
  assert.match(String(task.description), /- helper: Helps with chores\./);
  assert.doesNotMatch(String(task.description), /- build:/);
  const second = h.server.requests.filter((r) => r.system.includes('[agent:lead]'))[1]!;
  assert.match([...second.toolResults.values()][0]!.content, /can only be started by the user/);
});
