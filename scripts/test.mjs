// `npm test`: every test of the project, on a fresh machine. Installs what it
// needs (npm dependencies, Node 24; the end-to-end phase installs Debian
// packages, Chromium and code-server itself), then runs, in order:
//   check        typecheck (tsc) and lint (eslint)              nothing built
//   unit         test/unit/**        plain Node, no network     nothing built
//   webview      test/webview/**     the Runs view's page mounted in a
//                                    simulated DOM (happy-dom)  nothing built
//   package      production build + .vsix; test/package/** checks what ships
//   integration  test/integration/** engine + real git + scripted model
//                                    server + the built CLI      needs dist/
//   corpus       test/corpus/**      real-world agent files from outside the
//                                    repository (scripts/corpus.mjs); when
//                                    they are absent the phase is not run,
//                                    and the summary says so    needs dist/
//   e2e          test/e2e/**         the .vsix in real VS Code (code-server +
//                                    Chromium, installed first), including
//                                    the extension-host suite   needs the .vsix
// Only phases that need a build make one: dist/ before integration or
// corpus (unless package made it already), the .vsix before e2e. It ends
// with the phases run, those not run and why, every skipped test with its
// reason, and one line: `N passed, N failed, N skipped`.
//   npm test -- --only=unit               seconds: no build at all
//   npm test -- --only=unit,integration   run some phases only
//   npm test -- --skip=e2e                skip some phases
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureCodeServer, ensureSystemPackages } from './code-server.mjs';
import { corpusMissing } from './corpus.mjs';
import { ensureDependencies, node24, node24Env, root, run } from './env.mjs';

const PHASES = ['check', 'unit', 'webview', 'package', 'integration', 'corpus', 'e2e'];
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]?.split(',').filter(Boolean);
const only = arg('only');
const skip = arg('skip') ?? [];
const unknown = [...(only ?? []), ...skip].filter((p) => !PHASES.includes(p));
if (unknown.length) {
  console.error(`unknown phase${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (phases: ${PHASES.join(', ')})`);
  process.exit(2);
}
const wanted = new Set(PHASES.filter((p) => (!only || only.includes(p)) && !skip.includes(p)));
// The e2e phase installs the .vsix the package phase makes (and checks).
if (wanted.has('e2e')) wanted.add('package');
const notRun = [];
const failures = [];
if (wanted.has('corpus')) {
  const missing = corpusMissing();
  if (missing) {
    wanted.delete('corpus');
    // Asked for by name, a phase that cannot run is a failure; in a full run it is announced.
    if (only?.includes('corpus')) failures.push(`corpus (${missing})`);
    else notRun.push(`corpus — ${missing}`);
  }
}
const selected = PHASES.filter((p) => wanted.has(p));

const started = Date.now();
ensureDependencies();
const node = node24();
const countsDir = mkdtempSync(path.join(os.tmpdir(), 'subagents-test-'));
// The agent host's folder for every test process: a test never reaches the user's own host, or another run's.
const runtimeDir = path.join(countsDir, 'run');
mkdirSync(runtimeDir, { mode: 0o700 });
const env = node24Env({ XDG_RUNTIME_DIR: runtimeDir });
const countsFile = path.join(countsDir, 'counts.ndjson');
let checkPassed = 0;
let built = false;
let stopped = false;

function step(name, cmd, args, extraEnv = {}, timeoutMs = 30 * 60_000) {
  console.log(`\n› ${name}`);
  // A phase that never ends (a test file whose process cannot exit) is
  // stopped and counted as failed, so CI gets its closing line in time.
  const status = run(cmd, args, { env: { ...env, ...extraEnv }, timeout: timeoutMs, killSignal: 'SIGKILL' });
  if (status !== 0) failures.push(name);
  return status === 0;
}

