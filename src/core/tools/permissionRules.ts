import os from 'node:os';
import path from 'node:path';
import type { PermissionRule } from '../agents/definition';
import { globRegex } from '../agents/readers/opencodePermissions';
import { selects, toolPattern } from '../agents/mcpServers/toolPatterns';
import { testPatterns } from '../regex/boundedRegex';
import { builtinTool } from '../../protocol/tools';

/**
 * An agent file's own permission rules, applied to one call: which rule
 * decides it (the last that matches, as opencode decides), from the tool
 * called and what the call is about — a shell command, a file path, a URL,
 * the agent a spawn starts. The rules come from the file (opencode's and
 * Kilo's `permission`, Roo's `fileRegex`, Kiro's `allowedTools` and
 * `toolsSettings`); the permission gate acts on the verdict.
 */

export interface CallFacts {
  /** The tool's name as the runtime calls it (`Bash`, `mcp__github__create_issue`). */
  name: string;
  /** A tool of another program: its server. */
  origin?: string;
  input: unknown;
  /** The agent's working folder: paths are matched relative to it (and absolute). */
  cwd: string;
}

export interface RuleVerdict {
  rule: PermissionRule;
  /** What the rule was matched against, for messages (`git push`, `src/app.ts`). */
  subject: string | null;
}

function field(input: unknown, ...keys: string[]): string | null {
  if (typeof input !== 'object' || input === null) return null;
  for (const key of keys) {
    const value = (input as Record<string, unknown>)[key];
    if (typeof value === 'string') return value;
  }
  return null;
}

/** What a call is about, as rules match it: texts to try (a path relative to the working folder, and absolute). */
export function callSubjects(call: CallFacts): string[] {
  const tool = builtinTool(call.name)?.name;
  switch (tool) {
    case 'Bash':
      return [field(call.input, 'command') ?? ''].filter(Boolean);
    case 'Read':
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'LS': {
      const written = field(call.input, 'file_path', 'path');
      if (written === null) return [];
      const absolute = path.resolve(call.cwd, written);
      const relative = path.relative(call.cwd, absolute).split(path.sep).join('/');
      return [...new Set([relative, absolute.split(path.sep).join('/')])];
    }
    case 'Glob':
    case 'Grep':
      return [field(call.input, 'pattern') ?? ''].filter(Boolean);
    case 'WebFetch':
      return [field(call.input, 'url') ?? ''].filter(Boolean);
    case 'Task':
      return [field(call.input, 'subagent_type') ?? ''].filter(Boolean);
    default:
      return [];
  }
}

/** Whether a rule is about the tool called. */
function coversTool(rule: PermissionRule, call: CallFacts): boolean {
  const own = builtinTool(call.name)?.name;
  for (const written of rule.tools) {
    if (written === '*') return true;
    if (own && builtinTool(written)?.name === own) return true;
    const pattern = !own && call.origin ? toolPattern(written) : null;
    if (pattern) {
      // The runtime names an MCP tool `mcp__<server>__<tool>`.
      const prefix = `mcp__${call.origin}__`;
      const tool = call.name.startsWith(prefix) ? call.name.slice(prefix.length) : call.name;
      if (selects(pattern, call.origin!, tool)) return true;
    }
  }
  return false;
}

/** opencode's wildcard (`*` any text, `?` one character, a trailing ` *` optional); `~/` is the home folder, `./` the working folder. */
export function globMatcher(pattern: string): RegExp {
  let written = pattern.replace(/\\/g, '/');
  if (written.startsWith('~/')) written = `${os.homedir().split(path.sep).join('/')}/${written.slice(2)}`;
  if (written.startsWith('./')) written = written.slice(2);
  return globRegex(written);
}

/**
 * The rule that decides the call, or null when none matches (the permission
 * mode decides). Regular expressions from the file run off the main thread
 * with a deadline (boundedRegex.ts); one that fails or runs away counts
 * against the call for a rule that restricts and for it for none that
 * allows: a broken pattern never lets more through.
 */
export async function decideByRules(rules: readonly PermissionRule[], call: CallFacts): Promise<RuleVerdict | null> {
  const relevant = rules.filter((rule) => coversTool(rule, call));
  if (relevant.length === 0) return null;
  const subjects = callSubjects(call);
  const regexRules = relevant.filter((rule) => rule.pattern !== null && rule.syntax !== 'glob');
  const regexResults = new Map<PermissionRule, boolean>();
  if (regexRules.length > 0 && subjects.length > 0) {
    const sources = regexRules.map((rule) => (rule.syntax === 'anchored' ? `^(?:${rule.pattern})$` : rule.pattern!));
    const results = await testPatterns(sources, subjects);
    regexRules.forEach((rule, i) => {
      const result = results[i]!;
      regexResults.set(rule, 'matches' in result ? result.matches.some(Boolean) : rule.action !== 'allow' ? !rule.negate : rule.negate);
    });
  }
  for (let i = relevant.length - 1; i >= 0; i--) {
    const rule = relevant[i]!;
    let matched: boolean;
    if (rule.pattern === null) matched = true;
    else if (subjects.length === 0) matched = false;
    else if (rule.syntax === 'glob') {
      const regex = globMatcher(rule.pattern);
      matched = subjects.some((subject) => regex.test(subject));
    } else matched = regexResults.get(rule) ?? false;
    if (rule.negate && rule.pattern !== null) matched = !matched;
    if (matched) return { rule, subject: subjects[0] ?? null };
  }
  return null;
}
