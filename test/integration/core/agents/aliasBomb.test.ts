import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { discoverAgents } from '../../../../src/core/agents/catalog/discovery';
import { MAX_YAML_VALUES } from '../../../../src/core/agents/parsing/frontmatter';
import { agentText, tempDir, writeAgent, writeFile } from './helpers';

// A YAML alias bomb ("billion laughs") in any field the
// parser reads must cost one warning naming the file, not the process. Each
// alias level multiplies the values by 9; the parser itself shares anchored
// values, so the danger is every later walk of the value (joining a list,
// quoting it in a warning).

const FIELDS = ['tools', 'spawns', 'disallowedTools', 'maxTurns', 'permissionMode', 'background', 'model', 'handoffs', 'output'] as const;

/** A bomb of `levels` levels of 9 aliases each under `field`; `pad` bytes of padding make the 100 KB variant. */
function bomb(name: string, field: string, levels: number, pad = 0): string {
  const lines = [`name: ${name}`, 'description: An alias bomb.', `l0: &l0 ["${'lol'.repeat(1 + Math.floor(pad / 40))}", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]`];
  for (let i = 1; i < levels; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(', ')}]`);
  lines.push(`${field}: *l${levels - 1}`);
  let text = `---\n${lines.join('\n')}\n---\nBoom.\n`;
  // Padding as a YAML comment inside the frontmatter: the file grows, the values do not.
  if (pad > text.length) text = text.replace('---\n', `---\n# ${'x'.repeat(pad - text.length)}\n`);
  return text;
}

test('an alias bomb in any field is one warning naming its file, and every other agent loads', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, '.claude', 'agents');
  writeAgent(agents, 'good-before.md', 'good-before', 'tools: Read, Grep');
  writeAgent(agents, 'zz-good-after.md', 'good-after', 'model: haiku');
  // A legitimate file with a few anchors still loads.
  writeFile(path.join(agents, 'anchored.md'), agentText('anchored', 'base: &base [Read, Grep]\ntools: *base\ndisallowedTools: *base'));
  for (const field of FIELDS) {
    const small = bomb(`bomb-${field}`, field, 9);
    assert.ok(small.length < 1024, `${field}: the small bomb is ${small.length} bytes`);
    writeFile(path.join(agents, `bomb-${field}.md`), small);
    const large = bomb(`big-${field}`, field, 12, 100 * 1024);
    assert.ok(large.length >= 100 * 1024 && large.length < 110 * 1024, `${field}: the large bomb is ${large.length} bytes`);
    writeFile(path.join(agents, `big-${field}.md`), large);
  }

  const result = await discoverAgents({ cwd: dir, home: path.join(dir, 'home'), loadClaudePlugins: false, bundledDir: null });
  assert.deepEqual(result.agents.map((a) => a.name).sort(), ['anchored', 'good-after', 'good-before']);
  assert.deepEqual(result.agents.find((a) => a.name === 'anchored')?.tools, ['Read', 'Grep']);
  for (const field of FIELDS) {
    for (const file of [`bomb-${field}.md`, `big-${field}.md`]) {
      const warnings = result.warnings.filter((w) => w.filePath === path.join(agents, file));
      assert.equal(warnings.length, 1, `${file}: ${JSON.stringify(warnings)}`);
      assert.match(warnings[0]!.message, new RegExp(`^skipped ${file.replace('.', '\\.')}: its YAML expands to more than ${MAX_YAML_VALUES.toLocaleString('en-US')} values through aliases`));
      // What a warning quotes is bounded, whatever the file holds.
      assert.ok(warnings[0]!.message.length < 300, file);
    }
  }
});

test('discovery of alias bombs stays within bounded memory and time in a real process', (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, '.claude', 'agents');
  writeAgent(agents, 'good.md', 'good');
  for (const field of FIELDS) writeFile(path.join(agents, `bomb-${field}.md`), bomb(`bomb-${field}`, field, 12, 100 * 1024));
  const script = `
    const { discoverAgents } = require(${JSON.stringify(path.join(import.meta.dirname, '../../../../src/core/agents/catalog/discovery.ts'))});
    discoverAgents({ cwd: ${JSON.stringify(dir)}, home: ${JSON.stringify(path.join(dir, 'home'))}, loadClaudePlugins: false, bundledDir: null })
      .then((r) => process.stdout.write(JSON.stringify({ agents: r.agents.map((a) => a.name), warnings: r.warnings.length })));`;
  // A small heap and a deadline far above the real cost (milliseconds): before
  // the budget, the first bomb grew the heap past gigabytes and ran for minutes.
  const child = spawnSync(process.execPath, ['--max-old-space-size=128', '--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(child.status, 0, `${child.signal ?? ''} ${child.stderr.slice(-2000)}`);
  assert.deepEqual(JSON.parse(child.stdout), { agents: ['good'], warnings: FIELDS.length });
});
