import * as vscode from 'vscode';
import { parseSettings, SETTING_KEYS, type Settings } from '../core/config';
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

export function affectsSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration('subagents');
}

/**
 * Keeps the history's retention and caps on the current window-level
 * `subagents.history.*` settings: a change applies at once, without a reload.
 */
export function watchHistorySettings(history: RunHistory, store: RunStore): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('subagents.history')) applyHistorySettings(readSettings().settings, history, store);
  });
}
