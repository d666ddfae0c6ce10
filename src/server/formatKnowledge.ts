import type { AgentFamily, AgentFormat } from '../core/agents/definition';
import { FIELD_DOCS } from '../core/agents/interpretation/fieldDocs';
import { FORMATS, formatOfFile } from '../core/agents/formats';
import { FACTORY_CATEGORIES } from '../core/agents/formats/factory';
import { KIRO_CATEGORIES } from '../core/agents/formats/kiro';
import { ROO_GROUPS } from '../core/agents/formats/roo';
import { canonicalToolNames, knownToolNames } from '../core/agents/interpretation/toolNames';
import { LISTED_TOOLS } from '../protocol/tools';

/**
 * What the server knows about an agent file's format, all from the core:
 * the fields it reads (with their docs and closed value sets) and the tool
 * names it understands. The one place the server asks; the checks,
 * completion and hover go through here, so a file's format decides them
 * all alike.
 */

/** A key the format reads: the runtime's own fields (FIELD_DOCS), or a format's own spelling. */
export interface KnownField {
  field: string;
  doc: string;
  values?: readonly string[];
  required?: boolean;
}

export interface FormatKnowledge {
  format: AgentFormat;
  fields: readonly KnownField[];
  field(key: string): KnownField | undefined;
  /** Tool names to offer in completion. */
  toolNames: readonly string[];
  /** The runtime tools a name in a `tools` list stands for; null when unknown. */
  toolsFor(name: string): readonly string[] | null;
  /** The keys that list the agents the file may start (`spawns`, Copilot's `agents`); the first one written decides. */
  spawnsKeys: readonly string[];
}

/** The formats read through the runtime's own fields (the first five); the others read only their own keys. */
const SHARED_FIELDS: readonly AgentFormat[] = ['claude-code', 'oh-my-pi', 'gemini', 'copilot'];

/** Names a format's `tools` takes beside its tool names: Kiro's `*`, `@builtin` and tags, Factory's categories. */
const EXTRA_TOOL_WORDS: Partial<Record<AgentFormat, Readonly<Record<string, readonly string[]>>>> = {
  kiro: { '*': LISTED_TOOLS.map((t) => t.name), '@builtin': LISTED_TOOLS.map((t) => t.name), ...KIRO_CATEGORIES },
  factory: FACTORY_CATEGORIES,
  roo: ROO_GROUPS,
};

function knowledgeOf(format: AgentFormat): FormatKnowledge {
  // The format's own names that stand for runtime tools, then the runtime's names.
  const spec = FORMATS[format];
  const table = spec.tools;
  const own = table ? table.spellings.filter((name) => 'tools' in table.get(name.toLowerCase())!) : [];
  const extra = EXTRA_TOOL_WORDS[format] ?? {};
  // The keys the format reads: Codex's TOML keys and the later formats' are their own; the other Markdown formats read
  // the runtime's fields and their own spellings (Copilot's handoffs, Gemini's max_turns, oh-my-pi's thinking-level …).
  const formatFields: KnownField[] = spec.fields.map((f) => ({ field: f.key, doc: f.doc, ...(f.values ? { values: f.values } : {}) }));
  const base: readonly KnownField[] = SHARED_FIELDS.includes(format) ? FIELD_DOCS : [];
  const fields = [...base, ...formatFields.filter((f) => !base.some((b) => b.field === f.field))];
  // Qwen Code matches its own spellings only; Kiro, Factory and Roo Code add their words; the others also take the runtime's names.
  const names = format === 'qwen' ? own : format === 'roo' ? Object.keys(extra) : [...knownToolNames(), ...(format === 'claude-code' ? [] : own), ...Object.keys(extra)];
  return {
    format,
    fields,
    field: (key) => fields.find((doc) => doc.field === key),
    toolNames: [...new Set(names)],
    toolsFor: (name) => (Object.hasOwn(extra, name) ? extra[name]! : format === 'roo' ? null : canonicalToolNames(name, format)),
    spawnsKeys: spec.spawnsKeys,
  };
}

const BY_FORMAT = new Map<AgentFormat, FormatKnowledge>();

/**
 * A file is read in its format (core/agents/formats: the family's, Copilot's
 * for `*.agent.md`, Codex's for TOML): its tool names map through that
 * format's table, and its keys are the ones that format reads.
 */
export function formatKnowledge(family: AgentFamily | null, filePath = 'agent.md'): FormatKnowledge {
  const format = formatOfFile(filePath, family);
  let knowledge = BY_FORMAT.get(format);
  if (!knowledge) BY_FORMAT.set(format, (knowledge = knowledgeOf(format)));
  return knowledge;
}
