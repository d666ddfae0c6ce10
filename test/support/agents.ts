import { DEFINITION_DEFAULTS, type AgentDefinition } from '../../src/core/agents/definition';
import { defaultSettings, type Settings } from '../../src/core/config';
import type { AgentLookup } from '../../src/core/engine/engine';

/** A definition as discovery would produce it, for tests that do not need files. */
export function agent(name: string, overrides: Partial<AgentDefinition> = {}): AgentDefinition {
  return {
    ...DEFINITION_DEFAULTS,
    name,
    description: `${name} agent`,
    systemPrompt: `You are the ${name} agent. [agent:${name}]`,
    family: '.claude',
    filePath: `/agents/${name}.md`,
    ...overrides,
  };
}

/** A mutable catalog: tests swap definitions mid-run to check that the next spawn sees the change. */
export function catalogOf(...defs: AgentDefinition[]): AgentLookup & { set(defs: AgentDefinition[]): void } {
  let agents = defs;
  return {
    get agents() {
      return agents;
    },
    find: (name) => agents.find((a) => a.name === name),
    set(next) {
      agents = next;
    },
  };
}

export function settings(overrides: Partial<Settings> = {}): () => Settings {
  const value = { ...defaultSettings(), permissionMode: 'bypassPermissions' as const, ...overrides };
  return () => value;
}

/** The marker every test agent's system prompt carries, for routing in scripts. */
export function isAgent(system: string, name: string): boolean {
  return system.includes(`[agent:${name}]`);
}
