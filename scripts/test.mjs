// `npm test`: every test of the project, on a fresh machine. Installs what it
// needs (npm dependencies, Node 24; the end-to-end phase installs Debian
// packages, Chromium and code-server itself), then runs, in order:
//   check        typecheck (tsc) and lint (eslint)
//   package      production build + .vsix (the e2e phase installs that file)
//   unit         test/unit/**        plain Node, no network, no editor
//   integration  test/integration/** engine + real git + scripted model server
//   e2e          test/e2e/**         the .vsix in real VS Code (code-server +
//                                    Chromium), including the extension-host suite
// and ends with one line: `N passed, N failed, N skipped`.
//   npm test -- --only=unit,integration   run some phases only
//   npm test -- --skip=e2e                skip some phases
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDependencies, node24, node24Env, root, run } from './env.mjs';

const PHASES = ['check', 'package', 'unit', 'integration', 'e2e'];
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]?.split(',');
const only = arg('only');
const skip = arg('skip') ?? [];
const selected = PHASES.filter((p) => (!only || only.includes(p)) && !skip.includes(p));
// Unit and integration tests need the bundles too (the CLI is tested as built).
// It goes right after `check` (or first): `--only=e2e` must package before testing.
if (selected.some((p) => p !== 'check') && !selected.includes('package')) {
  selected.splice(selected[0] === 'check' ? 1 : 0, 0, 'package');
}

const started = Date.now();
ensureDependencies();
const node = node24();
const env = node24Env();
const countsDir = mkdtempSync(path.join(os.tmpdir(), 'subagents-test-'));
const countsFile = path.join(countsDir, 'counts.ndjson');
const failures = [];
let checkPassed = 0;

function step(name, cmd, args, extraEnv = {}, timeoutMs = 30 * 60_000) {
  console.log(`\n› ${name}`);
  // A phase that never ends (a test file whose process cannot exit) is
  // stopped and counted as failed, so CI gets its closing line in time.
  const status = run(cmd, args, { env: { ...env, ...extraEnv }, timeout: timeoutMs, killSignal: 'SIGKILL' });
  if (status !== 0) failures.push(name);
  return status === 0;
}

function testPhase(phase, concurrency) {
  const pattern = `test/${phase}/**/*.test.ts`;
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
    pattern,
  ], { SUBAGENTS_TEST_COUNTS: countsFile }, (phase === 'e2e' ? 30 : 20) * 60_000);
}

for (const phase of selected) {
  switch (phase) {
    case 'check':
      for (const [name, args] of [
        ['typecheck', ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']],
        ['typecheck webview', ['node_modules/typescript/bin/tsc', '-p', 'webview-ui/tsconfig.json']],
        ['lint', ['node_modules/eslint/bin/eslint.js', '--max-warnings=0', '.']],
      ]) {
        if (step(name, node, args)) checkPassed++;
      }
      break;
    case 'package':
      if (!step('package (.vsix)', 'npm', ['run', '--silent', 'package'])) {
        console.error('packaging failed; the remaining phases need the build');
        selected.length = 0;
      }
      break;
    case 'unit':
    case 'integration':
      testPhase(phase, 2);
      break;
    case 'e2e':
      testPhase(phase, 1);
      break;
  }
}

let passed = checkPassed;
let skipped = 0;
let failed = failures.filter((f) => !f.endsWith(' tests')).length;
let text = '';
try {
  text = readFileSync(countsFile, 'utf8');
} catch {
  // no test phase ran
}
for (const line of text.split('\n').filter(Boolean)) {
  const c = JSON.parse(line);
  passed += c.passed;
  failed += c.failed;
  skipped += c.skipped ?? 0;
}
// A phase that crashed before reporting still counts as a failure.
const reportedPhases = text.split('\n').filter(Boolean).length;
const testPhases = selected.filter((p) => ['unit', 'integration', 'e2e'].includes(p)).length;
if (reportedPhases < testPhases) failed += testPhases - reportedPhases;
rmSync(countsDir, { recursive: true, force: true });

const minutes = ((Date.now() - started) / 60000).toFixed(1);
console.log(`\nphases: ${selected.join(', ')} · ${minutes} min${failures.length ? ` · failed: ${failures.join(', ')}` : ''}`);
// Skips are counted so a run that quietly skipped tests (no corpus beside the
// checkout, a machine that cannot run a check) says so in its last line.
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || failures.length > 0 ? 1 : 0);
