import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultSettings, parseSettings, RESTRICTED_SETTING_KEYS, SETTING_DEFAULTS, SETTING_KEYS, settingSchema } from '../../../src/core/config';

const manifest = JSON.parse(readFileSync(path.join(import.meta.dirname, '../../../package.json'), 'utf8'));
const declared: Record<string, { type: string; default: unknown; enum?: string[]; minimum?: number; maximum?: number }> =
  manifest.contributes.configuration.properties;

test('every setting the code reads is declared in package.json, and nothing else is', () => {
  const declaredKeys = Object.keys(declared).map((k) => k.replace(/^subagents\./, ''));
  assert.deepEqual([...declaredKeys].sort(), [...SETTING_KEYS].sort());
});

test('declared defaults equal the code\'s defaults, and each default passes its own schema', () => {
  const defaults = defaultSettings();
  for (const key of SETTING_KEYS) {
    assert.deepEqual(declared[`subagents.${key}`]!.default, defaults[key], `default of subagents.${key}`);
    assert.equal(settingSchema(key).safeParse(defaults[key]).success, true, `the default of subagents.${key} is valid`);
  }
});

test('defaultSettings() hands out copies: a caller changing its lists or maps changes no other caller\'s', () => {
  const first = defaultSettings();
  first.pluginDirs.push('/x');
  first.disabledAgents.push('y');
  first.modelAliases.sonnet = 'changed';
  const second = defaultSettings();
  assert.deepEqual(second.pluginDirs, []);
  assert.deepEqual(second.disabledAgents, []);
  assert.notEqual(second.modelAliases.sonnet, 'changed');
  assert.deepEqual(second, SETTING_DEFAULTS);
});

test('declared types, enums and bounds match the schema', () => {
  const jsonTypeOf = (value: unknown) =>
    Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value === 'number' ? 'number' : typeof value;
  for (const key of SETTING_KEYS) {
    const decl = declared[`subagents.${key}`]!;
    const schema = settingSchema(key);
    const def = defaultSettings()[key];
    const actual = jsonTypeOf(def);
    assert.ok(decl.type === actual || (decl.type === 'number' && actual === 'integer'), `type of subagents.${key}: ${decl.type} vs ${actual}`);
    if (decl.type === 'integer') assert.equal(schema.safeParse(1.5).success, false, `subagents.${key} must reject fractions`);
    if (decl.minimum !== undefined) {
      assert.equal(schema.safeParse(decl.minimum).success, true, `subagents.${key} accepts its minimum`);
      assert.equal(schema.safeParse(decl.minimum - 1).success, false, `subagents.${key} rejects below minimum`);
    }
    if (decl.maximum !== undefined) assert.equal(schema.safeParse(decl.maximum + 1).success, false, `subagents.${key} rejects above maximum`);
    if (decl.enum) for (const v of decl.enum) assert.equal(schema.safeParse(v).success, true, `subagents.${key} accepts ${v}`);
    if (decl.enum) assert.equal(schema.safeParse('no-such-value').success, false);
  }
});

test('a bad value falls back to its default and is reported; other settings survive', () => {
  const { settings, problems } = parseSettings({ maxDepth: 'deep', maxConcurrency: 7 });
  assert.equal(settings.maxDepth, 3);
  assert.equal(settings.maxConcurrency, 7);
  assert.equal(problems.length, 1);
  assert.match(problems[0]!, /subagents\.maxDepth/);
});

test('the keys the CLI keeps a project file from setting are the ones VS Code restricts in untrusted workspaces', () => {
  const restricted: string[] = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations;
  assert.deepEqual([...restricted].sort(), RESTRICTED_SETTING_KEYS.map((k) => `subagents.${k}`).sort());
});
