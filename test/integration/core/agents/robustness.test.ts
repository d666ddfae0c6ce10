import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { discoverAgents, type DiscoveryOptions } from '../../../../src/core/agents/catalog/discovery';
import { agentText, tempDir, writeAgent, writeFile } from './helpers';

// One bad file (or dir) never stops discovery of the others,
// and nothing found on disk makes discovery throw or hang.

const repoRoot = path.join(import.meta.dirname, '../../../..');

/** Agent names without their plugin (the bad dirs here are plugin roots, whose agents are `plugin:agent`). */
function names(agents: readonly { name: string }[]): string[] {
  return agents.map((a) => a.name.slice(a.name.indexOf(':') + 1));
}

function options(dir: string, extra: Partial<DiscoveryOptions> = {}): DiscoveryOptions {
  // The bad dir is a configured plugin root: no project/user dirs involved.
  return { cwd: dir, home: path.join(dir, 'no-home'), pluginDirs: [dir], loadClaudePlugins: false, bundledDir: null, ...extra };
}

test('bad files are skipped with a warning each; good ones next to them load', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, 'agents');
  writeAgent(agents, 'good.md', 'good');
  writeFile(path.join(agents, 'no-name.md'), '---\ndescription: d\n---\nx');
  writeFile(path.join(agents, 'no-description.md'), '---\nname: nd\n---\nx');
  writeFile(path.join(agents, 'bad-yaml.md'), '---\nname: fallback\ndescription: Use it: often\ntools: [Read\n---\nx');
  writeFile(path.join(agents, 'broken-yaml-no-fields.md'), '---\n{{{: [\n---\nx');
  writeFile(path.join(agents, 'binary.md'), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01, 0x02, 0xff]));
  writeFile(path.join(agents, 'empty.md'), '');
  const result = await discoverAgents(options(dir));
  assert.deepEqual(names(result.agents).sort(), ['fallback', 'good']);
  const byFile = (name: string) => result.warnings.filter((w) => w.filePath === path.join(agents, name)).map((w) => w.message);
  assert.match(byFile('no-name.md').join(), /skipped no-name\.md: it has no "name"/);
  assert.match(byFile('no-description.md').join(), /skipped no-description\.md: it has no "description"/);
  assert.match(byFile('bad-yaml.md').join(), /invalid YAML frontmatter/);
  assert.match(byFile('broken-yaml-no-fields.md').join(), /invalid YAML.*skipped broken-yaml-no-fields\.md/s);
  assert.match(byFile('binary.md').join(), /skipped binary\.md: it is a binary file/);
  assert.match(byFile('empty.md').join(), /skipped empty\.md/);
});

test('a file whose parse throws is skipped with a warning naming it; discovery goes on', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, 'agents');
  writeAgent(agents, 'a.md', 'a');
  const cursed = writeAgent(agents, 'cursed.md', 'cursed');
  writeAgent(agents, 'z.md', 'z');
  // Stands in for any parser bug: the hook runs where the parse does.
  const onParse = (filePath: string) => {
    if (filePath === cursed) throw new RangeError('Maximum call stack size exceeded');
  };
  const result = await discoverAgents(options(dir, { hooks: { onParse } }));
  assert.deepEqual(names(result.agents), ['a', 'z']);
  assert.deepEqual(
    result.warnings.map((w) => [w.filePath, w.message]),
    [[cursed, 'skipped cursed.md: reading it failed unexpectedly (RangeError: Maximum call stack size exceeded); please report this with the file']],
  );
});

test('an oh-my-pi agent whose output schema nests 6,000 levels deep loads without it, next to the good ones', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, '.omp', 'agents');
  writeAgent(agents, 'good.md', 'good');
  const json = '{"elements":'.repeat(6000) + '{}' + '}'.repeat(6000);
  const deep = writeFile(path.join(agents, 'deep.md'), `---\nname: deep\ndescription: d\noutput: '${json}'\n---\nbody\n`);
  const result = await discoverAgents({ cwd: dir, home: path.join(dir, 'no-home'), pluginDirs: [], loadClaudePlugins: false, bundledDir: null });
  assert.deepEqual(result.agents.map((a) => [a.name, a.output]).sort(), [['deep', null], ['good', null]]);
  assert.deepEqual(result.warnings.map((w) => [w.filePath, w.message]), [[deep, '"output" is ignored: it nests more than 64 levels deep']]);
});

