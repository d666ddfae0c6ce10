import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { PermissionRule } from '../../../../src/core/agents/definition';
import { callSubjects, decideByRules, globMatcher } from '../../../../src/core/tools/permissionRules';

const rule = (tools: string[], pattern: string | null, action: PermissionRule['action'], syntax: PermissionRule['syntax'] = 'glob', negate = false): PermissionRule => ({
  tools, pattern, syntax, negate, action, origin: `${tools.join('+')} ${pattern ?? '*'} ${action}`,
});
const bash = (command: string) => ({ name: 'Bash', input: { command }, cwd: '/repo' });
const edit = (file_path: string) => ({ name: 'Edit', input: { file_path, old_string: 'a', new_string: 'b' }, cwd: '/repo' });
const decided = async (rules: PermissionRule[], call: Parameters<typeof decideByRules>[1]) => (await decideByRules(rules, call))?.rule.action ?? null;

test("opencode's wildcards: * any text (slashes too), ? one character, a trailing ' *' also matches the bare command", () => {
  assert.ok(globMatcher('git *').test('git status'));
  assert.ok(globMatcher('git *').test('git'));
  assert.ok(!globMatcher('git *').test('gitk'));
  assert.ok(globMatcher('src/*.ts').test('src/deep/a.ts'));
  assert.ok(globMatcher('?.md').test('a.md'));
  assert.ok(!globMatcher('?.md').test('ab.md'));
  assert.ok(globMatcher('./src/**').test('src/a/b.ts'), 'a leading ./ is the working folder');
  assert.ok(globMatcher('npm run (build)').test('npm run (build)'), 'regex characters are literal');
});

test('the last matching rule decides; a call no rule is about is left to the mode', async () => {
  const rules = [rule(['Bash'], null, 'ask'), rule(['Bash'], 'git status*', 'allow'), rule(['Bash'], 'rm *', 'deny')];
  assert.equal(await decided(rules, bash('git status --short')), 'allow');
  assert.equal(await decided(rules, bash('rm -rf build')), 'deny');
  assert.equal(await decided(rules, bash('ls')), 'ask');
  assert.equal(await decided(rules, edit('a.ts')), null);
  assert.equal(await decided([rule(['*'], null, 'deny'), rule(['Read'], null, 'allow')], { name: 'Read', input: { file_path: 'x' }, cwd: '/repo' }), 'allow');
});

test('file rules match the path relative to the working folder, or absolute', async () => {
  assert.deepEqual(callSubjects(edit('src/app.ts')), ['src/app.ts', '/repo/src/app.ts']);
  assert.deepEqual(callSubjects(edit('/repo/docs/a.md')), ['docs/a.md', '/repo/docs/a.md']);
  const rules = [rule(['Edit', 'Write'], 'src/**', 'allow'), rule(['Edit'], '/repo/src/secret.ts', 'deny')];
  assert.equal(await decided(rules, edit('src/app.ts')), 'allow');
  assert.equal(await decided(rules, edit('src/secret.ts')), 'deny');
});

test("Roo Code's fileRegex: a negated rule refuses edits whose path the expression does not match", async () => {
  const rules = [rule(['Write', 'Edit', 'MultiEdit'], '\\.md$', 'deny', 'regex', true)];
  assert.equal(await decided(rules, edit('README.md')), null);
  assert.equal(await decided(rules, edit('src/app.ts')), 'deny');
  assert.equal(await decided(rules, { name: 'Write', input: { file_path: 'docs/x.md', content: '' }, cwd: '/repo' }), null);
});

test("Kiro's anchored command patterns match the whole command", async () => {
  const rules = [rule(['Bash'], 'git status', 'allow', 'anchored'), rule(['Bash'], 'rm .*', 'deny', 'anchored')];
  assert.equal(await decided(rules, bash('git status')), 'allow');
  assert.equal(await decided(rules, bash('git status && rm -rf /')), null);
  assert.equal(await decided(rules, bash('rm -rf /')), 'deny');
});

test('a regular expression that runs away or does not compile counts against the call for a restricting rule, never for an allowing one', async () => {
  const runaway = '^(a+)+$';
  const long = `${'a'.repeat(40)}!`;
  assert.equal(await decided([rule(['Bash'], runaway, 'deny', 'regex')], bash(long)), 'deny');
  assert.equal(await decided([rule(['Bash'], runaway, 'allow', 'regex')], bash(long)), null);
  assert.equal(await decided([rule(['Bash'], '(', 'deny', 'regex')], bash('x')), 'deny');
});

test('MCP tool rules match the tools of the server they name, in any spelling', async () => {
  const call = { name: 'mcp__github__create_issue', origin: 'github', input: {}, cwd: '/repo' };
  assert.equal(await decided([rule(['mcp__github'], null, 'deny')], call), 'deny');
  assert.equal(await decided([rule(['mcp_github_*'], null, 'ask')], call), 'ask');
  assert.equal(await decided([rule(['mcp__jira'], null, 'deny')], call), null);
  assert.equal(await decided([rule(['Task'], 'explore', 'allow'), rule(['Task'], null, 'deny')], { name: 'Task', input: { subagent_type: 'explore' }, cwd: '/' }), 'deny');
  assert.equal(await decided([rule(['Task'], null, 'deny'), rule(['Task'], 'explore', 'allow')], { name: 'Task', input: { subagent_type: 'explore' }, cwd: '/' }), 'allow');
});
