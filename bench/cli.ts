/**
 * CLI benchmarks, each a whole process as a user starts it:
 *
 * (a) start-up: `subagents agents --json` on an empty folder (empty home,
 *     only the bundled agents) against a bare `node -e 0`; target ≤ 2×.
 * (b) process-level discovery: `(subagents agents --json over the 2,000-file
 *     tree − the same over an empty folder) / (a plain Node read loop over the
 *     same files − the same loop over no files)`; target ≤ 2.0. Subtracting
 *     the empty runs leaves what the files themselves cost each program. The
 *     CLI's cache is warm, as on every listing after the first (nothing
 *     changed: the last answer is printed again); beside it, a listing after
 *     one file was edited (its answer is stale: the edited file is parsed,
 *     the others come from the outcome store) and `--no-cache` (a first
 *     listing: every file parsed).
 *
 * Runs interleave, in a rotated order, so load bursts fall on every
 * measurement alike; ratios are medians over rounds of what was measured
 * within one round (BENCH_ROUNDS, default 31). The compile cache is warm (one
 * untimed round first), as for every start after the first.
 *
 * Run: node_modules/.bin/node --import tsx bench/cli.ts [--cli path/to/cli.js] [--out name]
 * Builds nothing: run `node scripts/build.mjs --production` first.
 * Writes bench/results/<name>.json (default `cli`) and prints a table.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from './lib/agentTree';
import { median, writeResults } from './lib/results';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 31);
const { values } = parseArgs({ options: { cli: { type: 'string' }, out: { type: 'string' } } });
const CLI = path.resolve(values.cli ?? path.join(import.meta.dirname, '../dist/cli.js'));
const READ_LOOP = path.join(import.meta.dirname, 'lib/readLoop.mjs');

interface Run {
  args: string[];
  cwd: string;
  home: string;
  /** Done before each timed run, untimed. */
  before?: () => void;
}

function timeRun(run: Run): number {
  run.before?.();
  const started = performance.now();
  const child = spawnSync(process.execPath, run.args, { cwd: run.cwd, env: { PATH: process.env.PATH, HOME: run.home }, maxBuffer: 256 * 1024 * 1024 });
  const elapsed = performance.now() - started;
  if (child.status !== 0) throw new Error(`${run.args.join(' ')} failed: ${child.stderr.toString().slice(-2000)}`);
  return elapsed;
}

/** Every measurement once per round, rotated; returns each one's times, round by round. */
function measure<K extends string>(runs: Record<K, Run>): Record<K, number[]> {
  const keys = Object.keys(runs) as K[];
  const times = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round <= ROUNDS; round++) {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[(round + i) % keys.length]!;
      const ms = timeRun(runs[key]);
      if (round > 0) times[key].push(ms);
    }
  }
  return times;
}

function summary(times: number[]) {
  return { medianMs: +median(times).toFixed(2), minMs: +Math.min(...times).toFixed(2), maxMs: +Math.max(...times).toFixed(2) };
}

/**
 * The median over rounds of `a − b` measured in the same round: on a
 * loaded machine load drifts between rounds far more than within one, and
 * a difference of two medians would carry both drifts.
 */
function pairedDifference(a: number[], b: number[]): number {
  return median(a.map((value, round) => value - b[round]!));
}

