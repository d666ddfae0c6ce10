import type { AgentDefinition } from '../definition';

/**
 * Exact-name lookup: `Task` and `task` are different agents. A
 * plugin agent (`plugin:agent`) is also found by its bare name when that
 * name is its alone (`aliases`, from precedence).
 */
export function findAgent(agents: readonly AgentDefinition[], name: string, aliases: Readonly<Record<string, string>> = {}): AgentDefinition | undefined {
  const exact = agents.find((agent) => agent.name === name);
  if (exact || !Object.hasOwn(aliases, name)) return exact;
  const qualified = aliases[name];
  return agents.find((agent) => agent.name === qualified);
}

/** Thrown for a name no current agent has; the message lists the alternatives. */
export class UnknownAgentError extends Error {
  override readonly name = 'UnknownAgentError';

  constructor(
    readonly agentName: string,
    readonly available: readonly string[],
  ) {
    super(`Unknown agent "${agentName}". Available: ${available.length > 0 ? available.join(', ') : '(none)'}`);
  }
}

export function getAgent(agents: readonly AgentDefinition[], name: string, aliases: Readonly<Record<string, string>> = {}): AgentDefinition {
  const agent = findAgent(agents, name, aliases);
  if (!agent) throw new UnknownAgentError(name, agents.map((a) => a.name));
  return agent;
}
