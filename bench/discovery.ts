/**
 * Agent discovery benchmark.
 *
 * Generates 2,000 agent files (~6 KB on average, 5% with the invalid YAML
 * real files have) in all twelve formats, over every family's project dir,
 * nine user dirs, three plugin dirs and two files holding several agents
 * (bench/lib/agentTree.ts), then measures in one run, median of ROUNDS:
 *
 * (a) just reading the files: `readFileSync(path, 'utf8')` over the known file
 *     list (the baseline: text you could parse, no listing, no stat), the same
 *     into Buffers for reference, and fs.promises.readFile with bounded
 *     concurrency;
 * (b) cold discovery (fresh loader, empty parse cache: resolve the dirs, list
 *     them, read, parse and validate every file, apply precedence), with
 *     gray-matter's main function over the same files for comparison;
 *     target (b) ≤ 2× the utf8 loop; for reference, the same first scan
 *     through a catalog (what VS Code and the agent host keep: it also takes
 *     every file's stamp and keeps every outcome for the next change);
 * (c) re-discovery through a catalog after 1, 10 and 100 files change: the
 *     watch path (time from the writes to the change event, files parsed)
 *     and refresh() (relists every dir, re-parses only the changed files).
 *
 * The page cache is warm: the tree was just written, and one untimed round
 * runs first. Each round runs (a) and (b) interleaved, in a rotated order, so
 * load bursts and garbage collection left behind by one measurement fall on
 * all of them alike. The load average is recorded before and after.
 *
 * Run: node_modules/.bin/node --import tsx bench/discovery.ts [--rounds N] [--cold-only]
 * Writes bench/results/discovery.json and prints a Markdown table.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import matter from 'gray-matter';
import { AgentCatalog } from '../src/core/agents/catalog/catalog';
import { discoverAgents } from '../src/core/agents/catalog/discovery';
import { generate, type Tree } from './lib/agentTree';
import { median } from './lib/results';

/** `--rounds N` (default 15); `--cold-only` leaves out the re-discovery measures (c) and writes no results file, for a quick look. */
const ROUNDS = Number(/--rounds[= ](\d+)/.exec(process.argv.slice(2).join(' '))?.[1] ?? 15);
const COLD_ONLY = process.argv.includes('--cold-only');
const READ_CONCURRENCY = 16;

interface Series {
  medianMs: number;
  minMs: number;
  maxMs: number;
  runsMs: number[];
  /** Garbage-collection pauses inside each run (median), whichever allocation caused them. */
  gcPauseMedianMs: number;
  /** The process's CPU time (user + system, all its threads) per run, median: what other processes taking the cores does not inflate. */
  cpuMedianMs: number;
}

/** GC pauses, recorded for the whole run, attributed to measurements afterwards. */
const gcPauses: { start: number; end: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push({ start: entry.startTime, end: entry.startTime + entry.duration });
}).observe({ entryTypes: ['gc'] });

function gcPauseWithin(start: number, end: number): number {
  let total = 0;
  for (const pause of gcPauses) if (pause.start < end && pause.end > start) total += Math.min(end, pause.end) - Math.max(start, pause.start);
  return total;
}

/**
 * Runs each measurement once per round after one untimed warm-up round (page
 * cache, JIT). The order rotates every round: a burst of load, or a garbage
 * collection owed to the previous measurement's allocations, hits every
 * measurement in turn rather than always the same one.
 */
async function interleaved<K extends string>(runs: Record<K, () => Promise<unknown> | unknown>): Promise<Record<K, Series>> {
  const keys = Object.keys(runs) as K[];
  const spans = Object.fromEntries(keys.map((k) => [k, [] as { start: number; end: number; cpu: number }[]])) as Record<K, { start: number; end: number; cpu: number }[]>;
  for (let round = 0; round <= ROUNDS; round++) {
    for (let i = 0; i < keys.length; i++) {
      const key = keys[(round + i) % keys.length]!;
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      await runs[key]();
      const end = performance.now();
      const cpu = process.cpuUsage(cpuStart);
      if (round > 0) spans[key].push({ start, end, cpu: (cpu.user + cpu.system) / 1000 });
    }
  }
  // GC entries are delivered asynchronously.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return Object.fromEntries(
    keys.map((k) => {
      const times = spans[k].map((s) => s.end - s.start);
      return [
        k,
        {
          medianMs: median(times),
          minMs: Math.min(...times),
          maxMs: Math.max(...times),
          runsMs: times.map((t) => +t.toFixed(2)),
          gcPauseMedianMs: +median(spans[k].map((s) => gcPauseWithin(s.start, s.end))).toFixed(2),
          cpuMedianMs: +median(spans[k].map((s) => s.cpu)).toFixed(2),
        },
      ];
    }),
  ) as Record<K, Series>;
}

