// The prompt an agent is sent, put together when it starts from the files
// its definition brings in: Kiro's prompt file and resources, opencode's
// {file:} and {env:}, Roo Code's mode rules. A project's file reaches
// beyond the project, or into the environment, only in a trusted folder.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { AgentDefinition, AgentFamily } from '../../../../src/core/agents/definition';
import { parseAgentText } from '../../../../src/core/agents/parsing/parse';
import { assemblePrompt, type PromptContext } from '../../../../src/core/agents/interpretation/promptAssembly';
import { layout, writeFile } from './helpers';

function read(text: string, filePath: string, family: AgentFamily, source: 'project' | 'user' = 'project'): AgentDefinition {
  const parsed = parseAgentText(text, { filePath, source, family });
  assert.ok(parsed.definition, JSON.stringify(parsed.warnings));
  return parsed.definition;
}

test("Kiro: the prompt file (relative to the agent file) and the resources (globs, from the working folder) are read when it starts", async (t) => {
  const { home, cwd } = layout(t);
  writeFile(path.join(cwd, '.kiro/agents/prompts/aws.md'), 'You know AWS well.\n');
  writeFile(path.join(cwd, 'README.md'), 'The readme.\n');
  writeFile(path.join(cwd, '.kiro/steering/a.md'), 'Steer A.\n');
  writeFile(path.join(cwd, '.kiro/steering/deep/b.md'), 'Steer B.\n');
  const file = path.join(cwd, '.kiro/agents/aws.json');
  const definition = read(JSON.stringify({ prompt: 'file://./prompts/aws.md', resources: ['file://README.md', 'file://.kiro/steering/**/*.md', 'file://missing.md'] }), file, '.kiro');
  const ctx: PromptContext = { cwd, home, env: {}, trusted: () => false };
  const prompt = await assemblePrompt(definition, ctx);
  assert.equal(
    prompt.text,
    'You know AWS well.\n\n<context file="README.md">\nThe readme.\n</context>\n\n<context file=".kiro/steering/a.md">\nSteer A.\n</context>\n\n<context file=".kiro/steering/deep/b.md">\nSteer B.\n</context>',
  );
  assert.deepEqual(prompt.warnings, [], 'a missing resource is left out quietly');
  // A missing prompt file is said.
  const missing = await assemblePrompt(read(JSON.stringify({ prompt: 'file://./nope.md' }), file, '.kiro'), ctx);
  assert.match(missing.warnings.join('\n'), /file:\/\/\.\/nope\.md could not be read \(ENOENT\)/);
});

test("opencode: {file:} (relative to the agent file) and {env:} are filled in; in an untrusted project, nothing from outside it or the environment", async (t) => {
  const { home, cwd } = layout(t);
  writeFile(path.join(cwd, '.opencode/agents/prompts/style.md'), 'Write short sentences.\n');
  const outside = writeFile(path.join(home, 'secret.txt'), 'SECRET-CONTENT\n');
  const file = path.join(cwd, '.opencode/agents/writer.md');
  const definition = read(`---\ndescription: Writes.\n---\nStyle: {file:./prompts/style.md}\nTeam: {env:TEAM_NAME}\nAlso: {file:${outside}}\n`, file, '.opencode');
  const env = { TEAM_NAME: 'Blue' };
  const trusted = await assemblePrompt(definition, { cwd, home, env, trusted: () => true });
  assert.equal(trusted.text, 'Style: Write short sentences.\nTeam: Blue\nAlso: SECRET-CONTENT');
  const untrusted = await assemblePrompt(definition, { cwd, home, env, trusted: () => false });
  assert.equal(untrusted.text, `Style: Write short sentences.\nTeam: {env:TEAM_NAME}\nAlso: {file:${outside}}`);
  assert.match(untrusted.warnings.join('\n'), /\{env:TEAM_NAME\} is not filled in: the project folder is not trusted/);
  assert.match(untrusted.warnings.join('\n'), /is outside the project and the folder is not trusted/);
  // The user's own file is theirs: it may read their files and environment.
  const mine = read(`---\ndescription: Mine.\n---\nTeam: {env:TEAM_NAME}\n`, path.join(home, '.config/opencode/agents/mine.md'), '.opencode', 'user');
  assert.equal((await assemblePrompt(mine, { cwd, home, env, trusted: () => false })).text, 'Team: Blue');
});

test("Roo Code: the mode's rules folders (global, then the project's) close its prompt; else the legacy .roorules file", async (t) => {
  const { home, cwd } = layout(t);
  writeFile(path.join(home, '.roo/rules-docs/01-global.md'), 'Global rule.\n');
  writeFile(path.join(cwd, '.roo/rules-docs/b.md'), 'Project rule B.\n');
  writeFile(path.join(cwd, '.roo/rules-docs/A.md'), 'Project rule A.\n');
  writeFile(path.join(cwd, '.roo/rules-docs/old.log'), 'not a rule\n');
  const modes = 'customModes:\n  - slug: docs\n    name: Docs\n    roleDefinition: You write docs.\n    groups: [read]\n  - slug: plain\n    name: Plain\n    roleDefinition: You help.\n    customInstructions: Be kind.\n    groups: [read]\n';
  const parsed = parseAgentText(modes, { filePath: path.join(cwd, '.roomodes'), source: 'project', family: '.roo' });
  const [docs, plain] = [parsed.definition!, parsed.siblings![0]!];
  const ctx: PromptContext = { cwd, home, env: {}, trusted: () => true };
  const assembled = await assemblePrompt(docs, ctx);
  assert.equal(
    assembled.text,
    `You write docs.\n\n====\n\nUSER'S CUSTOM INSTRUCTIONS\n\nThe following additional instructions are provided by the user, and should be followed to the best of your ability.\n\nRules:\n\n# Rules from ${path.join(home, '.roo/rules-docs/01-global.md')}:\nGlobal rule.\n\n# Rules from ${path.join(cwd, '.roo/rules-docs/A.md')}:\nProject rule A.\n\n# Rules from ${path.join(cwd, '.roo/rules-docs/b.md')}:\nProject rule B.`,
  );
  writeFile(path.join(cwd, '.roorules-plain'), 'Legacy rule.\n');
  assert.match((await assemblePrompt(plain, ctx)).text, /Mode-specific Instructions:\nBe kind\.\nRules:\n\n# Rules from \.roorules-plain:\nLegacy rule\.$/);
});
