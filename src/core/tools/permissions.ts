import type { RuntimeTool } from './runtimeTool';

/**
 * The permission gate (S7.3): shell commands and file writes ask for approval
 * unless the agent's permission mode allows them. Who answers depends on the
 * surface (a VS Code prompt, a terminal question); with nobody to ask, the
 * call is denied with a message that says how to allow it. A denial is a tool
 * error the model sees, never a crash.
 */

export type PermissionMode = 'default' | 'plan' | 'acceptEdits' | 'bypassPermissions';

export interface ApprovalRequest {
  runId: string;
  agentId: string;
  agentName: string;
  toolName: string;
  kind: 'edit' | 'bash';
  /** The call's one-line summary (`npm test`, `src/app.ts`). */
  summary: string;
  background: boolean;
}

export interface ApprovalDecision {
  allow: boolean;
  /** Allow every further request of this kind in the same run tree. */
  rememberForRun?: boolean;
  reason?: string;
}

export type ApprovalHandler = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

export function needsApproval(mode: PermissionMode, kind: 'edit' | 'bash' | null): boolean {
  if (kind === null || mode === 'bypassPermissions') return false;
  if (mode === 'acceptEdits') return kind === 'bash';
  return true;
}

export class PermissionGate {
  readonly #handler: ApprovalHandler | null;
  /** `${runId}:${kind}` pairs the user allowed for the rest of a run. */
  readonly #remembered = new Set<string>();

  constructor(handler: ApprovalHandler | null) {
    this.#handler = handler;
  }

  /** Resolves to null when the call may run, or to the denial message for the model. */
  async check(mode: PermissionMode, tool: RuntimeTool, request: Omit<ApprovalRequest, 'kind' | 'toolName'>, signal: AbortSignal): Promise<string | null> {
    const kind = tool.approval;
    if (!needsApproval(mode, kind) || kind === null) return null;
    const key = `${request.runId}:${kind}`;
    if (this.#remembered.has(key)) return null;
    if (!this.#handler) {
      return `${tool.name} needs approval (${kind === 'bash' ? 'shell commands' : 'file changes'}), and nobody can approve it here. ` +
        `The user can allow it with the permission mode ${kind === 'bash' ? 'bypassPermissions' : 'acceptEdits or bypassPermissions'} ` +
        '(setting subagents.permissionMode, or --permission-mode on the CLI). Continue without it or explain what you need.';
    }
    const decision = await this.#handler({ ...request, kind, toolName: tool.name }, signal);
    if (decision.allow) {
      if (decision.rememberForRun) this.#remembered.add(key);
      return null;
    }
    return `The user denied ${tool.name}${decision.reason ? `: ${decision.reason}` : ''}. Do not retry the same call; continue without it or explain what you need.`;
  }
}
