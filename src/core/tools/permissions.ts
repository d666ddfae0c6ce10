import { randomBytes } from 'node:crypto';
import type { ApprovalKind, ApprovalScope } from '../../protocol/runEvents';
import { approvalKind, needsApproval, type PermissionMode, type ToolSpec } from '../../protocol/tools';
import type { ApprovalPreview } from './approvalPreview';

/**
 * The permission gate: shell commands and file writes ask for approval
 * unless the agent's permission mode allows them (the tool registry's
 * MODE_RULES, protocol/tools.ts, says which). Who answers depends on the
 * surface (the permission inbox in VS Code, a terminal question in the CLI);
 * with nobody to ask, the call is denied with a message that says how to
 * allow it. A denial is a tool error the model sees, never a crash.
 */

export type { PermissionMode };

export interface ApprovalRequest {
  /** Unique per question; surfaces answer by it. */
  id: string;
  runId: string;
  agentId: string;
  agentName: string;
  /** The tool call waiting for the answer. */
  toolUseId: string;
  toolName: string;
  kind: ApprovalKind;
  /** The call's one-line summary (`npm test`, `src/app.ts`). */
  summary: string;
  background: boolean;
  /**
   * Set when the call writes a file whose change runs commands or widens
   * permissions (hook settings, `.git/`, `.vscode/`, …): why. Such a change
   * is asked about under acceptEdits too, and earlier allowances for
   * ordinary file changes do not cover it.
   */
  protectedReason?: string | null;
  /** What the call would do, whole: the command, or the file before and after (null when it cannot be worked out). */
  preview?: ApprovalPreview | null;
}

export interface ApprovalDecision {
  allow: boolean;
  /** For an allow: also allow every further call of this kind by this agent, or by any agent of the run tree. Default `once`. */
  scope?: ApprovalScope;
  reason?: string;
  /** The surface that answered (`notification`, `sidebar`, `chat`, `terminal`); shown with the settled approval. */
  by?: string;
}

export type ApprovalHandler = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/**
 * Why a call did not run, twice: `message` is the tool error the model gets
 * (with what to do next, "do not retry the same call…"), `summary` the short
 * line every surface shows the user on the call's row. Text written for the
 * model is never shown as if it were written for the user.
 */
export interface Denial {
  message: string;
  summary: string;
}

/** Told when a call starts waiting for the user and when the wait ends (the engine turns these into run events). */
export interface ApprovalObserver {
  requested(request: ApprovalRequest): void;
  settled(request: ApprovalRequest, decision: ApprovalDecision): void;
}

/** What a kind of call is, for denial messages. */
const KIND_WORDS: Record<ApprovalKind, string> = {
  bash: 'shell commands',
  edit: 'file changes',
  mcp: 'an MCP tool that may change things (its server does not mark it read-only)',
  tool: "a call its agent's file says to ask about",
};

export function newApprovalId(): string {
  return `ap_${randomBytes(6).toString('hex')}`;
}

export class PermissionGate {
  readonly #handler: ApprovalHandler | null;
  readonly #asks: (runId: string) => boolean;
  /** `agent:<agentId>:<kind>` and `run:<runId>:<kind>` keys the user allowed beyond one call. */
  readonly #remembered = new Set<string>();

  /** `asks(runId)` false: nobody answers for that run (a script's, CI's), so its calls are denied as with no handler. */
  constructor(handler: ApprovalHandler | null, asks: (runId: string) => boolean = () => true) {
    this.#handler = handler;
    this.#asks = asks;
  }

