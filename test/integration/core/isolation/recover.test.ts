import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { WorktreeManager, type WorktreeRecord } from '../../../../src/core/isolation';
import { recordFileName } from '../../../../src/core/isolation/names';
import { branchExists, makeSandbox, type Sandbox } from './helpers';

const CHILD = path.join(import.meta.dirname, 'crashChild.ts');
const ROOT = path.join(import.meta.dirname, '../../../..');

/** Starts an agent in a separate process and SIGKILLs that process before finish. */
function crashAfterCreate(sb: Sandbox, agentId: string, work: 'none' | 'change' | 'commit'): Promise<WorktreeRecord> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, sb.stateDir, sb.worktreesRoot, sb.repo, agentId, work], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (!out.includes('\n')) return;
      const rec = JSON.parse(out.slice(0, out.indexOf('\n'))) as WorktreeRecord;
      child.once('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(rec) : reject(new Error(`child ended with ${signal}`))));
      child.kill('SIGKILL');
    });
    child.once('exit', (code) => {
      if (!out.includes('\n')) reject(new Error(`child exited (${code}) before creating its worktree: ${err}`));
    });
  });
}

describe('recover after a crash', () => {
  let sb: Sandbox;
  const recs: Record<string, WorktreeRecord> = {};
  before(async () => {
    sb = makeSandbox();
    const made = await Promise.all([
      crashAfterCreate(sb, 'crash-changed', 'change'),
      crashAfterCreate(sb, 'crash-unchanged', 'none'),
      crashAfterCreate(sb, 'crash-committed', 'commit'),
      crashAfterCreate(sb, 'crash-orphan-changed', 'change'),
      crashAfterCreate(sb, 'crash-orphan-unchanged', 'none'),
      crashAfterCreate(sb, 'crash-folder-deleted', 'none'),
      crashAfterCreate(sb, 'crash-half-created', 'none'),
    ]);
    for (const rec of made) recs[rec.agentId] = rec;
  });
  after(() => sb.cleanup());

  test('changed worktrees are kept (and committed), unchanged ones removed, the user tree untouched', async () => {
    const userBefore = sb.userState();
    // Records lost (e.g. a wiped state folder): recover must find these worktrees through git.
    rmSync(path.join(sb.stateDir, recordFileName('crash-orphan-changed')));
    rmSync(path.join(sb.stateDir, recordFileName('crash-orphan-unchanged')));
    // The user deleted one worktree folder by hand; its branch never got a commit.
    rmSync(recs['crash-folder-deleted']!.path, { recursive: true, force: true });
    // A crash in the middle of create: the record still says "creating".
    const half = path.join(sb.stateDir, recordFileName('crash-half-created'));
    writeFileSync(half, JSON.stringify({ ...recs['crash-half-created'], state: 'creating' }));
    // A record nobody can read.
    writeFileSync(path.join(sb.stateDir, 'garbage.json'), '{ not json');

    const logs: string[] = [];
    const fresh = new WorktreeManager({
      stateDir: sb.stateDir,
      worktreesRoot: sb.worktreesRoot,
      log: (level, msg) => logs.push(`${level}: ${msg}`),
    });
    const report = await fresh.recover();
    fresh.dispose();

    const kept = new Map(report.kept.map((r) => [r.branch, r]));
    const removed = new Set(report.removed.map((r) => r.branch));
    const changed = recs['crash-changed']!;
    const committed = recs['crash-committed']!;
    const orphanChanged = recs['crash-orphan-changed']!;
    assert.deepEqual([...kept.keys()].sort(), [changed.branch, committed.branch, orphanChanged.branch].sort());
    assert.deepEqual(
      [...removed].sort(),
      ['crash-unchanged', 'crash-orphan-unchanged', 'crash-folder-deleted', 'crash-half-created'].map((id) => recs[id]!.branch).sort(),
    );

    // Kept: the folder is still there, the work is committed on the branch, the info says so.
    for (const rec of [changed, committed, orphanChanged]) {
      const k = kept.get(rec.branch)!;
      assert.ok(existsSync(rec.path), `${rec.agentId} folder kept`);
      assert.equal(k.info.filesChanged, 1);
      assert.equal(k.state, 'finished');
      assert.equal(sb.git(['show', `${rec.branch}:crash-work.txt`]), `work of ${rec.agentId}\n`);
      assert.equal(sb.git(['status', '--porcelain'], rec.path), '');
    }
    assert.equal(kept.get(changed.branch)!.agentId, 'crash-changed');
    assert.match(sb.git(['log', '-1', '--format=%s', changed.branch]), /recovered after an interrupted run/);
    assert.equal(sb.git(['log', '-1', '--format=%s', committed.branch]), 'agent commit\n', 'nothing new to commit for it');
    assert.equal(kept.get(orphanChanged.branch)!.agentId, `recovered-${orphanChanged.branch.slice('subagents/'.length)}`);
    assert.equal(kept.get(orphanChanged.branch)!.baseCommit, orphanChanged.baseCommit, 'base found through the branch reflog');

    // Removed: no folder, no branch, no registration, no record.
    for (const id of ['crash-unchanged', 'crash-orphan-unchanged', 'crash-folder-deleted', 'crash-half-created']) {
      assert.equal(existsSync(recs[id]!.path), false, `${id} folder removed`);
      assert.equal(branchExists(sb, recs[id]!.branch), false, `${id} branch removed`);
      assert.equal(existsSync(path.join(sb.stateDir, recordFileName(id))), false, `${id} record removed`);
    }
    assert.equal(sb.git(['worktree', 'list']).trim().split('\n').length, 4, 'the main tree and the three kept ones');
    assert.ok(readdirSync(sb.stateDir).some((f) => f.startsWith('garbage.json.corrupt-')), 'unreadable record moved aside');
    assert.ok(logs.some((l) => l.startsWith('warn: A worktree record could not be read')));
    assert.deepEqual(sb.userState().status, userBefore.status);

    // A kept worktree is a normal finished one: review, apply, discard.
    const again = sb.manager();
    assert.match(await again.diff('crash-changed'), /\+work of crash-changed/);
    const outcome = await again.apply('crash-changed');
    assert.deepEqual([outcome.applied, outcome.conflicts], [true, []]);
    assert.equal(sb.read('crash-work.txt'), 'work of crash-changed\n');

    // A second recover finds nothing new to remove and lists the still-pending ones.
    const second = await again.recover();
    assert.deepEqual(second.removed, []);
    assert.deepEqual(second.kept.map((r) => r.branch).sort(), [committed.branch, orphanChanged.branch].sort());
  });
});

