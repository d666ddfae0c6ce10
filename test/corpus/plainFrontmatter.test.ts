import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CORPUS_DIR, corpusFiles } from '../support/corpus';
import { checkFastPath, frontmatterOf } from '../support/frontmatterContract';

// The fast path for simple frontmatter against YAML on real-world files: it
// must agree wherever it answers, and answer for the simple ones. The files
// are read in place, never written.

const CORPUS = CORPUS_DIR;
const files = corpusFiles();

test('corpus: the fast path agrees with YAML on every file it takes, and takes the simple ones', () => {
  let taken = 0;
  for (const file of files) {
    const frontmatter = frontmatterOf(readFileSync(path.join(CORPUS, file), 'utf8'));
    if (frontmatter === null) continue;
    if (checkFastPath(frontmatter)) taken++;
    // The same file with CRLF line endings.
    checkFastPath(frontmatter.replace(/\n/g, '\r\n'));
  }
  // 150 of 158 are simple (plain or one-line quoted values); the other 8 are not valid YAML.
  assert.ok(taken >= 150, `fast path took ${taken} of ${files.length}`);
});