  /** Resolves to null when the call may run, or to why not (for the model and for the user). */
  async check(
    mode: PermissionMode,
    tool: Pick<ToolSpec, 'name' | 'kind' | 'origin'> & { confirmedElsewhere?: boolean },
    request: Omit<ApprovalRequest, 'kind' | 'toolName' | 'id' | 'preview'>,
    signal: AbortSignal,
    observer?: ApprovalObserver,
    /** What the call would do, worked out only when someone is asked. */
    preview?: () => Promise<ApprovalPreview | null>,
    /** The agent's own file says to ask about this call (an `ask` rule), whatever the mode: why. */
    askedByFile?: string,
  ): Promise<Denial | null> {
    const kind = approvalKind(tool.kind, tool.origin) ?? (askedByFile ? 'tool' : null);
    const guarded = Boolean(request.protectedReason);
    // A tool the editor confirms itself (VS Code's own tools) is not asked about twice.
    if (kind === null || tool.confirmedElsewhere || (!askedByFile && !needsApproval(mode, tool.kind, guarded))) return null;
    // Allowances for protected files are kept apart: "allow edits for this run" does not cover hook settings.
    // A tool of another program, and a call a file asks about, is allowed on its own: allowing one allows no other tool.
    const key = guarded ? `${kind}:protected` : kind === 'mcp' || kind === 'tool' ? `${kind}:${tool.name}` : kind;
    if (this.#remembered.has(`run:${request.runId}:${key}`) || this.#remembered.has(`agent:${request.agentId}:${key}`)) return null;
    const handler = this.#handler;
    if (!handler || !this.#asks(request.runId)) {
      if (guarded) {
        return {
          message:
            `${tool.name} needs approval: ${request.summary} is protected (${request.protectedReason}), so it is never changed without asking, and nobody can approve it here. ` +
            'Only the permission mode bypassPermissions allows it without asking. Continue without it or explain what you need.',
          summary: `Not run: protected (${request.protectedReason}), and nobody could approve it here`,
        };
      }
      if (askedByFile) {
        return {
          message: `${tool.name} needs approval: this agent's file says to ask first (${askedByFile}), and nobody can approve it here. Continue without it or explain what you need.`,
          summary: `Not run: its agent's file says to ask (${askedByFile}), and nobody could approve it here`,
        };
      }
      return {
        message:
          `${tool.name} needs approval (${KIND_WORDS[kind]}), and nobody can approve it here. ` +
          `The user can allow it with the permission mode ${kind === 'edit' ? 'acceptEdits or bypassPermissions' : 'bypassPermissions'} ` +
          '(setting subagents.permissionMode, or --permission-mode on the CLI). Continue without it or explain what you need.',
        summary: `Not run: it needs approval, and nobody could approve it here (permission mode ${mode})`,
      };
    }
    const full: ApprovalRequest = { ...request, id: newApprovalId(), kind, toolName: tool.name, preview: await preview?.().catch(() => null) };
    observer?.requested(full);
    let decision: ApprovalDecision;
    try {
      decision = signal.aborted ? stopped() : await handler(full, signal);
    } catch (error) {
      decision = { allow: false, reason: `the approval could not be asked (${error instanceof Error ? error.message : String(error)})`, by: 'error' };
    }
    if (signal.aborted && decision.allow) decision = stopped();
    observer?.settled(full, decision);
    if (decision.allow) {
      if (decision.scope === 'run') this.#remembered.add(`run:${request.runId}:${key}`);
      else if (decision.scope === 'agent') this.#remembered.add(`agent:${request.agentId}:${key}`);
      return null;
    }
    if (signal.aborted) return { message: `${tool.name} was not run: the agent was stopped while it waited for approval.`, summary: 'Not run: the agent was stopped while it waited for approval' };
    return {
      message: `The user denied ${tool.name}${decision.reason ? `: ${decision.reason}` : ''}. Do not retry the same call; continue without it or explain what you need.`,
      summary: denialSummary(decision.reason),
    };
  }
}

/** "Denied in VS Code (chat)", "Denied: not on my machine". */
function denialSummary(reason: string | undefined): string {
  if (!reason) return 'Denied';
  return /^denied\b/i.test(reason) ? `${reason.charAt(0).toUpperCase()}${reason.slice(1)}` : `Denied: ${reason}`;
}

function stopped(): ApprovalDecision {
  return { allow: false, reason: 'the agent was stopped', by: 'stopped' };
}
