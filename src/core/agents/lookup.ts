import type { AgentDefinition } from './definition';

/** Exact-name lookup (SPEC S2.5): `Task` and `task` are different agents. */
export function findAgent(agents: readonly AgentDefinition[], name: string): AgentDefinition | undefined {
  return agents.find((agent) => agent.name === name);
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

export function getAgent(agents: readonly AgentDefinition[], name: string): AgentDefinition {
  const agent = findAgent(agents, name);
  if (!agent) throw new UnknownAgentError(name, agents.map((a) => a.name));
  return agent;
}
