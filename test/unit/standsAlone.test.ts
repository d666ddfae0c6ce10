import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

// The repository explains itself: no code, test, script, benchmark or doc
// cites a document that is not in it (the product brief's section numbers,
// its spec, design and notes files, a `shared` folder beside the clone, an
// issue tracker's numbers). Whoever reads a comment here has only the
// repository; a rule worth citing is said where it applies, or in docs/.
// This file is the one place that spells the forbidden forms out.

const root = path.join(import.meta.dirname, '../..');
const SELF = 'test/unit/standsAlone.test.ts';

const FORBIDDEN: ReadonlyArray<{ what: string; pattern: RegExp }> = [
  { what: 'a section number of the brief', pattern: /\bS[0-9](?:\.[0-9]+)?[a-z]?\b/ },
  { what: 'the brief’s spec', pattern: /\bSPEC\b/ },
  { what: 'the brief’s design notes', pattern: /\bDESIGN(?:\.md)?\b/ },
  { what: 'the brief’s notes', pattern: /(?<![\w-])NOTES\.md\b/ },
  { what: 'an issue number', pattern: /\bissues? #?[0-9]+|\bissue-[0-9]+/i },
  { what: 'the brief’s folder', pattern: /\.\.['"`]?\s*[/,]\s*['"`]?shared\b|\/work\/shared\b|\bseeds\// },
];

/**
 * The one thing that looks like a citation and is not: the corpus test phase
 * finds real-world agent files, when present, in a folder beside the clone,
 * and the one line that builds that path names it.
 */
const CORPUS_LOCATOR = { file: 'scripts/corpus.mjs', code: "path.join(root, '..', 'shared', 'corpus', 'claude-code-agents')" };

function allowed(file: string, line: string, what: string): boolean {
  if (what === 'the brief’s folder') return file === CORPUS_LOCATOR.file && line.includes(CORPUS_LOCATOR.code);
  return false;
}

/** `file:line: what (the line)` for every citation in `text`. */
function citations(file: string, text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const { what, pattern } of FORBIDDEN) {
      if (pattern.test(line) && !allowed(file, line, what)) found.push(`${file}:${i + 1}: ${what}: ${line.trim().slice(0, 160)}`);
    }
  });
  return found;
}

/** The repository's text files, tracked or new (not ignored), as `/`-separated paths from the root. */
function repositoryFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  return out
    .split('\0')
    .filter((f) => f && f !== SELF && !f.endsWith('package-lock.json'))
    .filter((f) => {
      try {
        return !readFileSync(path.join(root, f)).includes(0);
      } catch {
        return false; // deleted in the work tree, not yet in the index
      }
    });
}

test('no file cites a document outside the repository (say the rule in place, or point to docs/)', () => {
  const files = repositoryFiles();
  assert.ok(files.includes('src/core/engine/engine.ts') && files.includes('docs/architecture.md'), 'the walk reaches src/ and docs/');
  assert.deepEqual(files.flatMap((f) => citations(f, readFileSync(path.join(root, f), 'utf8'))), []);
});

test('the check finds each kind of citation, and lets exactly the corpus folder through', () => {
  const flagged = (file: string, line: string) => citations(file, line).length;
  for (const line of ['// checked at spawn (S3.4)', ' * as SPEC says', '// see DESIGN.md', '// measured (NOTES.md)', '// issue 11', '// Issue #5', "import x from '../shared/x'", "path.join(root, '..', 'shared')", 'seeds/agents', '// (S5) worktrees', '// budget (S3.9a)']) {
    assert.equal(flagged('src/core/x.ts', line), 1, line);
  }
  assert.equal(flagged('src/vscode/demoMode.ts', "'draft release notes in RELEASE-NOTES.md'"), 0, 'a file name that merely ends in NOTES.md');
  assert.equal(flagged(CORPUS_LOCATOR.file, `  return ${CORPUS_LOCATOR.code};`), 0);
  assert.equal(flagged(CORPUS_LOCATOR.file, "const notes = path.join(root, '..', 'shared', 'NOTES');"), 1);
  for (const line of ['// SPECIAL cases', '// the SDK (v0.52)', "const S = 'S'", 'DESIGNER', '// two issues, 3 fixes']) assert.equal(flagged('src/core/x.ts', line), 0, line);
});