test('files over the size cap are skipped with a warning, 1 MiB by default', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, 'agents');
  writeFile(path.join(agents, 'huge.md'), agentText('huge', '', 'x'.repeat(1024 * 1024 + 10)));
  writeFile(path.join(agents, 'small.md'), agentText('small', '', 'x'.repeat(2000)));
  const byDefault = await discoverAgents(options(dir));
  assert.deepEqual(names(byDefault.agents), ['small']);
  assert.match(byDefault.warnings.map((w) => w.message).join(), /skipped huge\.md: it is 1\.0 MiB, over the 1\.0 MiB limit/);
  const tight = await discoverAgents(options(dir, { maxFileBytes: 1000 }));
  assert.deepEqual(tight.agents, []);
  assert.equal(tight.warnings.length, 2);
});

test('the size cap exactly: a file of 1 MiB is read, one byte more is skipped', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, 'agents');
  const sized = (name: string, bytes: number) => {
    const head = agentText(name, '', '');
    return `${head}${'x'.repeat(bytes - Buffer.byteLength(head))}`;
  };
  writeFile(path.join(agents, 'exact.md'), sized('exact', 1024 * 1024));
  writeFile(path.join(agents, 'over.md'), sized('over', 1024 * 1024 + 1));
  const result = await discoverAgents(options(dir));
  assert.deepEqual(names(result.agents), ['exact']);
  assert.deepEqual(result.warnings.map((w) => path.basename(w.filePath)), ['over.md']);
});

test('symlink loops neither hang nor duplicate files; dangling links are ignored', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, 'agents');
  writeAgent(agents, 'sub/a.md', 'a');
  symlinkSync('..', path.join(agents, 'sub/loop'));
  symlinkSync(agents, path.join(agents, 'self'));
  symlinkSync('ping', path.join(agents, 'pong.md'));
  symlinkSync('pong.md', path.join(agents, 'ping'));
  symlinkSync(path.join(dir, 'missing.md'), path.join(agents, 'dangling.md'));
  const started = Date.now();
  const result = await discoverAgents(options(dir));
  assert.ok(Date.now() - started < 5000);
  assert.deepEqual(result.agents.map((a) => a.filePath), [path.join(agents, 'sub/a.md')]);
  assert.deepEqual(result.shadowed, []);
});

test('a file deleted between listing and reading is skipped without fuss', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, 'agents');
  writeAgent(agents, 'a.md', 'a');
  const doomed = writeAgent(agents, 'b.md', 'b');
  writeAgent(agents, 'c.md', 'c');
  const result = await discoverAgents(
    options(dir, {
      hooks: {
        beforeRead: (filePath) => {
          if (filePath === doomed) unlinkSync(doomed);
        },
      },
    }),
  );
  assert.deepEqual(names(result.agents), ['a', 'c']);
  assert.deepEqual(result.warnings, []);
});

test('a file replaced by a folder or a FIFO between listing and reading is skipped without fuss', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, 'agents');
  writeAgent(agents, 'a.md', 'a');
  const toFolder = writeAgent(agents, 'b.md', 'b');
  const toFifo = writeAgent(agents, 'c.md', 'c');
  writeAgent(agents, 'd.md', 'd');
  const result = await discoverAgents(
    options(dir, {
      hooks: {
        beforeRead: (filePath) => {
          if (filePath === toFolder) {
            unlinkSync(toFolder);
            mkdirSync(toFolder);
          }
          if (filePath === toFifo) {
            unlinkSync(toFifo);
            if (spawnSync('mkfifo', [toFifo]).status !== 0) writeFileSync(toFifo, '');
          }
        },
      },
    }),
  );
  assert.deepEqual(names(result.agents), ['a', 'd']);
  // An empty file where mkfifo is missing is an agent file without frontmatter, and says so.
  assert.deepEqual(result.warnings.filter((w) => w.filePath !== toFifo), []);
});

test('a FIFO named like an agent file does not block discovery', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, 'agents');
  writeAgent(agents, 'a.md', 'a');
  const made = spawnSync('mkfifo', [path.join(agents, 'pipe.md')]);
  if (made.status !== 0) return t.skip('mkfifo is not available here');
  // Also through a symlink, which listing resolves with stat.
  symlinkSync(path.join(agents, 'pipe.md'), path.join(agents, 'link-to-pipe.md'));
  const result = await discoverAgents(options(dir));
  assert.deepEqual(names(result.agents), ['a']);
});