/** Builds dist/ (production, as it ships) once, for the phases that run the built CLI, server and webview. */
function build() {
  if (built) return true;
  built = step('build (dist/)', node, ['scripts/build.mjs', '--production']);
  if (!built) {
    console.error('the build failed; the phases that need it are not run');
    stopped = true;
  }
  return built;
}

/**
 * Debian's Chromium and build headers, and code-server (a few minutes the first
 * time on a fresh machine): installed before the e2e tests start, so that
 * time never counts against a test's own timeout.
 */
function e2ePrerequisites() {
  console.log('\n› e2e prerequisites (Chromium, code-server)');
  try {
    ensureSystemPackages();
    ensureCodeServer();
    return true;
  } catch (error) {
    console.error(`✕ ${error instanceof Error ? error.message : String(error)}`);
    failures.push('e2e prerequisites');
    return false;
  }
}

let testRuns = 0;

function testPhase(phase, concurrency) {
  testRuns++;
  return step(`${phase} tests`, node, [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    // A single test that hangs fails instead of stalling the run.
    `--test-timeout=${phase === 'e2e' ? 600_000 : 180_000}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'scripts/summary-reporter.mjs')}`,
    '--test-reporter-destination=stdout',
    `test/${phase}/**/*.test.ts`,
  ], { SUBAGENTS_TEST_COUNTS: countsFile }, (phase === 'e2e' ? 30 : 20) * 60_000);
}

const ran = [];
for (const phase of selected) {
  if (stopped) {
    notRun.push(`${phase} — an earlier build failed`);
    continue;
  }
  ran.push(phase);
  switch (phase) {
    case 'check':
      for (const [name, args] of [
        ['typecheck', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']],
        ['typecheck webview', ['node_modules/typescript/bin/tsc', '-p', 'webview-ui/tsconfig.json']],
        ['typecheck webview tests', ['node_modules/typescript/bin/tsc', '-p', 'test/webview/tsconfig.json']],
        ['lint', ['node_modules/eslint/bin/eslint.js', '--max-warnings=0', '.']],
      ]) {
        if (step(name, node, args)) checkPassed++;
      }
      break;
    case 'unit':
    case 'webview':
      testPhase(phase, 2);
      break;
    case 'package':
      // `vsce package` makes the production build of dist/ first (vscode:prepublish).
      built = step('package (.vsix)', 'npm', ['run', '--silent', 'package']);
      if (!built) {
        console.error('packaging failed; the phases that need the build are not run');
        stopped = true;
        break;
      }
      testPhase(phase, 2);
      break;
    case 'integration':
    case 'corpus':
      if (build()) testPhase(phase, 2);
      break;
    case 'e2e':
      if (e2ePrerequisites()) testPhase(phase, 1);
      break;
  }
}

let passed = checkPassed;
let skipped = 0;
let failed = failures.filter((f) => !f.endsWith(' tests')).length;
const skips = [];
let text = '';
try {
  text = readFileSync(countsFile, 'utf8');
} catch {
  // no test phase ran
}
const reports = text.split('\n').filter(Boolean).map((line) => JSON.parse(line));
for (const c of reports) {
  passed += c.passed;
  failed += c.failed;
  skipped += c.skipped ?? 0;
  skips.push(...(c.skips ?? []));
}
// A test phase that crashed before reporting still counts as a failure.
if (reports.length < testRuns) failed += testRuns - reports.length;
rmSync(countsDir, { recursive: true, force: true });

const minutes = ((Date.now() - started) / 60000).toFixed(1);
console.log(`\nphases: ${ran.join(', ') || 'none'} · ${minutes} min${failures.length ? ` · failed: ${failures.join(', ')}` : ''}`);
for (const line of notRun) console.log(`not run: ${line}`);
// Every skip is listed with its reason, so a run that quietly skipped tests says so.
for (const s of skips) console.log(`skipped: ${s.file ? `${s.file} › ` : ''}${s.name} — ${s.reason}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || failures.length > 0 ? 1 : 0);