function loadAverage(): number[] {
  return os.loadavg().map((l) => +l.toFixed(2));
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-cli-'));
  const tree = generate();
  try {
    const empty = path.join(scratch, 'empty');
    const emptyHome = path.join(scratch, 'home');
    mkdirSync(empty);
    mkdirSync(emptyHome);
    const fileList = path.join(scratch, 'files.txt');
    writeFileSync(fileList, tree.files.join('\n'));
    const noFiles = path.join(scratch, 'none.txt');
    writeFileSync(noFiles, '');
    let edits = 0;
    const pluginArgs = (tree.options.pluginDirs ?? []).flatMap((dir) => ['--plugin-dir', dir]);
    const noCacheFlag = spawnSync(process.execPath, [CLI, 'agents', '--help'], { encoding: 'utf8' }).stdout.includes('--no-cache');
    const loadBefore = loadAverage();
    const runs: Record<string, Run> = {
      bareNode: { args: ['-e', '0'], cwd: empty, home: emptyHome },
      cliEmpty: { args: [CLI, 'agents', '--json'], cwd: empty, home: emptyHome },
      cliTree: { args: [CLI, 'agents', '--json', ...pluginArgs], cwd: tree.options.cwd, home: tree.options.home! },
      // A new modification time for one file: the saved answer is stale.
      cliTreeOneEdited: { args: [CLI, 'agents', '--json', ...pluginArgs], cwd: tree.options.cwd, home: tree.options.home!, before: () => utimesSync(tree.files[0]!, new Date(), new Date(Date.now() + ++edits * 1000)) },
      // Every file read and parsed in a fresh process: a first listing, or CI (the old CLI has no --no-cache and no cache).
      ...(noCacheFlag && { cliTreeNoCache: { args: [CLI, 'agents', '--json', '--no-cache', ...pluginArgs], cwd: tree.options.cwd, home: tree.options.home! } }),
      readEmpty: { args: [READ_LOOP, noFiles], cwd: empty, home: emptyHome },
      readTree: { args: [READ_LOOP, fileList], cwd: empty, home: emptyHome },
    };
    const times = measure(runs) as Record<'bareNode' | 'cliEmpty' | 'cliTree' | 'cliTreeOneEdited' | 'readEmpty' | 'readTree', number[]> & { cliTreeNoCache?: number[] };
    const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, summary(v)]));
    const startupRatio = median(times.cliEmpty.map((value, round) => value / times.bareNode[round]!));
    const cliFiles = pairedDifference(times.cliTree, times.cliEmpty);
    const readFiles = pairedDifference(times.readTree, times.readEmpty);
    const discoveryRatio = cliFiles / readFiles;
    const uncached = times.cliTreeNoCache ? pairedDifference(times.cliTreeNoCache, times.cliEmpty) : null;
    const oneEdited = pairedDifference(times.cliTreeOneEdited, times.cliEmpty);
    const results = {
      cli: path.relative(process.cwd(), CLI),
      files: tree.files.length,
      megabytes: +(tree.bytes / 1e6).toFixed(2),
      rounds: ROUNDS,
      method: 'whole processes (spawnSync), interleaved in a rotated order after one untimed round (warm page and compile caches); medians',
      loadAverage: { before: loadBefore, after: loadAverage() },
      measurements: m,
      startup: { ratioToBareNode: +startupRatio.toFixed(3), statistic: 'median over rounds of cliEmpty / bareNode', target: '≤ 2× node -e 0', met: startupRatio <= 2 },
      discovery: {
        cliFilesMs: +cliFiles.toFixed(2),
        readFilesMs: +readFiles.toFixed(2),
        ratio: +discoveryRatio.toFixed(3),
        statistic: 'median over rounds of (cliTree − cliEmpty), over the median of (readTree − readEmpty)',
        target: '(cliTree − cliEmpty) / (readTree − readEmpty) ≤ 2.0',
        met: discoveryRatio <= 2,
        oneEdited: { cliFilesMs: +oneEdited.toFixed(2), ratio: +(oneEdited / readFiles).toFixed(3), note: 'one file edited since the last listing: it is parsed, the other outcomes come from the store' },
        ...(uncached !== null ? { noCache: { cliFilesMs: +uncached.toFixed(2), ratio: +(uncached / readFiles).toFixed(3), note: 'every file read and parsed in a fresh process (--no-cache: a first listing)' } } : {}),
      },
    };
    await writeResults(values.out ?? 'cli', results);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    console.log(
      [
        `CLI (${results.cli}): ${ROUNDS} rounds, load average ${loadBefore.join(' / ')} before, ${results.loadAverage.after.join(' / ')} after`,
        '',
        '| measurement | median | range |',
        '|---|---|---|',
        ...Object.entries(m).map(([k, v]) => `| ${k} | ${ms(v.medianMs)} | ${ms(v.minMs)}–${ms(v.maxMs)} |`),
        '',
        `start-up: ${startupRatio.toFixed(2)}× node -e 0 (subagents agents --json ${ms(m.cliEmpty!.medianMs)}, node -e 0 ${ms(m.bareNode!.medianMs)}; target ≤ 2; load ${loadBefore[0]} → ${results.loadAverage.after[0]})`,
        `discovery: ${ms(cliFiles)} / ${ms(readFiles)} = ${discoveryRatio.toFixed(2)} (target ≤ 2.0)`,
        `discovery after one file was edited: ${ms(oneEdited)} / ${ms(readFiles)} = ${(oneEdited / readFiles).toFixed(2)}`,
        ...(uncached !== null ? [`discovery with --no-cache: ${ms(uncached)} / ${ms(readFiles)} = ${(uncached / readFiles).toFixed(2)}`] : []),
      ].join('\n'),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    rmSync(tree.root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
