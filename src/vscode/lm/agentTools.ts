import * as vscode from 'vscode';
import type { AgentResult } from '../../core/engine/tree/agentRun';
import type { RunHandle } from '../../core/runtime/api';
import { isActiveStatus } from '../../protocol/runEvents';
import type { AgentNode } from '../../protocol/runSnapshot';
import { runSummary } from '../../surfaces/chat/chatSummary';
import type { FolderScope } from '../scopes';
import type { Services } from '../services';
import type { ChatRunContext } from '../editorTools';

/**
 * Our agents as language-model tools, so VS Code's own agent mode (and
 * a Copilot `.agent.md` that lists them) can delegate to them: list the
 * agents, run one (in the foreground, or in the background and collect it
 * later), read a background agent's output, stop one. Runs started this way
 * are ordinary runs: in the Runs view, in the history, asking for approvals
 * like any other. Declared in package.json `languageModelTools`.
 */

export const TOOL_NAMES = {
  list: 'subagents_listAgents',
  run: 'subagents_runAgent',
  output: 'subagents_agentOutput',
  stop: 'subagents_stopAgent',
} as const;

interface RunAgentInput {
  agent: string;
  task: string;
  background?: boolean;
  /** An existing agent to send the task to (steered while it works, continued once it has ended) instead of a new run. */
  agentId?: string;
}
interface AgentOutputInput {
  agentId: string;
  waitSeconds?: number;
  /** A message sent before the status is read. */
  message?: string;
}
interface StopAgentInput {
  agentId: string;
}

/** The longest agentOutput waits; a tool call should not hold the caller's turn for long. */
const MAX_WAIT_SECONDS = 300;

function text(value: string): vscode.LanguageModelToolResult {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);
}

function worktreeLines(nodes: AgentNode[]): string[] {
  return nodes
    .filter((n) => n.worktree?.filesChanged)
    .map(
      (n) =>
        `${n.agentName} changed ${n.worktree!.filesChanged} file(s) (+${n.worktree!.insertions} −${n.worktree!.deletions}) on branch ${n.worktree!.branch}. ` +
        'Nothing is in the workspace yet: the user reviews, applies or discards it (Subagents view, or "Subagents: Clean Up Worktrees").',
    );
}

export class AgentTools {
  constructor(private readonly services: Services) {}

