import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAgentText } from '../../../../../src/core/agents/parsing/parse';
import { applyPrecedence } from '../../../../../src/core/agents/catalog/precedence';
import { load, skipped } from './helpers';

const at = '/repo/.opencode/agents/review.md';

test('opencode: the path below agents/ names the agent (nested names too); a frontmatter name wins; no frontmatter is an agent', () => {
  assert.equal(parseAgentText('---\ndescription: Leads.\n---\nLead.\n', { filePath: '/repo/.opencode/agents/team/lead.md', relPath: 'team/lead.md', source: 'project', family: '.opencode' }).definition?.name, 'team/lead');
  assert.equal(load('---\ndescription: Leads.\n---\nLead.\n', '/repo/.opencode/agent/team/lead.md', '.opencode').definition.name, 'team/lead');
  assert.equal(load('---\nname: reviewer\n---\nReview.\n', at, '.opencode').definition.name, 'reviewer');
  const plain = load('Review the change.\n', at, '.opencode').definition;
  assert.deepEqual([plain.name, plain.description, plain.systemPrompt], ['review', '', 'Review the change.']);
});

test('opencode: mode — primary agents are not offered to the spawn tool; hidden ones are not offered to the user; the modes/ folder is primary', () => {
  assert.equal(load('---\nmode: primary\n---\nx\n', at, '.opencode').definition.modelInvocable, false);
  const sub = load('---\nmode: subagent\nhidden: true\n---\nx\n', at, '.opencode').definition;
  assert.deepEqual([sub.modelInvocable, sub.userInvocable], [true, false]);
  assert.equal(load('---\ndescription: d\n---\nx\n', '/repo/.opencode/modes/build.md', '.opencode').definition.modelInvocable, false);
});

test('opencode: the tools map folds into permission as opencode folds it (write/edit/patch are one edit; the last key wins); deny takes a tool away', () => {
  const { definition } = load('---\ntools:\n  write: true\n  edit: false\n  bash: false\n  read: true\n---\nx\n', at, '.opencode');
  assert.deepEqual(definition.disallowedTools.sort(), ['Bash', 'Edit', 'MultiEdit', 'Write']);
  assert.deepEqual(definition.permissions?.map((r) => r.origin), ['permission.edit: deny', 'permission.bash: deny', 'permission.read: allow']);
  // Kilo also folds multiedit into edit; opencode reads it as its own permission.
  assert.deepEqual(load('---\ntools:\n  multiedit: false\n---\nx\n', '/repo/.kilo/agents/a.md', '.kilo').definition.permissions?.map((r) => r.origin), ['permission.edit: deny']);
});

test('opencode: permission — actions per permission and per pattern, in order; the last matching rule decides', () => {
  const { definition, messages } = load(
    '---\npermission:\n  edit: ask\n  bash:\n    "*": ask\n    "git status*": allow\n    "rm *": deny\n  task:\n    "*": deny\n    "explore": allow\n---\nx\n',
    at,
    '.opencode',
  );
  assert.deepEqual(messages, []);
  assert.deepEqual(
    definition.permissions?.map((r) => [r.tools.join('+'), r.pattern, r.action]),
    [['Edit+Write+MultiEdit', null, 'ask'], ['Bash', null, 'ask'], ['Bash', 'git status*', 'allow'], ['Bash', 'rm *', 'deny'], ['Task', null, 'deny'], ['Task', 'explore', 'allow']],
  );
  // A pattern rule after the whole-tool deny keeps Task: explore may still be started.
  assert.deepEqual(definition.disallowedTools, []);
  // A catch-all deny written as a pattern, last, takes the tool away like a bare deny.
  assert.deepEqual(load('---\npermission:\n  bash:\n    "git *": allow\n    "*": deny\n---\nx\n', at, '.opencode').definition.disallowedTools, ['Bash']);
  assert.deepEqual(load('---\npermission:\n  "*": deny\n  read: allow\n---\nx\n', at, '.opencode').definition.disallowedTools.includes('Read'), false);
  // A bare action is every tool; an unknown key names MCP tools.
  assert.deepEqual(load('---\npermission: ask\n---\nx\n', at, '.opencode').definition.permissions?.[0]?.tools, ['*']);
  assert.deepEqual(load('---\npermission:\n  github_*: deny\n---\nx\n', at, '.opencode').definition.permissions?.[0]?.tools, ['mcp_github_*']);
});

