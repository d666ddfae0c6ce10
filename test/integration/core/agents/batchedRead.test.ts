import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { listAgentFiles } from '../../../../src/core/agents/sources/agentFiles';
import { discoverAgents, type DiscoveryOptions } from '../../../../src/core/agents/catalog/discovery';
import { parseAgentText } from '../../../../src/core/agents/parsing/parse';
import type { DiscoveryWarning } from '../../../../src/core/agents/definition';
import { layout, writeFile } from './helpers';
import { generateAgents } from '../../../support/generatedAgents';

// Discovery reads files in batches and decodes the ASCII ones together (one
// string per batch, sliced per file). Whatever the batching, every file must
// come out exactly as reading it alone with readFileSync(path, 'utf8') and
// parsing that text gives: checked here on a tree that spans several batches
// and holds every kind of file the reader treats differently.

function body(seed: number, bytes: number): string {
  const words = ['read', 'the', 'code', 'and', 'report', 'what', 'you', 'find', 'before', 'changing', 'anything'];
  let text = '';
  for (let i = 0; text.length < bytes; i++) text += `${words[(seed + i * 7) % words.length]}${i % 13 === 12 ? '.\n' : ' '}`;
  return text;
}

function agent(name: string, extra = '', text = body(name.length, 6000)): string {
  return `---\nname: ${name}\ndescription: "Use ${name} when asked: it reads and reports."\ntools: Read, Grep\n${extra}---\n\n${text}\n`;
}

/** What discovery must produce for one dir's files: each file read alone and parsed. */
function expectedFor(result: Awaited<ReturnType<typeof discoverAgents>>) {
  return Promise.all(
    result.dirs.map(async (dir) =>
      (await listAgentFiles(dir.path, dir.rules)).map((file) => {
        const text = readFileSync(file.filePath, 'utf8');
        return { file, parsed: text.includes('\0') ? null : parseAgentText(text, { filePath: file.filePath, source: dir.source, family: dir.family, pluginName: dir.pluginName ?? null }) };
      }),
    ),
  );
}

test('batched reading gives every file exactly the text readFileSync gives, across batches and dirs', async (t) => {
  const { root, home, cwd } = layout(t);
  const project = path.join(cwd, '.claude', 'agents');
  const user = path.join(home, '.claude', 'agents');
  const plugin = path.join(root, 'plugin');
  // ~2.4 MB of ASCII agents: several 1 MiB batches, one of them ending inside the user dir.
  for (let i = 0; i < 200; i++) writeFile(path.join(project, `team-${i % 3}`, `a${String(i).padStart(3, '0')}.md`), agent(`a${i}`));
  for (let i = 0; i < 200; i++) writeFile(path.join(user, `u${String(i).padStart(3, '0')}.md`), agent(`u${i}`));
  // Between them, files the reader does not batch or must keep apart.
  writeFile(path.join(project, 'm-latin1.md'), agent('latin1', 'color: "vert pâle"\n', `Réponds en français, s'il te plaît.\n${body(1, 3000)}`));
  writeFile(path.join(project, 'm-emoji.md'), agent('emoji', '', `Ship it 🚀 — quickly.\n${body(2, 3000)}`));
  writeFile(path.join(project, 'm-cjk.md'), agent('cjk', '', `日本語で答えてください。\n${body(3, 100)}`));
  writeFile(path.join(project, 'm-crlf.md'), agent('crlf', 'model: sonnet\n', `Line one.\nLine two.\n${body(4, 2000)}`).replace(/\n/g, '\r\n'));
  writeFile(path.join(project, 'm-bom.md'), `\uFEFF${agent('bom')}`);
  writeFile(path.join(project, 'm-invalid-utf8.md'), Buffer.concat([Buffer.from(agent('invalid-utf8')), Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82])]));
  writeFile(path.join(project, 'm-truncated-utf8.md'), Buffer.concat([Buffer.from(agent('truncated')), Buffer.from([0xe2, 0x82])]));
  writeFile(path.join(project, 'm-binary.md'), Buffer.concat([Buffer.from(agent('binary')), Buffer.from([0, 1, 2])]));
  // The bytes are checked per batch: two binary files and two CRLF files side by side, each NUL and CR found in its own file.
  writeFile(path.join(project, 'm-binary2.md'), Buffer.concat([Buffer.from([0]), Buffer.from(agent('binary2'))]));
  writeFile(path.join(project, 'm-crlf2.md'), agent('crlf2', '', `Only here.\n${body(6, 500)}`).replace(/\n/g, '\r\n'));
  writeFile(path.join(project, 'm-crlf3.md'), `${agent('crlf3', '', body(7, 500))}\r\n`);
  writeFile(path.join(project, 'm-empty.md'), '');
  writeFile(path.join(project, 'm-yaml-error.md'), agent('yaml-error').replace('description: "Use', 'description: Use').replace('reports."', 'reports: x'));
  // One file larger than a whole batch.
  writeFile(path.join(user, 'huge.md'), agent('huge', '', body(5, 1_500_000)));
  // Agent files in the shapes real ones have, after the user dir's huge file (its batch is its own).
  for (const agent of generateAgents().agents.filter((a) => a.format === 'claude-code')) writeFile(path.join(plugin, 'agents', path.basename(agent.path)), agent.text);

  const options: DiscoveryOptions = { cwd, home, pluginDirs: [plugin], loadClaudePlugins: false, bundledDir: null, maxFileBytes: 2 * 1024 * 1024 };
  const result = await discoverAgents(options);
  const expected = await expectedFor(result);

  const definitions = expected.flat().flatMap(({ parsed }) => (parsed?.definition ? [parsed.definition] : []));
  const seen = new Set<string>();
  const winners = definitions.filter((d) => (seen.has(d.name) ? false : (seen.add(d.name), true)));
  assert.deepStrictEqual(result.agents, winners);
  assert.ok(result.agents.length >= 509, `${result.agents.length} agents`);

  // Warnings per file: the parser's own, plus the reader's for the binary file.
  const byFile = new Map<string, string[]>();
  for (const w of result.warnings) byFile.set(w.filePath, [...(byFile.get(w.filePath) ?? []), w.message]);
  for (const { file, parsed } of expected.flat()) {
    const messages = byFile.get(file.filePath) ?? [];
    if (parsed) assert.deepStrictEqual(messages, parsed.warnings.map((w: DiscoveryWarning) => w.message), file.relPath);
    else assert.deepStrictEqual(messages, [`skipped ${path.basename(file.filePath)}: it is a binary file, not Markdown`]);
  }
  const crlf = result.agents.find((a) => a.name === 'crlf');
  assert.ok(crlf && !crlf.systemPrompt.includes('\r') && crlf.systemPrompt.startsWith('Line one.\nLine two.'));
  const crlf2 = result.agents.find((a) => a.name === 'crlf2');
  assert.ok(crlf2 && !crlf2.systemPrompt.includes('\r') && crlf2.systemPrompt.startsWith('Only here.\n'));
  assert.deepEqual(result.agents.filter((a) => a.name.startsWith('binary')), []);
  assert.ok(result.agents.find((a) => a.name === 'emoji')?.systemPrompt.startsWith('Ship it 🚀 — quickly.'));
  assert.ok(result.agents.find((a) => a.name === 'invalid-utf8')?.systemPrompt.endsWith('\uFFFD\uFFFD(\uFFFD'));
});

