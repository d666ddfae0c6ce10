import type * as vscode from 'vscode';
import type { RunStore } from '../../core/runs/runStore';
import { isActiveStatus } from '../../protocol/vocabulary';
import type { RunSnapshot } from '../../protocol/runSnapshot';
import { escapeMarkdown } from '../../surfaces/chat/chatLog';
import type { ChatIntent, ThreadAgent, ThreadRun } from '../../surfaces/chat/chatRequest';
import { ChatRunStream, type ChatSink } from '../../surfaces/chat/chatStream';
import { runSummary } from '../../surfaces/chat/chatSummary';
import type { Services } from '../services';
import { runButtons } from './chatViews';

/**
 * Talking to a thread's run from chat: a message while the run is
 * still going steers it (read at the agent's next turn) and the response
 * follows the run to its end; `/stop [agent]` stops one agent of it (its
 * parent is told and goes on) or all of it. While a response streams, VS
 * Code holds what the user types in the same thread until the response
 * ends; the "Message …" button under a running response reaches the agent
 * at once.
 */

type MessageIntent = Extract<ChatIntent, { kind: 'message' }>;
type StopIntent = Extract<ChatIntent, { kind: 'stop' }>;

/** What a steering response leaves in its ChatResult.metadata: the thread's run, as before. */
export interface SteeredRun {
  runId: string;
  agentId: string;
  agentName: string;
}

/** The run's agents, for parsing a message in its thread. */
export function threadAgents(run: RunSnapshot | undefined): ThreadAgent[] {
  return run ? Object.values(run.agents).map((a) => ({ agentId: a.agentId, agentName: a.agentName, active: isActiveStatus(a.status) })) : [];
}

/** The button a running response offers: a message for its agent, read at its next turn. */
export function messageButton(sink: ChatSink, agentId: string, agentName: string): void {
  sink.button(`Message ${agentName}…`, 'subagents.sendMessage', [agentId, undefined, 'chat']);
}

/** Resolves once no agent of the run is at work (or the token is cancelled). */
function runSettled(store: RunStore, runId: string, token: vscode.CancellationToken): Promise<void> {
  const settled = () => {
    const run = store.get(runId);
    return !run || !Object.values(run.agents).some((a) => isActiveStatus(a.status));
  };
  if (settled() || token.isCancellationRequested) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      unsubscribe();
      cancel.dispose();
      resolve();
    };
    const unsubscribe = store.subscribe((changed) => {
      if (changed.has(runId) && settled()) done();
    });
    const cancel = token.onCancellationRequested(done);
  });
}

export async function steer(services: Services, intent: MessageIntent, thread: ThreadRun, stream: vscode.ChatResponseStream, sink: ChatSink, token: vscode.CancellationToken): Promise<vscode.ChatResult> {
  const name = escapeMarkdown(intent.agentName);
  let outcome;
  try {
    outcome = await services.sendMessage(intent.agentId, intent.text, 'chat');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    stream.markdown(`Could not send the message to **${name}**: ${escapeMarkdown(message)}`);
    return { errorDetails: { message } };
  }
  const metadata: SteeredRun = { runId: thread.runId, agentId: thread.agentId, agentName: thread.agentName };
  if (outcome.delivery === 'elsewhere') {
    stream.markdown(`Sent to **${name}**, which ${escapeMarkdown(outcome.owner)} runs: it reads your message at its next turn.`);
    return { metadata };
  }
  stream.markdown(outcome.delivery === 'continued' ? `**${name}** had ended: continuing it with your message.\n\n` : `Sent to **${name}**: it reads your message at its next turn.\n\n`);
  messageButton(sink, intent.agentId, intent.agentName);
  // What the thread has shown already is not told again; what the run does from now on is.
  const live = new ChatRunStream(services.store, thread.runId, sink, { prime: true });
  let cancelled!: () => void;
  const stopped = new Promise<void>((resolve) => (cancelled = resolve));
  const stop = token.onCancellationRequested(() => {
    void services.stopRunOf(thread.runId, 'Stopped from chat.');
    cancelled();
  });
  try {
    // The agent's own end first (after the continuation a message arriving as it ended starts), then the rest of its run's.
    await Promise.race([outcome.handle.result().catch(() => undefined), stopped]);
    await runSettled(services.store, thread.runId, token);
  } finally {
    live.finish();
    stop.dispose();
  }
  if (token.isCancellationRequested) return { metadata };
  const run = services.store.get(thread.runId);
  const node = services.agentNode(intent.agentId);
  stream.markdown('\n\n---\n\n');
  if (node?.output) stream.markdown(`${node.output}\n\n`);
  else if (node && node.status !== 'completed') stream.markdown(`_**${name}** ${node.status === 'cancelled' ? 'was stopped' : node.status}: ${escapeMarkdown(node.error ?? 'no details')}_\n\n`);
  if (run) {
    stream.markdown(`${runSummary(run)}\n\n`);
    runButtons(stream, run);
  }
  return { metadata };
}

export async function stopInThread(services: Services, intent: StopIntent, stream: vscode.ChatResponseStream): Promise<vscode.ChatResult> {
  const reason = 'Stopped by the user from chat.';
  if (!intent.agent) {
    const stopped = await services.stopRunOf(intent.runId, reason);
    stream.markdown(stopped ? 'Stopped this thread\'s run: every agent of it that was at work.' : 'Nothing in this thread\'s run is at work any more.');
    return {};
  }
  const { agentId, agentName } = intent.agent;
  const name = escapeMarkdown(agentName);
  const outcome = await services.stopAgent(agentId, reason, 'chat');
  if (outcome === 'not running') {
    const node = services.agentNode(agentId);
    stream.markdown(`**${name}** is not at work${node ? `: it ended as ${node.status}` : ''}.`);
    return {};
  }
  const node = services.agentNode(agentId);
  const parent = node?.parentId ? services.agentNode(node.parentId) : undefined;
  const goesOn = parent && isActiveStatus(parent.status) ? ` **${escapeMarkdown(parent.agentName)}**, which started it, is told and goes on.` : '';
  stream.markdown(`${outcome === 'sent' ? 'Asked the process that runs' : 'Stopped'} **${name}**${outcome === 'sent' ? ' to stop it' : ''}, with the agents it started.${goesOn}`);
  return {};
}
