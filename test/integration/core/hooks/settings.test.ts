import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CommandHooks } from '../../../../src/core/hooks/commandHooks';
import { TRUST_NOTHING, TrustedFolders, trustWhen } from '../../../../src/core/trust/projectTrust';
import { agent, isAgent } from '../../../support/agents';
import { harness } from '../../../support/engineHarness';
import { makeSandbox } from '../isolation/helpers';
import { firstUserTexts, group, hookWorld, predateNow } from './hookFixture';

const context = (text: string) => `printf '%s' '${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SubagentStart', additionalContext: text } })}'`;

test('project hooks are ignored while the workspace is untrusted; user hooks still run', async () => {
  let trusted = false;
  const w = await hookWorld({ trust: trustWhen(() => trusted) });
  await w.userSettings({ SubagentStart: [group([context('from user')])] });
  await w.projectSettings({ SubagentStart: [group([context('from project'), `touch '${w.out}/project-hook-ran'`])] });
  await w.projectSettings({ SubagentStart: [group([context('from local')])] }, 'settings.local.json');
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'done' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
  try {
    assert.equal((await h.engine.run({ agent: 'worker', prompt: 'go', cwd: w.project })).status, 'completed');
    assert.deepEqual(firstUserTexts(h.server.requests[0]!.messages), ['from user', 'go']);
    await assert.rejects(w.read('project-hook-ran'), { code: 'ENOENT' }, 'no project command ran');

    trusted = true; // Trust granted mid-session: the next agent gets the project's hooks.
    assert.equal((await h.engine.run({ agent: 'worker', prompt: 'go', cwd: w.project })).status, 'completed');
    assert.deepEqual(firstUserTexts(h.server.requests[1]!.messages), ['from user\n\nfrom project\n\nfrom local', 'go']);
  } finally {
    await h.close();
    await w.close();
  }
});

test('with no project trust (the engine\'s default) project settings are never read', async () => {
  const w = await hookWorld({ trust: TRUST_NOTHING });
  await w.projectSettings({ SubagentStart: [group([context('from project')])] });
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'done' }), engine: { hooks: w.hooks, log: w.log } });
  try {
    assert.equal((await h.engine.run({ agent: 'worker', prompt: 'go', cwd: w.project })).status, 'completed');
    assert.deepEqual(firstUserTexts(h.server.requests[0]!.messages), ['go']);
    assert.deepEqual(w.logs, [{ level: 'info', message: `The project hooks of ${w.project} do not run: the folder is not trusted.` }], 'nothing ran; the log says why');
  } finally {
    await h.close();
    await w.close();
  }
});

test('matchers select hooks by agent name, for root and nested agents alike', async () => {
  const w = await hookWorld();
  await w.userSettings({
    SubagentStart: [
      group([context('for the reviewer only')], '^reviewer$'),
      group([context('for anything with "view" in its name')], 'view'),
      group([context('for everyone')], '*'),
      group([context('never: bad regex')], '(unclosed'),
    ],
  });
  const h = await harness({
    agents: [agent('parent'), agent('reviewer'), agent('previewer')],
    script: (req) => {
      if (isAgent(req.system, 'parent') && req.turn === 0) {
        return { toolUses: ['reviewer', 'previewer'].map((name) => ({ name: 'Task', input: { subagent_type: name, description: `run ${name}`, prompt: `task for ${name}` } })) };
      }
      return { text: 'done' };
    },
    engine: { trust: w.trust, hooks: w.hooks, log: w.log },
  });
  try {
    assert.equal((await h.engine.run({ agent: 'parent', prompt: 'go', cwd: w.project })).status, 'completed');
    const firstRequest = (name: string) => h.server.requests.find((r) => isAgent(r.system, name) && r.turn === 0)!;
    assert.deepEqual(firstUserTexts(firstRequest('parent').messages), ['for everyone', 'go']);
    assert.deepEqual(firstUserTexts(firstRequest('reviewer').messages), ['for the reviewer only\n\nfor anything with "view" in its name\n\nfor everyone', 'task for reviewer']);
    assert.deepEqual(firstUserTexts(firstRequest('previewer').messages), ['for anything with "view" in its name\n\nfor everyone', 'task for previewer']);
    const warnings = w.warnings();
    assert.equal(warnings.length, 1, `the bad matcher is reported once, not per agent: ${warnings.join('\n')}`);
    assert.match(warnings[0]!, /settings\.json: hooks\.SubagentStart\[3\]: invalid matcher "\(unclosed"/);
  } finally {
    await h.close();
    await w.close();
  }
});

