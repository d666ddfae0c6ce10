import type { AgentFamily } from '../core/agents/definition';
import { FIELD_DOCS, type FieldDoc } from '../core/agents/fieldDocs';
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

const SHARED: FormatKnowledge = {
  fields: FIELD_DOCS,
  field: (key) => FIELD_DOCS.find((doc) => doc.field === key),
  toolNames: knownToolNames(),
  toolsFor: canonicalToolNames,
};

/** Every family's files are read with one field list and one tool table today. */
export function formatKnowledge(_family: AgentFamily | null): FormatKnowledge {
  return SHARED;
}
