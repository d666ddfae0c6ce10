import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { askTrust, rememberTrustedProject } from '../../../../src/cli/trust';
import { findProjectCode, trustRoot, untrustedCode } from '../../../../src/core/trustProbes/projectCode';
import { TRUST_NOTHING, TrustedFolders, trustWhen } from '../../../../src/core/trust/projectTrust';
import { emptySpec } from '../../../../src/core/agents/mcpServers/spec';
import { agent } from '../../../support/agents';

async function tempDir(t: { after(fn: () => Promise<void>): void }): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-trust-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

test('trusted folders cover what lies below them, through symlinks, and nothing beside them', async (t) => {
  const root = await tempDir(t);
  await mkdir(path.join(root, 'work', 'acme', 'src'), { recursive: true });
  await mkdir(path.join(root, 'work-other'), { recursive: true });
  await symlink(path.join(root, 'work'), path.join(root, 'link'));
  const trust = new TrustedFolders([path.join(root, 'link')]);
  assert.equal(trust.isTrusted(path.join(root, 'work')), true, 'the folder itself');
  assert.equal(trust.isTrusted(path.join(root, 'work', 'acme', 'src')), true, 'below it');
  assert.equal(trust.isTrusted(path.join(root, 'work-other')), false, 'a name that starts the same is not below it');
  assert.equal(trust.isTrusted(root), false, 'nor its parent');
  trust.add(root);
  assert.equal(trust.isTrusted(path.join(root, 'work-other')), true);
  assert.equal(TRUST_NOTHING.isTrusted(root), false);
  let flag = false;
  const flagged = trustWhen(() => flag);
  assert.equal(flagged.isTrusted(root), false);
  flag = true;
  assert.equal(flagged.isTrusted(root), true, 'asked at each use');
});

test('project code: the hook files that would run, from the nearest project folder up, never the home', async (t) => {
  const root = await tempDir(t);
  const home = path.join(root, 'home');
  const project = path.join(home, 'code', 'acme');
  await mkdir(path.join(project, '.claude'), { recursive: true });
  await mkdir(path.join(home, '.claude'), { recursive: true });
  await mkdir(path.join(project, 'src'), { recursive: true });
  const hook = (command: string) => ({ hooks: [{ type: 'command', command }] });
  await writeFile(path.join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: { SubagentStart: [hook('user')] } }));
  await writeFile(path.join(project, '.claude', 'settings.json'), JSON.stringify({ hooks: { SubagentStart: [hook('a')], SubagentStop: [hook('b')], PreToolUse: [hook('c')] } }));
  await writeFile(path.join(project, '.claude', 'settings.local.json'), JSON.stringify({ permissions: {} }));
  const code = await findProjectCode(path.join(project, 'src'), home);
  assert.deepEqual(code, [{ kind: 'hooks', folder: project, file: path.join(project, '.claude', 'settings.json'), what: '2 hook commands' }]);
  assert.equal(trustRoot(code), project);
  assert.deepEqual(untrustedCode(code, new TrustedFolders([path.join(home, 'code')])), []);
  assert.deepEqual(await findProjectCode(path.join(home, 'elsewhere'), home), [], 'the user file is not project code');
  const outer = { kind: 'settings' as const, folder: path.dirname(project), file: 'x', what: 'settings maxTurns' };
  assert.equal(trustRoot([...code, outer]), path.dirname(project), 'the outermost folder covers the others');
});

