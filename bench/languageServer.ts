/**
 * Agent-file language server benchmark.
 *
 * A workspace of 2,000 agent files over the five families' project dirs and
 * a user dir (~6 KB each, 5% with the invalid YAML real files have, agents
 * spawning each other), then:
 *
 * (a) diagnostics after an edit of a 500-line agent file, server-side: for
 *     each didChange, the time `node dist/server.js --stdio` spends on the
 *     edited document (locate and parse it, run every check against the
 *     2,000-agent catalog), as the server itself measures it (its trace,
 *     `$/logTrace` once the client sends `$/setTrace`); EDITS edits, one character each,
 *     alternating between the frontmatter and the body; median and p95;
 *     target < 20 ms for both;
 * (b) the same edits seen from the client: from sending didChange to
 *     receiving its publishDiagnostics (adds JSON-RPC and two process hops);
 * (c) the checks alone, in this process on the server's modules, for
 *     reference (this process's own garbage collection included);
 * (d) server start to first diagnostics: spawn the server, initialize with
 *     the workspace, open one agent file; time until its diagnostics arrive
 *     (the catalog of 2,000 files is read first). STARTS runs, median; and
 *     the same in a workspace holding only that file, for reference.
 *
 * Run: npm run build && node_modules/.bin/node --import tsx bench/languageServer.ts
 * Writes bench/results/languageServer.json and prints a Markdown table.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { AgentCatalog } from '../src/core/agents/catalog/catalog';
import { defaultSettings } from '../src/core/config';
import { agentFileKind } from '../src/server/agentFileKind';
import { analyseAgentFile } from '../src/server/diagnostics';
import { LspClient } from '../test/support/lspClient';
import { median, writeResults } from './lib/results';

const FILES = 2000;
const EDITS = 300;
const STARTS = 7;
const FAMILIES = ['.omp', '.claude', '.codex', '.gemini', '.github'];

function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 2 ** 32;
    return state / 2 ** 32;
  };
}

const WORDS = 'agent review code file test build error change module function type value request response cache path check report issue plan step read write search result output'.split(' ');

function proseLines(random: () => number, count: number): string[] {
  return Array.from({ length: count }, () => `- ${Array.from({ length: 8 + Math.floor(random() * 10) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ')}.`);
}

function agentName(i: number): string {
  return `agent-${String(i).padStart(4, '0')}`;
}

function agentFile(i: number, random: () => number): string {
  const name = agentName(i);
  const description = random() < 0.05 ? `Use when asked about ${name}. Triggers on: 'x', 'y'.` : `"Use this agent when ${name} work is needed."`;
  const spawns = [1, 2].map(() => agentName(Math.floor(random() * FILES))).join(', ');
  return ['---', `name: ${name}`, `description: ${description}`, 'tools: Read, Grep, Glob, Task', `spawns: [${spawns}]`, 'model: sonnet', '---', '', ...proseLines(random, 40 + Math.floor(random() * 60)), ''].join('\n');
}

/** The 500-line file that is edited: a full frontmatter (tools, spawns, an output schema), then a long prompt. */
function bigAgentFile(random: () => number): string {
  const frontmatter = [
    '---',
    'name: big-agent',
    'description: >-',
    '  Use this agent for long reviews. It reads the code, checks the tests,',
    '  and writes a report with every finding and its evidence.',
    'tools:',
    ...['Read', 'Grep', 'Glob', 'Bash(git:*)', 'Edit', 'Write', 'WebFetch', 'TodoWrite', `Task(${agentName(1)}, ${agentName(2)})`].map((t) => `  - ${t}`),
    `spawns: [${agentName(1)}, ${agentName(2)}, ${agentName(3)}]`,
    'model: sonnet',
    'thinkingLevel: high',
    'maxTurns: 40',
    'permissionMode: plan',
    'isolation: worktree',
    'background: false',
    'output:',
    '  type: object',
    '  properties:',
    ...Array.from({ length: 10 }, (_, i) => [`    field${i}:`, '      type: string', `      description: Finding number ${i}.`]).flat(),
    '  required: [field0]',
    'color: blue',
    '---',
  ];
  const body = ['', '# How to review', '', ...proseLines(random, 500 - frontmatter.length - 4), ''];
  return [...frontmatter, ...body].join('\n');
}

interface Workspace {
  root: string;
  home: string;
  project: string;
  bigFile: string;
  bigText: string;
}

