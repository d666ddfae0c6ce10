/**
 * The located agent document the language server works on: spans of the
 * frontmatter, of every top-level key, value and list item. Both locators
 * (YAML in agentDocument.ts, TOML in tomlDocument.ts) produce it and every
 * feature reads it, so it lives apart from either.
 */

/** [start, end) offsets into the document text. */
export type Span = readonly [number, number];

export interface ValueItem {
  /** The item as written, quotes removed. */
  text: string;
  /** Where that text is: inside the quotes of a quoted item. */
  span: Span;
}

export interface FieldEntry {
  key: string;
  keySpan: Span;
  /** The value as written (empty span right after the colon when there is none). */
  valueSpan: Span;
  /** The value's source text, quotes kept. */
  valueSource: string;
  /** The whole `key: value` entry, through the end of its last line. */
  entrySpan: Span;
  /** Comma-separated entries of a scalar value, or the items of a list, with their own spans. */
  items: ValueItem[];
  /** The value is a mapping (e.g. a JSON Schema written in YAML). */
  isMapping: boolean;
}

export type FrontmatterState =
  | { kind: 'none' }
  | { kind: 'unterminated'; openSpan: Span }
  | { kind: 'ok'; openSpan: Span; closeSpan: Span; start: number; end: number };

export interface YamlSyntaxError {
  message: string;
  span: Span;
}

/**
 * One agent of a file that holds several (a custom modes file, an
 * `opencode.json`), or the one agent of a Kiro JSON file: its object, the
 * text that names it, and its fields.
 */
export interface AgentSection {
  /** The agent's name as the file gives it (a mode's slug, an `agent` key), or null when it gives none. */
  name: string | null;
  /** Where that name is written (the slug's value, the key); the object's start when none. */
  nameSpan: Span;
  /** The agent's whole object. */
  span: Span;
  fields: FieldEntry[];
}

export interface AgentDocument {
  /** YAML frontmatter in a Markdown file, a Codex TOML file, or a JSON or YAML file of agent objects (Kiro's JSON, modes, opencode's config). */
  syntax: 'yaml' | 'toml' | 'json' | 'modes';
  text: string;
  frontmatter: FrontmatterState;
  fields: FieldEntry[];
  /** Set when the core's YAML parser rejects the frontmatter (the file then loads through the line reader). */
  yamlError: YamlSyntaxError | null;
  /** For a file of agent objects: each agent's object (`fields` is empty then). */
  sections?: AgentSection[];
}
