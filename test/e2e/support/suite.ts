// The set-up an e2e file shares with the others, registered as its suite's
// `before` and `after` hooks: a copy of the sample workspace with the files
// the suite needs (committed), the scripted model the extension talks to when
// the suite has one, then code-server with the packaged extension, a browser
// and the workbench. Whatever the start got to is closed after the suite; a
// failed start is reported with the session's diagnostics.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import type { StartOptions } from '../../../scripts/code-server.mjs';
import { startScriptedServer, type Script, type ScriptedServer, type ScriptedServerOptions } from '../../support/scriptedServer';
import { withDiagnostics, type Subject } from './diagnostics';
import { copySampleWorkspace, ensureCodeServerReady, ensureVsix, type Workspace } from './product';
import { closeSession, openSession, scriptedModelSession, type Session } from './session';
import type { Workbench } from './workbench';

export interface SuiteSetup {
  /** Names the suite in diagnostics and in the made-up API key of a scripted-model session. */
  label: string;
  /** Files written into the workspace (paths relative to it) and committed. */
  files?: Record<string, string>;
  /** Whatever else the workspace needs before the window opens. */
  prepare?: (workspace: Workspace) => void | Promise<void>;
  /** The scripted model: the session is then a trusted scripted-model session (see `scriptedModelSession`). */
  model?: Script;
  modelOptions?: ScriptedServerOptions;
  /** Start options of a session without the scripted model (by default: the workspace, trusted). */
  start?: (workspace: Workspace, vsixPath: string) => StartOptions | Promise<StartOptions>;
  /** After the workbench is ready: what every test of the suite starts from (a view open, the chat). */
  ready?: (workbench: Workbench) => Promise<void>;
  /** Closed after the suite, after the session. */
  cleanup?: () => unknown;
}

export interface Live extends Session {
  page: Workbench['page'];
  workspace: Workspace;
}

export interface Suite {
  subject: Subject;
  /** The running session; fails the test that asks when the start failed. */
  live(): Live;
  /** The scripted model (only for suites that have one). */
  model(): ScriptedServer;
}

/** Registers the suite's start and end; call it at the top of a `describe`. */
export function codeServerSuite(setup: SuiteSetup): Suite {
  const subject: Subject = {};
  const session: Partial<Session> = {};
  let workspace: Workspace | undefined;
  let model: ScriptedServer | undefined;

  before(
    () =>
      withDiagnostics(`${setup.label} start`, subject, async () => {
        ensureCodeServerReady();
        const vsixPath = ensureVsix();
        workspace = copySampleWorkspace();
        const files = Object.entries(setup.files ?? {});
        for (const [relPath, text] of files) {
          const file = path.join(workspace.dir, relPath);
          mkdirSync(path.dirname(file), { recursive: true });
          writeFileSync(file, text);
        }
        await setup.prepare?.(workspace);
        if (files.length || setup.prepare) workspace.commit(`the ${setup.label} suite's files`);
        if (setup.model) model = await startScriptedServer(setup.model, setup.modelOptions);
        const options = model
          ? scriptedModelSession(workspace.dir, vsixPath, model.url, setup.label)
          : await (setup.start?.(workspace, vsixPath) ?? { workspace: workspace.dir, vsixPath, trust: true });
        const { workbench } = await openSession(options, subject, session);
        await setup.ready?.(workbench);
      }),
    // The first run on a machine installs code-server (minutes).
    { timeout: 6 * 60_000 },
  );

  after(async () => {
    await closeSession(session);
    await setup.cleanup?.();
    await model?.close();
    workspace?.remove();
  });

  return {
    subject,
    live() {
      const { server, browser, workbench } = session;
      assert.ok(server && browser && workbench && workspace, 'the workbench did not start (see the failure of the `before` hook)');
      return { server, browser, workbench, page: workbench.page, workspace };
    },
    model() {
      assert.ok(model, 'this suite has no scripted model, or it did not start');
      return model;
    },
  };
}

/** Agent files for `files`: each at `.claude/agents/<name>.md`. */
export function claudeAgents(agents: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(agents).map(([name, text]) => [`.claude/agents/${name}.md`, text]));
}
