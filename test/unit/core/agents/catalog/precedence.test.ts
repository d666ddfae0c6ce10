import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFINITION_DEFAULTS, type AgentDefinition } from '../../../../../src/core/agents/definition';
import { UnknownAgentError, findAgent, getAgent } from '../../../../../src/core/agents/catalog/lookup';
import { applyPrecedence, type FileOutcome } from '../../../../../src/core/agents/catalog/precedence';

function outcome(name: string, filePath: string, source: AgentDefinition['source'] = 'project'): FileOutcome {
  const definition: AgentDefinition = { ...DEFINITION_DEFAULTS, name, description: 'd', source, family: source === 'project' || source === 'user' ? '.claude' : null, filePath };
  return { filePath, relPath: filePath, definition, warnings: [] };
}

test('first wins by exact name; later ones are recorded as shadowed', () => {
  const result = applyPrecedence([
    [outcome('a', '/p/a.md'), outcome('Task', '/p/Task.md')],
    [outcome('a', '/u/a.md', 'user'), outcome('task', '/u/task.md', 'user')],
    [outcome('a', '/b/a.md', 'bundled')],
  ]);
  assert.deepEqual(result.agents.map((a) => a.filePath), ['/p/a.md', '/p/Task.md', '/u/task.md']);
  assert.deepEqual(
    result.shadowed.map((s) => [s.definition.filePath, s.shadowedBy.filePath, s.shadowedBy.source]),
    [['/u/a.md', '/p/a.md', 'project'], ['/b/a.md', '/p/a.md', 'project']],
  );
});

test('warnings of skipped files are kept, after the extra warnings, in order', () => {
  const skipped: FileOutcome = { filePath: '/p/bad.md', relPath: 'bad.md', definition: null, warnings: [{ filePath: '/p/bad.md', message: 'x' }] };
  const result = applyPrecedence([[skipped, outcome('a', '/p/a.md')]], [{ filePath: '/reg.json', message: 'r' }]);
  assert.deepEqual(result.warnings.map((w) => w.message), ['r', 'x']);
  assert.equal(result.agents.length, 1);
});

test('lookup is exact; an unknown name lists what is available', () => {
  const agents = applyPrecedence([[outcome('b', '/b.md'), outcome('a', '/a.md'), outcome('c', '/c.md')]]).agents;
  assert.equal(findAgent(agents, 'a')?.filePath, '/a.md');
  assert.equal(findAgent(agents, 'A'), undefined);
  assert.throws(() => getAgent(agents, 'x'), (error: unknown) => {
    assert.ok(error instanceof UnknownAgentError);
    assert.equal(error.message, 'Unknown agent "x". Available: b, a, c');
    return true;
  });
  assert.throws(() => getAgent([], 'x'), { message: 'Unknown agent "x". Available: (none)' });
});
