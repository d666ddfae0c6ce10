import type { AgentFamily, AgentFormat } from '../core/agents/definition';
import { FIELD_DOCS } from '../core/agents/fieldDocs';
import { FORMATS, formatOfFile } from '../core/agents/formats';
import { canonicalToolNames, knownToolNames } from '../core/agents/toolNames';

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

function knowledgeOf(format: AgentFormat): FormatKnowledge {
  // The format's own names that stand for runtime tools, then the runtime's names.
  const table = FORMATS[format].tools;
  const own = table ? table.spellings.filter((name) => 'tools' in table.get(name.toLowerCase())!) : [];
  // The keys the format reads: Codex's TOML keys are its own; the Markdown formats read the runtime's
  // fields and their own spellings (Copilot's handoffs, Gemini's max_turns, oh-my-pi's thinking-level …).
  const formatFields: KnownField[] = FORMATS[format].fields.map((f) => ({ field: f.key, doc: f.doc }));
  const base: readonly KnownField[] = format === 'codex' ? [] : FIELD_DOCS;
  const fields = [...base, ...formatFields.filter((f) => !base.some((b) => b.field === f.field))];
  return {
    format,
    fields,
    field: (key) => fields.find((doc) => doc.field === key),
    toolNames: [...new Set([...knownToolNames(), ...(format === 'claude-code' ? [] : own)])],
    toolsFor: (name) => canonicalToolNames(name, format),
    spawnsKeys: FORMATS[format].spawnsKeys,
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
