import * as vscode from 'vscode';
import type { AgentDefinition } from '../../core/agents/definition';
import type { AgentResult } from '../../core/engine/tree/agentRun';
import type { RunHandle } from '../../core/runtime/api';
import { EngineError } from '../../core/engine/errors';
import type { TeamStart } from '../../core/engine/team/leadBrief';
import { ADMISSION_WORDS } from '../../protocol/admission';
import type { RunSnapshot } from '../../protocol/runSnapshot';
import type { FolderScope } from '../scopes';
import type { Services } from '../services';
import { promptWithReferences } from './chatContext';
import { escapeMarkdown } from '../../surfaces/chat/chatLog';
import { parseChatRequest, type ThreadRun } from '../../surfaces/chat/chatRequest';
import { messageButton, steer, stopInThread, threadAgents } from './chatSteering';
import { ChatRunStream, stoppableSink, type ChatSink } from '../../surfaces/chat/chatStream';
import { agentList, commandLinks, runButtons, runStatus } from './chatViews';
import { runSummary } from '../../surfaces/chat/chatSummary';
import type { ChatRunContext } from '../editorTools';

/**
 * The chat surface: `@agent` and `@subagents`, one handler. With
 * GitHub Copilot Chat installed, `@agent` is also the name of Copilot's own
 * agent-mode participant, and VS Code hands the name to the first
 * participant that registered it; `@subagents` always reaches us.
 *
 * A request runs an agent with our engine (whatever model the picker shows),
 * streams the run as a calm log (ChatRunStream), and ends with the answer, a
 * summary of every agent and buttons. The chat's stop button stops the run
 * tree; a message in a thread whose last answer was a run continues that
 * agent with its whole conversation (its ids live in ChatResult.metadata).
 */

export const PARTICIPANT_IDS = ['subagents.agent', 'subagents.subagents'] as const;

export interface ChatRunMetadata {
  runId: string;
  agentId: string;
  agentName: string;
  [key: string]: string;
}

/**
 * The run this thread's last answer left behind, if any: from its result, or,
 * for an answer cut short (the window was reloaded while the run went on in
 * the agent host), from the button it showed as the run started.
 */
function previousRun(context: vscode.ChatContext, agentName: (agentId: string) => string | undefined): ThreadRun | null {
  for (let i = context.history.length - 1; i >= 0; i--) {
    const turn = context.history[i];
    if (!(turn instanceof vscode.ChatResponseTurn)) continue;
    if (!(PARTICIPANT_IDS as readonly string[]).includes(turn.participant)) return null;
    const meta = turn.result.metadata as Partial<ChatRunMetadata> | undefined;
    if (meta?.agentId && meta.runId && meta.agentName) return { runId: meta.runId, agentId: meta.agentId, agentName: meta.agentName };
    for (const part of turn.response ?? []) {
      const where = part instanceof vscode.ChatResponseMarkdownPart ? showRunArgs(part.value.value) : undefined;
      const name = typeof where?.agentId === 'string' ? agentName(where.agentId) : undefined;
      if (typeof where?.runId === 'string' && typeof where.agentId === 'string' && name) return { runId: where.runId, agentId: where.agentId, agentName: name };
    }
    return null;
  }
  return null;
}

const SHOW_RUN = 'subagents.showRun';

