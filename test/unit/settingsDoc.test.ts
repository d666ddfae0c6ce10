import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { agentsCommand } from '../../src/cli/commands/agents';
import { resumeCommand } from '../../src/cli/commands/resume';
import { runCommand } from '../../src/cli/commands/run';
import { SETTING_KEYS } from '../../src/core/config';
import { anchor, renderSettingsDoc, RUN_FLAGS, SETTINGS_DOC } from '../../scripts/settings-doc.mjs';

// docs/settings.md is generated from package.json: a setting added, or a
// description or default changed, without regenerating it fails here.

const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as unknown;

test('docs/settings.md is what package.json gives (run `node scripts/settings-doc.mjs` after changing a setting)', () => {
  assert.equal(readFileSync(SETTINGS_DOC, 'utf8'), renderSettingsDoc(pkg));
});

test('every setting has its section, with its default, and every flag it names is a real flag', () => {
  const doc = readFileSync(SETTINGS_DOC, 'utf8');
  for (const key of SETTING_KEYS) {
    assert.ok(doc.includes(`\n### subagents.${key}\n`), `subagents.${key} has no section`);
    assert.ok(doc.includes(`](#${anchor(`subagents.${key}`)})`), `subagents.${key} is not in its group's table`);
  }
  const usage = [runCommand.usage, resumeCommand.usage, agentsCommand.usage].join('\n');
  for (const [key, flag] of Object.entries(RUN_FLAGS)) {
    assert.ok((SETTING_KEYS as string[]).includes(key), `${key} is not a setting`);
    assert.ok(usage.includes(`${flag} `), `${flag} is not a flag of the CLI`);
  }
});