test('a settings edit is picked up by the next agent; a broken edit warns once and runs no hooks from that file', async () => {
  const w = await hookWorld();
  const file = await w.projectSettings({ SubagentStart: [group([context('version 1')])] });
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'done' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
  const runAndGetContext = async () => {
    const before = h.server.requests.length;
    assert.equal((await h.engine.run({ agent: 'worker', prompt: 'go', cwd: w.project })).status, 'completed');
    return firstUserTexts(h.server.requests[before]!.messages).slice(0, -1);
  };
  try {
    assert.deepEqual(await runAndGetContext(), ['version 1']);
    await w.projectSettings({ SubagentStart: [group([context('version 2, edited')])] });
    assert.deepEqual(await runAndGetContext(), ['version 2, edited']);

    await writeFile(file, '{ "hooks": { "SubagentStart": [ ');
    assert.deepEqual(await runAndGetContext(), []);
    assert.deepEqual(await runAndGetContext(), []);
    assert.equal(w.warnings().length, 1, w.warnings().join('\n'));
    assert.match(w.warnings()[0]!, /settings\.json is not valid JSON .*none of its hooks will run until it is fixed\./);

    await w.projectSettings({ SubagentStart: [group([context('version 3, fixed')])] });
    assert.deepEqual(await runAndGetContext(), ['version 3, fixed']);
  } finally {
    await h.close();
    await w.close();
  }
});

test('hooks.enabled off: no hook runs and no settings file is read', async () => {
  let enabled = false;
  const w = await hookWorld({ enabled: () => enabled });
  await w.userSettings({ SubagentStart: [group([context('hooked')])], SubagentStop: [group([`echo 'again' >&2; exit 2`])] });
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'done' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
  try {
    const result = await h.engine.run({ agent: 'worker', prompt: 'go', cwd: w.project });
    assert.equal(result.status, 'completed');
    assert.equal(h.server.requests.length, 1);
    assert.deepEqual(firstUserTexts(h.server.requests[0]!.messages), ['go']);
    assert.deepEqual(w.logs, []);

    enabled = true;
    const hooked = await h.engine.run({ agent: 'worker', prompt: 'go', cwd: w.project });
    assert.equal(hooked.status, 'completed');
    assert.deepEqual(firstUserTexts(h.server.requests[1]!.messages), ['hooked', 'go'], 'the setting is read at every event');
    assert.equal(h.server.requests.length, 5, 'the stop hook keeps sending it back: 1 + 3 rounds (the engine bounds it)');
  } finally {
    await h.close();
    await w.close();
  }
});

test("an isolated agent runs the project's committed hooks without asking, though its worktree's files are new", async (t) => {
  const sb = makeSandbox({ 'README.md': '# demo\n', '.claude/settings.json': JSON.stringify({ hooks: { SubagentStart: [group([context('from the project')])] } }) });
  t.after(() => sb.cleanup());
  await predateNow([path.join(sb.repo, '.claude', 'settings.json')]);
  const logs: string[] = [];
  const hooks = new CommandHooks({ home: `${sb.root}/home`, enabled: () => true, log: (level, message) => logs.push(`${level}: ${message}`) });
  // Default mode and nobody to ask: a hook that needed approval would not run.
  const h = await harness({ agents: [agent('worker')], script: () => ({ text: 'done' }), settings: { permissionMode: 'default' }, engine: { hooks, worktrees: sb.manager(), trust: new TrustedFolders([sb.repo]) } });
  t.after(() => h.close());
  for (let i = 0; i < 2; i++) {
    const result = await h.engine.run({ agent: 'worker', prompt: 'go', cwd: sb.repo, isolation: 'worktree' });
    assert.equal(result.status, 'completed', result.error ?? '');
    assert.deepEqual(firstUserTexts(h.server.requests[i]!.messages), ['from the project', 'go']);
  }
  assert.deepEqual(logs.filter((l) => l.startsWith('warn')), []);
});

test('a matcher that backtracks for ever on an agent name is stopped at its deadline: its hooks do not run, the engine goes on', async () => {
  const w = await hookWorld();
  const name = `${'a'.repeat(40)}-x`;
  await w.userSettings({ SubagentStart: [group([context('catastrophic')], '^(a+)+$'), group([context('ordinary')], 'a-x$')] });
  const h = await harness({ agents: [agent(name)], script: () => ({ text: 'done' }), engine: { trust: w.trust, hooks: w.hooks, log: w.log } });
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 50);
  try {
    assert.equal((await h.engine.run({ agent: name, prompt: 'go', cwd: w.project })).status, 'completed');
    assert.deepEqual(firstUserTexts(h.server.requests[0]!.messages), ['ordinary', 'go']);
    assert.ok(ticks >= 10, `the main thread kept running (${ticks} ticks)`);
    assert.match(w.warnings().join('\n'), /The hook matcher "\^\(a\+\)\+\$" could not be checked against agent "a+-x": the pattern "\^\(a\+\)\+\$" took more than 1000 ms and was stopped/);
  } finally {
    clearInterval(ticker);
    await h.close();
    await w.close();
  }
});
