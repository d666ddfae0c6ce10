import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileMatcher, parseHookSettings, selectHooks } from '../../../../src/core/hooks/hookSettings';

const settingsText = (hooks: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ hooks, ...extra });
const commands = (hooks: Array<{ command: string }>) => hooks.map((h) => h.command);

test('a Claude Code settings file yields its SubagentStart/SubagentStop groups and ignores other events', () => {
  const parsed = parseHookSettings(
    settingsText({
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo pre' }] }],
      SubagentStart: [{ matcher: 'reviewer', hooks: [{ type: 'command', command: 'echo start', timeout: 5 }] }],
      SubagentStop: [{ hooks: [{ type: 'command', command: 'echo stop' }, { type: 'command', command: 'echo stop2' }] }],
    }),
    '/u/.claude/settings.json',
  );
  assert.deepEqual(parsed.problems, []);
  assert.equal(parsed.events.SubagentStart.length, 1);
  assert.deepEqual(parsed.events.SubagentStart[0]!.hooks, [{ command: 'echo start', timeoutSec: 5, source: '/u/.claude/settings.json' }]);
  assert.deepEqual(commands(parsed.events.SubagentStop[0]!.hooks), ['echo stop', 'echo stop2']);
  assert.equal(parsed.events.SubagentStop[0]!.hooks[0]!.timeoutSec, null, 'no timeout: the runner default');
});

test('matchers: empty, missing and "*" match every agent; others are unanchored regexes on the agent name', () => {
  for (const matcher of [undefined, '', '*']) {
    const m = compileMatcher(matcher);
    assert.equal(m.error, undefined);
    assert.ok(m.matches('anything'), `matcher ${String(matcher)}`);
  }
  const review = compileMatcher('review');
  assert.ok(review.matches('code-reviewer'), 'not anchored, like Claude Code');
  assert.ok(!review.matches('planner'));
  const alternatives = compileMatcher('^(planner|tester)$');
  assert.deepEqual(['planner', 'tester', 'planner2', 'Planner'].map(alternatives.matches), [true, true, false, false]);
});

test('an invalid matcher regex is a problem naming the file and matches no agent; its siblings still work', () => {
  const parsed = parseHookSettings(
    settingsText({
      SubagentStart: [
        { matcher: '([unclosed', hooks: [{ type: 'command', command: 'echo bad' }] },
        { matcher: '*', hooks: [{ type: 'command', command: 'echo good' }] },
      ],
    }),
    '/p/.claude/settings.json',
  );
  assert.equal(parsed.problems.length, 1);
  assert.match(parsed.problems[0]!, /^\/p\/\.claude\/settings\.json: hooks\.SubagentStart\[0\]: invalid matcher "\(\[unclosed" \(.+\); this group matches no agent\.$/);
  assert.deepEqual(commands(selectHooks([parsed], 'SubagentStart', 'x')), ['echo good']);
});

test('malformed JSON: one problem naming the file, no hooks from it', () => {
  const parsed = parseHookSettings('{ "hooks": { "SubagentStart": [ ', '/p/.claude/settings.local.json');
  assert.equal(parsed.problems.length, 1);
  assert.match(parsed.problems[0]!, /^\/p\/\.claude\/settings\.local\.json is not valid JSON \(.+\); none of its hooks will run until it is fixed\.$/);
  assert.deepEqual(parsed.events, { SubagentStart: [], SubagentStop: [], TeammateIdle: [], TaskCreated: [], TaskCompleted: [] });
  assert.equal(parseHookSettings('[1, 2]', 'f').problems.length, 1, 'a top-level array is not settings');
  assert.deepEqual(parseHookSettings('{"model": "opus"}', 'f').problems, [], 'a settings file without hooks is fine');
});

test('broken parts are dropped one by one, each with a clear problem', () => {
  const parsed = parseHookSettings(
    settingsText({
      SubagentStart: { not: 'an array' },
      SubagentStop: [
        'not a group',
        { matcher: 7, hooks: [{ type: 'command', command: 'echo m' }] },
        { hooks: 'nope' },
        {
          hooks: [
            { type: 'prompt', prompt: 'judge it' },
            { type: 'weird' },
            { type: 'command', command: '   ' },
            { type: 'command', command: 'echo t', timeout: -1 },
            { type: 'command', command: 'echo ok' },
          ],
        },
      ],
    }),
    'F',
  );
  assert.deepEqual(parsed.problems, [
    'F: "hooks.SubagentStart" must be an array of matcher groups; ignored.',
    'F: hooks.SubagentStop[0] must be an object with "matcher" and "hooks"; ignored.',
    'F: hooks.SubagentStop[1]: "matcher" must be a string; this group is ignored.',
    'F: hooks.SubagentStop[2]: "hooks" must be an array; this group is ignored.',
    'F: hooks.SubagentStop[3].hooks[0]: hooks of type "prompt" are not supported here, only "command"; skipped.',
    'F: hooks.SubagentStop[3].hooks[1]: "type" must be "command"; skipped.',
    'F: hooks.SubagentStop[3].hooks[2]: "command" must be a non-empty string; skipped.',
    'F: hooks.SubagentStop[3].hooks[3]: "timeout" must be a positive number of seconds; using the default.',
  ]);
  assert.deepEqual(
    selectHooks([parsed], 'SubagentStop', 'a').map((h) => [h.command, h.timeoutSec]),
    [
      ['echo t', null],
      ['echo ok', null],
    ],
  );
});

test('merge: user, project and local groups that match all apply, in that order; identical commands run once', () => {
  const user = parseHookSettings(settingsText({ SubagentStop: [{ hooks: [{ type: 'command', command: 'user-hook' }, { type: 'command', command: 'shared' }] }] }), 'U');
  const project = parseHookSettings(
    settingsText({
      SubagentStop: [
        { matcher: 'tester', hooks: [{ type: 'command', command: 'project-tester' }] },
        { matcher: 'reviewer', hooks: [{ type: 'command', command: 'project-reviewer' }, { type: 'command', command: 'shared' }] },
      ],
    }),
    'P',
  );
  const local = parseHookSettings(settingsText({ SubagentStop: [{ matcher: '*', hooks: [{ type: 'command', command: 'local-hook' }] }] }), 'L');
  const forReviewer = selectHooks([user, project, local], 'SubagentStop', 'reviewer');
  assert.deepEqual(commands(forReviewer), ['user-hook', 'shared', 'project-reviewer', 'local-hook']);
  assert.equal(forReviewer[1]!.source, 'U', 'the first occurrence wins');
  assert.deepEqual(commands(selectHooks([user, project, local], 'SubagentStop', 'tester')), ['user-hook', 'shared', 'project-tester', 'local-hook']);
  assert.deepEqual(selectHooks([user, project, local], 'SubagentStart', 'tester'), []);
});

test('"disableAllHooks": true in any file turns every hook off, as in Claude Code', () => {
  const user = parseHookSettings(settingsText({ SubagentStart: [{ hooks: [{ type: 'command', command: 'x' }] }] }), 'U');
  const local = parseHookSettings(JSON.stringify({ disableAllHooks: true }), 'L');
  assert.deepEqual(selectHooks([user, local], 'SubagentStart', 'a'), []);
});
