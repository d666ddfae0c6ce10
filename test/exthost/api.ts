// Shared by the extension-host suites: our extension's API and small waits.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SubagentsApi } from '../../src/vscode/extension';

export const EXTENSION_ID = 'subagents-dev.subagents';

export async function subagents(): Promise<SubagentsApi> {
  const extension = vscode.extensions.getExtension<SubagentsApi | undefined>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is not installed in this extension host`);
  const api = await extension.activate();
  assert.ok(api, 'the extension activated without its API (activation failed; see the Subagents output)');
  return api;
}

export function workspaceFolder(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test window has no workspace folder');
  return folder.uri.fsPath;
}

export async function waitFor<T>(check: () => T | undefined | null | false, message: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${message} (waited ${timeoutMs} ms)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
