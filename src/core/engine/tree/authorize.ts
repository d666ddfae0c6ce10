import path from 'node:path';
import { needsApproval, type PermissionMode, type ToolKind, type ToolSpec } from '../../../protocol/tools';
import { previewText, type ApprovalPreview } from '../../tools/approvalPreview';
import { decideByRules } from '../../tools/permissionRules';
import type { Denial, PermissionGate } from '../../tools/permissions';
import type { AgentRun, EmitEvent } from './agentRun';

/** What is asked about: a tool call, or a hook command run as this agent's. */
export interface AuthorizeCall {
  tool: Pick<ToolSpec, 'name' | 'kind' | 'origin'> & { confirmedElsewhere?: boolean };
  /** The tool call waiting, or a made-up id for something that is not one (a hook). */
  toolUseId: string;
  summary: string;
  /** Set for a file change that acceptEdits must still ask about, with the reason. */
  protectedReason?: string | null;
  /** What the call would do, whole; worked out only when the user is asked. */
  preview?: () => Promise<ApprovalPreview | null>;
  /** The call's input, which the agent file's own permission rules match against (absent: not a tool call). */
  input?: unknown;
}

/**
 * Whether the user lets an agent file's `allow` rules run calls unasked that
 * the agent's mode would ask about: `level` is the mode they amount to
 * (acceptEdits for file changes, bypassPermissions for commands), `origins`
 * the rules. Without it, such rules ask as the mode does.
 */
export type AllowRulesConsent = (level: PermissionMode, origins: string[]) => Promise<boolean>;

export type Authorize = (call: AuthorizeCall) => Promise<Denial | null>;

/**
 * One agent's way through the permission gate: its mode, its ids, its
 * signal, and the approval events every surface shows while it waits.
 * Resolves to null when the call may go ahead, else to the denial (for the model and for the user).
 * The summary is redacted before the gate sees it: the request itself reaches
 * the approval handler (the CLI's terminal question, the inbox), not only the
 * event, so a command carrying the API key must not be shown with it.
 */
export function authorizer(
  run: AgentRun,
  gate: PermissionGate,
  emit: EmitEvent,
  redact: (text: string) => string,
  /** File changes inside an isolated worktree run unasked in the default mode (they are reviewed before they reach the user's tree). */
  editsInWorktreeUnasked: () => boolean = () => false,
  allowRules?: AllowRulesConsent,
): Authorize {
  const redactPreview = async (make: () => Promise<ApprovalPreview | null>): Promise<ApprovalPreview | null> => {
    const preview = await make();
    if (!preview) return null;
    if (preview.kind === 'command') return { kind: 'command', command: redact(preview.command) };
    if (preview.kind === 'arguments') return { kind: 'arguments', arguments: redact(preview.arguments) };
    return { kind: 'file', path: redact(preview.path), before: preview.before === null ? null : redact(preview.before), after: redact(preview.after) };
  };
  return async ({ tool, toolUseId, summary, protectedReason, preview, input }) => {
    let mode = effectiveMode(run, tool.kind, editsInWorktreeUnasked);
    let askedByFile: string | undefined;
    const rules = run.definition.permissions ?? [];
    if (rules.length > 0 && input !== undefined) {
      const verdict = await decideByRules(rules, { name: tool.name, origin: tool.origin, input, cwd: run.cwd });
      if (verdict?.rule.action === 'deny') {
        const what = verdict.subject ? `${tool.name} (${redact(verdict.subject)})` : tool.name;
        return {
          message: `${what} is refused by this agent's own file: ${verdict.rule.origin}. Do not retry the same call; continue without it or explain what you need.`,
          summary: `Refused by the agent's file: ${verdict.rule.origin}`,
        };
      }
      if (verdict?.rule.action === 'ask') askedByFile = verdict.rule.origin;
      if (verdict?.rule.action === 'allow' && needsApproval(mode, tool.kind, Boolean(protectedReason))) {
        // An allow rule runs the call unasked only once the user consents to the file loosening its approvals.
        const level: PermissionMode = tool.kind === 'write' ? 'acceptEdits' : 'bypassPermissions';
        if (mode !== 'plan' && allowRules && (await allowRules(level, [verdict.rule.origin]))) mode = level;
      }
    }
    return gate.check(
      mode,
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
          emit({
            type: 'approval_requested',
            approvalId: r.id,
            toolUseId: r.toolUseId,
            toolName: r.toolName,
            kind: r.kind,
            summary: r.summary,
            protectedReason: r.protectedReason ?? null,
            detail: r.preview ? previewText(r.preview) : null,
          }),
        settled: (r, d) => emit({ type: 'approval_settled', approvalId: r.id, allowed: d.allow, scope: d.scope ?? 'once', by: d.by ?? 'unknown', reason: d.reason ?? null }),
      },
      preview && (() => redactPreview(preview)),
      askedByFile,
    );
  };
}

/** Whether the agent works inside an isolated worktree: its own, or an ancestor's it was started in. */
export function insideWorktree(run: Pick<AgentRun, 'cwd' | 'isolation' | 'parent'>): boolean {
  for (let r: Pick<AgentRun, 'isolation' | 'parent'> | null = run; r; r = r.parent) {
    const root = r.isolation?.path;
    if (root && (run.cwd === root || run.cwd.startsWith(`${root}${path.sep}`))) return true;
  }
  return false;
}

/**
 * The mode a call is checked under: the agent's, except that in the default
 * mode a file change inside an isolated worktree is treated as under
 * acceptEdits when the setting allows it (protected files still ask).
 */
function effectiveMode(run: AgentRun, kind: ToolKind, editsInWorktreeUnasked: () => boolean): PermissionMode {
  if (run.permissionMode === 'default' && kind === 'write' && editsInWorktreeUnasked() && insideWorktree(run)) return 'acceptEdits';
  return run.permissionMode;
}