async function readPromisesBounded(files: string[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: READ_CONCURRENCY }, async () => {
      while (next < files.length) await readFile(files[next++]!, 'utf8');
    }),
  );
}

/** Edits `count` files spread over the tree; returns their paths. */
function edit(tree: Tree, count: number, round: number): string[] {
  const step = Math.floor(tree.files.length / count);
  const changed = Array.from({ length: count }, (_, i) => tree.files[i * step]!);
  for (const filePath of changed) writeFileSync(filePath, `${readFileSync(filePath, 'utf8')}\nEdit ${round}.\n`);
  return changed;
}

async function watchRounds(tree: Tree, count: number) {
  const catalog = await AgentCatalog.create({ ...tree.options, watch: true, debounceMs: 10 });
  const runsMs: number[] = [];
  const parsed: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = catalog.parseCount;
    const changed = new Set<string>();
    const done = new Promise<void>((resolve) => {
      const off = catalog.onDidChange((change) => {
        for (const file of change.reparsedFiles) changed.add(file);
        if (changed.size >= count) {
          off();
          resolve();
        }
      });
    });
    // The catalog's watchers do not keep the process alive (persistent: false); this timer does.
    const timeout = setTimeout(() => console.error(`round ${round}: no change event after 10 s`), 10_000);
    const started = performance.now();
    edit(tree, count, round);
    await done;
    clearTimeout(timeout);
    runsMs.push(performance.now() - started);
    parsed.push(catalog.parseCount - before);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  catalog.dispose();
  return { changedFiles: count, medianMs: median(runsMs), filesParsed: median(parsed), debounceMs: 10 };
}

async function refreshRounds(tree: Tree, count: number) {
  const catalog = await AgentCatalog.create({ ...tree.options });
  const runsMs: number[] = [];
  const parsed: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    edit(tree, count, 100 + round);
    const before = catalog.parseCount;
    const started = performance.now();
    await catalog.refresh();
    runsMs.push(performance.now() - started);
    parsed.push(catalog.parseCount - before);
  }
  catalog.dispose();
  return { changedFiles: count, medianMs: median(runsMs), filesParsed: median(parsed) };
}

function loadAverage(): number[] {
  return os.loadavg().map((l) => +l.toFixed(2));
}

