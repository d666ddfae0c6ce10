import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import matter from 'gray-matter';
import { parse as parseJsonc } from 'jsonc-parser';
import { parse as parseYaml } from 'yaml';

/**
 * Real-world agent files of the seven formats read by readers of their own
 * (Cursor, opencode, Kilo, Qwen Code, Roo Code and Kilo modes, Kiro,
 * Factory), kept outside the repository like the Claude Code corpus: the
 * folder named by SUBAGENTS_FORMATS_CORPUS_DIR holds one folder per
 * collection (a repository), its files at the paths the repository has them
 * (`.qwen/agents/x.md`, `.roomodes`, `opencode.json` …).
 *
 * What each file should give is worked out here without the product's
 * readers, from each home tool's rules as docs/agent-files.md states them:
 * which files it reads, how it names an agent, which files or modes its
 * validator refuses. test/corpus/otherFormats.test.ts compares.
 */
export function formatsCorpusDir(env = process.env): string | null {
  const dir = env.SUBAGENTS_FORMATS_CORPUS_DIR;
  return dir && existsSync(dir) ? path.resolve(dir) : null;
}

export type CorpusFormat = 'cursor' | 'opencode' | 'kilo' | 'qwen' | 'roo' | 'kiro' | 'factory';

export interface Expected {
  format: CorpusFormat;
  /** The file, relative to the collection. */
  file: string;
  /** The agent's name (for a refused one, the mode's slug or the file's stem: what the warning names). */
  name: string;
  /** Refused by the home tool: it must not load, and a warning about its file must say so. */
  refused?: string;
  /** Not loaded and not warned about (opencode's `disable: true`). */
  disabled?: boolean;
  description?: string;
  /** Text the prompt must hold (normalised), when the file holds it itself. */
  prompt?: string;
  /** The model the file names, if any: it must be resolved or warned about. */
  model?: string;
  /** The tools the file lists, if any: they must give tools, or be warned about. */
  tools?: boolean;
  /** Several files define this name (opencode and Kilo merge them): only its presence is checked. */
  merged?: boolean;
}

/** Every file below `dir`, `/`-separated and relative to it. */
export function filesOf(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...filesOf(dir, rel));
    else if (statSync(path.join(dir, rel)).isFile()) out.push(rel);
  }
  return out.sort();
}

export const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();
const stem = (file: string) => path.posix.basename(file).replace(/\.[^.]*$/, '');
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v.trim() : v === undefined || v === null ? '' : String(v).trim());