test('missing dirs, and agent "dirs" that are files, are empty; a configured plugin folder that is missing is named', async (t) => {
  const dir = tempDir(t);
  writeFile(path.join(dir, 'file-root', 'agents'), 'not a dir');
  const result = await discoverAgents({
    cwd: path.join(dir, 'does', 'not', 'exist'),
    home: path.join(dir, 'nowhere'),
    pluginDirs: [path.join(dir, 'missing-plugin'), path.join(dir, 'file-root')],
    bundledDir: path.join(dir, 'missing-bundled'),
    loadClaudePlugins: true,
  });
  assert.deepEqual(result.agents.filter((a) => a.filePath.startsWith(dir)), []);
  // A plugin folder without agents/ (or with a file there) is a plugin with no agents; one that is not there at all is a mistake to name.
  const missing = path.join(dir, 'missing-plugin');
  assert.deepEqual(result.warnings.filter((w) => w.filePath.startsWith(dir)), [
    { filePath: missing, message: `plugin folder ${missing} does not exist (or is not a folder); no agents are loaded from it` },
  ]);
});

test('an unreadable dir is empty and the readable ones still load', async (t) => {
  const dir = tempDir(t);
  const locked = path.join(dir, 'locked');
  writeAgent(locked, 'agents/hidden.md', 'hidden');
  writeAgent(locked, 'agents/sub/deeper.md', 'deeper');
  writeAgent(dir, 'open/agents/visible.md', 'visible');
  const opts = { cwd: dir, home: path.join(dir, 'no-home'), pluginDirs: [locked, path.join(dir, 'open')], loadClaudePlugins: false, bundledDir: null };
  chmodSync(path.join(locked, 'agents'), 0o000);
  try {
    await checkUnreadable(t, dir, locked, opts);
  } finally {
    // Before the temp dir is removed: a non-root user cannot delete inside it otherwise.
    chmodSync(path.join(locked, 'agents'), 0o755);
  }
});

async function checkUnreadable(t: TestContext, dir: string, locked: string, opts: DiscoveryOptions): Promise<void> {
  if (process.getuid?.() !== 0) {
    const result = await discoverAgents(opts);
    assert.deepEqual(names(result.agents), ['visible']);
    return;
  }
  // As root, permission bits do not stop reads. Run the same discovery as an
  // unprivileged user in a child process, where they do.
  let readable = true;
  try {
    readdirSync(path.join(locked, 'agents'));
  } catch {
    readable = false;
  }
  assert.equal(readable, true, 'root reads through chmod 000, hence the child process');
  chmodSync(dir, 0o755);
  // The child needs to run this Node and read the sources as that user: not
  // possible when the checkout lives under a folder only root may enter
  // (a root user's clone in /root or a mktemp -d folder).
  const probe = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(path.join(repoRoot, 'package.json'))})`], { uid: 65534, gid: 65534, encoding: 'utf8', timeout: 20000 });
  if (probe.status !== 0) {
    const why = probe.error?.message ?? (probe.stderr.trim().split('\n')[0] || `exit ${probe.status ?? probe.signal}`);
    return t.skip(`an unprivileged user (uid 65534) cannot run ${process.execPath} or read ${repoRoot} here (${why}), so unreadable dirs cannot be tested as root`);
  }
  const script = `
    const { discoverAgents } = require(${JSON.stringify(path.join(repoRoot, 'src/core/agents/catalog/discovery.ts'))});
    discoverAgents(${JSON.stringify(opts)}).then((r) => process.stdout.write(JSON.stringify(r.agents.map((a) => a.name.slice(a.name.indexOf(":") + 1)))));
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: repoRoot, uid: 65534, gid: 65534, encoding: 'utf8', timeout: 20000 });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), ['visible']);
}

test('nothing in a hostile tree makes discovery throw', async (t) => {
  const dir = tempDir(t);
  const agents = path.join(dir, 'agents');
  mkdirSync(agents, { recursive: true });
  writeFileSync(path.join(agents, 'crlf.md'), '---\r\nname: crlf\r\ndescription: d\r\n---\r\nbody\r\n');
  writeFileSync(path.join(agents, 'bom.md'), `\uFEFF${agentText('bom')}`);
  writeFileSync(path.join(agents, 'latin1.md'), Buffer.from('---\nname: latin\ndescription: caf\xe9\n---\n', 'latin1'));
  writeFileSync(path.join(agents, 'proto.md'), '---\nname: proto\ndescription: d\n__proto__: {polluted: true}\nconstructor: x\n---\n');
  writeFileSync(path.join(agents, 'deep.md'), `---\nname: deep\ndescription: d\nextra: ${'['.repeat(2000)}\n---\n`);
  mkdirSync(path.join(agents, 'dir.md'));
  const result = await discoverAgents(options(dir));
  assert.deepEqual(names(result.agents).sort(), ['bom', 'crlf', 'deep', 'latin', 'proto']);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  rmSync(agents, { recursive: true });
});
