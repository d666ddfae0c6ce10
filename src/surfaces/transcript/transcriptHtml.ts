import path from 'node:path';
import type { BetaContentBlockParam, BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import MarkdownIt from 'markdown-it';
import { previewDiff } from '../../core/tools/approvalPreview';
import { approvalHeadline } from '../../protocol/approvalText';
import { formatCost, formatDuration } from '../../protocol/format';
import { totalTokens } from '../../protocol/runEvents';
import type { AgentNode } from '../../protocol/runSnapshot';
import { statusDisplay } from '../../protocol/statusDisplay';

/**
 * An agent's transcript as HTML for the transcript view (a webview of our
 * own, with a CSP that loads nothing from outside). Everything in it comes
 * from a model, a tool, a file or an agent file, so it is escaped for HTML
 * here, in one place: the model's text is rendered as Markdown with raw HTML
 * shown as text, links only to http(s) and mail, and images never loaded
 * (shown as their text); tool calls as readable blocks (a command as a
 * command, a written file as its content, an edit as a diff); results as
 * text. The call the agent waits on (an approval, a running tool) ends it.
 */

const MAX_RESULT = 8000;
const MAX_INPUT = 20_000;

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const SAFE_LINK = /^(https?:|mailto:)/i;

function markdownRenderer(): MarkdownIt {
  const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
  md.validateLink = (url) => SAFE_LINK.test(url.trim());
  // An image is never fetched (a model could leak what it read in the URL): its alt text and address show as text.
  md.renderer.rules.image = (tokens, idx) => {
    const token = tokens[idx]!;
    const alt = token.children?.map((c) => c.content).join('') ?? token.content;
    return `<span class="image-ref">[image: ${escapeHtml(alt || 'no description')} · ${escapeHtml(token.attrGet('src') ?? '')}]</span>`;
  };
  return md;
}

const md = markdownRenderer();

/** The model's Markdown, safe: see markdownRenderer. */
export function markdownHtml(text: string): string {
  return md.render(text);
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${(text.length - max).toLocaleString('en-US')} more characters)` : text;
}

function codeBlock(text: string, language = '', className = ''): string {
  const lang = language ? ` data-language="${escapeHtml(language)}"` : '';
  return `<pre class="code${className ? ` ${className}` : ''}"${lang}><code>${escapeHtml(text)}</code></pre>`;
}

function diffBlock(diff: string): string {
  const lines = diff.split('\n').map((line) => {
    const kind = line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
    return `<span class="diff-${kind}">${escapeHtml(line)}</span>`;
  });
  return `<pre class="code diff"><code>${lines.join('\n')}</code></pre>`;
}

/** An edit's old and new text as a diff; they are fragments, so a missing final newline means nothing here. */
function fragmentDiff(file: string | undefined, edit: Record<string, unknown>): string {
  const line = (text: string) => (text.endsWith('\n') ? text : `${text}\n`);
  return diffBlock(previewDiff({ kind: 'file', path: file ?? '', before: line(str(edit, 'old_string') ?? ''), after: line(str(edit, 'new_string') ?? '') }));
}

function languageOf(file: string): string {
  return path.extname(file).slice(1).toLowerCase();
}

function str(input: Record<string, unknown>, key: string): string | undefined {
  const value = input[key];
  return typeof value === 'string' ? value : undefined;
}

function fieldLine(label: string, value: string | undefined): string {
  return value ? `<div class="field"><span class="field-name">${escapeHtml(label)}</span> <code>${escapeHtml(value)}</code></div>` : '';
}

/** What a tool call does, for a reader: the command, the file and its content, the edit as a diff; anything else as JSON. */
export function toolCallHtml(name: string, input: unknown): string {
  const args = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const rest = (...known: string[]) => {
    const others = Object.fromEntries(Object.entries(args).filter(([k]) => !known.includes(k)));
    return Object.keys(others).length ? codeBlock(cut(JSON.stringify(others, null, 2), MAX_INPUT), 'json') : '';
  };
  const file = str(args, 'file_path');
  switch (name) {
    case 'Bash':
      return `${fieldLine('description', str(args, 'description'))}${codeBlock(cut(str(args, 'command') ?? (args.restart ? '(restart the shell)' : ''), MAX_INPUT), 'shell', 'command')}${rest('command', 'description', 'restart')}`;
    case 'Write':
      return `${fieldLine('file', file)}${codeBlock(cut(str(args, 'content') ?? '', MAX_INPUT), languageOf(file ?? ''))}${rest('file_path', 'content')}`;
    case 'Edit':
      return `${fieldLine('file', file)}${fragmentDiff(file, args)}${rest('file_path', 'old_string', 'new_string', 'replace_all')}`;
    case 'MultiEdit': {
      const edits = Array.isArray(args.edits) ? (args.edits as Array<Record<string, unknown>>) : [];
      const diffs = edits.map((e) => fragmentDiff(file, e));
      return `${fieldLine('file', file)}${diffs.join('')}${rest('file_path', 'edits')}`;
    }
    case 'Read':
    case 'LS':
    case 'Glob':
    case 'Grep':
      return `${fieldLine('file', file)}${fieldLine('path', str(args, 'path'))}${fieldLine('pattern', str(args, 'pattern'))}${rest('file_path', 'path', 'pattern')}`;
    case 'Task':
    case 'Agent':
      return `${fieldLine('agent', str(args, 'subagent_type'))}${fieldLine('description', str(args, 'description'))}${str(args, 'prompt') ? `<div class="prompt">${markdownHtml(cut(str(args, 'prompt')!, MAX_INPUT))}</div>` : ''}${rest('subagent_type', 'description', 'prompt')}`;
    default:
      return codeBlock(cut(JSON.stringify(input ?? {}, null, 2), MAX_INPUT), 'json');
  }
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: { type?: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : `[${b.type ?? 'content'}]`)).join('\n');
}

interface Call {
  name: string;
  input: unknown;
}

function blockHtml(block: BetaContentBlockParam, calls: Map<string, Call>): string {
  switch (block.type) {
    case 'text':
      return `<div class="text">${markdownHtml(block.text)}</div>`;
    case 'thinking':
      return `<details class="thinking"><summary>Thinking</summary>${markdownHtml(block.thinking)}</details>`;
    case 'tool_use':
    case 'server_tool_use':
      calls.set(block.id, { name: block.name, input: block.input });
      return `<div class="tool-call"><div class="tool-head">${escapeHtml(block.name)}</div>${toolCallHtml(block.name, block.input)}</div>`;
    case 'tool_result': {
      const call = calls.get(block.tool_use_id);
      const text = cut(resultText(block.content) || '(empty)', MAX_RESULT);
      const file = call?.name === 'Read' ? str((call.input ?? {}) as Record<string, unknown>, 'file_path') : undefined;
      const head = `${block.is_error ? 'Error from' : 'Result of'} ${escapeHtml(call?.name ?? 'a tool')}`;
      return `<div class="tool-result${block.is_error ? ' error' : ''}"><div class="tool-head">${head}</div>${codeBlock(text, file ? languageOf(file) : '')}</div>`;
    }
    default:
      return `<div class="other">[${escapeHtml(block.type)}]</div>`;
  }
}

function headerHtml(node: AgentNode): string {
  const u = node.usage;
  const cost = formatCost(u.costUsd);
  const ended = node.endedAt ?? Date.now();
  const facts = [
    ['Status', `${statusDisplay(node.status).label}${node.error ? ` — ${node.error.split('\n')[0]}` : ''}`],
    ['Model', node.model],
    ['Usage', [`${node.turns} turn${node.turns === 1 ? '' : 's'}`, `${totalTokens(u).toLocaleString('en-US')} tokens`, cost].filter(Boolean).join(' · ')],
    ['Time', `${new Date(node.startedAt).toLocaleString()} · ${formatDuration(ended - node.startedAt)}`],
    ['Folder', node.cwd],
    ['Agent id', `${node.agentId} (run ${node.runId})`],
  ];
  return (
    `<header><h1>${escapeHtml(node.agentName)}</h1>${node.description ? `<p class="description">${escapeHtml(node.description)}</p>` : ''}` +
    `<dl>${facts.map(([k, v]) => `<dt>${escapeHtml(k!)}</dt><dd>${escapeHtml(v!)}</dd>`).join('')}</dl></header>`
  );
}

/** What the agent waits on now: the approval it asked for (whole), the tools running, the text it is writing. */
function pendingHtml(node: AgentNode): string {
  const parts: string[] = [];
  const approval = node.status === 'waiting' ? node.approval : null;
  if (approval) {
    const headline = approvalHeadline({ agentName: node.agentName, background: node.background, kind: approval.kind, toolName: approval.toolName, summary: approval.summary });
    const detail = approval.detail ? (approval.kind === 'bash' ? codeBlock(approval.detail, 'shell', 'command') : diffBlock(approval.detail)) : '';
    parts.push(`<div class="pending approval"><div class="tool-head">Waiting for your approval: ${escapeHtml(headline)}</div>${detail}${approval.protectedReason ? `<p>Protected: ${escapeHtml(approval.protectedReason)}</p>` : ''}</div>`);
  }
  // The call waiting for approval is shown above, whole; the others are running.
  for (const tool of node.tools.filter((t) => t.status === 'running' && t.toolUseId !== approval?.toolUseId)) {
    parts.push(`<div class="pending"><div class="tool-head">Running ${escapeHtml(tool.name)}</div>${tool.inputSummary ? codeBlock(tool.inputSummary) : ''}</div>`);
  }
  if (node.status === 'running' && node.text.trim()) parts.push(`<div class="pending writing"><div class="tool-head">Writing…</div><div class="text">${markdownHtml(node.text)}</div></div>`);
  return parts.length ? `<section class="turn now" id="now"><h2>Now</h2>${parts.join('')}</section>` : '';
}

export function transcriptHtml(node: AgentNode, messages: readonly BetaMessageParam[]): string {
  const out: string[] = [headerHtml(node)];
  const asker = node.parentId ? 'Parent agent' : 'You';
  const calls = new Map<string, Call>();
  for (const message of messages) {
    const blocks: BetaContentBlockParam[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : ((message.content ?? []) as BetaContentBlockParam[]);
    const onlyResults = blocks.length > 0 && blocks.every((b) => b.type === 'tool_result');
    const who = message.role === 'assistant' ? node.agentName : onlyResults ? 'Tool results' : asker;
    const kind = message.role === 'assistant' ? 'assistant' : onlyResults ? 'results' : 'user';
    out.push(`<section class="turn ${kind}"><h2>${escapeHtml(who)}</h2>${blocks.map((b) => blockHtml(b, calls)).join('')}</section>`);
  }
  if (messages.length === 0) out.push(`<section class="turn user"><h2>${escapeHtml(asker)}</h2><div class="text">${markdownHtml(node.prompt)}</div></section>`);
  if (node.output && !messages.some((m) => m.role === 'assistant') && node.status !== 'running') {
    out.push(`<section class="turn assistant"><h2>${escapeHtml(node.agentName)}</h2><div class="text">${markdownHtml(node.output)}</div></section>`);
  }
  out.push(pendingHtml(node));
  return out.join('\n');
}
