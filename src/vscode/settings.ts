import * as vscode from 'vscode';
import { parseSettings, SETTING_KEYS, type SettingKey, type Settings } from '../core/config';
import { USER_ONLY_SETTING_KEYS } from '../core/projectSettings';
import type { RunHistory } from '../core/runs/history';
import { applyHistorySettings } from '../core/runs/historySettings';
import type { RunStore } from '../core/runs/runStore';

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

/**
 * The settings only the user sets (the run history's retention and caps: one
 * history serves every window and folder, so one workspace must not delete
 * another's runs): their user-level values, whatever a workspace or folder
 * says. package.json declares them `application`-scoped, so VS Code itself
 * ignores workspace values; this reads the user's value explicitly all the
 * same, and reports a workspace value so it does not look as if it applied.
 */
export function userOnlySettings(): { settings: Settings; problems: string[] } {
  const config = vscode.workspace.getConfiguration('subagents');
  const raw: Partial<Record<SettingKey, unknown>> = {};
  const ignored: string[] = [];
  for (const key of USER_ONLY_SETTING_KEYS) {
    const seen = config.inspect(key);
    raw[key] = seen?.globalValue;
    if (seen?.workspaceValue !== undefined || seen?.workspaceFolderValue !== undefined) {
      ignored.push(`subagents.${key} in the workspace settings is ignored: the run history is shared by every window and folder, so only your user settings set it.`);
    }
  }
  const { settings, problems } = parseSettings(raw);
  return { settings, problems: [...ignored, ...problems] };
}

export function affectsSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration('subagents');
}

/**
 * Keeps the history's retention and caps on the user's `subagents.history.*`
 * settings: a change applies at once, without a reload.
 */
export function watchHistorySettings(history: RunHistory, store: RunStore, log?: (message: string) => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (!e.affectsConfiguration('subagents.history')) return;
    const { settings, problems } = userOnlySettings();
    for (const problem of problems) log?.(problem);
    applyHistorySettings(settings, history, store);
  });
}
