import * as vscode from 'vscode';
import { parseSettings, SETTING_KEYS, type Settings } from '../core/config';

/**
 * The one typed accessor for the extension's settings: reads every key of the
 * core schema from VS Code's configuration (scoped to a folder when given),
 * validating each value.
 */
export function readSettings(scope?: vscode.ConfigurationScope): { settings: Settings; problems: string[] } {
  const config = vscode.workspace.getConfiguration('subagents', scope);
  const raw: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) raw[key] = config.get(key);
  return parseSettings(raw);
}

export function affectsSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration('subagents');
}
