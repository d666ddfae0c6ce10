import { ADMISSION_WORDS, type AdmissionCode, type AdmissionRefusal, type Invoker } from '../../../protocol/admission';
import type { AgentDefinition } from '../../agents/definition';
import type { Settings } from '../../config';
import type { Budget } from './budget';
import { EngineError } from '../errors';

/**
 * Whether an agent may start as a run of its own, decided here and nowhere
 * else: every surface (the palette, the Runs view, the chat, the
 * language-model tools, `subagents run`, the agent host) asks the engine and
 * shows its answer, in the words of src/protocol/admission.ts. Spawns by
 * other agents have checks of their own (toolPool.ts `checkSpawn`), worded
 * for the model.
 */

export type { AdmissionCode, AdmissionRefusal, Invoker };

/** What the caller knows besides the agent: whether runs are allowed where it asks, and whether a key is there. */
export interface AdmissionContext {
  /** False in a window VS Code keeps in Restricted Mode: no agent runs there. */
  runsAllowed: boolean;
  hasKey: boolean;
}

export interface AdmissionQuery {
  /** The name as asked for. */
  name: string;
  definition: AgentDefinition | undefined;
  /** Every agent's name, in precedence order (for "Available: …"). */
  available: readonly string[];
  settings: Pick<Settings, 'disabledAgents'>;
  invoker: Invoker;
  budget?: Budget;
  /** Absent: the caller has checked trust and the key itself (an engine without a host, in tests). */
  context?: AdmissionContext;
}

/** Null when the agent may start; otherwise the refusal every surface shows as it is. */
export function admit(query: AdmissionQuery): AdmissionRefusal | null {
  const refuse = (code: AdmissionCode, message: string): AdmissionRefusal => ({ code, message });
  if (query.context && !query.context.runsAllowed) return refuse('restricted', ADMISSION_WORDS.restricted());
  if (query.context && !query.context.hasKey) return refuse('no-key', ADMISSION_WORDS.noKey());
  const { definition } = query;
  if (!definition) return refuse('unknown', ADMISSION_WORDS.unknown(query.name, query.available));
  if (query.settings.disabledAgents.includes(definition.name)) return refuse('disabled', ADMISSION_WORDS.disabled(definition.name));
  if (query.invoker === 'user' && definition.userInvocable === false) return refuse('not-user-invocable', ADMISSION_WORDS.notUserInvocable(definition.name));
  if (query.invoker === 'model' && definition.modelInvocable === false) return refuse('not-model-invocable', ADMISSION_WORDS.notModelInvocable(definition.name));
  if (query.budget && !validBudget(query.budget)) return refuse('bad-budget', ADMISSION_WORDS.badBudget(JSON.stringify(query.budget)));
  return null;
}

function validBudget(budget: Budget): boolean {
  const tokens = budget.maxTokens;
  const cost = budget.maxCostUsd;
  return (tokens === undefined || (Number.isInteger(tokens) && tokens >= 0)) && (cost === undefined || (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0));
}

/** The engine's refusal to start an agent, with its code: surfaces show `message` as it is. */
export class AdmissionError extends EngineError {
  override name = 'AdmissionError';
  constructor(readonly refusal: AdmissionRefusal) {
    super(refusal.message);
  }
}