test('project code: the MCP servers of the agents a command found already are taken from them, not read again', async (t) => {
  const root = await tempDir(t);
  const home = path.join(root, 'home');
  const project = path.join(root, 'acme');
  await mkdir(path.join(project, '.claude', 'agents'), { recursive: true });
  await mkdir(home);
  // On disk an agent without servers; the command's catalog has it with one (as after an edit discovery saw).
  await writeFile(path.join(project, '.claude', 'agents', 'db.md'), '---\nname: db\ndescription: Reads the database\n---\nYou query.\n');
  const file = path.join(project, '.claude', 'agents', 'db.md');
  const declared = agent('db', { source: 'project', filePath: file, mcp: [{ name: 'pg', spec: { ...emptySpec('claude'), command: 'pg-mcp' } }] });
  const user = agent('mine', { source: 'user', filePath: path.join(home, '.claude', 'agents', 'mine.md'), mcp: [{ name: 'other', spec: { ...emptySpec('claude'), command: 'x' } }] });
  let asked = 0;
  const code = await findProjectCode(project, home, undefined, {
    agents: async () => {
      asked++;
      return [declared, user];
    },
  });
  assert.equal(asked, 1);
  assert.deepEqual(code, [{ kind: 'mcpServers', folder: project, file, what: 'MCP server "pg"' }], "the catalog's agents, project agents only");
  assert.deepEqual(await findProjectCode(project, home), [], 'without them the probe reads the files itself');
});

test('the trust question: names the folder and what would run; only a yes trusts', async () => {
  const ask = async (answer: string) => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (d: Buffer) => (shown += d.toString()));
    const pending = askTrust(input, output, '/p/acme', [{ kind: 'hooks', folder: '/p/acme', file: '/p/acme/.claude/settings.json', what: '2 hook commands' }], '/c/settings.json');
    input.write(answer);
    return { yes: await pending, shown };
  };
  const yes = await ask('y\n');
  assert.equal(yes.yes, true);
  assert.match(yes.shown, /Do you trust the files in this folder\?\n\n {2}\/p\/acme\n/);
  assert.match(yes.shown, /2 hook commands \(\/p\/acme\/\.claude\/settings\.json\)/);
  assert.match(yes.shown, /A yes is remembered in \/c\/settings\.json \("trustedProjects"\)\. \[y\]es \/ \[N\]o: /);
  assert.equal((await ask('\n')).yes, false, 'Enter alone is no');
  assert.equal((await ask('nope\n')).yes, false);
});

test('a yes is written through a symlinked settings file (dotfiles): the link stays, its target changes, and a later edit of the target still counts', async (t) => {
  const root = await tempDir(t);
  const real = path.join(root, 'dotfiles', 'subagents.json');
  const file = path.join(root, 'config', 'settings.json');
  await mkdir(path.dirname(real), { recursive: true });
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(real, '{ "maxTurns": 5 }\n');
  await chmod(real, 0o644);
  await symlink(path.relative(path.dirname(file), real), file);
  await rememberTrustedProject(file, '/p/one');
  assert.equal((await lstat(file)).isSymbolicLink(), true, 'the link is still a link');
  assert.deepEqual(JSON.parse(await readFile(real, 'utf8')), { maxTurns: 5, trustedProjects: ['/p/one'] });
  assert.equal((await stat(real)).mode & 0o777, 0o644, 'the target keeps its permissions');
  // Revoking trust in the real file applies: the link still reads it.
  await writeFile(real, '{ "maxTurns": 5 }\n');
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { maxTurns: 5 });
  assert.deepEqual((await readdir(path.dirname(file))).sort(), ['settings.json'], 'no temp file left beside the link');
});

test('a yes is remembered in the user settings file, keeping its comments, once; a missing file is created', async (t) => {
  const root = await tempDir(t);
  const file = path.join(root, 'config', 'settings.json');
  await rememberTrustedProject(file, '/p/one');
  assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { trustedProjects: ['/p/one'] });
  await writeFile(file, '// mine\n{\n  "maxTurns": 5, // keep\n  "trustedProjects": ["/p/one"],\n}\n');
  await rememberTrustedProject(file, '/p/two');
  await rememberTrustedProject(file, '/p/two');
  const text = await readFile(file, 'utf8');
  assert.match(text, /^\/\/ mine\n/);
  assert.match(text, /"maxTurns": 5, \/\/ keep/);
  assert.equal(text.match(/\/p\/two/g)?.length, 1, 'added once');
  assert.match(text, /"\/p\/one",\s*"\/p\/two"/);
});