function generate(files = FILES): Workspace {
  const root = mkdtempSync(path.join(os.tmpdir(), 'subagents-bench-lsp-'));
  const home = path.join(root, 'home');
  const project = path.join(root, 'repo');
  const dirs = [...FAMILIES.map((family) => path.join(project, family, 'agents')), path.join(home, '.claude/agents')];
  const random = prng(7);
  mkdirSync(path.join(project, '.claude/agents'), { recursive: true });
  for (let i = 0; i < files; i++) {
    const dir = dirs[i % dirs.length]!;
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${agentName(i)}.md`), agentFile(i, random));
  }
  const bigFile = path.join(project, '.claude/agents/big-agent.md');
  const bigText = bigAgentFile(random);
  writeFileSync(bigFile, bigText);
  return { root, home, project, bigFile, bigText };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function stats(runs: number[]): { medianMs: number; p95Ms: number; maxMs: number } {
  return { medianMs: +median(runs).toFixed(3), p95Ms: +percentile(runs, 95).toFixed(3), maxMs: +Math.max(...runs).toFixed(3) };
}

/** Where edit `i` goes: alternately the end of the description's first line and a line of the body. */
function editPosition(text: string, i: number): { line: number; character: number } {
  const lines = text.split('\n');
  const line = i % 2 === 0 ? 3 : 300;
  return { line, character: lines[line]!.length };
}

async function inProcess(ws: Workspace): Promise<number[]> {
  const catalog = await AgentCatalog.create({ cwd: ws.project, home: ws.home, loadClaudePlugins: false });
  const settings = defaultSettings();
  const kind = agentFileKind(ws.bigFile, catalog.dirs, ws.home)!;
  let document = TextDocument.create(`file://${ws.bigFile}`, 'markdown', 1, ws.bigText);
  const runs: number[] = [];
  for (let i = 0; i < EDITS + 20; i++) {
    const at = editPosition(document.getText(), i);
    const started = performance.now();
    document = TextDocument.update(document, [{ range: { start: at, end: at }, text: 'x' }], document.version + 1);
    const analysis = analyseAgentFile(document, { filePath: ws.bigFile, kind, view: catalog, settings });
    const elapsed = performance.now() - started;
    if (analysis.parsed.definition?.name !== 'big-agent') throw new Error('the big agent did not parse');
    if (i >= 20) runs.push(elapsed); // the first edits warm up the JIT
  }
  catalog.dispose();
  return runs;
}

async function overStdio(ws: Workspace): Promise<{ edits: number[]; serverSide: number[]; diagnostics: number }> {
  const client = await LspClient.start({ folders: [ws.project], home: ws.home });
  try {
    // The server traces each check's time: `checked <uri> version <n> in <ms> ms`.
    const timings: number[] = [];
    client.connection.onNotification('$/logTrace', ({ message }: { message: string }) => {
      const ms = /^checked \S+ version \d+ in ([\d.]+) ms$/.exec(message)?.[1];
      if (ms) timings.push(Number(ms));
    });
    await client.connection.sendNotification('$/setTrace', { value: 'messages' });
    const uri = await client.open(ws.bigFile, ws.bigText);
    const first = await client.diagnostics(uri);
    let text = ws.bigText;
    const edits: number[] = [];
    for (let i = 0; i < EDITS + 20; i++) {
      const at = editPosition(text, i);
      const lines = text.split('\n');
      lines[at.line] += 'x';
      text = lines.join('\n');
      const started = performance.now();
      const version = await client.insert(uri, at.line, at.character, 'x');
      await client.diagnostics(uri, (_d, p) => p.version === version);
      if (i >= 20) edits.push(performance.now() - started);
    }
    return { edits, serverSide: timings.slice(-EDITS), diagnostics: first.length };
  } finally {
    await client.stop();
  }
}

async function startToFirstDiagnostics(ws: Workspace): Promise<number[]> {
  const runs: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const started = performance.now();
    const client = await LspClient.start({ folders: [ws.project], home: ws.home });
    const uri = await client.open(ws.bigFile, ws.bigText);
    await client.diagnostics(uri);
    runs.push(performance.now() - started);
    await client.stop();
  }
  return runs;
}

async function main(): Promise<void> {
  const ws = generate();
  try {
    const loadBefore = os.loadavg().map((n) => +n.toFixed(2));
    const inProcessChecks = stats(await inProcess(ws));
    const stdio = await overStdio(ws);
    const serverSide = stats(stdio.serverSide);
    const roundTrip = stats(stdio.edits);
    const startRuns = await startToFirstDiagnostics(ws);
    const start = { ...stats(startRuns), runsMs: startRuns.map((n) => Math.round(n)) };
    const empty = generate(0);
    const emptyRuns = await startToFirstDiagnostics(empty).finally(() => rmSync(empty.root, { recursive: true, force: true }));
    const startEmpty = { ...stats(emptyRuns), runsMs: emptyRuns.map((n) => Math.round(n)) };
    const results = {
      files: FILES,
      editedFileLines: ws.bigText.split('\n').length,
      edits: EDITS,
      loadAverage: { before: loadBefore, after: os.loadavg().map((n) => +n.toFixed(2)) },
      editServerSide: { ...serverSide, target: '< 20 ms median and p95', met: serverSide.medianMs < 20 && serverSide.p95Ms < 20 },
      editSeenByClient: roundTrip,
      editChecksInBenchProcess: inProcessChecks,
      startToFirstDiagnostics: start,
      startToFirstDiagnosticsOneFile: startEmpty,
      diagnosticsOnEditedFile: stdio.diagnostics,
    };
    await writeResults('languageServer', results);
    const ms = (n: number) => `${n.toFixed(1)} ms`;
    console.log(
      [
        `Language server: ${FILES} agent files, a ${results.editedFileLines}-line file edited ${EDITS} times; load ${loadBefore.join(' / ')}`,
        '',
        '| measurement | median | p95 | max |',
        '|---|---|---|---|',
        `| (a) diagnostics after an edit, server-side | ${ms(serverSide.medianMs)} | ${ms(serverSide.p95Ms)} | ${ms(serverSide.maxMs)} |`,
        `| (b) didChange → publishDiagnostics, seen by the client | ${ms(roundTrip.medianMs)} | ${ms(roundTrip.p95Ms)} | ${ms(roundTrip.maxMs)} |`,
        `| (c) the checks alone, in the benchmark's process | ${ms(inProcessChecks.medianMs)} | ${ms(inProcessChecks.p95Ms)} | ${ms(inProcessChecks.maxMs)} |`,
        `| (d) server start → first diagnostics (${STARTS} starts) | ${ms(start.medianMs)} | ${ms(start.p95Ms)} | ${ms(start.maxMs)} |`,
        `| (d) the same in a workspace of that one file | ${ms(startEmpty.medianMs)} | ${ms(startEmpty.p95Ms)} | ${ms(startEmpty.maxMs)} |`,
      ].join('\n'),
    );
  } finally {
    rmSync(ws.root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
