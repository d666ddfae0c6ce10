import * as z from 'zod/mini';
import { ADMISSION_CODES, type AdmissionRefusal } from './admission';
import { agentOutcomeShape, approvalKindSchema, approvalScopeSchema, runEventSchema } from './runEvents';
import { runSnapshotSchema } from './runSnapshot';
import { runTeamSchema } from './team';

/**
 * The agent host's protocol: what VS Code windows and the CLI say to the one
 * runtime per user (src/host/, src/core/host/), and what it says back. One
 * JSON message per line over a socket only the user can open. Every message
 * in either direction is checked against `hostMessageSchema` on arrival; a
 * message that does not match is answered with a protocol error (a request)
 * or dropped and logged, never acted on.
 *
 * The first message on a connection is the client's `hello`, with the
 * host's token (from a file only the user can read) and the protocol version
 * it speaks; the host answers with its own version and capabilities, or an
 * error and the end of the connection. Nothing here assumes the client and
 * the host share a machine except the token's file and the paths in run
 * snapshots: see docs/architecture.md for how a host on another machine is
 * reached over SSH.
 */

/** Bumped when a message changes incompatibly; hosts of another major serve their own clients (socket name), side by side. */
export const PROTOCOL_MAJOR = 1;
/** Bumped for compatible additions; capabilities say what each side offers. */
export const PROTOCOL_MINOR = 2;

export const protocolVersionSchema = z.object({ major: z.int(), minor: z.int() });

/** What a client can do for the host when asked (reverse requests). */
export const CLIENT_CAPABILITIES = ['modeConsent', 'mcpInputs', 'editorTools'] as const;
/** What the host offers. */
export const HOST_CAPABILITIES = ['runs', 'approvals', 'feed', 'unattendedApprovals', 'idleExit', 'teams'] as const;

const stringRecord = z.record(z.string(), z.string());

export const trustSpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('window'), trusted: z.boolean() }),
  z.object({ kind: z.literal('folders'), roots: z.array(z.string()) }),
  z.object({ kind: z.literal('all') }),
]);

/** A ScopeSpec (src/core/runtime/scopeSpec.ts); `settings` are checked by the settings schema where they are used. */
export const scopeSpecSchema = z.object({
  cwd: z.string().check(z.minLength(1)),
  surface: z.enum(['vscode', 'cli']),
  settings: z.record(z.string(), z.unknown()),
  trust: trustSpecSchema,
  credentials: z.object({ apiKey: z.optional(z.string()), baseUrl: z.optional(z.string()) }),
  env: stringRecord,
  home: z.string(),
  bundledDir: z.optional(z.nullable(z.string())),
  pluginDirs: z.optional(z.array(z.string())),
  editorStorage: z.optional(z.string()),
  demoModels: z.optional(z.boolean()),
  trustHint: z.optional(z.string()),
  session: z.number(),
});

/** A team file as a surface resolved it (TeamStart, src/core/engine/team/leadBrief.ts): the host runs it as given. */
const teamStartSchema = z.object({
  info: runTeamSchema,
  brief: z.string(),
  tasks: z.array(z.object({ subject: z.string(), description: z.optional(z.string()), blockedBy: z.optional(z.array(z.int())) })),
});

const budgetSchema = z.object({ maxTokens: z.optional(z.number()), maxCostUsd: z.optional(z.number()) });
const permissionModeSchema = z.enum(['default', 'acceptEdits', 'bypassPermissions', 'plan']);

/** The handle a client gets for an agent it started or continued. */
export const runHandleSchema = z.object({ agentId: z.string(), runId: z.string(), agentName: z.string() });

export const agentResultSchema = z.object({
  agentId: z.string(),
  runId: z.string(),
  agentName: z.string(),
  ...agentOutcomeShape,
});

/** What an approval approves, whole (src/core/tools/approvalPreview.ts says how each surface shows it). */
export const approvalPreviewSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('command'), command: z.string() }),
  /** A call to another program's tool (an MCP server's): its arguments as indented JSON, whole. */
  z.object({ kind: z.literal('arguments'), arguments: z.string() }),
  z.object({
    kind: z.literal('file'),
    /** As the tool call names it (relative to the agent's folder, or absolute inside it). */
    path: z.string(),
    /** The file now; null when the call creates it. */
    before: z.nullable(z.string()),
    after: z.string(),
  }),
]);
export type ApprovalPreview = z.infer<typeof approvalPreviewSchema>;

