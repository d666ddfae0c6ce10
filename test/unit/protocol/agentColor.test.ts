import assert from 'node:assert/strict';
import { test } from 'node:test';
import { colors, renderTree, styleFor } from '../../../src/cli/render/tree';
import type { AgentCatalog } from '../../../src/core/agents/catalog/catalog';
import { RunStore } from '../../../src/core/runs/runStore';
import { AGENT_COLORS, AGENT_COLOR_THEME, agentColor, themeColorCss } from '../../../src/protocol/agentColor';
import { runEventSchema, type RunEvent } from '../../../src/protocol/runEvents';
import { runSnapshotSchema } from '../../../src/protocol/runSnapshot';
import { agentHeadSchema } from '../../../src/protocol/webview';
import { agentView, folderAgents } from '../../../src/surfaces/views/viewModel';
import { agent } from '../../support/agents';
import { EventScript } from '../../support/runEvents';

// An agent's `color` travels as one name through the event, the
// snapshot and the view protocol; each surface maps it to its medium.

test('a definition colour is one of the eight Claude Code names, whatever its case; anything else is no accent', () => {
  assert.deepEqual(AGENT_COLORS.map((c) => agentColor(c)), [...AGENT_COLORS]);
  assert.equal(agentColor(' Purple '), 'purple');
  assert.equal(agentColor('CYAN'), 'cyan');
  for (const unknown of ['magenta', '#ff0000', '', 'red; background: url(x)', null, undefined, 3]) assert.equal(agentColor(unknown), null, String(unknown));
});

test('every accent maps to a theme colour a webview has as a CSS variable', () => {
  for (const color of AGENT_COLORS) {
    assert.match(AGENT_COLOR_THEME[color], /^(charts|terminal)\.[a-zA-Z]+$/);
    assert.match(themeColorCss(color), /^var\(--vscode-(charts|terminal)-[a-zA-Z]+\)$/);
  }
  assert.equal(themeColorCss('red'), 'var(--vscode-charts-red)');
  assert.equal(themeColorCss('cyan'), 'var(--vscode-terminal-ansiCyan)');
});

function started(color: unknown): Record<string, unknown> {
  const event = new EventScript().started('a', 'painter') as Record<string, unknown>;
  return color === undefined ? event : { ...event, color };
}

test('the boundaries accept a known colour, read an unknown one as none, and take events and history files without one', () => {
  assert.equal((runEventSchema.parse(started('green')) as { color?: unknown }).color, 'green');
  assert.equal((runEventSchema.parse(started('chartreuse')) as { color?: unknown }).color, null, 'a newer colour name does not invalidate the event');
  assert.equal((runEventSchema.parse(started(undefined)) as { color?: unknown }).color, undefined);

  const store = new RunStore({ coalesceMs: 0 });
  store.apply(runEventSchema.parse(started('orange')) as RunEvent);
  const run = store.get('run1')!;
  assert.equal(runSnapshotSchema.parse(run).agents.a!.color, 'orange', 'a history file keeps the colour');
  const saved = JSON.parse(JSON.stringify(run)) as { agents: Record<string, Record<string, unknown>> };
  saved.agents.a!.color = 'chartreuse';
  assert.equal(runSnapshotSchema.parse(saved).agents.a!.color, null);
  delete saved.agents.a!.color;
  assert.equal(runSnapshotSchema.parse(saved).agents.a!.color, undefined, 'a run saved before colours still loads');
});

test('the Runs view and the Agents view get the colour from the snapshot and the catalog', () => {
  const store = new RunStore({ coalesceMs: 0 });
  store.apply(runEventSchema.parse(started('pink')) as RunEvent);
  const view = agentView(store.agent('a')!, undefined);
  assert.equal(view.color, 'pink');
  assert.equal(agentHeadSchema.parse(view).color, 'pink', 'the host → webview message carries it');
  store.apply(runEventSchema.parse({ ...started(undefined), agentId: 'b', runId: 'run2' }) as RunEvent);
  assert.equal(agentView(store.agent('b')!, undefined).color, null);

  const catalog = { agents: [agent('blue-one', { color: 'Blue' }), agent('odd', { color: 'ultraviolet' }), agent('plain')], shadowed: [], warnings: [] };
  const agents = folderAgents({ key: 'k', name: 'app', folder: '/app', catalog: catalog as unknown as AgentCatalog, disabled: [] }).agents;
  assert.deepEqual(
    agents.map((a) => [a.name, a.color]),
    [
      ['blue-one', 'blue'],
      ['odd', null],
      ['plain', null],
    ],
  );
});

test('the CLI tree colours an agent name in its accent on a colour terminal, and prints plain text otherwise', () => {
  const store = new RunStore({ coalesceMs: 0 });
  const script = new EventScript();
  store.apply({ ...script.started('a', 'painter'), color: 'purple' } as RunEvent);
  store.apply({ ...script.started('b', 'helper', { parentId: 'a', depth: 1 }), color: 'orange' } as RunEvent);
  store.apply({ ...script.started('c', 'plain', { parentId: 'a', depth: 1 }) } as RunEvent);
  const run = store.get('run1')!;
  const coloured = renderTree(run, { now: script.ts, style: colors }).join('\n');
  assert.ok(coloured.includes('\x1b[1m\x1b[35mpainter\x1b[39m\x1b[22m'), 'purple is ANSI magenta, inside the bold');
  assert.ok(coloured.includes('\x1b[38;5;208mhelper\x1b[39m'), 'orange from the 256-colour palette');
  assert.ok(coloured.includes('\x1b[1mplain\x1b[22m'), 'an agent without a colour stays bold only');

  const plainText = renderTree(run, { now: script.ts, style: styleFor({ isTTY: true }, { NO_COLOR: '1' }) }).join('\n');
  assert.doesNotMatch(plainText, /\x1b/, 'NO_COLOR: no escape codes at all');
  assert.match(plainText, /painter/);
  assert.equal(styleFor({ isTTY: false }, {}), styleFor({ isTTY: true }, { TERM: 'dumb' }), 'not a TTY: the plain style');
  assert.doesNotMatch(renderTree(run, { now: script.ts, style: styleFor({ isTTY: false }, {}) }).join('\n'), /\x1b/);
});
