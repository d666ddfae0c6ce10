// Every file of the compatibility corpus (158 real Claude Code agent files,
// read in place, see test/support/corpus.ts) opened in the language server as a project
// agent: none gets an error, except those whose YAML really is invalid, and
// those get exactly one, on the line where the YAML parser gives up.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import matter from 'gray-matter';
import { CORPUS_DIR, corpusFiles } from '../support/corpus';
import { LspClient } from '../support/lspClient';
import { serverWorkspace, type ServerWorkspace } from '../integration/server/workspace';

const files = corpusFiles();

/** The 0-based document line where js-yaml (through gray-matter, not the product's code) rejects the frontmatter; null when it is valid. */
function invalidYamlLine(text: string): number | null {
  try {
    matter(text, {});
    return null;
  } catch (error) {
    const mark = (error as { mark?: { line?: number } }).mark;
    assert.equal(typeof mark?.line, 'number', `a YAML error without a position: ${String(error)}`);
    // gray-matter hands js-yaml the text right after the opening "---",
    // its line break included, so js-yaml's 0-based lines are the document's.
    return mark!.line!;
  }
}

let ws: ServerWorkspace;
let client: LspClient;

before(async () => {
  ws = serverWorkspace({});
  client = await LspClient.start({ folders: [ws.root], home: ws.home });
});
after(async () => {
  await client?.stop();
  ws?.remove();
});

test('corpus files get no error, and invalid YAML exactly one at the right line', async () => {
  let invalid = 0;
  for (const file of files) {
    const text = readFileSync(path.join(CORPUS_DIR, file), 'utf8');
    const uri = await client.open(path.join(ws.root, '.claude/agents', file), text);
    const errors = (await client.diagnostics(uri)).filter((d) => d.severity === 1);
    const line = invalidYamlLine(text);
    if (line === null) {
      assert.deepEqual(errors.map((d) => d.message), [], `${file} is valid YAML`);
    } else {
      invalid++;
      assert.equal(errors.length, 1, `${file}: ${JSON.stringify(errors.map((d) => d.message))}`);
      assert.equal(errors[0]!.code, 'yaml-syntax', file);
      assert.equal(errors[0]!.range.start.line, line, file);
    }
    await client.close(uri);
  }
  // The corpus is known to hold 8 files that are not valid YAML; a change here means the check changed.
  assert.equal(invalid, 8);
  assert.equal(client.serverErrors, '');
});
