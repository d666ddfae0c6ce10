import { parse as parseToml, TomlError } from 'smol-toml';
import { formatOfFile, isJsonPath, isModesFile, isTomlPath } from '../formats';
import { parseYamlFrontmatter, splitFrontmatter } from './frontmatter';
import { FileWarnings, interpretFields, type AgentFields, type AgentFileContext, type ParsedAgentFile } from '../interpretation/interpret';
import type { AgentFormat } from '../kinds';
import { readForgivingFrontmatter } from './forgivingFrontmatter';
import { readCursor } from '../readers/cursor';
import { readFactory } from '../readers/factory';
import { readKiro } from '../readers/kiro';
import { readOpencodeConfig, readOpencodeMarkdown } from '../readers/opencode';
import { readQwen } from '../readers/qwen';
import { readModesFile } from '../readers/roo';

/**
 * One agent file's text → a normalised definition: the fields are
 * read from YAML frontmatter (or, for Codex, from TOML), then interpreted
 * the way the file's home tool reads them (`interpret.ts`, `formats/`).
 * Never throws: every problem is a warning, and only a missing name or
 * description (after the forgiving fallback) costs the agent.
 */

export type { AgentFileContext, ParsedAgentFile } from '../interpretation/interpret';

/** Copilot's own suffixes: such a file needs no frontmatter at all (VS Code names it after the file). */
const COPILOT_SUFFIX = /\.(agent|chatmode)\.md$/i;

/** Formats whose every field is optional: a Markdown file without frontmatter is an agent whose prompt is the whole text. */
const NO_FRONTMATTER_NEEDED: readonly AgentFormat[] = ['cursor', 'opencode', 'kilo'];

/** What frontmatterFields says of a file that is not an agent at all and needs no word: see parseAgentText. */
const NOT_AN_AGENT = Symbol('not an agent');

function frontmatterFields(fileText: string, format: AgentFormat, filePath: string, warn: FileWarnings): AgentFields | { skip: string } | typeof NOT_AN_AGENT {
  const split = splitFrontmatter(fileText);
  if (split.kind === 'unterminated') return { skip: 'its frontmatter has no closing "---" line' };
  if (split.kind === 'none') {
    if (format === 'copilot' && COPILOT_SUFFIX.test(filePath)) return { fields: {}, body: split.body };
    if (NO_FRONTMATTER_NEEDED.includes(format)) return { fields: {}, body: split.body };
    // Kiro's Markdown agents have frontmatter; a Markdown file without it in `.kiro/agents` is the prompt a JSON agent
    // points at (`"prompt": "file://./prompts/reviewer.md"`, as Kiro's documentation lays them out), not an agent.
    if (format === 'kiro') return NOT_AN_AGENT;
    if (format === 'qwen') return { skip: 'it does not start with a "---" frontmatter block, which Qwen Code requires' };
    return { skip: 'it does not start with a "---" frontmatter block holding its name and description' };
  }
  const yaml = parseYamlFrontmatter(split.frontmatter, split.firstLine);
  if (yaml.ok) return { fields: yaml.data, body: split.body };
  if (yaml.alias) return { skip: yaml.message };
  // Qwen Code refuses a file whose frontmatter is not valid YAML.
  if (format === 'qwen') return { skip: `its frontmatter is not valid YAML, which Qwen Code refuses: ${yaml.message}` };
  if (NO_FRONTMATTER_NEEDED.includes(format) || format === 'kiro' || format === 'factory') {
    // opencode's own fallback: a top-level value holding ": " becomes a block scalar, and the YAML is read again,
    // so every other field keeps its type (a number, a map of permissions). The later formats' files take it too.
    const sanitized = parseYamlFrontmatter(blockScalarsForColons(split.frontmatter), split.firstLine);
    if (sanitized.ok) {
      warn.warn(`invalid YAML frontmatter: ${yaml.message}; the values holding ": " are read as text, as opencode reads them`);
      return { fields: sanitized.data, body: split.body };
    }
  }
  if (format === 'gemini' && /^\s*-/.test(split.frontmatter)) {
    return { skip: 'it lists remote Gemini CLI agents (reached over the A2A protocol), which this runtime cannot run' };
  }
  warn.warn(`invalid YAML frontmatter: ${yaml.message}; reading it as simple "key: value" lines instead`);
  return { fields: readForgivingFrontmatter(split.frontmatter), body: split.body };
}