async function main(): Promise<void> {
  const tree = generate();
  try {
    let agents = 0;
    let warnings = 0;
    const loadBefore = loadAverage();
    const measured = await interleaved({
      // The baseline: the files' contents as text, read one after the other from the known list.
      readUtf8: () => {
        for (const file of tree.files) readFileSync(file, 'utf8');
      },
      // For reference: the same bytes without decoding them.
      readBuffer: () => {
        for (const file of tree.files) readFileSync(file);
      },
      readAsync: () => readPromisesBounded(tree.files),
      cold: async () => {
        const result = await discoverAgents(tree.options);
        agents = result.agents.length;
        warnings = result.warnings.length;
      },
      catalogFirstScan: async () => {
        (await AgentCatalog.create({ ...tree.options })).dispose();
      },
      grayMatter: () => {
        // Options given so that gray-matter's module-level cache does not turn rounds 2+ into lookups.
        for (const file of tree.files) {
          try {
            matter(readFileSync(file, 'utf8'), {});
          } catch {
            // The 5% of invalid YAML: gray-matter throws where discovery falls back.
          }
        }
      },
    });
    const loadAfterCold = loadAverage();
    const { readUtf8, readBuffer, readAsync, cold, catalogFirstScan, grayMatter } = measured;
    const watch = [];
    const refresh = [];
    for (const count of COLD_ONLY ? [] : [1, 10, 100]) {
      watch.push(await watchRounds(tree, count));
      refresh.push(await refreshRounds(tree, count));
    }

    const ratio = cold.medianMs / readUtf8.medianMs;
    const results = {
      files: tree.files.length,
      megabytes: +(tree.bytes / 1e6).toFixed(2),
      averageKB: +(tree.bytes / tree.files.length / 1024).toFixed(2),
      agentsFound: agents,
      warnings,
      rounds: ROUNDS,
      method:
        'page cache warm (tree just written, one untimed warm-up round); each round runs every measurement once, in a rotated order; medians',
      loadAverage: { beforeCold: loadBefore, afterCold: loadAfterCold, atEnd: loadAverage() },
      read: {
        readFileSyncUtf8: readUtf8,
        readFileSyncBuffer: readBuffer,
        promisesBounded: { ...readAsync, concurrency: READ_CONCURRENCY },
      },
      coldDiscovery: {
        ...cold,
        ratioToReadFileSyncUtf8: +ratio.toFixed(3),
        ratioToReadFileSyncBuffer: +(cold.medianMs / readBuffer.medianMs).toFixed(3),
        cpuRatioToReadFileSyncUtf8: +(cold.cpuMedianMs / readUtf8.cpuMedianMs).toFixed(3),
        target: '≤ 2× the readFileSync utf8 loop',
        met: ratio <= 2,
      },
      catalogFirstScan: { ...catalogFirstScan, ratioToReadFileSyncUtf8: +(catalogFirstScan.medianMs / readUtf8.medianMs).toFixed(3) },
      grayMatterFullParse: grayMatter,
      rediscovery: { watch, refresh },
    };
    // A quick look (`--cold-only`) leaves the recorded results alone.
    if (!COLD_ONLY) await mkdir(path.join(import.meta.dirname, 'results'), { recursive: true });
    if (!COLD_ONLY) await writeFile(
      path.join(import.meta.dirname, 'results/discovery.json'),
      `${JSON.stringify({ date: new Date().toISOString(), machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version, platform: `${os.platform()} ${os.release()}` }, results }, null, 2)}\n`,
    );

    const ms = (n: number) => `${n.toFixed(1)} ms`;
    const spread = (s: Series) => `${ms(s.minMs)}–${ms(s.maxMs)}`;
    const lines = [
      `Agent discovery: ${results.files} files, ${results.megabytes} MB (avg ${results.averageKB} KB), ${agents} agents, ${warnings} warnings`,
      `median of ${ROUNDS} rounds, page cache warm, load average ${loadBefore.join(' / ')} before, ${loadAfterCold.join(' / ')} after`,
      '',
      '| measurement | median | range | CPU time | notes |',
      '|---|---|---|---|---|',
      `| (a) readFileSync(path, 'utf8') loop | ${ms(readUtf8.medianMs)} | ${spread(readUtf8)} | ${ms(readUtf8.cpuMedianMs)} | the baseline: just reading the files as text |`,
      `| (a) readFileSync(path) loop, Buffers | ${ms(readBuffer.medianMs)} | ${spread(readBuffer)} | ${ms(readBuffer.cpuMedianMs)} | for reference: no decoding |`,
      `| (a) fs.promises.readFile, ${READ_CONCURRENCY} at a time | ${ms(readAsync.medianMs)} | ${spread(readAsync)} | ${ms(readAsync.cpuMedianMs)} | |`,
      `| (b) cold discovery | ${ms(cold.medianMs)} | ${spread(cold)} | ${ms(cold.cpuMedianMs)} | **${ratio.toFixed(2)}× the utf8 loop** (target ≤ 2×; CPU time ${results.coldDiscovery.cpuRatioToReadFileSyncUtf8.toFixed(2)}×), ${results.coldDiscovery.ratioToReadFileSyncBuffer.toFixed(2)}× the Buffer loop; GC pauses ${ms(cold.gcPauseMedianMs)} (median) |`,
      `| (b) the same first scan through a catalog, for reference | ${ms(catalogFirstScan.medianMs)} | ${spread(catalogFirstScan)} | ${ms(catalogFirstScan.cpuMedianMs)} | ${results.catalogFirstScan.ratioToReadFileSyncUtf8.toFixed(2)}× the utf8 loop; also takes every file's stamp and keeps its outcome (what VS Code keeps) |`,
      `| gray-matter main function, for comparison | ${ms(grayMatter.medianMs)} | ${spread(grayMatter)} | ${ms(grayMatter.cpuMedianMs)} | read + parse only, no discovery |`,
      ...watch.map((w) => `| (c) watch: ${w.changedFiles} file(s) changed → change event | ${ms(w.medianMs)} | | | ${w.filesParsed} parsed; includes ${w.debounceMs} ms debounce |`),
      ...refresh.map((r) => `| (c) refresh() after ${r.changedFiles} file(s) changed | ${ms(r.medianMs)} | | | ${r.filesParsed} parsed; relists and stats all ${results.files} |`),
    ];
    // The figure and the load in one line, for a log or a table.
    lines.push('', `cold discovery ${ms(cold.medianMs)} = ${ratio.toFixed(2)}× the utf8 loop (${ms(readUtf8.medianMs)}; CPU time ${results.coldDiscovery.cpuRatioToReadFileSyncUtf8.toFixed(2)}×), target ≤ 2× ${ratio <= 2 ? 'met' : 'not met'}, load average ${loadBefore[0]} → ${loadAfterCold[0]}`);
    console.log(lines.join('\n'));
  } finally {
    rmSync(tree.root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
