import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTeamFile } from '../../../../../src/core/agents/teams/teamFile';

const FILE = '/p/.subagents/teams/review.md';

test('a team file: name, description, lead, members with their own settings, isolation, tasks; the body is the brief', () => {
  const { team, problems } = parseTeamFile(
    [
      '---',
      'description: Reviews a change from three sides.',
      'lead: reviewer',
      'isolation: none',
      'members:',
      '  - name: sec',
      '    agent: security-auditor',
      '    model: opus',
      '    prompt: Look for injection first.',
      '  - name: perf',
      '    agent: explore',
      '    isolation: worktree',
      'tasks:',
      '  - Read the diff',
      '  - subject: Write the report',
      '    description: One page.',
      '    blockedBy: [1]',
      '---',
      'Split the review between the members.',
      '',
    ].join('\n'),
    FILE,
    'project',
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(team, {
    name: 'review',
    description: 'Reviews a change from three sides.',
    lead: 'reviewer',
    members: [
      { name: 'sec', agent: 'security-auditor', model: 'opus', prompt: 'Look for injection first.' },
      { name: 'perf', agent: 'explore', isolation: 'worktree' },
    ],
    isolation: 'none',
    tasks: [{ subject: 'Read the diff' }, { subject: 'Write the report', description: 'One page.', blockedBy: [1] }],
    body: 'Split the review between the members.',
    filePath: FILE,
    source: 'project',
  });
});

test('defaults: the lead is general-purpose, the name the file\'s, isolation from the setting', () => {
  const { team } = parseTeamFile('---\nmembers:\n  - { name: a, agent: explore }\n---\n', FILE, 'user');
  assert.deepEqual([team?.name, team?.lead, team?.isolation, team?.body], ['review', 'general-purpose', null, '']);
});

test('broken parts are left out, each with a problem naming it; the rest of the team stays', () => {
  const { team, problems } = parseTeamFile(
    [
      '---',
      'name: crew',
      'colour: blue',
      'isolation: sometimes',
      'members:',
      '  - name: ok',
      '    agent: explore',
      '  - agent: explore',
      '  - name: Ok',
      '    agent: explore',
      '  - name: bad name',
      '    agent: explore',
      '  - name: team-lead',
      '    agent: explore',
      '  - name: noagent',
      '  - name: weird',
      '    agent: explore',
      '    isolation: maybe',
      '    color: red',
      'tasks:',
      '  - subject: first',
      '    blockedBy: [2]',
      '  - description: no subject',
      '  - subject: third',
      '    blockedBy: [2, 1]',
      '---',
      'Go.',
    ].join('\n'),
    FILE,
    'project',
  );
  assert.deepEqual(team?.members.map((m) => m.name), ['ok', 'weird']);
  assert.deepEqual(team?.tasks, [{ subject: 'first' }, { subject: 'third', blockedBy: [1] }]);
  assert.equal(team?.isolation, null);
  assert.deepEqual(
    problems.map((p) => [p.severity, p.key, p.message]),
    [
      ['warning', 'colour', 'Unknown field "colour" is ignored. A team file has: name, description, lead, members, isolation, tasks.'],
      ['warning', 'isolation', '"isolation" is "worktree" or "none", not "sometimes"; the setting subagents.teams.isolation applies.'],
      ['warning', 'members', 'members[2] has no "name"; it is left out.'],
      ['warning', 'members', 'members[3]: a member called "Ok" is declared already; this one is left out.'],
      ['warning', 'members', 'members[4]: "bad name" cannot be a teammate\'s name (letters, digits, ".", "_", "-"); it is left out.'],
      ['warning', 'members', 'members[5]: "team-lead" is a name SendMessage already uses; it is left out.'],
      ['warning', 'members', 'members[6] ("noagent") names no "agent"; it is left out.'],
      ['warning', 'members', 'members[7]: unknown field "color" is ignored. A member has: name, agent, isolation, model, prompt.'],
      ['warning', 'members', 'members[7] ("weird"): "isolation" is "worktree" or "none"; the team\'s applies.'],
      ['warning', 'tasks', 'tasks[1]: "blockedBy" names 2, which is not an earlier task\'s number; it is ignored.'],
      ['warning', 'tasks', 'tasks[2] has no "subject"; it is left out.'],
      ['warning', 'tasks', 'tasks[3]: task 2 it waits for was left out; that wait is ignored.'],
    ],
  );
});

test('a file that is no team says why', () => {
  for (const [text, message] of [
    ['just text\n', /starts with YAML frontmatter/],
    ['---\nname: x\n', /no closing "---"/],
    ['---\nname: [unclosed\n---\n', /not valid YAML/],
    ['---\nname: "no spaces allowed"\n---\n', /cannot be a team's name/],
  ] as const) {
    const { team, problems } = parseTeamFile(text, FILE, 'project');
    assert.equal(team, null, text);
    assert.equal(problems[0]?.severity, 'error');
    assert.match(problems[0]!.message, message);
  }
});