test('a file deleted between listing and reading inside a batch leaves its neighbours intact', async (t) => {
  const { home, cwd } = layout(t);
  const dir = path.join(cwd, '.claude', 'agents');
  for (let i = 0; i < 50; i++) writeFile(path.join(dir, `a${String(i).padStart(2, '0')}.md`), agent(`a${i}`));
  const doomed = new Set([path.join(dir, 'a10.md'), path.join(dir, 'a11.md'), path.join(dir, 'a49.md')]);
  const result = await discoverAgents({
    cwd,
    home,
    loadClaudePlugins: false,
    bundledDir: null,
    hooks: { beforeRead: (filePath) => (doomed.has(filePath) ? unlinkSync(filePath) : undefined) },
  });
  assert.equal(result.agents.length, 47);
  assert.deepEqual(result.warnings, []);
  for (const a of result.agents) assert.equal(a.systemPrompt, parseAgentText(agent(a.name), { filePath: a.filePath, source: 'project', family: '.claude' }).definition?.systemPrompt);
});

test('listing: dot-folders and dot-files are skipped, .md in any case is read, at most 8 levels deep', async (t) => {
  const { root } = layout(t);
  const dir = path.join(root, 'agents');
  writeFile(path.join(dir, 'a.md'), 'x');
  writeFile(path.join(dir, 'B.MD'), 'x');
  writeFile(path.join(dir, 'notes.txt'), 'x');
  writeFile(path.join(dir, '.hidden.md'), 'x');
  writeFile(path.join(dir, '.git', 'x.md'), 'x');
  let deep = dir;
  for (let level = 1; level <= 10; level++) {
    writeFile(path.join(deep, `level${level}.md`), 'x');
    deep = path.join(deep, `d${level}`);
  }
  const listed = (await listAgentFiles(dir)).map((f) => f.relPath);
  assert.deepEqual(listed, [
    'B.MD',
    'a.md',
    'd1/d2/d3/d4/d5/d6/d7/level8.md',
    'd1/d2/d3/d4/d5/d6/level7.md',
    'd1/d2/d3/d4/d5/level6.md',
    'd1/d2/d3/d4/level5.md',
    'd1/d2/d3/level4.md',
    'd1/d2/level3.md',
    'd1/level2.md',
    'level1.md',
  ]);
});
