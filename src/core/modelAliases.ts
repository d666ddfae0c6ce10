/**
 * The model aliases and the ids they run as, unless `subagents.modelAliases`
 * says otherwise (the setting's default, see config.ts). One alias per Claude
 * family the SDK lists, each on that family's newest model. Agent files may
 * name exactly these (and `inherit`) besides ids (agents/interpretation/modelNames.ts), so
 * every alias a file may use is also one the engine can map.
 */
export const DEFAULT_MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
  fable: 'claude-fable-5-2',
  mythos: 'claude-mythos-5-2',
};