/** Frontmatter as gray-matter reads it; for YAML it refuses, the `key: value` lines as their authors meant them. */
function frontmatter(text: string): { has: boolean; yamlValid: boolean; data: Record<string, unknown>; body: string } {
  const clean = text.replace(/^\uFEFF/, '');
  if (!/^---\r?\n/.test(clean)) return { has: false, yamlValid: true, data: {}, body: clean };
  try {
    const parsed = matter(clean, {});
    return { has: true, yamlValid: true, data: (parsed.data ?? {}) as Record<string, unknown>, body: parsed.content };
  } catch {
    const end = clean.indexOf('\n---', 3);
    const block = clean.slice(4, end < 0 ? undefined : end);
    const data: Record<string, unknown> = {};
    for (const line of block.split('\n')) {
      const m = /^([A-Za-z_][\w-]*):[ \t]*(.*?)\r?$/.exec(line);
      if (m && m[2]) data[m[1]!] = m[2].replace(/^(["'])(.*)\1$/, '$2');
    }
    const after = end < 0 ? '' : clean.slice(clean.indexOf('\n', end + 1) + 1);
    return { has: true, yamlValid: false, data, body: after };
  }
}

const modelOf = (v: unknown) => (typeof v === 'string' && v.trim() && v.trim() !== 'inherit' ? v.trim() : undefined);
const listsTools = (v: unknown) => (Array.isArray(v) ? v.length > 0 : typeof v === 'string' && v.trim() !== '');

function cursor(file: string, text: string): Expected[] {
  const fm = frontmatter(text);
  return [{ format: 'cursor', file, name: str(fm.data.name) || stem(file), description: str(fm.data.description), prompt: fm.body, model: modelOf(fm.data.model) }];
}

/** Qwen Code's validator: frontmatter and valid YAML, a name and a description, a name of 2–50 safe characters it does not keep for itself, a prompt of 10 characters or more, tools as a list or text. */
function qwen(file: string, text: string): Expected[] {
  const fm = frontmatter(text);
  const name = typeof fm.data.name === 'string' ? fm.data.name.trim() : '';
  const base = { format: 'qwen' as const, file, name: name || stem(file) };
  if (!fm.has) return [{ ...base, refused: 'no frontmatter' }];
  if (!fm.yamlValid) return [{ ...base, refused: 'invalid YAML' }];
  if (!name || typeof fm.data.description !== 'string' || !fm.data.description.trim()) return [{ ...base, refused: 'no name or description' }];
  if (!/^[A-Za-z0-9]([A-Za-z0-9_-]{0,48}[A-Za-z0-9])$/.test(name) || ['self', 'system', 'user', 'model', 'tool', 'config', 'default'].includes(name.toLowerCase())) return [{ ...base, refused: 'name' }];
  if (fm.body.trim().length < 10) return [{ ...base, refused: 'prompt too short' }];
  if (fm.data.tools !== undefined && !Array.isArray(fm.data.tools) && typeof fm.data.tools !== 'string') return [{ ...base, refused: 'tools' }];
  return [{ ...base, description: fm.data.description.trim(), prompt: fm.body, model: modelOf(fm.data.model), tools: listsTools(fm.data.tools) }];
}

/** Factory's check: frontmatter with a name of lower-case letters, digits, `-` and `_`. */
function factory(file: string, text: string): Expected[] {
  const fm = frontmatter(text);
  const name = str(fm.data.name);
  const base = { format: 'factory' as const, file, name: name || stem(file) };
  if (!fm.has) return [{ ...base, refused: 'no frontmatter' }];
  if (!name || !/^[a-z0-9_-]+$/.test(name)) return [{ ...base, refused: 'name' }];
  return [{ ...base, description: str(fm.data.description), prompt: fm.body, model: modelOf(fm.data.model), tools: listsTools(fm.data.tools) }];
}

const OPENCODE_MODES = ['all', 'primary', 'subagent'];

/** opencode's fallback for frontmatter YAML refuses: each top-level `key: value` whose plain value holds ": " as a block scalar. */
function blockScalars(text: string): string {
  const end = text.indexOf('\n---', 3);
  if (end < 0) return text;
  const rewritten = text
    .slice(0, end)
    .split('\n')
    .map((line) => {
      const m = /^([A-Za-z_][\w-]*):[ \t]+(.+)$/.exec(line);
      return m && /: /.test(m[2]!) && !/^["'|>[{]/.test(m[2]!) ? `${m[1]}: |-\n  ${m[2]}` : line;
    })
    .join('\n');
  return rewritten + text.slice(end);
}

/** One opencode agent's settings: refused when a value has the wrong type, as opencode's schema refuses it. */
function opencodeAgent(format: 'opencode' | 'kilo', file: string, name: string, data: Record<string, unknown>, prompt: string | undefined): Expected {
  const base = { format, file, name };
  if (data.disable === true) return { ...base, disabled: true };
  if (data.tools !== undefined && (!isRecord(data.tools) || Object.values(data.tools).some((v) => typeof v !== 'boolean'))) return { ...base, refused: 'tools' };
  if (data.mode !== undefined && !OPENCODE_MODES.includes(String(data.mode))) return { ...base, refused: 'mode' };
  for (const key of ['steps', 'maxSteps']) if (data[key] !== undefined && !(Number.isInteger(data[key]) && (data[key] as number) > 0)) return { ...base, refused: key };
  const usesRefs = typeof prompt === 'string' && /\{(file|env):/.test(prompt);
  return { ...base, description: str(data.description), ...(prompt && !usesRefs ? { prompt } : {}), model: modelOf(data.model) };
}

function opencodeFamily(format: 'opencode' | 'kilo', file: string, text: string): Expected[] {
  const folders = format === 'opencode' ? '\\.opencode' : '\\.kilo(?:code)?';
  const nested = new RegExp(`^${folders}/agents?/(.+)\\.md$`).exec(file);
  const flat = new RegExp(`^${folders}/modes?/([^/]+)\\.md$`).exec(file);
  if (nested || flat) {
    const fm = frontmatter(text);
    // Frontmatter that is not YAML: opencode rewrites top-level values holding ": " as block scalars and reads it again; failing that, it refuses the file.
    if (!fm.yamlValid && !frontmatter(blockScalars(text)).yamlValid) return [{ format, file, name: nested ? nested[1]! : flat![1]!, refused: 'invalid YAML' }];
    const name = str(fm.data.name) || (nested ? nested[1]! : flat![1]!);
    return [opencodeAgent(format, file, name, fm.data, fm.body)];
  }
  const data: unknown = parseJsonc(text, [], { allowTrailingComma: true });
  if (!isRecord(data)) return [];
  const out: Expected[] = [];
  for (const key of ['agent', 'mode']) {
    const agents = data[key];
    if (!isRecord(agents)) continue;
    for (const [name, settings] of Object.entries(agents)) {
      out.push(isRecord(settings) ? opencodeAgent(format, file, name, settings, typeof settings.prompt === 'string' ? settings.prompt : undefined) : { format, file, name, refused: 'not an object' });
    }
  }
  return out;
}

/** The keys of a Kiro JSON agent (Kiro refuses others, as Q Developer CLI's schema does). */
const KIRO_JSON_KEYS = ['$schema', 'name', 'description', 'prompt', 'mcpServers', 'tools', 'toolAliases', 'allowedTools', 'toolsSettings', 'resources', 'hooks', 'includeMcpJson', 'useLegacyMcpJson', 'model', 'keyboardShortcut', 'welcomeMessage'];

function kiro(file: string, text: string): Expected[] {
  if (file.endsWith('.md')) {
    const fm = frontmatter(text);
    if (!fm.has) return []; // a prompt file a JSON agent points at
    const name = file.replace(/^\.kiro\/agents\//, '').replace(/\.md$/, '');
    return [{ format: 'kiro', file, name: str(fm.data.name) || name, description: str(fm.data.description), prompt: fm.body, model: modelOf(fm.data.model), tools: listsTools(fm.data.tools) }];
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return [{ format: 'kiro', file, name: stem(file), refused: 'not JSON' }];
  }
  if (!isRecord(data)) return [{ format: 'kiro', file, name: stem(file), refused: 'not an object' }];
  const name = str(data.name) || stem(file);
  if (Object.keys(data).some((key) => !KIRO_JSON_KEYS.includes(key))) return [{ format: 'kiro', file, name, refused: 'unknown key' }];
  const prompt = typeof data.prompt === 'string' && !data.prompt.startsWith('file://') ? data.prompt : undefined;
  return [{ format: 'kiro', file, name, description: str(data.description), ...(prompt ? { prompt } : {}), model: modelOf(data.model), tools: listsTools(data.tools) }];
}

const ROO_GROUPS = ['read', 'edit', 'command', 'mcp', 'modes'];
/** Kilo Code's own agents: a `.kilocodemodes` mode of one of these slugs is not a custom mode there. */
const KILO_BUILTINS = ['code', 'build', 'architect', 'ask', 'debug', 'orchestrator'];

/** Roo Code's mode schema, mode by mode (this runtime skips only the invalid mode, where Roo Code drops its whole file). */
function rooMode(file: string, kilo: boolean, mode: unknown, index: number): Expected {
  const base = { format: 'roo' as const, file };
  if (!isRecord(mode)) return { ...base, name: `#${index}`, refused: 'not a map' };
  const slug = typeof mode.slug === 'string' ? mode.slug : `#${index}`;
  const refused = (why: string): Expected => ({ ...base, name: slug, refused: why });
  if (typeof mode.slug !== 'string' || !/^[a-zA-Z0-9-]+$/.test(mode.slug)) return refused('slug');
  if (typeof mode.name !== 'string' || !mode.name) return refused('name');
  if (typeof mode.roleDefinition !== 'string' || !mode.roleDefinition) return refused('roleDefinition');
  for (const key of ['whenToUse', 'description', 'customInstructions']) if (mode[key] !== undefined && typeof mode[key] !== 'string') return refused(key);
  if (!Array.isArray(mode.groups)) return refused('groups');
  const seen = new Set<string>();
  for (const entry of mode.groups) {
    const group = Array.isArray(entry) ? entry[0] : entry;
    if (typeof group !== 'string') return refused('group');
    if (group === 'browser') continue; // dropped before validation
    if (!ROO_GROUPS.includes(group) || seen.has(group)) return refused('group');
    seen.add(group);
    if (Array.isArray(entry) && isRecord(entry[1]) && typeof entry[1].fileRegex === 'string') {
      try {
        new RegExp(entry[1].fileRegex);
      } catch {
        return refused('fileRegex');
      }
    }
  }
  if (kilo && KILO_BUILTINS.includes(mode.slug)) return refused('a Kilo Code agent');
  const first = /^.*?[.!?](\s|$)/s.exec(normalise(mode.roleDefinition))?.[0]?.trim() ?? normalise(mode.roleDefinition);
  const description = kilo ? str(mode.description) || str(mode.whenToUse) || mode.name : str(mode.whenToUse) || str(mode.description) || first;
  return { ...base, name: mode.slug, description, prompt: mode.roleDefinition };
}

function roo(file: string, text: string): Expected[] {
  const kilo = file.endsWith('.kilocodemodes');
  // Roo Code first replaces what breaks YAML when pasted from documents: no-break spaces, zero-width characters, dashes, curly quotes.
  const clean = text
    .replace(/^\uFEFF/, '')
    .replace(/\u00A0/g, ' ')
    .replace(/[\u200B-\u200D\uFEFF]/g, '')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201C\u201D]/g, '"');
  let data: unknown;
  try {
    data = parseYaml(clean);
  } catch {
    try {
      // Its JSON fallback reads the text as it was (curly quotes inside strings stay curly).
      data = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch {
      return [{ format: 'roo', file, name: file, refused: 'neither YAML nor JSON' }];
    }
  }
  if (data === null || data === undefined) return [];
  if (!isRecord(data) || !Array.isArray(data.customModes)) return [{ format: 'roo', file, name: file, refused: 'no customModes list' }];
  return data.customModes.map((mode, i) => rooMode(file, kilo, mode, i));
}

/** The agents (and refusals) a collection's files should give, by their home tools' rules. */
export function expectedAgents(collection: string): Expected[] {
  const out: Expected[] = [];
  for (const file of filesOf(collection)) {
    const text = readFileSync(path.join(collection, file), 'utf8');
    if (/^\.cursor\/agents\/.+\.md$/i.test(file)) out.push(...cursor(file, text));
    else if (/^\.qwen\/agents\/[^/]+\.md$/.test(file)) out.push(...qwen(file, text));
    else if (/^\.factory\/droids\/[^/]+\.md$/.test(file)) out.push(...factory(file, text));
    else if (/^(\.opencode\/(agents?|modes?)\/.+\.md|opencode\.jsonc?|\.opencode\/opencode\.jsonc?)$/.test(file)) out.push(...opencodeFamily('opencode', file, text));
    else if (/^(\.kilo(code)?\/(agents?|modes?)\/.+\.md|kilo\.jsonc?|\.kilo(code)?\/kilo\.jsonc?)$/.test(file)) out.push(...opencodeFamily('kilo', file, text));
    else if (/^\.kiro\/agents\/([^/]+\.json|.+\.md)$/.test(file)) out.push(...kiro(file, text));
    else if (file === '.roomodes' || file === '.kilocodemodes') out.push(...roo(file, text));
  }
  // opencode and Kilo merge every definition of a name; Qwen's, Kiro's … names are checked file by file.
  for (const e of out) {
    if ((e.format === 'opencode' || e.format === 'kilo') && out.filter((o) => o.format === e.format && o.name === e.name && !o.refused).length > 1) e.merged = true;
  }
  return out;
}
