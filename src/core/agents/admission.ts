import type { AgentDefinition } from './definition';

/**
 * Whether the user may start an agent by itself, in the one wording every
 * surface shows (the Run Agent command, `@agent`, `subagents run`). An agent
 * whose file says `user-invocable: false` is there for other agents to
 * start; agents still spawn it.
 */
export function userStartRefusal(agent: Pick<AgentDefinition, 'name' | 'userInvocable'>): string | null {
  if (agent.userInvocable === false) return `Agent "${agent.name}" is there for other agents to start (user-invocable: false in its file), not to be run by itself.`;
  return null;
}
