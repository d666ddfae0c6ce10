import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { discoverAgents } from '../../src/core/agents/catalog/discovery';
import { layout, runtimeTools, writeFile } from '../integration/core/agents/helpers';
import { CORPUS_DIR, corpusExpectation, corpusFiles } from '../support/corpus';

// The real-world Claude Code files laid out as a project's agents: every one
// loads through discovery with the name, description, runtime tools and
// model its frontmatter says.

test('Claude Code: the 158-file corpus loads right through discovery', async (t) => {
  const { home, cwd } = layout(t);
  const files = corpusFiles();
  for (const file of files) writeFile(path.join(cwd, '.claude/agents', file), readFileSync(path.join(CORPUS_DIR, file)));
  const result = await discoverAgents({ cwd, home, loadClaudePlugins: false, bundledDir: null });
  let right = 0;
  for (const file of files) {
    const { fields } = corpusExpectation(readFileSync(path.join(CORPUS_DIR, file), 'utf8'));
    const definition = result.agents.find((a) => a.filePath === path.join(cwd, '.claude/agents', file));
    const tools = runtimeTools(fields);
    if (definition && definition.name === fields.name && definition.description === fields.description && JSON.stringify(runtimeTools(definition)) === JSON.stringify(tools) && definition.model === fields.model) right++;
  }
  t.diagnostic(`claude-code: ${right} of ${files.length} load right`);
  assert.equal(right, files.length);
});
