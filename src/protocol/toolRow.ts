import * as z from 'zod/mini';
import { TOOL_CALL_STATUSES } from './vocabulary';

/**
 * One tool call of an agent, as the RunStore keeps it and every surface shows
 * it (the Runs view gets it without `startedAt`). Apart from the run
 * snapshot so that the webview bundle takes it without the event schemas.
 */
export const toolRowSchema = z.object({
  toolUseId: z.string(),
  name: z.string(),
  inputSummary: z.string(),
  status: z.enum(TOOL_CALL_STATUSES),
  resultSummary: z.string(),
  startedAt: z.number(),
  durationMs: z.nullable(z.number()),
  /** For spawn rows: the agent the call started. */
  childAgentId: z.nullable(z.string()),
});
export type ToolRow = z.infer<typeof toolRowSchema>;
