import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CORPUS_DIR, corpusFiles } from '../support/corpus';
import { checkFastPath, checkFastPathAgainstYaml12, frontmatterOf } from '../support/frontmatterContract';
import { filesOf, formatsCorpusDir } from '../support/formatsCorpus';

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

const formatsDir = formatsCorpusDir();

test('the seven formats\' collections: the fast path agrees with js-yaml on their frontmatter, and with the yaml package on their modes files', { skip: formatsDir ? false : 'no collections of the seven formats (SUBAGENTS_FORMATS_CORPUS_DIR)' }, () => {
  let frontmatters = 0;
  let taken = 0;
  let modes = 0;
  let modesTaken = 0;
  for (const file of filesOf(formatsDir!)) {
    const text = readFileSync(path.join(formatsDir!, file), 'utf8');
    if (/(^|\/)(\.roomodes|\.kilocodemodes|custom_modes\.yaml)$/.test(file)) {
      modes++;
      if (checkFastPathAgainstYaml12(text.replace(/^\uFEFF/, ''))) modesTaken++;
      continue;
    }
    if (!file.endsWith('.md')) continue;
    const frontmatter = frontmatterOf(text);
    if (frontmatter === null) continue;
    frontmatters++;
    if (checkFastPath(frontmatter)) taken++;
  }
  assert.ok(frontmatters > 0 && modes > 0, `${frontmatters} frontmatters, ${modes} modes files`);
  // Most are plain; what the fast path leaves (comments, multi-paragraph prompts in modes files) goes to the parsers.
  assert.ok(taken >= frontmatters / 2, `fast path took ${taken} of ${frontmatters} frontmatters (${modesTaken} of ${modes} modes files)`);
});