test('opencode: a pattern rule a later catch-all overrides is kept as opencode keeps it, and said never to apply', () => {
  const { definition, messages } = load('---\npermission:\n  bash:\n    "git *": allow\n    "*": ask\n    "ls *": allow\n---\nx\n', at, '.opencode');
  // The order is opencode's: the gate asks about `git status`, as opencode does.
  assert.deepEqual(definition.permissions?.map((r) => [r.pattern, r.action]), [['git *', 'allow'], [null, 'ask'], ['ls *', 'allow']]);
  assert.deepEqual(messages, ['permission.bash "git *": allow never applies: the later permission.bash: ask matches every call it matches, and the last matching rule decides (write the "*" rule first)']);
  // The same action later, or a catch-all first, is no trap.
  assert.deepEqual(load('---\npermission:\n  bash:\n    "git *": ask\n    "*": ask\n---\nx\n', at, '.opencode').messages, []);
});

test('opencode: web tools come when allowed by name, and are not offered when a rule would ask about them (the API runs them)', () => {
  const allowed = load('---\npermission:\n  webfetch: allow\n---\nx\n', at, '.opencode').definition;
  assert.ok(allowed.tools?.includes('WebFetch') && allowed.tools.includes('Read') && !allowed.tools.includes('WebSearch'));
  const asked = load('---\npermission:\n  webfetch: ask\n---\nx\n', at, '.opencode');
  assert.ok(asked.definition.disallowedTools.includes('WebFetch'));
  assert.match(asked.messages.join('\n'), /WebFetch is not offered: the API runs it/);
});

