// The language server on the files of the formats read by readers of their
// own: each reader warning put on the text it is about (a mode of a modes
// file, an item of a Kiro tools list, a Qwen tool name), completion of each
// format's keys and values, hover on its names; JSON and YAML files of agent
// objects as well as Markdown. Spoken to over stdio, as an editor does.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Diagnostic, MarkupContent } from 'vscode-languageserver-protocol/node';
import { LspClient } from '../../support/lspClient';

const text = (d: Diagnostic) => (typeof d.message === 'string' ? d.message : d.message.value);
const lineOf = (d: Diagnostic) => d.range.start.line;
const slice = (source: string, d: Diagnostic) => {
  const lines = source.split('\n');
  return lines[d.range.start.line]!.slice(d.range.start.character, d.range.start.line === d.range.end.line ? d.range.end.character : undefined);
};

describe('the language server on the formats with readers of their own', () => {
  let root: string;
  let home: string;
  let client: LspClient;

  before(async () => {
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'subagents-lsp-formats-')));
    home = path.join(root, 'home');
    mkdirSync(home, { recursive: true });
    mkdirSync(path.join(root, '.git'));
    writeFileSync(path.join(root, 'README.md'), '# A project\n');
    client = await LspClient.start({ folders: [root], home, settings: {} });
  });
  after(async () => {
    await client?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('a .roomodes: an invalid mode is an error on its slug, an unknown key a warning on the key; the valid mode is left alone', async () => {
    const source = [
      'customModes:', //                      0
      '  - slug: docs', //                    1
      '    name: Docs', //                    2
      '    roleDefinition: You write docs.', // 3
      '    groups: [read, edit]', //          4
      '    colour: blue', //                  5
      '  - slug: broken', //                  6
      '    name: Broken', //                  7
      '    roleDefinition: x', //             8
      '    groups: [read, browserish]', //    9
      '',
    ].join('\n');
    const uri = await client.open(path.join(root, '.roomodes'), source);
    const diagnostics = await client.diagnostics(uri, (d) => d.length >= 2);
    const broken = diagnostics.find((d) => text(d).startsWith('mode "broken"'))!;
    assert.ok(broken, JSON.stringify(diagnostics.map(text)));
    assert.equal(broken.severity, 1);
    assert.equal(slice(source, broken), 'browserish');
    const colour = diagnostics.find((d) => /docs\.colour/.test(text(d)))!;
    assert.equal(colour.severity, 2);
    assert.deepEqual([lineOf(colour), slice(source, colour)], [5, 'colour']);
    assert.ok(diagnostics.every((d) => lineOf(d) !== 1), 'nothing on the valid mode');
  });

  it('completes a mode\'s keys and tool groups, and hovers a group with the tools it gives', async () => {
    const source = 'customModes:\n  - slug: helper\n    name: Helper\n    roleDefinition: Helps.\n    groups: [read, ]\n    \n';
    const uri = await client.open(path.join(root, '.kilocodemodes'), source);
    const groups = (await client.completion(uri, 4, 19)).map((i) => i.label);
    assert.deepEqual(groups.sort(), ['command', 'edit', 'mcp', 'modes', 'read']);
    const keys = (await client.completion(uri, 5, 4)).map((i) => i.label);
    assert.ok(keys.includes('whenToUse') && keys.includes('customInstructions') && !keys.includes('slug'), keys.join(', '));
    const hover = await client.hover(uri, 4, 14);
    assert.match((hover?.contents as MarkupContent).value, /`read` runs here as `Read` and `Grep` and `Glob` and `LS`/);
  });

  it('a Kiro JSON agent: an unknown key is the reason it does not load; tool names and @server complete and hover', async () => {
    const file = path.join(root, '.kiro/agents/ops.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const bad = '{\n  "name": "ops",\n  "instructions": "nope",\n  "tools": ["read"]\n}\n';
    const uri = await client.open(file, bad);
    const refused = await client.diagnostics(uri, (d) => d.length > 0);
    assert.match(text(refused[0]!), /Not loaded: it has a key Kiro does not know \("instructions"\)/);
    const good = '{\n  "name": "ops",\n  "description": "Ops.",\n  \n  "tools": ["read", "aws", "shell"]\n}\n';
    await client.replace(uri, good);
    const diagnostics = await client.diagnostics(uri, (d) => d.some((x) => /"aws"/.test(text(x))));
    const aws = diagnostics.find((d) => /"aws"/.test(text(d)))!;
    assert.equal(slice(good, aws), 'aws');
    const keys = (await client.completion(uri, 3, 2)).map((i) => i.label);
    assert.ok(keys.includes('allowedTools') && keys.includes('toolsSettings') && !keys.includes('tools'), keys.join(', '));
    const tools = (await client.completion(uri, 4, 13)).map((i) => i.label);
    assert.ok(tools.includes('@builtin') && tools.includes('use_subagent') && tools.includes('read'), tools.join(', '));
    const hover = await client.hover(uri, 4, 29);
    assert.match((hover?.contents as MarkupContent).value, /`shell` runs here as `Bash`/);
  });

  it('a Qwen agent: a Claude Code tool name is flagged where it is written, naming the Qwen spelling; Cursor\'s keys complete', async () => {
    const qwen = path.join(root, '.qwen/agents/tester.md');
    mkdirSync(path.dirname(qwen), { recursive: true });
    const source = '---\nname: tester\ndescription: Tests.\ntools: [read_file, Bash]\n---\nYou write tests that fail first.\n';
    const uri = await client.open(qwen, source);
    const diagnostics = await client.diagnostics(uri, (d) => d.length > 0);
    assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics.map(text)));
    assert.equal(slice(source, diagnostics[0]!), 'Bash');
    assert.match(text(diagnostics[0]!), /"run_shell_command" or "Shell" is/);

    const cursor = path.join(root, '.cursor/agents/looker.md');
    mkdirSync(path.dirname(cursor), { recursive: true });
    const cursorUri = await client.open(cursor, '---\nname: looker\n\n---\nLook.\n');
    const keys = (await client.completion(cursorUri, 2, 0)).map((i) => i.label);
    assert.deepEqual(keys.sort(), ['description', 'is_background', 'model', 'readonly']);
    const values = (await client.completion(cursorUri, 1, 0)).map((i) => i.label);
    assert.ok(values.length > 0);
  });

  it('an opencode.json: an agent opencode refuses is an error on its name, the others are left alone', async () => {
    const source = '{\n  "agent": {\n    "review": { "description": "Reviews." },\n    "broken": { "steps": "many" }\n  }\n}\n';
    const uri = await client.open(path.join(root, 'opencode.json'), source);
    const diagnostics = await client.diagnostics(uri, (d) => d.length > 0);
    assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics.map(text)));
    assert.equal(slice(source, diagnostics[0]!), 'broken');
    assert.match(text(diagnostics[0]!), /agent "broken" is not loaded: opencode refuses it: "steps" must be a whole number above 0/);
  });
});