/** An approval waiting for the user (ApprovalRequest with when it was asked). */
export const pendingApprovalWireSchema = z.object({
  request: z.object({
    id: z.string(),
    runId: z.string(),
    agentId: z.string(),
    agentName: z.string(),
    toolUseId: z.string(),
    toolName: z.string(),
    kind: approvalKindSchema,
    summary: z.string(),
    background: z.boolean(),
    protectedReason: z.optional(z.nullable(z.string())),
    preview: z.optional(z.nullable(approvalPreviewSchema)),
  }),
  requestedAt: z.number(),
});

export const approvalDecisionSchema = z.object({
  allow: z.boolean(),
  scope: z.optional(approvalScopeSchema),
  reason: z.optional(z.string()),
  by: z.optional(z.string()),
});

/** A change to the run store, as the host's store made it: the client's copy makes the same change. */
export const storeOpSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('event'), event: runEventSchema }),
  z.object({ op: z.literal('load'), runs: z.array(runSnapshotSchema) }),
  z.object({ op: z.literal('remove'), runId: z.string() }),
  z.object({ op: z.literal('limits'), limits: z.object({ maxEventsPerRun: z.optional(z.int()), maxRuns: z.optional(z.int()) }) }),
]);
export type StoreOp = z.infer<typeof storeOpSchema>;

const clientSchema = z.object({
  /** Who connects: a VS Code window, the CLI, a test. */
  kind: z.enum(['vscode', 'cli', 'other']),
  /** The product version and build it runs. */
  version: z.string(),
  build: z.string(),
  pid: z.int(),
  /** The folders it has open (a window's workspace folders), for the approvals it shows and the status it lists. */
  folders: z.optional(z.array(z.string())),
});

const hostInfoSchema = z.object({
  version: z.string(),
  build: z.string(),
  pid: z.int(),
  startedAt: z.number(),
});

/** The host's settings a client brings (the user's own): idle exit, how long an unattended approval waits, the history's caps. */
export const hostSettingsSchema = z.object({
  idleExitSeconds: z.number().check(z.positive()),
  unattendedApprovalSeconds: z.number().check(z.positive()),
  /** The user's settings as a whole (history caps, the worktree pool's size): checked by the settings schema. */
  user: z.optional(z.record(z.string(), z.unknown())),
});
export type HostSettings = z.infer<typeof hostSettingsSchema>;

const clientInfoStatus = z.object({ kind: clientSchema.shape.kind, pid: z.int(), version: z.string(), connectedAt: z.number(), folders: z.optional(z.array(z.string())) });

/** What `subagents host status` shows. */
export const hostStatusSchema = z.object({
  host: hostInfoSchema,
  protocol: protocolVersionSchema,
  socket: z.string(),
  clients: z.array(clientInfoStatus),
  /** Agents at work now. */
  working: z.int(),
  pendingApprovals: z.int(),
  scopes: z.int(),
  settings: z.object({ idleExitSeconds: z.number(), unattendedApprovalSeconds: z.number() }),
  /** Set while nothing keeps the host: when it exits unless a client connects or a run starts. */
  idleExitAt: z.nullable(z.number()),
});
export type HostStatus = z.infer<typeof hostStatusSchema>;

/** One of the editor's own tools, as a window reports it (src/core/mcp/editorTools.ts). */
const editorToolSchema = z.object({ id: z.string(), group: z.string(), tool: z.string(), kind: z.enum(['mcp', 'extension']), description: z.string(), inputSchema: z.nullable(z.record(z.string(), z.unknown())) });

const m = <M extends string, P extends z.ZodMiniType>(method: M, params: P) => z.object({ kind: z.literal('request'), id: z.int(), method: z.literal(method), params });

