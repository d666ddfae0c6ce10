/**
 * Worktree isolation overhead: WorktreeManager.create + finish (no changes)
 * against the plain git it wraps (`git worktree add -b` + `git worktree
 * remove --force` + `git branch -D`), on a committed repository of 20,000
 * small files. Runs alternate so all series see the same machine state; the
 * median of each is compared. create checks files out with git's parallel
 * checkout, so a second plain series uses the same `checkout.workers` to show
 * our own overhead apart from that gain. A last series repeats ours with a
 * few uncommitted changes (modified, staged, deleted and untracked files),
 * which makes create take a snapshot commit.
 *
 *   node_modules/.bin/node --import tsx bench/worktree.ts [--files=20000] [--iterations=5]
 *
 * Writes bench/results/worktree.json and prints a Markdown table.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { WorktreeManager } from '../src/core/isolation';
import { checkoutWorkers } from '../src/core/isolation/repo';
import { git, makeFilesRepo } from './lib/filesRepo';

const arg = (name: string, fallback: number) =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const FILES = arg('files', 20_000);
const ITERATIONS = arg('iterations', 5);



/** A few uncommitted changes of every kind create must carry over. */
function dirty(repo: string): () => void {
  writeFileSync(path.join(repo, 'src/d0/f0.ts'), 'export const v0 = "modified";\n');
  writeFileSync(path.join(repo, 'src/d1/f100.ts'), 'export const v100 = "staged";\n');
  git(repo, 'add', 'src/d1/f100.ts');
  unlinkSync(path.join(repo, 'src/d2/f200.ts'));
  writeFileSync(path.join(repo, 'NEW.md'), '# untracked\n');
  writeFileSync(path.join(repo, 'src/d3/new.ts'), 'export const fresh = true;\n');
  return () => {
    git(repo, 'reset', '-q', '--hard');
    rmSync(path.join(repo, 'NEW.md'));
    rmSync(path.join(repo, 'src/d3/new.ts'));
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-worktree-'));
  try {
    const setupStart = performance.now();
    const repo = makeFilesRepo(root, FILES);
    console.error(`repository of ${FILES} files ready in ${Math.round(performance.now() - setupStart)} ms`);
    const manager = new WorktreeManager({ stateDir: path.join(root, 'state'), worktreesRoot: path.join(root, 'worktrees') });
    const plainDir = path.join(root, 'plain');

    const workers = checkoutWorkers();
    const series = { plain: [] as number[], plainParallel: [] as number[], ours: [] as number[], oursCreate: [] as number[], oursFinish: [] as number[], oursDirty: [] as number[] };
    let n = 0;
    const runPlain = (config: string[] = []) => {
      const p = path.join(plainDir, `wt${n}`);
      const b = `bench/plain-${n++}`;
      const t0 = performance.now();
      git(repo, ...config, 'worktree', 'add', '-q', p, '-b', b);
      git(repo, 'worktree', 'remove', '--force', p);
      git(repo, 'branch', '-q', '-D', b);
      return performance.now() - t0;
    };
    const runOurs = async () => {
      const agentId = `bench-${n++}`;
      const t0 = performance.now();
      await manager.create({ cwd: repo, agentName: 'bench', agentId });
      const t1 = performance.now();
      const info = await manager.finish(agentId);
      const t2 = performance.now();
      if (info !== null) throw new Error('finish found changes in an untouched worktree');
      return { total: t2 - t0, create: t1 - t0, finish: t2 - t1 };
    };

    // Warm-up (page cache, git's first-run costs), not counted.
    runPlain();
    await runOurs();
    // Each iteration runs the four series in a rotated order: whatever runs
    // right after a slow checkout pays for its disk write-back, and that must
    // not always be the same series.
    const steps: Array<() => Promise<void>> = [
      async () => void series.plain.push(runPlain()),
      async () => void series.plainParallel.push(runPlain(['-c', `checkout.workers=${workers}`])),
      async () => {
        const ours = await runOurs();
        series.ours.push(ours.total);
        series.oursCreate.push(ours.create);
        series.oursFinish.push(ours.finish);
      },
      async () => {
        const clean = dirty(repo);
        const before = git(repo, 'status', '--porcelain');
        series.oursDirty.push((await runOurs()).total);
        if (git(repo, 'status', '--porcelain') !== before) throw new Error('create/finish changed the user status');
        clean();
      },
    ];
    for (let i = 0; i < ITERATIONS; i++) {
      for (let j = 0; j < steps.length; j++) await steps[(i + j) % steps.length]!();
      const last = (xs: number[]) => Math.round(xs.at(-1)!);
      console.error(
        `iteration ${i + 1}/${ITERATIONS}: plain ${last(series.plain)} ms, plain parallel ${last(series.plainParallel)} ms, ours ${last(series.ours)} ms, ours (dirty) ${last(series.oursDirty)} ms`,
      );
    }

    const m = Object.fromEntries(Object.entries(series).map(([k, v]) => [k, Math.round(median(v))])) as Record<keyof typeof series, number>;
    const ratio = m.ours / m.plain;
    const ratioDirty = m.oursDirty / m.plain;
    const overhead = m.ours / m.plainParallel;
    const result = {
      benchmark: 'worktree isolation: create + finish (no changes) vs plain git worktree add/remove + branch -D',
      date: new Date().toISOString(),
      machine: { platform: process.platform, cpus: os.cpus().length, node: process.version, git: git(repo, '--version').trim() },
      files: FILES,
      iterations: ITERATIONS,
      medianMs: m,
      samplesMs: Object.fromEntries(Object.entries(series).map(([k, v]) => [k, v.map((x) => Math.round(x))])),
      ratio: Number(ratio.toFixed(3)),
      ratioDirty: Number(ratioDirty.toFixed(3)),
      checkoutWorkers: workers,
      ratioToPlainWithSameCheckoutWorkers: Number(overhead.toFixed(3)),
      target: 'ratio < 1.15',
    };
    const out = path.join(import.meta.dirname, 'results', 'worktree.json');
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);

    console.log(`\n### Worktree isolation, ${FILES} files, median of ${ITERATIONS} (${result.machine.git}, ${os.cpus().length} CPUs)\n`);
    console.log('| Series | Median | vs plain |');
    console.log('|---|---:|---:|');
    console.log(`| (a) plain: \`git worktree add -b\` + \`worktree remove --force\` + \`branch -D\` | ${m.plain} ms | 1.00 |`);
    console.log(`| (a') plain with \`-c checkout.workers=${workers}\` (what create uses) | ${m.plainParallel} ms | ${(m.plainParallel / m.plain).toFixed(2)} |`);
    console.log(`| (b) ours: create + finish, clean tree | ${m.ours} ms | ${ratio.toFixed(2)} |`);
    console.log(`|   (b) vs (a'): our own overhead | | ${overhead.toFixed(2)} |`);
    console.log(`|   of which create | ${m.oursCreate} ms | |`);
    console.log(`|   of which finish (no changes → removed) | ${m.oursFinish} ms | |`);
    console.log(`| (c) ours: create + finish, 5 uncommitted changes | ${m.oursDirty} ms | ${ratioDirty.toFixed(2)} |`);
    console.log(`\nWritten to ${path.relative(process.cwd(), out)}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
