import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import type { RunEventOf } from '../../../../src/protocol/runEvents';

test('a parent spawns a child that greps and reads a real file; the parent answers with what the child found', async (t) => {
  const h = await harness({
    agents: [
      agent('lead', { tools: ['Task', 'Read'] }),
      agent('finder', { tools: ['Read', 'Grep', 'Glob'], model: 'haiku', spawns: [] }),
    ],
    script: (req) => {
      if (isAgent(req.system, 'finder')) {
        if (req.turn === 0) return { toolUses: [{ name: 'Grep', input: { pattern: 'SECRET_VALUE' } }] };
        if (req.turn === 1) {
          const hit = [...req.toolResults.values()][0]!.content;
          return { toolUses: [{ name: 'Read', input: { file_path: hit.split(':')[0] } }] };
        }
        const file = [...req.toolResults.values()][0]!.content;
        return { text: `Found it: ${file.trim()}` };
      }
      if (req.turn === 0) {
        return { text: 'Delegating.', toolUses: [{ name: 'Task', input: { subagent_type: 'finder', description: 'find the secret', prompt: 'Find where SECRET_VALUE is defined and report its value.' } }] };
      }
      const result = JSON.parse([...req.toolResults.values()][0]!.content) as { output: string };
      return { text: `The finder reports: ${result.output}` };
    },
  });
  t.after(() => h.close());
  await mkdir(path.join(h.dir, 'src'));
  await writeFile(path.join(h.dir, 'src/config.ts'), 'export const SECRET_VALUE = 42;\n');
  await writeFile(path.join(h.dir, 'README.md'), 'nothing here\n');

  const result = await h.engine.run({ agent: 'lead', prompt: 'What is the secret value?', cwd: h.dir });

  assert.equal(result.status, 'completed', result.error ?? '');
  assert.match(result.output ?? '', /The finder reports: Found it: export const SECRET_VALUE = 42;/);

  const childRequests = h.server.requests.filter((r) => isAgent(r.system, 'finder'));
  assert.equal(childRequests.length, 3);
  for (const req of childRequests) {
    assert.deepEqual(req.toolNames, ['Read', 'Glob', 'Grep'], 'the child sees only its allowed tools');
    assert.ok(!isAgent(req.system, 'lead'), 'the child has its own system prompt');
    assert.equal(req.model, 'claude-haiku-5-5', 'the child runs on its own model');
  }
  const parentRequests = h.server.requests.filter((r) => isAgent(r.system, 'lead'));
  assert.deepEqual(parentRequests[0]!.toolNames, ['Task', 'TaskOutput', 'TaskStop', 'SendMessage', 'Read']);
  assert.equal(parentRequests[0]!.model, 'claude-sonnet-5-5');

  const started = h.events.filter((e): e is RunEventOf<'agent_started'> => e.type === 'agent_started');
  assert.equal(started.length, 2);
  const [root, child] = started;
  assert.equal(root!.parentId, null);
  assert.equal(root!.depth, 0);
  assert.equal(child!.parentId, root!.agentId);
  assert.equal(child!.depth, 1);
  assert.equal(child!.agentName, 'finder');
  assert.equal(child!.runId, root!.agentId, 'the whole tree shares the root id as run id');
  const childTools = h.events.filter((e) => e.type === 'tool_finished' && e.agentId === child!.agentId);
  assert.deepEqual(childTools.map((e) => [e.type === 'tool_finished' && e.name, e.type === 'tool_finished' && e.ok]), [['Grep', true], ['Read', true]]);
  const spawnRow = h.events.find((e) => e.type === 'tool_started' && e.agentId === root!.agentId);
  assert.equal(spawnRow?.type === 'tool_started' && spawnRow.inputSummary, 'finder: find the secret');
  assert.equal(child!.parentToolUseId, spawnRow?.type === 'tool_started' ? spawnRow.toolUseId : undefined);
  const finished = h.events.filter((e) => e.type === 'agent_finished');
  assert.deepEqual(finished.map((e) => e.agentId), [child!.agentId, root!.agentId], 'the child finishes before its parent');
});

test('disable-model-invocation: no agent may start it (and the spawn tool does not offer it); initialPrompt leads a root run only', async (t) => {
  const seen: Record<string, { firstUser?: string; taskTool?: string }> = {};
  const h = await harness({
    agents: [
      agent('lead', { tools: ['Task'], initialPrompt: 'Start by stating the goal.' }),
      agent('manual-only', { modelInvocable: false }),
      agent('helper', { initialPrompt: 'Only for a root run.' }),
    ],
    script: (req) => {
      const who = isAgent(req.system, 'lead') ? 'lead' : isAgent(req.system, 'helper') ? 'helper' : 'other';
      if (req.turn === 0) seen[who] = { firstUser: req.lastUserText, taskTool: String(req.tools.find((x) => x.name === 'Task')?.description ?? '') };
      if (who !== 'lead') return { text: `${who} done` };
      if (req.turn === 0) {
        return {
          toolUses: [
            { name: 'Task', input: { subagent_type: 'manual-only', description: 'try', prompt: 'do it' } },
            { name: 'Task', input: { subagent_type: 'helper', description: 'help', prompt: 'help out' } },
          ],
        };
      }
      return { text: [...req.toolResults.values()].map((r) => r.content).join('\n') };
    },
  });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'lead', prompt: 'the task', cwd: h.dir });
  assert.equal(result.status, 'completed', result.error ?? '');
  assert.match(result.output ?? '', /Agent "manual-only" can only be started by the user/);
  assert.match(result.output ?? '', /helper done/);
  assert.doesNotMatch(seen.lead!.taskTool!, /- manual-only:/, 'the spawn tool does not list it');
  assert.match(seen.lead!.taskTool!, /- helper:/);
  assert.equal(seen.lead!.firstUser, 'Start by stating the goal.\n\nthe task');
  assert.equal(seen.helper!.firstUser, 'help out', 'a spawned agent gets its task as it was given');
  // A person may still start it.
  assert.equal((await h.engine.run({ agent: 'manual-only', prompt: 'go', cwd: h.dir })).status, 'completed');
});

test("an agent's colour rides on its agent_started event, read from its definition; an unknown name is left out", async (t) => {
  const h = await harness({
    agents: [agent('lead', { tools: ['Task'], color: 'Purple' }), agent('odd', { tools: [], spawns: [], color: 'ultraviolet' })],
    script: (req) => {
      if (isAgent(req.system, 'odd')) return { text: 'done' };
      if (req.turn === 0) return { toolUses: [{ name: 'Task', input: { subagent_type: 'odd', description: 'something', prompt: 'do it' } }] };
      return { text: 'all done' };
    },
  });
  t.after(() => h.close());
  const result = await h.engine.run({ agent: 'lead', prompt: 'go', cwd: h.dir });
  assert.equal(result.status, 'completed', result.error ?? '');
  const starts = h.events.filter((e): e is RunEventOf<'agent_started'> => e.type === 'agent_started');
  assert.deepEqual(
    starts.map((e) => [e.agentName, e.color]),
    [
      ['lead', 'purple'],
      ['odd', null],
    ],
  );
});
