import assert from 'node:assert/strict';
import type { AgentDefinition, AgentFamily, AgentSource } from '../../../../../src/core/agents/definition';
import { parseAgentText } from '../../../../../src/core/agents/parsing/parse';

/** Parses `text` as the file at `filePath`; the definition must load. */
export function load(text: string, filePath: string, family: AgentFamily | null, source: AgentSource = 'project', pluginName?: string): { definition: AgentDefinition; messages: string[] } {
  const { definition, warnings } = parseAgentText(text, { filePath, source, family, pluginName: pluginName ?? null });
  assert.ok(definition, `${filePath} did not load: ${JSON.stringify(warnings)}`);
  return { definition, messages: warnings.map((w) => w.message) };
}

/** Parses `text` as the file at `filePath`; it must be skipped. Returns the warnings. */
export function skipped(text: string, filePath: string, family: AgentFamily | null): string[] {
  const { definition, warnings } = parseAgentText(text, { filePath, source: 'project', family });
  assert.equal(definition, null, `${filePath} loaded`);
  return warnings.map((w) => w.message);
}
