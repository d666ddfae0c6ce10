import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAgentText } from '../../src/core/agents/parsing/parse';
import { CORPUS_DIR, corpusExpectation as expected, corpusFiles } from '../support/corpus';

// The compatibility corpus: 158 real Claude Code agent files written by other
// people. Every one must load with the name, description, tools and model its
// frontmatter says. The files are read in place, never copied into the repo.

const CORPUS = CORPUS_DIR;
const files = corpusFiles();

test('the corpus holds 158 agent files', () => {
  assert.equal(files.length, 158);
});

test('every corpus file loads with the name, description, tools and model of its frontmatter', () => {
  let invalidYaml = 0;
  for (const file of files) {
    const filePath = path.join(CORPUS, file);
    const text = readFileSync(filePath, 'utf8');
    const { yamlValid, fields } = expected(text);
    if (!yamlValid) invalidYaml++;
    const { definition, warnings } = parseAgentText(text, { filePath, source: 'project', family: '.claude' });
    assert.ok(definition, `${file}: ${JSON.stringify(warnings)}`);
    assert.equal(definition.name, fields.name, file);
    assert.ok(fields.description.length > 20, `${file}: expectation has a description`);
    assert.equal(definition.description, fields.description, file);
    assert.deepEqual(definition.tools, fields.tools, file);
    assert.equal(definition.model, fields.model, file);
    assert.ok(definition.systemPrompt.length > 100, `${file}: has a body`);
    // Only two kinds of warning are expected in the corpus.
    for (const w of warnings) assert.match(w.message, /^(invalid YAML frontmatter|tools? ".*" (is|are) not available in this runtime)/, file);
    assert.equal(warnings.some((w) => w.message.startsWith('invalid YAML')), !yamlValid, file);
  }
  assert.equal(invalidYaml, 8, '8 of the 158 corpus files are not valid YAML (js-yaml, through gray-matter, says so)');
});

test('hand-checked: files that are not valid YAML still read as their authors meant', () => {
  const load = (file: string) => {
    const filePath = path.join(CORPUS, file);
    return parseAgentText(readFileSync(filePath, 'utf8'), { filePath, source: 'project', family: '.claude' });
  };
  const ab = load('ab-test-analysis.md');
  assert.equal(ab.definition?.name, 'ab-test-analysis');
  assert.deepEqual(ab.definition?.tools, ['Read', 'Grep', 'Glob', 'WebFetch', 'WebSearch']);
  assert.equal(ab.definition?.model, null);
  // The `: ` that broke YAML is inside the description, which ends with a quoted phrase.
  assert.match(ab.definition?.description ?? '', /^Use when .* Triggers on: '.*'\.$/);
  const growth = load('growth-loops.md');
  assert.equal(growth.definition?.name, 'growth-loops');
  assert.match(growth.definition?.description ?? '', /Triggers on: /);
  assert.deepEqual(load('hipaa-compliance.md').definition?.tools, ['Read', 'Grep', 'Glob', 'WebFetch', 'WebSearch']);
  assert.equal(load('hipaa-compliance.md').warnings.length, 1);
});

test('hand-checked: unknown tools are kept and warned about once per file', () => {
  const filePath = path.join(CORPUS, 'ui-ux-tester.md');
  const { definition, warnings } = parseAgentText(readFileSync(filePath, 'utf8'), { filePath, source: 'project', family: '.claude' });
  assert.ok(definition?.tools?.includes('chrome-mcp'));
  assert.deepEqual(warnings.map((w) => w.message), ['tools "chrome-mcp", "computer-use" are not available in this runtime (not a tool name this runtime knows); they will be ignored']);
});
