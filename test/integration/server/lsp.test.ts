// The language server as an editor meets it: `node dist/server.js --stdio`,
// spoken to over LSP (initialize, didOpen, didChange, completion, hover,
// definition, codeAction), in a workspace of real agent files on disk.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import type { Diagnostic, MarkupContent, TextEdit } from 'vscode-languageserver-protocol/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LspClient, uriOf } from '../../support/lspClient';
import { serverWorkspace, type ServerWorkspace } from './workspace';

function message(d: Diagnostic): string {
  return typeof d.message === 'string' ? d.message : d.message.value;
}

function byCode(diagnostics: Diagnostic[], code: string): Diagnostic[] {
  return diagnostics.filter((d) => d.code === code);
}

function one(diagnostics: Diagnostic[], code: string): Diagnostic {
  const found = byCode(diagnostics, code);
  assert.equal(found.length, 1, `expected one ${code} diagnostic, got ${JSON.stringify(diagnostics.map((d) => [d.code, message(d)]))}`);
  return found[0]!;
}

function rangeOf(d: Diagnostic): [number, number, number, number] {
  return [d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character];
}

function applyEdits(text: string, edits: TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('file:///x', 'markdown', 1, text), edits);
}

describe('the language server over stdio', () => {
  let ws: ServerWorkspace;
  let client: LspClient;

  before(async () => {
    ws = serverWorkspace();
    client = await LspClient.start({ folders: [ws.root], home: ws.home, settings: { maxDepth: 3, modelAliases: { sonnet: 'claude-sonnet-5-5', fast: 'claude-haiku-5-5' } } });
  });
  after(async () => {
    await client?.stop();
    ws?.remove();
  });

  it('puts each problem of a broken agent file on its exact range', async () => {
    const file = path.join(ws.root, '.claude/agents/broken.md');
    const text = [
      '---', //                                       0
      'name: broken', //                              1
      'tools: Read, Grpe, Bash(git:*)', //            2
      'model: gpt-5', //                              3
      'maxTurns: many', //                            4
      'permissionMode: yolo', //                      5
      'isolation: container', //                      6
      'spawns: [worker, ghost]', //                   7
      'colour: red', //                               8
      'output: just text', //                         9
      '---', //                                      10
      'You are broken.',
      '',
    ].join('\n');
    const uri = await client.open(file, text);
    const diagnostics = await client.diagnostics(uri, (d) => d.length > 0);
    // No description: the agent does not load; the fix inserts one below the name.
    const missing = one(diagnostics, 'missing-description');
    assert.equal(missing.severity, 1);
    assert.deepEqual(rangeOf(missing), [1, 0, 1, 4]);
    // The remaining checks need a loadable agent: add a description and look again.
    await client.replace(uri, text.replace('name: broken\n', 'name: broken\ndescription: Breaks things.\n'));
    const all = await client.diagnostics(uri, (d) => !d.some((x) => x.code === 'missing-description'));
    const tool = one(all, 'unknown-tool');
    assert.deepEqual(rangeOf(tool), [3, 13, 3, 17]);
    assert.equal(tool.severity, 2);
    assert.match(message(tool), /Unknown tool "Grpe".*Did you mean "Grep"\?.*Known tools: Task, Agent, TaskOutput, TaskStop, SendMessage, TaskCreate, TaskList, TaskGet, TaskUpdate, Bash, Read, Write, Edit/);
    const model = one(all, 'foreign-model');
    assert.deepEqual(rangeOf(model), [4, 7, 4, 12]);
    assert.match(message(model), /"gpt-5" is OpenAI's, which an Anthropic endpoint does not serve; the agent runs on its parent's model/);
    const invalid = byCode(all, 'invalid-value');
    assert.deepEqual(invalid.map(rangeOf), [[5, 10, 5, 14], [6, 16, 6, 20], [7, 11, 7, 20]]);
    assert.match(message(invalid[0]!), /"maxTurns" must be a whole number above 0/);
    assert.match(message(invalid[1]!), /"permissionMode" must be one of default, plan, acceptEdits, bypassPermissions/);
    assert.match(message(invalid[2]!), /"isolation" must be one of worktree/);
    const ghost = one(all, 'unknown-agent');
    assert.deepEqual(rangeOf(ghost), [8, 17, 8, 22]);
    assert.match(message(ghost), /No agent named "ghost"\. .*Known agents: .*worker/);
    const unknownField = one(all, 'unknown-field');
    assert.deepEqual(rangeOf(unknownField), [9, 0, 9, 6]);
    assert.equal(unknownField.severity, 3);
    assert.match(message(unknownField), /"colour" is not a field Subagents uses.*Did you mean "color"\?/);
    const output = one(all, 'invalid-output');
    assert.deepEqual(rangeOf(output), [10, 8, 10, 17]);
    assert.match(message(output), /must be a JSON Schema object/);
    assert.ok(all.every((d) => d.source === 'Subagents'));
  });

  it('reads quoted tool patterns as the runtime does: no unknown tool, and the agents of a quoted Task(…) are checked', async () => {
    const file = path.join(ws.root, '.claude/agents/quoted.md');
    const text = '---\nname: quoted\ndescription: Quotes its patterns.\ntools: ["Bash(git diff:*)", Read, "Task(workr)", \'Grpe\']\n---\nBody\n';
    const uri = await client.open(file, text);
    const diagnostics = await client.diagnostics(uri, (d) => d.length > 0);
    assert.deepEqual(diagnostics.map((d) => d.code).sort(), ['unknown-agent', 'unknown-tool'], JSON.stringify(diagnostics.map(message)));
    const agent = one(diagnostics, 'unknown-agent');
    assert.deepEqual(rangeOf(agent), [3, 40, 3, 45], 'on the name inside the quotes');
    assert.match(message(agent), /No agent named "workr"\. Did you mean "worker"\?/);
    const tool = one(diagnostics, 'unknown-tool');
    assert.deepEqual(rangeOf(tool), [3, 50, 3, 54]);
    const [fix] = await client.codeActions(uri, [tool]);
    assert.match(applyEdits(text, fix!.edit!.changes![uri]!), /, 'Grep'\]\n/, 'the fix keeps the quotes');
    await client.close(uri);
  });

  it('reports a YAML error once, at the line where the YAML breaks, and re-checks on every edit', async () => {
    const file = path.join(ws.root, '.claude/agents/yaml.md');
    const uri = await client.open(file, '---\nname: yaml\ndescription: Use it when: things break\ntools: Read\n---\nBody\n');
    const diagnostics = await client.diagnostics(uri, (d) => d.length > 0);
    const errors = diagnostics.filter((d) => d.severity === 1);
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.code, 'yaml-syntax');
    assert.equal(errors[0]!.range.start.line, 2);
    assert.match(message(errors[0]!), /Invalid YAML: .*reads this frontmatter line by line/);
    // Quoting the value (an incremental edit at the start and end of the value) makes it valid.
    await client.insert(uri, 2, 13, '"');
    await client.insert(uri, 2, 39, '"');
    await client.diagnostics(uri, (d) => d.length === 0);
  });

  it('completes field names, tool names, agent names, models and closed values', async () => {
    const file = path.join(ws.root, '.claude/agents/typing.md');
    const uri = await client.open(file, '---\nname: typing\ndescription: For completion.\n\ntools: Read, \nspawns: [\nmodel: \npermissionMode: \n---\n');
    const keys = await client.completion(uri, 3, 0);
    const labels = keys.map((c) => c.label);
    assert.ok(labels.includes('maxTurns') && labels.includes('isolation') && labels.includes('thinkingLevel'), labels.join());
    assert.ok(!labels.includes('name') && !labels.includes('model'), 'fields already present are not offered again');
    const maxTurns = keys.find((c) => c.label === 'maxTurns')!;
    assert.match((maxTurns.documentation as MarkupContent).value, /subagents\.maxTurns/);
    assert.equal(maxTurns.textEdit && 'newText' in maxTurns.textEdit ? maxTurns.textEdit.newText : '', 'maxTurns: ');

    const tools = (await client.completion(uri, 4, 13)).map((c) => c.label);
    assert.deepEqual(tools.filter((t) => ['Read', 'Grep', 'Bash', 'Task', 'TodoWrite'].includes(t)).sort(), ['Bash', 'Grep', 'Read', 'Task', 'TodoWrite']);

    const spawns = await client.completion(uri, 5, 9);
    const worker = spawns.find((c) => c.label === 'worker');
    assert.ok(worker, spawns.map((c) => c.label).join());
    assert.match((worker.documentation as MarkupContent).value, /Does the work/);
    assert.ok(!spawns.some((c) => c.label === 'typing'), 'an agent is not offered to itself');
    assert.ok(spawns.some((c) => c.label === 'general-purpose'), 'bundled agents are offered');

    const models = (await client.completion(uri, 6, 7)).map((c) => c.label);
    for (const m of ['inherit', 'sonnet', 'fast', 'claude-haiku-5-5']) assert.ok(models.includes(m), `${m} in ${models.join()}`);
    // Only models that run: an alias these settings do not map would be sent to the API as written, and fail.
    for (const m of ['opus', 'fable', 'mythos']) assert.ok(!models.includes(m), `${m} is offered though it does not run here: ${models.join()}`);

    const modes = (await client.completion(uri, 7, 16)).map((c) => c.label).sort();
    assert.deepEqual(modes, ['acceptEdits', 'bypassPermissions', 'default', 'plan']);
    // The closing `---` is not a list item of the field above: nothing to complete or explain there.
    assert.deepEqual(await client.completion(uri, 8, 0), []);
    assert.equal(await client.hover(uri, 8, 0), null);

    await client.replace(uri, '---\nname: typing\ndescription: For completion.\ntools: Read, Task(wo\n---\n');
    const inTask = (await client.completion(uri, 3, 20)).map((c) => c.label);
    assert.ok(inTask.includes('worker') && !inTask.includes('Read'), inTask.join());
    await client.close(uri);
  });

  it('offers agents in precedence order however many there are: the sort keys keep that order past ten', async () => {
    const uri = await client.open(path.join(ws.root, '.claude/agents/many.md'), '---\nname: many\ndescription: Spawns.\nspawns: [\n---\n');
    const offered = await client.completion(uri, 3, 9);
    const agents = offered.filter((c) => c.label !== '*');
    assert.ok(agents.length >= 11, `enough agents to need two digits: ${agents.length}`);
    // An editor orders completions by sortText, as strings.
    const bySortText = [...agents].sort((a, b) => (a.sortText! < b.sortText! ? -1 : a.sortText! > b.sortText! ? 1 : 0));
    assert.deepEqual(bySortText.map((c) => c.label), agents.map((c) => c.label));
    assert.deepEqual(agents.slice(0, 3).map((c) => c.label), ['a1', 'a2', 'a3'], 'project agents first, in file order');
    await client.close(uri);
  });

  it('hovers field docs, agents and tool names, and goes to an agent\'s file', async () => {
    const uri = await client.open(path.join(ws.root, '.claude/agents/lead.md'));
    const keyHover = await client.hover(uri, 5, 2);
    assert.match((keyHover?.contents as MarkupContent).value, /\*\*spawns\*\*/);
    const agentHover = await client.hover(uri, 5, 10);
    const text = (agentHover?.contents as MarkupContent).value;
    assert.match(text, /\*\*worker\*\* · project agent \(\.claude\)/);
    assert.match(text, /Does the work/);
    assert.ok(text.includes(path.join(ws.root, '.claude/agents/worker.md')));
    const toolHover = await client.hover(uri, 3, 8);
    assert.match((toolHover?.contents as MarkupContent).value, /`read_file` runs here as `Read`/);
    const taskTarget = await client.hover(uri, 3, 25);
    assert.match((taskTarget?.contents as MarkupContent).value, /\*\*reviewer\*\*/);

    assert.deepEqual((await client.definition(uri, 5, 10)).map((l) => [l.uri, l.range.start.line]), [[uriOf(path.join(ws.root, '.claude/agents/worker.md')), 1]]);
    assert.deepEqual((await client.definition(uri, 3, 25)).map((l) => l.uri), [uriOf(path.join(ws.root, '.claude/agents/reviewer.md'))]);
    assert.deepEqual(await client.definition(uri, 1, 8), []);
    await client.close(uri);
  });

  it('knows precedence, the spawn graph and the other agents', async () => {
    const shadowedUri = await client.open(path.join(ws.root, '.gemini/agents/reviewer.md'));
    const shadowed = one(await client.diagnostics(shadowedUri, (d) => d.length > 0), 'shadowed');
    assert.deepEqual(rangeOf(shadowed), [1, 6, 1, 14]);
    assert.match(message(shadowed), new RegExp(`shadowed by ${path.join(ws.root, '.claude/agents/reviewer.md').replace(/[.]/g, '\\.')}`));
    assert.equal(shadowed.relatedInformation?.[0]?.location.uri, uriOf(path.join(ws.root, '.claude/agents/reviewer.md')));

    const exploreUri = await client.open(path.join(ws.root, '.claude/agents/explore.md'));
    const bundled = one(await client.diagnostics(exploreUri, (d) => d.length > 0), 'shadows-bundled');
    assert.match(message(bundled), /replaces the agent of that name bundled with Subagents/);

    const leadUri = await client.open(path.join(ws.root, '.claude/agents/lead.md'));
    const lead = await client.diagnostics(leadUri, (d) => d.length > 0);
    const cycle = one(lead, 'spawn-cycle');
    assert.deepEqual(rangeOf(cycle), [5, 9, 5, 15]);
    assert.match(message(cycle), /Spawn cycle: lead → worker → lead/);

    const chainUri = await client.open(path.join(ws.root, '.claude/agents/a1.md'));
    const depth = one(await client.diagnostics(chainUri, (d) => d.length > 0), 'spawn-depth');
    assert.match(message(depth), /a1 → a2 → a3 → a4 → a5 is 4 spawns deep, but subagents\.maxDepth is 3/);

    // The catalog follows the disk: a new agent file makes a name known to the open files.
    const ghostUri = await client.open(path.join(ws.root, '.claude/agents/needs-ghost.md'));
    await client.diagnostics(ghostUri, (d) => d.some((x) => x.code === 'unknown-agent'));
    writeFileSync(path.join(ws.root, '.claude/agents/ghost.md'), '---\nname: ghost\ndescription: Appears later.\n---\nBoo.\n');
    await client.diagnostics(ghostUri, (d) => !d.some((x) => x.code === 'unknown-agent'));
    rmSync(path.join(ws.root, '.claude/agents/ghost.md'));
    await client.diagnostics(ghostUri, (d) => d.some((x) => x.code === 'unknown-agent'));
  });

  it('says the same about a model in the hover and the diagnostic (and, see test/unit/core/agents/interpretation/modelNames.test.ts, the Agents view)', async () => {
    const file = path.join(ws.root, '.claude/agents/typo-model.md');
    const text = '---\nname: typo-model\ndescription: Misspells its model.\nmodel: sonne\n---\nBody\n';
    const uri = await client.open(file, text);
    const diagnostic = one(await client.diagnostics(uri, (d) => d.length > 0), 'unknown-model');
    const hover = await client.hover(uri, 3, 9);
    const said = (hover?.contents as MarkupContent).value;
    assert.match(said, /^Model "sonne" is not a Claude model or alias this runtime knows; the agent runs on its parent's model \(or subagents\.defaultModel\)/);
    assert.equal(message(diagnostic), `${said} Did you mean "sonnet"?`, 'the diagnostic says what the hover says');
    const [fix] = await client.codeActions(uri, [diagnostic]);
    assert.equal(fix?.title, 'Change to "sonnet"');
    await client.close(uri);
  });

  it('removes an unknown tool that nothing known is near, from any kind of list', async () => {
    const cases: Array<[string, string]> = [
      ['tools: Read, Frobnicate, Grep', 'tools: Read, Grep'],
      ['tools: Read, Frobnicate', 'tools: Read'],
      ['tools: ["Frobnicate", Read]', 'tools: [Read]'],
      ['tools:\n  - Read\n  - Frobnicate\n  - Grep', 'tools:\n  - Read\n  - Grep'],
    ];
    for (const [i, [tools, expected]] of cases.entries()) {
      const file = path.join(ws.root, `.claude/agents/frob${i}.md`);
      const text = `---\nname: frob${i}\ndescription: Lists a tool nobody has.\n${tools}\n---\nBody\n`;
      const uri = await client.open(file, text);
      const tool = one(await client.diagnostics(uri, (d) => d.length > 0), 'unknown-tool');
      assert.doesNotMatch(message(tool), /Did you mean/);
      const [remove] = await client.codeActions(uri, [tool]);
      assert.equal(remove?.title, 'Remove "Frobnicate" from tools');
      assert.equal(applyEdits(text, remove!.edit!.changes![uri]!), `---\nname: frob${i}\ndescription: Lists a tool nobody has.\n${expected}\n---\nBody\n`);
      await client.close(uri);
    }
  });

  it('fixes an unknown tool, a missing description and a shadowed name', async () => {
    const file = path.join(ws.root, '.claude/agents/fixme.md');
    let text = '---\nname: fixme\ntools: Raed, Grep\n---\nBody\n';
    const uri = await client.open(file, text);
    const missing = one(await client.diagnostics(uri, (d) => d.length > 0), 'missing-description');
    const [addDescription] = await client.codeActions(uri, [missing]);
    assert.equal(addDescription?.title, 'Add a description');
    text = applyEdits(text, addDescription!.edit!.changes![uri]!);
    assert.equal(text, '---\nname: fixme\ndescription: Describe what fixme does and when to use it.\ntools: Raed, Grep\n---\nBody\n');
    await client.replace(uri, text);
    const tool = one(await client.diagnostics(uri, (d) => d.some((x) => x.code === 'unknown-tool')), 'unknown-tool');
    const [changeTool] = await client.codeActions(uri, [tool]);
    assert.equal(changeTool?.title, 'Change to "Read"');
    assert.equal(changeTool?.isPreferred, true);
    text = applyEdits(text, changeTool!.edit!.changes![uri]!);
    assert.match(text, /tools: Read, Grep/);
    await client.replace(uri, text);
    await client.diagnostics(uri, (d) => d.length === 0);

    const gemini = path.join(ws.root, '.gemini/agents/reviewer.md');
    const geminiUri = uriOf(gemini);
    const shadowed = one(await client.diagnostics(geminiUri, (d) => d.length > 0), 'shadowed');
    const [rename] = await client.codeActions(geminiUri, [shadowed]);
    assert.equal(rename?.title, 'Rename the agent to "reviewer-gemini"');
    const renamed = applyEdits(ws.read('.gemini/agents/reviewer.md'), rename!.edit!.changes![geminiUri]!);
    assert.match(renamed, /^name: reviewer-gemini$/m);
    await client.replace(geminiUri, renamed);
    await client.diagnostics(geminiUri, (d) => d.length === 0);
  });

  it('reads each format’s own fields: a Copilot file’s handoffs and a Gemini file’s max_turns are not unknown', async () => {
    const copilot = path.join(ws.root, '.github/agents/planner.agent.md');
    const copilotUri = await client.open(copilot, "---\ndescription: Plans.\ntools: ['search/codebase', 'edit']\nhandoffs:\n  - label: Build it\n    agent: worker\n    prompt: Build the plan\nuser-invocable: true\ncolour: red\n---\nPlan.\n");
    const copilotFindings = await client.diagnostics(copilotUri, (d) => d.some((x) => x.code === 'unknown-field'));
    assert.deepEqual(byCode(copilotFindings, 'unknown-field').map((d) => message(d).split(' ')[0]), ['"colour"'], 'only the field Copilot does not read');
    assert.deepEqual(byCode(copilotFindings, 'unknown-tool'), [], 'Copilot tool names are known');
    const gemini = path.join(ws.root, '.gemini/agents/counter.md');
    const geminiUri = await client.open(gemini, '---\nname: counter\ndescription: Counts.\nmax_turns: 5\ntools: [read_file, grep_search]\n\n---\nCount.\n');
    await client.diagnostics(geminiUri, (d) => d.length === 0);
    const items = (await client.completion(geminiUri, 5, 0)).map((i) => i.label);
    assert.ok(items.includes('kind') || items.includes('temperature'), `Gemini's own keys are offered: ${items.join(', ')}`);
  });

  it('an unknown tool with a permission pattern: the warning and its fix touch the name only, the pattern stays', async () => {
    const file = path.join(ws.root, '.claude/agents/patterned.md');
    let text = '---\nname: patterned\ndescription: Runs git.\ntools: Read, Bsh(git:*)\n---\nBody\n';
    const uri = await client.open(file, text);
    const tool = one(await client.diagnostics(uri, (d) => d.length > 0), 'unknown-tool');
    assert.deepEqual(rangeOf(tool), [3, 13, 3, 16], 'on "Bsh", not on "(git:*)"');
    assert.match(message(tool), /Unknown tool "Bsh".*Did you mean "Bash"\?/);
    const [fix] = await client.codeActions(uri, [tool]);
    assert.equal(fix?.title, 'Change to "Bash"');
    text = applyEdits(text, fix!.edit!.changes![uri]!);
    assert.match(text, /^tools: Read, Bash\(git:\*\)$/m);
    await client.replace(uri, text);
    await client.diagnostics(uri, (d) => d.length === 0);
  });

  it('checks a Copilot agent’s `agents` list as its spawns: unknown names, cycles, depth, completion and hover', async () => {
    const file = path.join(ws.root, '.github/agents/ping.agent.md');
    const uri = await client.open(file, "---\ndescription: Pings.\ntools: ['agent', 'read']\nagents: ['pong', 'ghost', a1, ]\n---\nPing.\n");
    const all = await client.diagnostics(uri, (d) => d.length > 0);
    const ghost = one(all, 'unknown-agent');
    assert.deepEqual(rangeOf(ghost), [3, 18, 3, 23]);
    assert.match(message(one(all, 'spawn-cycle')), /Spawn cycle: ping → pong → ping/);
    assert.deepEqual(rangeOf(one(all, 'spawn-cycle')), [3, 10, 3, 14]);
    assert.match(message(one(all, 'spawn-depth')), /ping → a1 → a2 → a3 → a4 is 4 spawns deep/);
    const offered = (await client.completion(uri, 3, 30)).map((c) => c.label);
    assert.ok(offered.includes('worker') && offered.includes('codex-reviewer') && !offered.includes('Read'), offered.join());
    const hover = await client.hover(uri, 3, 11);
    assert.match((hover?.contents as MarkupContent).value, /\*\*pong\*\* · project agent \(\.github\)/);
    assert.deepEqual((await client.definition(uri, 3, 11)).map((l) => l.uri), [uriOf(path.join(ws.root, '.github/agents/pong.agent.md'))]);
    await client.close(uri);
  });

  it('checks Codex TOML agents: a syntax error at its position, unknown keys, a fix that writes TOML', async () => {
    const file = path.join(ws.root, '.codex/agents/auditor.toml');
    const broken = 'name = "auditor"\ndescription = "Audits."\ndeveloper_instructions = """\nAudit.\n"""\nmodel = "gpt-5\n';
    const uri = await client.open(file, broken);
    const syntax = one(await client.diagnostics(uri, (d) => d.length > 0), 'yaml-syntax');
    assert.equal(rangeOf(syntax)[0], 5, 'on the unterminated string’s line');
    assert.match(message(syntax), /^Invalid TOML: /);
    const text = 'name = "auditor"\ndeveloper_instructions = """\nAudit the code.\n"""\nmodel_reasoning_effort = "high"\nsandbox_mode = "read-only"\nmodle = "o3"\n';
    await client.replace(uri, text);
    const all = await client.diagnostics(uri, (d) => d.some((x) => x.code === 'missing-description'));
    const unknown = one(all, 'unknown-field');
    assert.deepEqual(rangeOf(unknown), [6, 0, 6, 5]);
    assert.match(message(unknown), /"modle" is not a field.*Did you mean "model"\?/);
    const [addDescription] = await client.codeActions(uri, [one(all, 'missing-description')]);
    const fixed = applyEdits(text, addDescription!.edit!.changes![uri]!);
    assert.match(fixed, /^name = "auditor"\ndescription = "Describe what auditor does and when to use it\."\n/);
    await client.replace(uri, fixed.replace('modle', 'model'));
    const after = await client.diagnostics(uri, (d) => !d.some((x) => x.code === 'missing-description'));
    assert.deepEqual(after.map((d) => d.code), ['foreign-model'], 'o3 is another provider’s model');
    const keys = (await client.completion(uri, 8, 0)).map((i) => [i.label, i.textEdit && 'newText' in i.textEdit ? i.textEdit.newText : '']);
    assert.ok(keys.some(([label, insert]) => label === 'nickname_candidates' && insert === 'nickname_candidates = '), JSON.stringify(keys));
  });

  it('locates Codex keys after escaped and long-quoted multi-line strings, dotted and quoted keys, and a Codex agent’s name', async () => {
    const file = path.join(ws.root, '.codex/agents/dotted.toml');
    const text = [
      'name = "dotted"', //                      0
      '"description" = "Dotted keys."', //       1
      'developer_instructions = """', //         2
      'Write \\""" literally, then:', //         3
      'model = "opus"', //                       4
      'ends with a quote""""', //                5
      'model.provider = "x"', //                 6
      'model_reasoning_effort = "hgh"', //       7
      '',
    ].join('\n');
    const uri = await client.open(file, text);
    const all = await client.diagnostics(uri, (d) => d.length > 0);
    const invalid = byCode(all, 'invalid-value');
    // `model.provider` makes model a table: the runtime's warning is on that line, not at the top of the file.
    assert.deepEqual(invalid.map((d) => rangeOf(d)[0]), [6, 7], JSON.stringify(all.map((d) => [d.code, rangeOf(d), message(d)])));
    assert.match(message(invalid[0]!), /"model" must be a name/);
    assert.deepEqual(rangeOf(invalid[1]!), [7, 25, 7, 30]);
    assert.deepEqual(byCode(all, 'missing-description'), []);
    await client.close(uri);

    const spawner = await client.open(path.join(ws.root, '.claude/agents/spawns-codex.md'), '---\nname: spawns-codex\ndescription: d\nspawns: [codex-reviewer]\n---\n');
    const target = await client.definition(spawner, 3, 12);
    assert.deepEqual(target.map((l) => [l.uri, l.range.start.line]), [[uriOf(path.join(ws.root, '.codex/agents/codex-reviewer.toml')), 4]]);
    await client.close(spawner);
  });

  it('leaves Markdown files that are not agent definitions alone', async () => {
    const uri = await client.open(path.join(ws.root, 'README.md'), '---\nfoo: [\n---\n# Readme\n');
    const agentUri = await client.open(path.join(ws.root, '.claude/agents/after-readme.md'), '---\nname: x\n---\n');
    await client.diagnostics(agentUri, (d) => d.length > 0);
    assert.equal(client.published.get(uri), undefined);
  });

  it('applies changed settings: a new model alias is no longer unknown', async () => {
    const uri = await client.open(path.join(ws.root, '.claude/agents/aliased.md'), '---\nname: aliased\ndescription: Uses an alias.\nmodel: turbo\n---\n');
    const unknown = one(await client.diagnostics(uri, (d) => d.length > 0), 'unknown-model');
    assert.match(message(unknown), /"turbo" is not a Claude model or alias this runtime knows; the agent runs on its parent's model/);
    await client.changeSettings({ maxDepth: 3, modelAliases: { turbo: 'claude-sonnet-5-5' } });
    await client.diagnostics(uri, (d) => d.length === 0);
    assert.equal(client.serverErrors, '');
  });

  it('checks user and plugin agent files too', async () => {
    const plugin = path.join(path.dirname(ws.root), 'plugin');
    await client.changeSettings({ maxDepth: 3, pluginDirs: [plugin] });
    const pluginUri = await client.open(path.join(plugin, 'agents/helper.md'), '---\nname: plugin-helper\ndescription: From a plugin.\ntools: Raed\n---\n');
    one(await client.diagnostics(pluginUri, (d) => d.length > 0), 'unknown-tool');
    const userUri = await client.open(path.join(ws.home, '.claude/agents/mine.md'), '---\nname: mine\ndescription: The user\'s own.\nspawns: [nobody]\n---\n');
    one(await client.diagnostics(userUri, (d) => d.length > 0), 'unknown-agent');
    // Outside every agents dir, the same text is not an agent file.
    const elsewhere = await client.open(path.join(plugin, 'notes/helper.md'), '---\nname: x\ntools: Raed\n---\n');
    // The server handles notifications in order: once a later file is answered, the earlier one would have been.
    await client.diagnostics(await client.open(path.join(ws.root, '.claude/agents/later.md'), '---\nname: later\n---\n'), (d) => d.length > 0);
    assert.equal(client.published.get(elsewhere), undefined);
  });

  it('traces how long each check took once the client turns tracing on, and says nothing before', async () => {
    const traced: string[] = [];
    client.connection.onNotification('$/logTrace', ({ message }: { message: string }) => {
      traced.push(message);
    });
    const quiet = await client.open(path.join(ws.root, '.claude/agents/untraced.md'), '---\nname: untraced\ndescription: d\n---\n');
    await client.diagnostics(quiet);
    await client.connection.sendNotification('$/setTrace', { value: 'messages' });
    const uri = await client.open(path.join(ws.root, '.claude/agents/traced.md'), '---\nname: traced\ndescription: d\n---\n');
    await client.diagnostics(uri);
    await client.connection.sendNotification('$/setTrace', { value: 'off' });
    assert.equal(traced.length, 1, traced.join('\n'));
    assert.match(traced[0]!, new RegExp(`^checked ${uri.replace(/[.]/g, '\\.')} version 1 in \\d+\\.\\d{3} ms$`));
  });

  it('keeps serving when the client cannot answer for its settings, and with a client that does not track folders', async () => {
    const limited = await LspClient.start({ folders: [ws.root], home: ws.home, workspaceFolders: false });
    try {
      const uri = await limited.open(path.join(ws.root, '.claude/agents/limited.md'), '---\nname: limited\ndescription: d\ntools: Raed\n---\n');
      one(await limited.diagnostics(uri, (d) => d.length > 0), 'unknown-tool');
      const asked = limited.configurationRequests;
      limited.configurationError = 'client busy';
      await limited.changeSettings({ maxDepth: 3 });
      while (limited.configurationRequests === asked) await delay(20);
      limited.configurationError = null;
      await limited.replace(uri, '---\nname: limited\ndescription: d\ntools: Grpe\n---\n');
      assert.match(message(one(await limited.diagnostics(uri, (d) => d.length > 0), 'unknown-tool')), /Grpe/);
      assert.ok(limited.alive, `the server exited:\n${limited.serverErrors}`);
    } finally {
      await limited.stop();
    }
  });

  it('team files: problems on their fields, unknown lead and member agents, completion of agent names and isolation', async () => {
    const file = path.join(ws.root, '.subagents/teams/crew.md');
    const text = [
      '---', //                                 0
      'name: crew', //                          1
      'lead: lead', //                          2
      'colour: red', //                         3
      'members:', //                            4
      '  - name: a', //                         5
      '    agent: wroker', //                   6
      '  - name: b', //                         7
      '    agent: reviewer', //                 8
      '    isolation: ', //                     9
      '---', //                                 10
      'Brief.', //                              11
      '',
    ].join('\n');
    const uri = await client.open(file, text);
    const diagnostics = await client.diagnostics(uri, (d) => d.length >= 2);
    const unknown = diagnostics.find((d) => message(d).includes('wroker'))!;
    assert.equal(message(unknown), 'No agent "wroker" is defined here; did you mean "worker"? The team cannot run until it is.');
    assert.deepEqual(rangeOf(unknown), [6, 11, 6, 17]);
    const field = diagnostics.find((d) => message(d).startsWith('Unknown field "colour"'))!;
    assert.deepEqual(rangeOf(field), [3, 0, 3, 6]);
    assert.equal(diagnostics.length, 2, JSON.stringify(diagnostics.map(message)));

    const agentNames = (await client.completion(uri, 6, 17)).map((c) => c.label);
    assert.ok(agentNames.includes('worker') && agentNames.includes('reviewer'), agentNames.join(', '));
    assert.deepEqual((await client.completion(uri, 9, 15)).map((c) => c.label), ['worktree', 'none']);
    assert.ok((await client.completion(uri, 2, 10)).some((c) => c.label === 'lead'));

    await client.replace(uri, text.replace('agent: wroker', 'agent: worker').replace('colour: red\n', ''));
    assert.deepEqual(await client.diagnostics(uri, (d) => d.length === 0), []);
  });
});