test('a worktree whose owner is still running is left alone', async () => {
  const sb = makeSandbox();
  try {
    const running = sb.manager();
    const rec = await running.create({ cwd: sb.repo, agentName: 'alive', agentId: 'alive-1' });
    const other = sb.manager();
    const report = await other.recover();
    assert.deepEqual([report.removed, report.kept], [[], []]);
    assert.ok(existsSync(rec.path));
    assert.equal(running.get('alive-1')?.state, 'active');
    assert.equal(await running.finish('alive-1'), null);
  } finally {
    sb.cleanup();
  }
});

test('a crash after the agent committed keeps the commit, also when its record was lost', async () => {
  const sb = makeSandbox();
  try {
    const rec = await crashAfterCreate(sb, 'crash-commit-lost', 'commit');
    const agentCommit = sb.git(['rev-parse', rec.branch]).trim();
    assert.notEqual(agentCommit, rec.baseCommit, 'the agent committed on its branch');
    // Records lost: only git knows the worktree, and only the branch's reflog where it started.
    rmSync(path.join(sb.stateDir, recordFileName('crash-commit-lost')));

    const fresh = sb.manager();
    const report = await fresh.recover();
    fresh.dispose();
    assert.deepEqual(report.removed, []);
    assert.deepEqual(report.kept.map((k) => [k.branch, k.baseCommit, k.info.filesChanged]), [[rec.branch, rec.baseCommit, 1]]);
    assert.equal(sb.git(['rev-parse', rec.branch]).trim(), agentCommit, 'nothing new committed over it');
    assert.equal(sb.git(['show', `${rec.branch}:crash-work.txt`]), 'work of crash-commit-lost\n');
    assert.ok(existsSync(rec.path), 'the worktree stays for review');
  } finally {
    sb.cleanup();
  }
});
