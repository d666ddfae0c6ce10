import * as vscode from 'vscode';
import type { BetaContentBlockParam, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import type { AgentNode } from '../protocol/runSnapshot';
import type { Services } from './services';
import type { TranscriptPanels } from './transcriptPanels';

/**
 * An agent's conversation as read-only Markdown text on the
 * `subagents-transcript:` scheme: the transcript view's Open Source, for
 * copying and searching. Rendered from the transcript the run history keeps
 * on disk plus the live tail from the RunStore (text being written, tools
 * running), and re-rendered while the agent runs. It opens as plain text:
 * the model's Markdown is not rendered anywhere but in the transcript view,
 * which escapes it (Markdown's own preview would load its remote images).
 */

export const TRANSCRIPT_SCHEME = 'subagents-transcript';
const MAX_RESULT = 2000;
const MAX_INPUT = 4000;
const REFRESH_MS = 400;

export function transcriptUri(node: Pick<AgentNode, 'agentId' | 'agentName'>): vscode.Uri {
  return vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/${node.agentId}/${node.agentName} transcript.md` });
}

function agentIdOf(uri: vscode.Uri): string {
  return uri.path.split('/')[1] ?? '';
}

/** A code fence longer than any backtick run inside `text`. */
function fenced(text: string, lang = ''): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text}\n${fence}`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

type Block = BetaContentBlockParam;

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : `[${b.type ?? 'content'}]`)).join('\n');
}

/** A message delivered while the agent worked (core/engine/mail.ts): who sent it, then what it says. */
const MESSAGE_BLOCK = /<message from="([^"]*)"(?: agent-id="([^"]*)")? id="m[0-9a-f]+">\n([\s\S]*?)\n<\/message>/g;

/** Text with the messages it carries shown as messages from their senders. */
function withMessages(text: string, speaker: string): string {
  return text.replace(MESSAGE_BLOCK, (_all, name: string, agentId: string | undefined, body: string) => {
    const from = agentId ? `${name} (\`${agentId}\`)` : 'you';
    return `**✉ Message from ${from}, read at ${speaker}'s turn:**\n\n> ${body.replace(/\n/g, '\n> ')}`;
  });
}

function renderBlock(block: Block, speaker: string): string {
  switch (block.type) {
    case 'text':
      return withMessages(block.text, speaker);
    case 'thinking':
      return `> _Thinking:_ ${truncate(block.thinking, 600).replace(/\n/g, '\n> ')}`;
    case 'tool_use':
    case 'server_tool_use':
      return `**${speaker} calls \`${block.name}\`**\n\n${fenced(truncate(JSON.stringify(block.input, null, 2), MAX_INPUT), 'json')}`;
    case 'tool_result': {
      const text = resultText(block.content);
      return `**Result${block.is_error ? ' (error)' : ''}**\n\n${fenced(truncate(text || '(empty)', MAX_RESULT))}`;
    }
    default:
      return `_[${block.type}]_`;
  }
}

export function renderTranscript(node: AgentNode, messages: readonly BetaMessageParam[]): string {
  const u = node.usage;
  const tokens = u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  const out: string[] = [
    `# ${node.agentName}: ${node.description}`,
    '',
    `- **Status:** ${node.status}${node.error ? ` — ${node.error.split('\n')[0]}` : ''}`,
    `- **Model:** ${node.model} · ${node.turns} turn(s) · ${tokens.toLocaleString('en-US')} tokens · $${u.costUsd.toFixed(4)}`,
    `- **Started:** ${new Date(node.startedAt).toLocaleString()} in \`${node.cwd}\``,
    `- **Agent id:** \`${node.agentId}\` (run \`${node.runId}\`)`,
    '',
  ];
  const asker = node.parentId ? 'Parent agent' : 'You';
  for (const message of messages) {
    const blocks: Block[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : ((message.content ?? []) as Block[]);
    const onlyResults = blocks.every((b) => b.type === 'tool_result');
    out.push('---', '', message.role === 'assistant' ? `## ${node.agentName}` : onlyResults ? '### Tool results' : `## ${asker}`, '');
    for (const block of blocks) out.push(renderBlock(block, node.agentName), '');
  }
  if (messages.length === 0) out.push('---', '', `## ${asker}`, '', node.prompt, '');
  if (node.status === 'running') {
    const running = node.tools.filter((t) => t.status === 'running');
    if (node.text.trim()) out.push('---', '', `## ${node.agentName} _(writing…)_`, '', node.text, '');
    for (const tool of running) out.push(`_Running \`${tool.name}\` ${tool.inputSummary}…_`, '');
  } else if (node.output && !messages.some((m) => m.role === 'assistant')) {
    out.push('---', '', `## ${node.agentName}`, '', node.output, '');
  }
  return out.join('\n');
}

export class TranscriptDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  readonly #onDidChange = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.#onDidChange.event;
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #unsubscribe: () => void;

  constructor(private readonly services: Services) {
    this.#unsubscribe = services.store.subscribe((changed) => this.#runsChanged(changed));
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const agentId = agentIdOf(uri);
    const node = this.services.agentNode(agentId);
    if (!node) return `# Transcript not found\n\nAgent \`${agentId}\` is not in the run history (it may have expired).\n`;
    const messages = (await this.services.transcripts.read(agentId)) ?? [];
    return renderTranscript(node, messages);
  }

  #runsChanged(changed: ReadonlySet<string>): void {
    for (const doc of vscode.workspace.textDocuments) {
      if (doc.uri.scheme !== TRANSCRIPT_SCHEME) continue;
      const node = this.services.agentNode(agentIdOf(doc.uri));
      if (!node || !changed.has(node.runId)) continue;
      const key = doc.uri.toString();
      if (this.#timers.has(key)) continue;
      this.#timers.set(
        key,
        setTimeout(() => {
          this.#timers.delete(key);
          this.#onDidChange.fire(doc.uri);
        }, REFRESH_MS),
      );
    }
  }

  dispose(): void {
    this.#unsubscribe();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#onDidChange.dispose();
  }
}

/** Opens an agent's transcript in its view; `{ source: true }` opens the Markdown text instead. */
export async function showTranscriptCommand(services: Services, panels: TranscriptPanels, agentId?: unknown, options?: { source?: boolean }): Promise<boolean> {
  let node = typeof agentId === 'string' ? services.agentNode(agentId) : undefined;
  if (typeof agentId === 'string' && !node) {
    void vscode.window.showErrorMessage(`Agent ${agentId} is not in the run history (it may have expired).`);
    return false;
  }
  if (!node) {
    const items = services.store
      .list()
      .slice(0, 30)
      .flatMap((run) =>
        Object.values(run.agents)
          .sort((a, b) => a.startedAt - b.startedAt)
          .map((a) => ({
            label: `${'  '.repeat(a.depth)}${a.agentName}`,
            description: `${a.status} · ${a.description}`,
            detail: new Date(a.startedAt).toLocaleString(),
            node: a,
          })),
      );
    if (items.length === 0) {
      void vscode.window.showInformationMessage('No runs yet: run an agent first ("Subagents: Run Agent…").');
      return false;
    }
    node = (await vscode.window.showQuickPick(items, { title: 'Subagents: Show Transcript', placeHolder: 'Whose transcript?', matchOnDescription: true }))?.node;
    if (!node) return false;
  }
  if (!options?.source) {
    panels.show(node.agentId);
    return true;
  }
  const doc = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(transcriptUri(node)), 'plaintext');
  await vscode.window.showTextDocument(doc, { preview: false });
  return true;
}