/** Requests a client sends to the host. */
export const clientRequestSchema = z.discriminatedUnion('method', [
  m('hello', z.object({ protocol: protocolVersionSchema, token: z.string(), client: clientSchema, capabilities: z.array(z.string()), settings: z.optional(hostSettingsSchema) })),
  /**
   * Every run's snapshot and the approvals waiting, then the feed of changes from there on. With `summaries`, runs
   * that ended, past the newest few, come as summaries (their agents without tool rows or last text), listed in
   * `summarized`: a window shows its Runs view at once and takes them whole with `runs` after.
   */
  m('subscribe', z.object({ summaries: z.optional(z.boolean()) })),
  /** These runs whole, as they are when the answer is written (the feed before it has gone out). */
  m('runs', z.object({ runIds: z.array(z.string()) })),
  m(
    'start',
    z.object({
      scope: scopeSpecSchema,
      agent: z.string(),
      prompt: z.string(),
      invoker: z.optional(z.enum(['user', 'model'])),
      description: z.optional(z.string()),
      model: z.optional(z.string()),
      budget: z.optional(budgetSchema),
      permissionMode: z.optional(permissionModeSchema),
      isolation: z.optional(z.literal('worktree')),
      baseRef: z.optional(z.string()),
      askApprovals: z.optional(z.boolean()),
      via: z.optional(z.string()),
      /** An id the client keeps for the editor's tools of this run (VS Code: its chat request's tool token). */
      context: z.optional(z.string()),
      /** Runs a team file: `agent` is its lead, `prompt` the goal. */
      team: z.optional(teamStartSchema),
    }),
  ),
  m(
    'followUp',
    z.object({
      scope: scopeSpecSchema,
      agentId: z.string(),
      prompt: z.string(),
      permissionMode: z.optional(permissionModeSchema),
      budget: z.optional(budgetSchema),
      askApprovals: z.optional(z.boolean()),
      context: z.optional(z.string()),
    }),
  ),
  m(
    'send',
    z.object({
      agentId: z.string(),
      text: z.string(),
      via: z.string(),
      scope: z.optional(scopeSpecSchema),
      permissionMode: z.optional(permissionModeSchema),
      askApprovals: z.optional(z.boolean()),
      context: z.optional(z.string()),
    }),
  ),
  m('stop', z.object({ agentId: z.string(), reason: z.string(), via: z.string(), wholeRun: z.optional(z.boolean()) })),
  m('stopRun', z.object({ runId: z.string(), reason: z.string() })),
  m('stopAll', z.object({ reason: z.string() })),
  /** Resolves when the agent's result is known (null at once when it is not at work); cancel to stop waiting. */
  m('waitFor', z.object({ agentId: z.string() })),
  m('answer', z.object({ approvalId: z.string(), decision: approvalDecisionSchema })),
  m('settings', hostSettingsSchema),
  m('status', z.object({})),
  /** Exits now (runs at work are stopped and recorded as interrupted), or once nothing is at work (`whenIdle`). */
  m('shutdown', z.object({ whenIdle: z.optional(z.boolean()) })),
  /** A window's editor tools changed (VS Code's `vscode.lm.tools`, as agent files name them). */
  m('editorTools', z.object({ tools: z.array(editorToolSchema) })),
]);
export type ClientRequest = z.infer<typeof clientRequestSchema>;
export type ClientMethod = ClientRequest['method'];

const toolOutputSchema = z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]);

/** Requests the host sends a client that offers the capability. */
export const hostRequestSchema = z.discriminatedUnion('method', [
  m('modeConsent', z.object({ agentName: z.string(), filePath: z.string(), requested: permissionModeSchema, current: permissionModeSchema, rules: z.optional(z.array(z.string())), runId: z.optional(z.string()) })),
  m('mcpInputs', z.object({ server: z.string(), ids: z.array(z.string()) })),
  m('editorTool', z.object({ tool: z.string(), input: z.record(z.string(), z.unknown()), toolUseId: z.string(), context: z.optional(z.string()) })),
  m('prepareEditorTools', z.object({ missing: z.array(z.string()), timeoutMs: z.number() })),
]);
export type HostRequest = z.infer<typeof hostRequestSchema>;