  /** The folder to run in: the one whose catalog has the agent, the active editor's first. */
  #scopeFor(agent: string): FolderScope | undefined {
    return this.services.scopes.preferred().find((s) => s.find(agent));
  }

  #available(): string {
    const names = new Set(this.services.scopes.all.flatMap((s) => s.agents.map((a) => a.name)));
    return [...names].join(', ') || 'none';
  }

  listAgents(): vscode.LanguageModelToolResult {
    const lines = this.services.scopes.all.flatMap((scope) =>
      scope.agents
        .filter((a) => !scope.settings.disabledAgents.includes(a.name) && a.modelInvocable !== false)
        .map((a) => `- ${a.name}${this.services.scopes.all.length > 1 ? ` [${scope.folder.name}]` : ''}: ${a.description.replace(/\s+/g, ' ').trim()}${a.tools ? ` (tools: ${a.tools.join(', ') || 'none'})` : ''}`),
    );
    return text(lines.length ? `Agents you can run with ${TOOL_NAMES.run}:\n${lines.join('\n')}` : 'No agents are defined in this workspace.');
  }

  prepareRun(input: RunAgentInput): vscode.PreparedToolInvocation {
    const task = input.task.length > 600 ? `${input.task.slice(0, 600)}…` : input.task;
    const quoted = `> ${task.replace(/\n/g, '\n> ')}`;
    if (input.agentId) {
      return {
        invocationMessage: `Sending ${input.agent} a message…`,
        confirmationMessages: {
          title: `Send the ${input.agent} agent a message?`,
          message: new vscode.MarkdownString(`**${input.agent}** (${input.agentId}) reads this at its next turn (an agent that has ended is continued with it):\n\n${quoted}`),
        },
      };
    }
    return {
      invocationMessage: `Running ${input.agent}${input.background ? ' in the background' : ''}…`,
      confirmationMessages: {
        title: `Run the ${input.agent} agent${input.background ? ' in the background' : ''}?`,
        message: new vscode.MarkdownString(`**${input.agent}** will work on:\n\n${quoted}\n\nIt can use its own tools; shell commands and file changes still ask first.`),
      },
    };
  }

  async runAgent(input: RunAgentInput, token: vscode.CancellationToken, toolInvocationToken?: vscode.ChatParticipantToolToken): Promise<vscode.LanguageModelToolResult> {
    if (token.isCancellationRequested) throw new vscode.CancellationError();
    if (this.services.scopes.all.length === 0) throw new Error('No folder is open: agents run in a workspace folder, so the user must open one first.');
    if (input.agentId) return this.#steer(input, token);
    const scope = this.#scopeFor(input.agent) ?? this.services.scopes.preferred()[0]!;
    // A model calls this tool: the engine decides whether it may start this agent (admission.ts), and says why not.
    const refusal = scope.admission(input.agent, 'model');
    if (refusal) throw new Error(refusal.code === 'unknown' ? `${refusal.message}. Call ${TOOL_NAMES.list} for their descriptions.` : refusal.message);
    // A cancelled call stops the run however far it got: while it starts (the signal), and once it runs.
    const stopped = new AbortController();
    let run: RunHandle | undefined;
    const cancel = token.onCancellationRequested(() => {
      if (run) void this.services.stopAgent(run.agentId, 'The tool call was cancelled.', 'lm');
      stopped.abort();
    });
    // VS Code's tools the run calls confirm in the calling chat while this call lasts (a background run's later calls, in a dialog).
    let calling = true;
    const runContext: ChatRunContext = { toolInvocationToken, live: () => calling && !token.isCancellationRequested };
    try {
      run = await this.services.runtime.start({ scope: scope.spec(), agent: input.agent, prompt: input.task, invoker: 'model', via: 'lm', runContext, signal: stopped.signal });
      this.services.scopes.noteRun(run.runId, scope);
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      this.services.log.info(`A language-model tool started ${run.agentName} (${run.agentId})${input.background ? ' in the background' : ''}.`);
      if (input.background) {
        return text(
          JSON.stringify({ status: 'async_launched', agentId: run.agentId, agent: run.agentName }) +
            `\nThe agent works in the background. Collect its result with ${TOOL_NAMES.output} (agentId ${run.agentId}, waitSeconds to wait for it), or stop it with ${TOOL_NAMES.stop}.`,
        );
      }
      return text(this.#describeResult(await run.result()));
    } finally {
      // A background agent outlives the call that started it.
      calling = false;
      cancel.dispose();
    }
  }

  /**
   * runAgent with an agentId: the task goes to that agent as a message
   * (read at its next turn, or continuing it once it has ended); the call
   * then waits for it, or returns at once with background.
   */
  async #steer(input: RunAgentInput, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const node = this.services.agentNode(input.agentId!);
    if (!node) throw new Error(`No agent with id "${input.agentId}" is known (it may have expired from the history).`);
    if (input.agent && input.agent !== node.agentName) throw new Error(`Agent ${input.agentId} is ${node.agentName}, not ${input.agent}.`);
    const sent = await this.#message(input.agentId!, input.task);
    if (input.background) return text(`${sent}\nCollect its result with ${TOOL_NAMES.output} (agentId ${input.agentId}, waitSeconds to wait for it).`);
    const stop = new AbortController();
    const cancel = token.onCancellationRequested(() => {
      stop.abort();
      void this.services.stopAgent(input.agentId!, 'The tool call was cancelled.', 'lm');
    });
    try {
      const result = await this.services.runtime.waitFor(input.agentId!, stop.signal);
      if (!result) return this.agentOutput({ agentId: input.agentId! }, token);
      return text(`${sent}\n\n${this.#describeResult(result)}`);
    } finally {
      cancel.dispose();
    }
  }

  /** Sends a message; says how it went. */
  async #message(agentId: string, message: string): Promise<string> {
    const outcome = await this.services.sendMessage(agentId, message, 'lm');
    const name = this.services.agentNode(agentId)?.agentName ?? agentId;
    this.services.log.info(`A language-model tool sent ${name} (${agentId}) a message (${outcome.delivery}).`);
    if (outcome.delivery === 'continued') return `${name} had ended; it was continued with the message.`;
    return `Message sent to ${name}${outcome.delivery === 'elsewhere' ? ` (running in ${outcome.owner})` : ''}: it reads it at its next turn.`;
  }

  async agentOutput(input: AgentOutputInput, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const node = this.services.agentNode(input.agentId);
    if (!node) throw new Error(`No agent with id "${input.agentId}" is known (it may have expired from the history).`);
    const sent = input.message?.trim() ? `${await this.#message(input.agentId, input.message)}\n` : '';
    const report = await this.#output(input, token);
    return sent ? text(`${sent}${(report.content[0] as vscode.LanguageModelTextPart).value}`) : report;
  }

  async #output(input: AgentOutputInput, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const node = this.services.agentNode(input.agentId)!;
    const wait = Math.min(Math.max(0, input.waitSeconds ?? 0), MAX_WAIT_SECONDS);
    if (isActiveStatus(node.status) && wait > 0) {
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), wait * 1000);
      const cancel = token.onCancellationRequested(() => stop.abort());
      try {
        // The runtime's answer, or the snapshot's word that the agent ended, whichever comes first.
        const answered = this.services.runtime.waitFor(input.agentId, stop.signal).then((result) => (result ? undefined : this.#ended(input.agentId, stop.signal)));
        await Promise.race([answered, this.#ended(input.agentId, stop.signal)]);
      } finally {
        clearTimeout(timer);
        cancel.dispose();
        // What still waits (the other of the two) lets go.
        stop.abort();
      }
    }
    this.services.store.flush();
    const current = this.services.agentNode(input.agentId) ?? node;
    if (isActiveStatus(current.status)) {
      const recent = current.tools.slice(-5).map((t) => `${t.name} ${t.inputSummary}`.trim());
      return text(
        JSON.stringify({ status: current.status, agentId: current.agentId, agent: current.agentName, turns: current.turns }) +
          `\n${current.agentName} is still ${current.status === 'waiting' ? 'waiting for the user to approve a tool call' : 'working'}.` +
          (recent.length ? ` Its latest tool calls: ${recent.join('; ')}.` : '') +
          ` Call ${TOOL_NAMES.output} again with waitSeconds to wait for it.`,
      );
    }
    return text(this.#describeNode(current));
  }

  /** Resolves once the snapshot shows the agent not at work (or `signal` aborts). */
  #ended(agentId: string, signal: AbortSignal): Promise<void> {
    const store = this.services.store;
    const done = () => !isActiveStatus(store.agent(agentId)?.status ?? 'completed');
    if (done() || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        unsubscribe();
        signal.removeEventListener('abort', finish);
        resolve();
      };
      const unsubscribe = store.subscribe(() => {
        if (done()) finish();
      });
      signal.addEventListener('abort', finish, { once: true });
    });
  }

  async stopAgent(input: StopAgentInput): Promise<vscode.LanguageModelToolResult> {
    const node = this.services.agentNode(input.agentId);
    if (!node) throw new Error(`No agent with id "${input.agentId}" is known.`);
    const stopped = await this.services.stopAgent(input.agentId, 'Stopped by a language-model tool call.', 'lm');
    if (stopped === 'not running') return text(`${node.agentName} (${input.agentId}) is not running; it ended as ${node.status}.`);
    const parent = node.parentId ? this.services.agentNode(node.parentId) : undefined;
    const goesOn = parent && isActiveStatus(parent.status) ? ` ${parent.agentName}, which started it, is told and goes on.` : '';
    return text(`Stopping ${node.agentName} (${input.agentId}) and every agent it started.${goesOn}`);
  }

  #describeResult(result: AgentResult): string {
    const node = this.services.agentNode(result.agentId);
    if (node) return this.#describeNode(node);
    return `${result.agentName} ${result.status} (agentId ${result.agentId}).\n\n${result.output ?? result.error ?? ''}`;
  }

  /** An ended agent: how it ended, its tree's totals, its output, and changes waiting in worktrees. */
  #describeNode(node: AgentNode): string {
    const run = this.services.store.get(node.runId);
    const nodes = run ? Object.values(run.agents) : [node];
    const parts = [
      `${node.agentName} ${node.status} (agentId ${node.agentId}).`,
      run && node.agentId === run.rootAgentId ? runSummary(run) : '',
      node.output ? `Output:\n${node.output}` : '',
      node.error && node.status !== 'completed' ? `Error: ${node.error}` : '',
      ...worktreeLines(nodes),
    ];
    return parts.filter(Boolean).join('\n\n');
  }
}

export function registerAgentTools(services: Services): vscode.Disposable[] {
  const tools = new AgentTools(services);
  return [
    vscode.lm.registerTool<Record<string, never>>(TOOL_NAMES.list, { invoke: () => tools.listAgents() }),
    vscode.lm.registerTool<RunAgentInput>(TOOL_NAMES.run, {
      prepareInvocation: (options) => tools.prepareRun(options.input),
      invoke: (options, token) => tools.runAgent(options.input, token, options.toolInvocationToken),
    }),
    vscode.lm.registerTool<AgentOutputInput>(TOOL_NAMES.output, {
      prepareInvocation: (options) => ({ invocationMessage: options.input.message?.trim() ? `Sending agent ${options.input.agentId} a message…` : `Reading the output of agent ${options.input.agentId}…` }),
      invoke: (options, token) => tools.agentOutput(options.input, token),
    }),
    vscode.lm.registerTool<StopAgentInput>(TOOL_NAMES.stop, {
      prepareInvocation: (options) => ({ invocationMessage: `Stopping agent ${options.input.agentId}…` }),
      invoke: (options) => tools.stopAgent(options.input),
    }),
  ];
}