/** The run a "Show in Sidebar" link of a restored answer names (links stay live after a reload; buttons do not). */
function showRunArgs(markdown: string): { runId?: unknown; agentId?: unknown } | undefined {
  const encoded = /\(command:subagents\.showRun\?([^)\s]+)\)/.exec(markdown)?.[1];
  if (!encoded) return undefined;
  try {
    const args = JSON.parse(decodeURIComponent(encoded)) as unknown;
    return Array.isArray(args) && typeof args[0] === 'object' ? (args[0] as { runId?: unknown; agentId?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

function sinkOf(stream: vscode.ChatResponseStream): ChatSink {
  return {
    markdown: (text) => stream.markdown(text),
    progress: (text) => stream.progress(text),
    reference: (filePath) => stream.reference(vscode.Uri.file(filePath)),
    button: (title, command, args) => stream.button({ title, command, arguments: args }),
  };
}

export class ChatParticipantHandler {
  #services: Services | undefined;

  /** `started` resolves once activation has made the services (undefined when it failed). */
  constructor(private readonly started: Promise<Services | undefined>) {
    void started.then((services) => (this.#services = services));
  }

  /** Only read after `started` resolved to services (the handler awaits it first). */
  private get services(): Services {
    if (!this.#services) throw new Error('Subagents has not started.');
    return this.#services;
  }

  /** Every folder's agent and team names, the active editor's folder first (multi-root: a name may live in one folder only). */
  #names(scopes: readonly FolderScope[]): string[] {
    return [...new Set(scopes.flatMap((s) => [...s.agents.map((a) => a.name), ...(s.teams?.teams.map((t) => t.name) ?? [])]))];
  }

  /**
   * The folder and definition a new run of `name` uses: the first folder
   * that has the agent (the active editor's first), or else one that has a
   * team of that name (its lead, with the team file).
   */
  #runnable(name: string, scopes: readonly FolderScope[], stream: vscode.ChatResponseStream): { scope: FolderScope; agent: AgentDefinition; team?: TeamStart } | null {
    const agentScope = scopes.find((s) => s.find(name));
    const teamScope = agentScope ? undefined : scopes.find((s) => s.findTeam(name));
    const team = teamScope?.teamStart(name);
    const scope = agentScope ?? teamScope;
    const lead = team?.info.lead ?? name;
    // The engine's answer, in its words (admission.ts); a name no folder has names every folder's agents.
    const refusal = scope ? scope.admission(lead) : { code: 'unknown' as const, message: ADMISSION_WORDS.unknown(name, this.#names(scopes)) };
    if (refusal) {
      stream.markdown(`${team ? `Team **${escapeMarkdown(team.info.name)}**: ` : ''}${escapeMarkdown(refusal.message)}${refusal.code === 'unknown' ? '. `/list` shows them all.' : ''}`);
      if (refusal.code === 'restricted') stream.button({ title: 'Manage Workspace Trust', command: 'workbench.trust.manage' });
      if (refusal.code === 'no-key') stream.button({ title: 'Set API Key', command: 'subagents.setApiKey' });
      return null;
    }
    return { scope: scope!, agent: scope!.find(lead)!, ...(team ? { team } : {}) };
  }

  readonly handle: vscode.ChatRequestHandler = async (request, context, stream, token) => {
    if (!(await this.started)) {
      stream.markdown('Subagents could not start; the **Subagents** output says why.');
      return { errorDetails: { message: 'Subagents could not start.' } };
    }
    if (token.isCancellationRequested) return {};
    const scopes = this.services.scopes.preferred();
    const previous = previousRun(context, (agentId) => this.services.agentNode(agentId)?.agentName);
    if (previous) previous.agents = threadAgents(this.services.store.get(previous.runId));
    const intent = parseChatRequest(request.prompt, request.command, this.#names(scopes), previous);
    if (intent.kind === 'status') {
      runStatus(stream, this.services);
      return {};
    }
    if (scopes.length === 0) {
      stream.markdown('Open a folder first: agents run in a workspace folder.');
      return {};
    }
    switch (intent.kind) {
      case 'list':
        agentList(stream, scopes);
        return {};
      case 'help':
        stream.markdown(intent.message);
        return {};
      case 'confirm':
        // Nothing runs on one word: the follow-up below runs it (as `/new <word>`) if that is what was meant.
        stream.markdown(
          `"${escapeMarkdown(intent.task)}" is not the name of an agent here, and one word is a thin task. ` +
            `To run **${escapeMarkdown(intent.agent)}** with it, use the button below; to run an agent, write \`@agent <name> <task>\` (\`list\` shows them).`,
        );
        return { metadata: { confirmAgent: intent.agent, confirmTask: intent.task } };
      case 'stop':
        return stopInThread(this.services, intent, stream);
    }
    if (!vscode.workspace.isTrusted) {
      stream.markdown(escapeMarkdown(ADMISSION_WORDS.restricted()));
      stream.button({ title: 'Manage Workspace Trust', command: 'workbench.trust.manage' });
      return {};
    }
    if (!this.services.keys.key && !this.services.keys.demo) {
      stream.markdown(escapeMarkdown(ADMISSION_WORDS.noKey()));
      stream.button({ title: 'Set API Key', command: 'subagents.setApiKey' });
      return {};
    }
    if (intent.kind === 'message') return steer(this.services, intent, previous!, stream, stoppableSink(sinkOf(stream), () => token.isCancellationRequested), token);
    const thread = intent.kind === 'followUp' ? this.services.runOf(intent.agentId) : undefined;
    const target = intent.kind === 'run' ? this.#runnable(intent.agent, scopes, stream) : null;
    if (intent.kind === 'run' && !target) return {};
    const scope = target?.scope ?? (thread && this.services.folderOf(thread)) ?? scopes[0]!;

    const { prompt, attached } = await promptWithReferences(intent.task, request.references);
    // Stopped while the references were read: nothing has started, nothing needs saying.
    if (token.isCancellationRequested) return {};
    const sink = stoppableSink(sinkOf(stream), () => token.isCancellationRequested);
    // Stop reaches the run however far it got: while the mode is being asked about or
    // the worktree made (the signal), and once it runs (the runtime stops its tree).
    const stopped = new AbortController();
    let run: RunHandle | undefined;
    const stop = token.onCancellationRequested(() => {
      if (run) void this.services.stopAgent(run.agentId, 'Stopped from chat.', 'chat');
      stopped.abort();
    });
    let live: ChatRunStream | undefined;
    // VS Code's tools the run calls ask for confirmation in this response while it is open (then in a dialog).
    let open = true;
    const runContext: ChatRunContext = { toolInvocationToken: request.toolInvocationToken, live: () => open && !token.isCancellationRequested };
    try {
      try {
        if (intent.kind === 'followUp') {
          const instead = intent.mentioned ? ` (to run **${escapeMarkdown(intent.mentioned)}** instead, write \`@${intent.mentioned} …\`)` : '';
          stream.markdown(`Continuing **${escapeMarkdown(intent.agentName)}** with its earlier conversation${instead}.\n\n`);
          // Before it starts: the earlier rounds are in the thread already.
          if (thread) live = new ChatRunStream(this.services.store, thread.runId, sink, { prime: true });
          run = await this.services.runtime.followUp({ scope: scope.spec(), agentId: intent.agentId, prompt, runContext, signal: stopped.signal });
        } else {
          run = await this.services.runtime.start({ scope: scope.spec(), agent: target!.agent.name, prompt, description: intent.task.split('\n')[0], via: 'chat', runContext, signal: stopped.signal, team: target!.team });
        }
      } catch (error) {
        live?.dispose();
        const message = error instanceof Error ? error.message : String(error);
        if (!(error instanceof EngineError)) this.services.log.error(`Chat could not start a run: ${message}`);
        sink.markdown(`Could not start: ${escapeMarkdown(message)}`);
        return { errorDetails: { message } };
      }
      this.services.scopes.noteRun(run.runId, scope);
      this.services.log.info(`Chat started ${run.agentName} (${run.agentId})${attached ? ` with ${attached} attached reference(s)` : ''} in ${scope.folder.name}.`);
      // Where the run is, from its first line: it goes on in the agent host if this window reloads, and this link
      // (a reload keeps links working, not buttons) still shows it, and lets the thread reach it again.
      if (!token.isCancellationRequested) commandLinks(stream, [{ title: 'Show in Sidebar', command: SHOW_RUN, args: [{ runId: run.runId, agentId: run.agentId }] }]);
      // VS Code holds what the user types here until this response ends: the button reaches the agent at once.
      messageButton(sink, run.agentId, run.agentName);
      live ??= new ChatRunStream(this.services.store, run.runId, sink);
      let result;
      try {
        result = await run.result();
      } finally {
        open = false;
        live.finish();
      }
      const metadata: ChatRunMetadata = { runId: run.runId, agentId: run.agentId, agentName: run.agentName };
      // Nobody sees an ending written after Stop: VS Code drops it.
      if (token.isCancellationRequested) return { metadata };
      this.#ending(stream, run.agentName, result, this.services.store.get(run.runId));
      return result.status === 'completed' || result.status === 'cancelled'
        ? { metadata }
        : { metadata, errorDetails: { message: `${run.agentName} ${result.status === 'budget_exceeded' ? 'stopped at its budget' : 'failed'}: ${result.error ?? 'no details'}` } };
    } finally {
      stop.dispose();
    }
  };

  /**
   * After a run, the handoffs its agent's file offers (Copilot `handoffs`:
   * a label, the next agent and its prompt), as follow-ups that run that
   * agent; only those whose agent exists here.
   */
  followups(result: vscode.ChatResult): vscode.ChatFollowup[] {
    const meta = result.metadata as (Partial<ChatRunMetadata> & { confirmAgent?: string; confirmTask?: string }) | undefined;
    if (meta?.confirmTask) return [{ label: `Run ${meta.confirmAgent ?? 'it'}: ${meta.confirmTask}`, prompt: meta.confirmTask, command: 'new' }];
    if (!this.#services || !meta?.agentName || !meta.runId) return [];
    const snapshot = this.services.store.get(meta.runId);
    const scope = (snapshot && this.services.folderOf(snapshot)) ?? this.services.scopes.preferred().find((s) => s.find(meta.agentName!));
    const definition = scope?.find(meta.agentName);
    // Marked with @: in this thread a bare name that is an ordinary word would continue the run instead.
    return (definition?.handoffs ?? [])
      .filter((h) => scope?.find(h.agent))
      .map((h) => ({ label: h.label, prompt: `@${h.agent} ${h.prompt}`.trim() }));
  }

  /** The answer, the table of every agent, and what can be done next. */
  #ending(stream: vscode.ChatResponseStream, agentName: string, result: AgentResult, snapshot: RunSnapshot | undefined): void {
    stream.markdown('\n\n---\n\n');
    if (result.structuredOutput !== undefined) stream.markdown(`\`\`\`json\n${JSON.stringify(result.structuredOutput, null, 2)}\n\`\`\`\n\n`);
    else if (result.output) stream.markdown(`${result.output}\n\n`);
    if (result.status === 'cancelled') stream.markdown(`_Stopped: ${escapeMarkdown(result.error ?? 'cancelled')}_\n\n`);
    else if (result.status !== 'completed') stream.markdown(`**${escapeMarkdown(agentName)} ${result.status === 'budget_exceeded' ? 'stopped at its budget' : 'failed'}:** ${escapeMarkdown(result.error ?? 'no details')}\n\n`);
    if (snapshot) {
      stream.markdown(`${runSummary(snapshot)}\n\n`);
      runButtons(stream, snapshot);
    }
  }
}

export function registerChatParticipants(started: Promise<Services | undefined>, extensionUri: vscode.Uri): vscode.Disposable[] {
  const handler = new ChatParticipantHandler(started);
  return PARTICIPANT_IDS.map((id) => {
    const participant = vscode.chat.createChatParticipant(id, handler.handle);
    participant.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'subagents.svg');
    participant.followupProvider = { provideFollowups: (result) => handler.followups(result) };
    return participant;
  });
}