/** What each request resolves to (checked on arrival at the side that asked). */
export const resultSchemas = {
  hello: z.object({ protocol: protocolVersionSchema, host: hostInfoSchema, capabilities: z.array(z.string()), connection: z.string() }),
  subscribe: z.object({ seq: z.int(), runs: z.array(runSnapshotSchema), approvals: z.array(pendingApprovalWireSchema), summarized: z.optional(z.array(z.string())) }),
  runs: z.object({ runs: z.array(runSnapshotSchema) }),
  start: runHandleSchema,
  followUp: runHandleSchema,
  send: z.discriminatedUnion('delivery', [
    z.object({ delivery: z.literal('queued'), handle: runHandleSchema }),
    z.object({ delivery: z.literal('continued'), handle: runHandleSchema }),
    z.object({ delivery: z.literal('elsewhere'), owner: z.string() }),
  ]),
  stop: z.enum(['stopped', 'sent', 'not running']),
  stopRun: z.int(),
  stopAll: z.int(),
  waitFor: z.nullable(agentResultSchema),
  answer: z.boolean(),
  settings: z.null(),
  status: hostStatusSchema,
  shutdown: z.object({ stopping: z.boolean() }),
  editorTools: z.null(),
  modeConsent: z.boolean(),
  mcpInputs: z.nullable(stringRecord),
  editorTool: toolOutputSchema,
  /** The window's tools once it has started what it could (its MCP servers list theirs only once they run). */
  prepareEditorTools: z.array(editorToolSchema),
} as const satisfies Record<ClientMethod | HostRequest['method'], z.ZodMiniType>;

export const ERROR_CODES = ['protocol', 'unauthorized', 'admission', 'engine', 'cancelled', 'unavailable', 'internal'] as const;
const admissionRefusalSchema = z.object({ code: z.enum(ADMISSION_CODES), message: z.string() }) satisfies z.ZodMiniType<AdmissionRefusal>;
export const errorSchema = z.object({ code: z.enum(ERROR_CODES), message: z.string(), refusal: z.optional(admissionRefusalSchema) });
export type WireError = z.infer<typeof errorSchema>;

export const responseSchema = z.union([
  z.object({ kind: z.literal('response'), id: z.int(), ok: z.literal(true), result: z.unknown() }),
  z.object({ kind: z.literal('response'), id: z.int(), ok: z.literal(false), error: errorSchema }),
]);

/** Stops a request in flight (a start whose chat was stopped, a wait nobody needs). */
export const cancelSchema = z.object({ kind: z.literal('cancel'), id: z.int() });

/** What the host tells every subscribed client, in order. */
export const notificationSchema = z.discriminatedUnion('topic', [
  /** Changes to the runs since `seq - 1`; applied in order they give the host's snapshots. */
  z.object({ kind: z.literal('notify'), topic: z.literal('feed'), seq: z.int(), ops: z.array(storeOpSchema) }),
  /** A client that fell behind gets the whole state again instead of what it missed. */
  z.object({ kind: z.literal('notify'), topic: z.literal('resync'), seq: z.int(), runs: z.array(runSnapshotSchema), approvals: z.array(pendingApprovalWireSchema) }),
  z.object({ kind: z.literal('notify'), topic: z.literal('approvalRequested'), approval: pendingApprovalWireSchema }),
  z.object({ kind: z.literal('notify'), topic: z.literal('approvalSettled'), approvalId: z.string(), decision: approvalDecisionSchema }),
  /** The host is going away (an explicit stop, idle exit); clients reconnect to the next one. */
  z.object({ kind: z.literal('notify'), topic: z.literal('bye'), reason: z.string() }),
]);
export type HostNotification = z.infer<typeof notificationSchema>;

/** Everything that may arrive at the host. */
export const toHostSchema = z.union([clientRequestSchema, responseSchema, cancelSchema]);
/** Everything that may arrive at a client. */
export const toClientSchema = z.union([hostRequestSchema, responseSchema, cancelSchema, notificationSchema]);
/** Every message of the protocol, either way: the one schema the protocol is. */
export const hostMessageSchema = z.union([clientRequestSchema, hostRequestSchema, responseSchema, cancelSchema, notificationSchema]);
export type HostMessage = z.infer<typeof hostMessageSchema>;
