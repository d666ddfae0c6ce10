import type { AgentFamily, AgentFormat } from '../core/agents/definition';
import { FIELD_DOCS, type FieldDoc } from '../core/agents/fieldDocs';
import { FORMATS, formatOfFile } from '../core/agents/formats';
import { canonicalToolNames, knownToolNames } from '../core/agents/toolNames';

/**
 * What the server knows about an agent file's format, all from the core:
 * the fields it reads (with their docs and closed value sets) and the tool
 * names it understands. The one place the server asks; the checks,
 * completion and hover go through here, so a file's format decides them
 * all alike.
 */

export interface FormatKnowledge {
  fields: readonly FieldDoc[];
  field(key: string): FieldDoc | undefined;
  /** Tool names to offer in completion. */
  toolNames: readonly string[];
  /** The runtime tools a name in a `tools` list stands for; null when unknown. */
  toolsFor(name: string): readonly string[] | null;
}

function knowledgeOf(format: AgentFormat): FormatKnowledge {
  // The format's own names that stand for runtime tools, then the runtime's names.
  const table = FORMATS[format].tools;
  const own = table ? table.spellings.filter((name) => 'tools' in table.get(name.toLowerCase())!) : [];
  return {
    fields: FIELD_DOCS,
    field: (key) => FIELD_DOCS.find((doc) => doc.field === key),
    toolNames: [...new Set([...knownToolNames(), ...(format === 'claude-code' ? [] : own)])],
    toolsFor: (name) => canonicalToolNames(name, format),
  };
}

const BY_FORMAT = new Map<AgentFormat, FormatKnowledge>();

/**
 * A family's Markdown files are read in its format (core/agents/formats):
 * its tool names map through that format's table. The field list is one for
 * all formats here; each format's own keys are in FORMATS[format].fields.
 */
export function formatKnowledge(family: AgentFamily | null): FormatKnowledge {
  const format = formatOfFile('agent.md', family);
  let knowledge = BY_FORMAT.get(format);
  if (!knowledge) BY_FORMAT.set(format, (knowledge = knowledgeOf(format)));
  return knowledge;
}
