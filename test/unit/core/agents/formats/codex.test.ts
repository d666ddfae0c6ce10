import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load, skipped } from './helpers';

// Codex custom agents: one TOML file each in .codex/agents/ (examples
// written after Codex's subagent documentation and agent_roles.rs).

const FILE = '/repo/.codex/agents/reviewer.toml';

const REVIEWER = `
name = "reviewer"
description = "Reviews a change for correctness and risk before it is merged."
model = "gpt-5.4"
model_reasoning_effort = "high"
sandbox_mode = "read-only"
nickname_candidates = ["Atlas", "Delta", "Echo-2"]
developer_instructions = """
Review the diff like an owner.
Lead with concrete findings, then residual risk.
"""

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
`;

test('a documented Codex agent reads its name, description, instructions and settings', () => {
  const { definition, messages } = load(REVIEWER, FILE, '.codex');
  assert.equal(definition.format, 'codex');
  assert.equal(definition.name, 'reviewer');
  assert.equal(definition.description, 'Reviews a change for correctness and risk before it is merged.');
  assert.equal(definition.systemPrompt, 'Review the diff like an owner.\nLead with concrete findings, then residual risk.');
  assert.equal(definition.thinkingLevel, 'high');
  assert.deepEqual(definition.nicknames, ['Atlas', 'Delta', 'Echo-2']);
  assert.deepEqual(definition.mcpServers, { docs: { command: 'npx', args: ['-y', 'docs-mcp'] } });
  assert.deepEqual(definition.mcp?.map((d) => 'spec' in d && [d.name, d.spec.command, d.spec.args, d.spec.variables]), [['docs', 'npx', ['-y', 'docs-mcp'], 'codex']]);
  // sandbox_mode = "read-only": nothing that writes or runs commands.
  assert.equal(definition.tools, null);
  assert.deepEqual(definition.disallowedTools, ['Bash', 'Write', 'Edit', 'MultiEdit']);
  // And plan mode, which the agents it starts inherit: they cannot write either.
  assert.equal(definition.permissionMode, 'plan');
  // An OpenAI model cannot run here: kept for the alias table, with a warning that says so.
  assert.equal(definition.model, 'gpt-5.4');
  assert.deepEqual(messages, [
    `model "gpt-5.4" is OpenAI's, which an Anthropic endpoint does not serve; the agent runs on its parent's model (or subagents.defaultModel) unless subagents.modelAliases maps "gpt-5.4" to a model that does`,
  ]);
  assert.equal(definition.extra.sandbox_mode, 'read-only');
  assert.equal('developer_instructions' in definition.extra, false, 'the prompt is not kept twice');
});

test('model_reasoning_effort maps onto thinking levels; none is off', () => {
  const effort = (value: string) =>
    load(`name = "a"\ndescription = "d"\ndeveloper_instructions = "x"\nmodel_reasoning_effort = "${value}"\n`, FILE, '.codex').definition.thinkingLevel;
  assert.equal(effort('none'), 'off');
  assert.equal(effort('minimal'), 'minimal');
  assert.equal(effort('low'), 'low');
  assert.equal(effort('medium'), 'medium');
  assert.equal(effort('xhigh'), 'xhigh');
});

test('workspace-write changes nothing; web_search gives WebSearch; a Claude model runs', () => {
  const { definition, messages } = load(
    'name = "builder"\ndescription = "Builds."\ndeveloper_instructions = "Build it."\nsandbox_mode = "workspace-write"\nweb_search = "live"\nmodel = "claude-opus-4-5"\n',
    FILE,
    '.codex',
  );
  assert.deepEqual(definition.disallowedTools, []);
  assert.equal(definition.permissionMode, null);
  assert.ok(definition.tools?.includes('WebSearch') && definition.tools.includes('Bash'));
  assert.equal(definition.model, 'claude-opus-4-5');
  assert.deepEqual(messages, []);
});

test('Codex requires name, description and developer_instructions; broken TOML is a warning with its position', () => {
  assert.match(skipped('description = "d"\ndeveloper_instructions = "x"\n', FILE, '.codex').join(), /has no "name" \(Codex requires one\)/);
  assert.match(skipped('name = "a"\ndeveloper_instructions = "x"\n', FILE, '.codex').join(), /has no "description"/);
  assert.match(skipped('name = "a"\ndescription = "d"\n', FILE, '.codex').join(), /has no "developer_instructions"/);
  assert.match(skipped('name = "a"\ndescription = "d"\ndeveloper_instructions = """\nunclosed\n', FILE, '.codex').join(), /skipped reviewer\.toml: it is not valid TOML: .*\(line \d+, column \d+\)/);
});

test('invalid nickname candidates are dropped with a warning', () => {
  const { definition, messages } = load('name = "a"\ndescription = "d"\ndeveloper_instructions = "x"\nnickname_candidates = ["Ok", "Ok", "no/slash"]\n', FILE, '.codex');
  assert.deepEqual(definition.nicknames, ['Ok']);
  assert.equal(messages.length, 1);
});

test('a Markdown file in .codex/agents is read as Claude Code writes it', () => {
  const { definition } = load('---\nname: md\ndescription: d\ntools: Read\n---\nBody', '/repo/.codex/agents/md.md', '.codex');
  assert.equal(definition.format, 'claude-code');
  assert.deepEqual(definition.tools, ['Read']);
});
