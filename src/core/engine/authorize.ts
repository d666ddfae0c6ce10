import type { ToolSpec } from '../../protocol/tools';
import type { PermissionGate } from '../tools/permissions';
import type { AgentRun, EmitEvent } from './agentRun';

/** What is asked about: a tool call, or a hook command run as this agent's (S7.3). */
export interface AuthorizeCall {
  tool: Pick<ToolSpec, 'name' | 'kind'>;
  /** The tool call waiting, or a made-up id for something that is not one (a hook). */
  toolUseId: string;
  summary: string;
  /** Set for a file change that acceptEdits must still ask about, with the reason. */
  protectedReason?: string | null;
}

export type Authorize = (call: AuthorizeCall) => Promise<string | null>;

/**
 * One agent's way through the permission gate: its mode, its ids, its
 * signal, and the approval events every surface shows while it waits.
 * Resolves to null when the call may go ahead, else to the denial message.
 * The summary is redacted before the gate sees it: the request itself reaches
 * the approval handler (the CLI's terminal question, the inbox), not only the
 * event, so a command carrying the API key must not be shown with it.
 */
export function authorizer(run: AgentRun, gate: PermissionGate, emit: EmitEvent, redact: (text: string) => string): Authorize {
  return ({ tool, toolUseId, summary, protectedReason }) =>
    gate.check(
      run.permissionMode,
      tool,
      {
        runId: run.tree.runId,
        agentId: run.id,
        agentName: run.agentName,
        toolUseId,
        summary: redact(summary),
        background: run.background,
        protectedReason: protectedReason == null ? null : redact(protectedReason),
      },
      run.signal,
      {
        requested: (r) =>
          emit({ type: 'approval_requested', approvalId: r.id, toolUseId: r.toolUseId, toolName: r.toolName, kind: r.kind, summary: r.summary, protectedReason: r.protectedReason ?? null }),
        settled: (r, d) => emit({ type: 'approval_settled', approvalId: r.id, allowed: d.allow, scope: d.scope ?? 'once', by: d.by ?? 'unknown', reason: d.reason ?? null }),
      },
    );
}
