import * as z from 'zod/mini';
import { AGENT_FAMILIES, AGENT_SOURCES } from '../core/agents/kinds';

/**
 * Messages between the extension host and the sidebar webview (S7.4: both
 * sides validate what they receive against these schemas).
 */

export const agentSummarySchema = z.object({
  name: z.string(),
  description: z.string(),
  source: z.enum(AGENT_SOURCES),
  family: z.nullable(z.enum(AGENT_FAMILIES)),
  filePath: z.string(),
  model: z.nullable(z.string()),
  disabled: z.boolean(),
  /** Set when a higher-precedence definition of the same name wins. */
  shadowedBy: z.nullable(z.string()),
});
export type AgentSummary = z.infer<typeof agentSummarySchema>;

export const warningSummarySchema = z.object({ filePath: z.string(), message: z.string() });

export const viewStateSchema = z.object({
  agents: z.array(agentSummarySchema),
  warnings: z.array(warningSummarySchema),
  /** Why project and plugin agents are hidden, when they are (untrusted workspace). */
  notice: z.nullable(z.string()),
});
export type ViewState = z.infer<typeof viewStateSchema>;

export const hostToWebviewSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('state'), state: viewStateSchema }),
]);
export type HostToWebview = z.infer<typeof hostToWebviewSchema>;

export const webviewToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('openDefinition'), filePath: z.string() }),
  z.object({ type: z.literal('command'), command: z.enum(['runAgent', 'newAgent', 'refreshAgents']), agentName: z.optional(z.string()) }),
]);
export type WebviewToHost = z.infer<typeof webviewToHostSchema>;
