// One code-server, one browser and the workbench page in it: what an e2e
// test file opens in its `before` hook and closes in its `after` hook.
import type { Browser } from 'playwright-core';
import { startCodeServer, type RunningCodeServer, type StartOptions } from '../../../scripts/code-server.mjs';
import type { Subject } from './diagnostics';
import { launchBrowser, Workbench } from './workbench';

export interface Session {
  server: RunningCodeServer;
  browser: Browser;
  workbench: Workbench;
}

/** Starts code-server, a browser and the workbench, and waits for it; `subject` gets each part as it comes, for failure diagnostics. */
export async function openSession(options: StartOptions, subject: Subject, parts: Partial<Session> = {}): Promise<Session> {
  const server = (parts.server = subject.server = await startCodeServer(options));
  const browser = (parts.browser = await launchBrowser());
  const workbench = (parts.workbench = subject.workbench = await Workbench.open(browser, server.folderUrl));
  await workbench.ready();
  return { server, browser, workbench };
}

/**
 * A trusted workspace in the light theme whose extension talks to a scripted
 * model server (`modelUrl`) with a made-up key; `label` names the test file
 * in the key, so a key seen in a log says which test put it there.
 */
export function scriptedModelSession(workspace: string, vsixPath: string, modelUrl: string, label: string): StartOptions {
  return {
    workspace,
    vsixPath,
    trust: true,
    env: { ANTHROPIC_API_KEY: `sk-ant-e2e-${label}-not-a-real-key`, ANTHROPIC_BASE_URL: modelUrl },
    settings: { 'workbench.colorTheme': 'Default Light Modern' },
  };
}

/** Closes what `openSession` opened, as far as it got. */
export async function closeSession(parts: Partial<Session>): Promise<void> {
  await parts.workbench?.close().catch(() => undefined);
  await parts.browser?.close().catch(() => undefined);
  await parts.server?.stop();
}
