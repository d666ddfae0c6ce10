// A set-up step says what it does: while a slow command runs, a line with
// what it is, how long so far, how far (size on disk, the stage reached) and
// how long it usually takes; at its end how long it took; npm's EBADENGINE
// warnings become one line saying why they are harmless.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ENGINE_NOTE, progressLine } from '../../../scripts/progress.mjs';
import { repoRoot } from '../../e2e/support/paths';

/**
 * A stand-in for a slow npm: npm's four EBADENGINE lines (twice), its own
 * output, a file for its stage, then it runs until `release` exists (the
 * test writes it once progress has been shown: no timing involved).
 */
const SLOW_NPM = `
const fs = require('node:fs');
const [work, release] = process.argv.slice(2);
for (let i = 0; i < 2; i++) for (const l of ["npm warn EBADENGINE Unsupported engine {", "npm warn EBADENGINE   package: 'x@1.0.0',", "npm warn EBADENGINE   required: { node: '>=22' },", "npm warn EBADENGINE }"]) console.error(l);
console.log('added 550 packages');
fs.writeFileSync(work + '/stage', 'x'.repeat(2_000_000));
const wait = setInterval(() => { if (fs.existsSync(release)) clearInterval(wait); }, 20);
`;

test('a slow step shows progress, its stage and its time, and turns EBADENGINE warnings into one explanation', { timeout: 60_000 }, async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'subagents-progress-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const work = path.join(dir, 'work');
  const release = path.join(dir, 'release');
  mkdirSync(work);
  writeFileSync(path.join(dir, 'slow.cjs'), SLOW_NPM);
  const options = { label: 'installing things', estimate: '2 min on an idle machine', watch: work, stages: [[path.join(work, 'stage'), 'building native modules']], everyMs: 50 };
  const script = `
    import { withProgress } from ${JSON.stringify(path.join(repoRoot, 'scripts/progress.mjs'))};
    const r = withProgress(${JSON.stringify(options)}, process.execPath, ${JSON.stringify([path.join(dir, 'slow.cjs'), work, release])});
    process.exit(r.status);
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    // Progress with the stage reached is out: the step may end.
    if (/… installing things: .*building native modules/.test(stderr)) writeFileSync(release, '');
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(status, 0, stderr);
  assert.match(stdout + stderr, /added 550 packages/, 'the command’s own output is shown');
  assert.doesNotMatch(stdout + stderr, /npm warn EBADENGINE/);
  assert.equal((stderr.match(/want Node 22 or newer/g) ?? []).length, 1, 'one explanation however many warnings');
  assert.ok(stderr.includes(ENGINE_NOTE));
  const progress = stderr.split('\n').filter((l) => l.startsWith('  … installing things:'));
  assert.ok(progress.some((l) => /\d+ s so far · \d+ MB on disk · building native modules · usually 2 min on an idle machine/.test(l)), progress.join('\n'));
  assert.match(stderr, /✓ installing things: done in \d+ s/);
});

test('the progress line: what, how long so far, how far, the usual time', () => {
  assert.equal(
    progressLine({ label: 'installing code-server 4.139.1', estimate: '2 min on an idle 2-core machine', watch: '/x', stages: [] }, 83_000, 312e6),
    '  … installing code-server 4.139.1: 1 min 23 s so far · 312 MB on disk · usually 2 min on an idle 2-core machine',
  );
});