test('opencode: model, steps, color, sampling fields; unknown fields are provider options there, kept and named here', () => {
  const { definition, messages } = load('---\nmodel: anthropic/claude-sonnet-4-5\nsteps: 12\ncolor: "#44aa88"\ntemperature: 0.1\nreasoningEffort: high\n---\nx\n', at, '.opencode');
  assert.deepEqual([definition.model, definition.maxTurns, definition.color], ['claude-sonnet-4-5', 12, '#44aa88']);
  assert.deepEqual(messages, [
    'field "reasoningEffort" has no counterpart here (opencode passes unknown fields to the model provider as options); it is kept and changes nothing',
    'field "temperature" has no counterpart here (sampling and provider options are not set here); it is kept and changes nothing',
  ]);
  assert.match(load('---\nmodel: openrouter/google/gemini-2.5-pro\n---\nx\n', at, '.opencode').messages.join('\n'), /"openrouter\/google\/gemini-2\.5-pro" is Google's/);
  assert.equal(load('---\nmaxSteps: 4\n---\nx\n', at, '.opencode').definition.maxTurns, 4);
});

test('opencode: a value of the wrong type makes opencode refuse the file (Kilo skips it): skipped, saying which; disable: true too', () => {
  assert.match(skipped('---\ntools: Read, Grep\n---\nx\n', at, '.opencode')[0]!, /opencode refuses it: "tools" must be a map of tool names to true or false/);
  assert.match(skipped('---\nsteps: many\n---\nx\n', at, '.opencode')[0]!, /"steps" must be a whole number above 0/);
  assert.match(skipped('---\nmode: helper\n---\nx\n', at, '.opencode')[0]!, /"mode" must be primary, subagent or all/);
  assert.match(skipped('---\npermission:\n  bash: maybe\n---\nx\n', at, '.opencode')[0]!, /"permission.bash" must be allow, ask or deny/);
  assert.match(skipped('---\ndisable: true\n---\nx\n', at, '.opencode')[0]!, /turned off \("disable: true"\)/);
  assert.match(skipped('---\ntemperature: hot\n---\nx\n', '/repo/.kilo/agents/a.md', '.kilo')[0]!, /Kilo Code refuses it/);
});

test('opencode.json: every agent of the agent key (and the older mode key, primary); one bad entry is skipped, the others load', () => {
  const text = `{
    // opencode.jsonc allows comments
    "$schema": "https://opencode.ai/config.json",
    "agent": {
      "review": { "description": "Reviews.", "prompt": "{file:./prompts/review.txt}", "tools": { "write": false } },
      "broken": { "steps": "x" },
      "docs": { "description": "Docs." },
    },
    "mode": { "build": { "prompt": "Build." } }
  }`;
  const parsed = parseAgentText(text, { filePath: '/repo/opencode.jsonc', source: 'project', family: '.opencode' });
  const agents = [parsed.definition, ...(parsed.siblings ?? [])];
  assert.deepEqual(agents.map((a) => [a?.name, a?.modelInvocable]), [['review', true], ['docs', true], ['build', false]]);
  // `{file:}` is made absolute against the file it is written in.
  assert.equal(agents[0]?.systemPrompt, '{file:/repo/prompts/review.txt}');
  assert.match(parsed.warnings.map((w) => w.message).join('\n'), /agent "broken" is not loaded: opencode refuses it: "steps" must be a whole number above 0/);
  assert.match(parseAgentText('{ "agent": ', { filePath: '/repo/opencode.json', source: 'project', family: '.opencode' }).warnings[0]!.message, /skipped opencode.json: it is not valid JSON/);
});

test('opencode: the definitions of one name are merged field by field, the winning file first, as opencode merges them', () => {
  const project = parseAgentText('---\nmodel: anthropic/claude-haiku-4-5\n---\nProject prompt.\n', { filePath: '/repo/.opencode/agents/review.md', relPath: 'review.md', source: 'project', family: '.opencode' });
  const user = parseAgentText('---\ndescription: Reviews everything.\npermission:\n  bash: deny\n---\nUser prompt.\n', { filePath: '/home/.config/opencode/agents/review.md', relPath: 'review.md', source: 'user', family: '.opencode' });
  const json = parseAgentText('{"agent":{"review":{"steps":7,"permission":{"edit":"ask"}}}}', { filePath: '/repo/opencode.json', source: 'project', family: '.opencode' });
  const outcome = (filePath: string, parsed: ReturnType<typeof parseAgentText>) => ({ filePath, relPath: filePath, definition: parsed.definition, warnings: parsed.warnings });
  const result = applyPrecedence([[outcome('/repo/.opencode/agents/review.md', project)], [outcome('/home/.config/opencode/agents/review.md', user)], [outcome('/repo/opencode.json', json)]]);
  const merged = result.agents[0]!;
  assert.deepEqual(
    [merged.filePath, merged.description, merged.systemPrompt, merged.model, merged.maxTurns, merged.disallowedTools, merged.permissions?.map((r) => r.origin)],
    ['/repo/.opencode/agents/review.md', 'Reviews everything.', 'Project prompt.', 'claude-haiku-4-5', 7, ['Bash'], ['permission.edit: ask', 'permission.bash: deny']],
  );
  assert.deepEqual(merged.mergedFrom, ['/repo/.opencode/agents/review.md', '/home/.config/opencode/agents/review.md', '/repo/opencode.json']);
  assert.deepEqual(result.shadowed.map((s) => [s.definition.filePath, s.merged]), [['/home/.config/opencode/agents/review.md', true], ['/repo/opencode.json', true]]);
  // A lower layer turning the agent off turns the merged one off, and the winning file says so.
  const off = parseAgentText('{"agent":{"review":{"disable":true}}}', { filePath: '/repo/opencode.json', source: 'project', family: '.opencode' });
  assert.equal(off.definition, null, 'a single disabled agent is not loaded');
  const disabled = applyPrecedence([[outcome('/repo/.opencode/agents/review.md', project)], [outcome('/home/.config/opencode/agents/review.md', { ...user, definition: { ...user.definition!, layer: { ...user.definition!.layer, disable: true } } })]]);
  assert.deepEqual(disabled.agents, []);
  assert.match(disabled.warnings.map((w) => w.message).join('\n'), /agent "review" is not loaded: once its \.opencode files are merged, it is turned off/);
});

test("opencode's YAML fallback: a value holding ': ' is read as text, every other field keeps its type", () => {
  const { definition, messages } = load('---\ndescription: Use when: you need a review\nsteps: 12\npermission:\n  bash: deny\n---\nx\n', at, '.opencode');
  assert.deepEqual([definition.description, definition.maxTurns, definition.disallowedTools], ['Use when: you need a review', 12, ['Bash']]);
  assert.match(messages[0]!, /^invalid YAML frontmatter: .*; the values holding ": " are read as text, as opencode reads them$/);
});