/** A Codex agent file: TOML whose `developer_instructions` is the system prompt. */
function codexFields(fileText: string): AgentFields | { skip: string } {
  let data: Record<string, unknown>;
  try {
    // smol-toml builds tables without a prototype; the definition holds ordinary objects.
    data = structuredClone(parseToml(fileText)) as Record<string, unknown>;
  } catch (error) {
    const where = error instanceof TomlError ? ` (line ${error.line}, column ${error.column})` : '';
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    return { skip: `it is not valid TOML: ${reason}${where}` };
  }
  const instructions = data.developer_instructions;
  return { fields: data, body: typeof instructions === 'string' ? instructions : '' };
}

/**
 * A frontmatter whose top-level plain values holding `: ` (the commonest
 * break of YAML in agent files: `description: Use when: …`) are rewritten as
 * `|-` block scalars, the rest left as it is.
 */
export function blockScalarsForColons(frontmatter: string): string {
  return frontmatter
    .split('\n')
    .map((line) => {
      const match = /^([A-Za-z_][\w.-]*):[ \t]+(.*?)\r?$/.exec(line);
      if (!match) return line;
      const value = match[2]!;
      if (!/:\s/.test(value) || /^["'[{|>&*!#]/.test(value)) return line;
      return `${match[1]}: |-\n  ${value}`;
    })
    .join('\n');
}

/** A Kiro JSON agent: strict JSON, as Kiro reads it. */
function kiroJson(fileText: string, context: AgentFileContext, warn: FileWarnings): ParsedAgentFile {
  let data: unknown;
  try {
    data = JSON.parse(fileText.replace(/^\uFEFF/, ''));
  } catch (error) {
    return warn.skip(`it is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return warn.skip('it is not a JSON object of agent settings');
  return readKiro(data as Record<string, unknown>, null, context, warn);
}

export function parseAgentText(fileText: string, context: AgentFileContext): ParsedAgentFile {
  const warn = new FileWarnings(context.filePath);
  const format = context.format ?? formatOfFile(context.filePath, context.family);
  // The formats whose files are not Markdown with frontmatter, or hold several agents.
  if (format === 'roo' || isModesFile(context.filePath)) return readModesFile(fileText, context, warn);
  if (isJsonPath(context.filePath)) {
    if (format === 'kiro') return kiroJson(fileText, context, warn);
    if (format === 'opencode' || format === 'kilo') return readOpencodeConfig(fileText, { ...context, kilo: format === 'kilo' }, warn);
  }
  const fields = format === 'codex' && isTomlPath(context.filePath) ? codexFields(fileText) : frontmatterFields(fileText, format, context.filePath, warn);
  if (fields === NOT_AN_AGENT) return { definition: null, warnings: [] };
  if ('skip' in fields) return warn.skip(fields.skip);
  switch (format) {
    case 'cursor':
      return readCursor(fields.fields, fields.body, context, warn);
    case 'opencode':
    case 'kilo':
      return readOpencodeMarkdown(fields.fields, fields.body, { ...context, kilo: format === 'kilo' }, warn);
    case 'qwen':
      return readQwen(fields.fields, fields.body, context, warn);
    case 'kiro':
      return readKiro(fields.fields, fields.body, context, warn);
    case 'factory':
      return readFactory(fields.fields, fields.body, context, warn);
    default:
      return interpretFields(fields, context, format, warn);
  }
}
