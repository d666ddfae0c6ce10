/**
 * Whether an agent may start, as one answer every surface shows in the same
 * words: the engine decides (src/core/engine/tree/admission.ts) and the refusal
 * crosses every boundary as `{ code, message }` (the agent host's replies
 * included), so the Runs view, the palette, the chat, the language-model
 * tools and `subagents run` never word it themselves.
 */

export const ADMISSION_CODES = ['restricted', 'no-key', 'unknown', 'disabled', 'not-user-invocable', 'not-model-invocable', 'bad-budget'] as const;
export type AdmissionCode = (typeof ADMISSION_CODES)[number];

/** Who asks for the agent: a person (a command, the chat, a terminal) or a model (a language-model tool another agent calls). */
export type Invoker = 'user' | 'model';

/** A refusal as it crosses boundaries (the agent host's schema of it: admissionRefusalSchema in host.ts). */
export interface AdmissionRefusal {
  code: AdmissionCode;
  message: string;
}

export const NO_API_KEY_MESSAGE =
  'No Anthropic API key. Set ANTHROPIC_API_KEY in the environment, or run "Subagents: Set API Key" in VS Code.';

/** The one wording of each refusal. */
export const ADMISSION_WORDS = {
  restricted: () => 'Agents cannot run in Restricted Mode: they run tools (shell commands, file edits) in this workspace, so it must be trusted first.',
  noKey: () => NO_API_KEY_MESSAGE,
  unknown: (name: string, available: readonly string[]) => `Unknown agent "${name}". Available: ${available.join(', ') || 'none'}`,
  disabled: (name: string) => `Agent "${name}" is disabled (setting disabledAgents). Remove it from that list to run it.`,
  notUserInvocable: (name: string) => `Agent "${name}" is there for other agents to start (user-invocable: false in its file), not to be run by itself.`,
  notModelInvocable: (name: string) => `Agent "${name}" can only be started by the user (disable-model-invocation in its file).`,
  badBudget: (given: string) => `A budget must be { maxTokens?: whole number ≥ 0, maxCostUsd?: number ≥ 0 }, got ${given}.`,
} as const;

/** An unknown name's refusal naming the teams as well (the name may have been meant as a team); other refusals as they are. */
export function namingTeams(refusal: AdmissionRefusal, teams: readonly string[]): AdmissionRefusal {
  return refusal.code === 'unknown' && teams.length ? { ...refusal, message: `${refusal.message}. Teams: ${teams.join(', ')}` } : refusal;
}
