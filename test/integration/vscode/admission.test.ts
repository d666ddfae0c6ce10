import '../../support/installVscodeFake';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { defaultSettings } from '../../../src/core/config';
import { AdmissionError } from '../../../src/core/engine/tree/admission';
import { Engine } from '../../../src/core/engine/engine';
import type { AgentDefinition } from '../../../src/core/agents/definition';
import type { Invoker } from '../../../src/protocol/admission';
import { escapeMarkdown } from '../../../src/surfaces/chat/chatLog';
import { ChatParticipantHandler } from '../../../src/vscode/chat/chatParticipant';
import { AgentTools } from '../../../src/vscode/lm/agentTools';
import { runAgentCommand } from '../../../src/vscode/runCommands';
import { agent, catalogOf } from '../../support/agents';
import { runCliProcess } from '../../support/cliProcess';
import { fakeServices, scriptedWorkspace } from '../../support/fakeServices';
import * as vscode from '../../support/vscodeFake';

// Whether an agent may start is the engine's answer, and every surface shows
// that answer in the engine's words: the palette's Run Agent, the chat, the
// language-model tools and `subagents run` (a real process). Each refusal
// below is first asked of an engine, then of every surface.

const workspace = scriptedWorkspace(() => ({ text: 'ran' }));

const SQL_HELPER = agent('sql-helper', { description: 'Helps other agents with SQL', userInvocable: false });
const DEPLOYER = agent('deployer', { description: 'Deploys', modelInvocable: false });
const LINTER = agent('linter', { description: 'Lints' });

/** The engine's own refusal of `name`, asked directly. */
async function engineRefusal(defs: AgentDefinition[], name: string, invoker: Invoker, disabled: string[] = []): Promise<string> {
  const engine = new Engine({ client: new Anthropic({ apiKey: 'unused' }), catalog: catalogOf(...defs), settings: () => ({ ...defaultSettings(), disabledAgents: disabled }) });
  const error = await engine.start({ agent: name, prompt: 'x', cwd: process.cwd(), invoker }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(error instanceof AdmissionError, `the engine started ${name}`);
  return error.message;
}

async function surfaces(defs: AgentDefinition[], disabled: string[] = []) {
  const app = workspace.folder('app', defs);
  const fake = await fakeServices([{ ...app, settings: { disabledAgents: disabled } }]);
  const chat = new ChatParticipantHandler(Promise.resolve(fake.services));
  return {
    ...fake,
    async palette(name: string): Promise<string | undefined> {
      vscode.resetFake();
      assert.equal(await runAgentCommand(fake.services, async () => undefined, { agent: name, task: 'do it' }), undefined);
      return vscode.shown.messages.at(-1)?.text;
    },
    async chat(name: string): Promise<string> {
      let text = '';
      const stream = { markdown: (t: string) => (text += t), progress: () => undefined, reference: () => undefined, button: () => undefined, anchor: () => undefined };
      await (chat.handle as (...args: unknown[]) => Promise<unknown>)({ prompt: `${name} do it`, references: [] }, { history: [] }, stream, new vscode.CancellationTokenSource().token);
      return text;
    },
    async lmTool(name: string): Promise<string> {
      const error = await new AgentTools(fake.services).runAgent({ agent: name, task: 'do it' }, new vscode.CancellationTokenSource().token).then(
        () => 'started',
        (e: Error) => e.message,
      );
      return error;
    },
  };
}

/** `subagents run <name>` in a folder holding the same agents as files. */
async function cli(name: string, settings: object = {}): Promise<{ code: number | null; stderr: string }> {
  const dir = path.join(workspace.folder('cli', []).dir);
  await mkdir(path.join(dir, '.github', 'agents'), { recursive: true });
  await writeFile(path.join(dir, '.github', 'agents', 'sql-helper.agent.md'), '---\nname: sql-helper\ndescription: Helps other agents with SQL\nuser-invocable: false\n---\nYou help.\n');
  await writeFile(path.join(dir, '.github', 'agents', 'linter.agent.md'), '---\nname: linter\ndescription: Lints\n---\nYou lint.\n');
  await mkdir(path.join(dir, 'config', 'subagents'), { recursive: true });
  await writeFile(path.join(dir, 'config', 'subagents', 'settings.json'), JSON.stringify(settings));
  const env = { HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'data'), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: workspace.server.url };
  return runCliProcess(['run', name, 'do it', '--cwd', dir], { env });
}

test('an agent for other agents only (user-invocable: false): every surface a person uses refuses it in the engine’s words, a model may start it', async () => {
  const words = await engineRefusal([SQL_HELPER], 'sql-helper', 'user');
  assert.equal(words, 'Agent "sql-helper" is there for other agents to start (user-invocable: false in its file), not to be run by itself.');
  const s = await surfaces([SQL_HELPER]);
  assert.equal(await s.palette('sql-helper'), words);
  assert.equal(await s.chat('sql-helper'), escapeMarkdown(words));
  const run = await cli('sql-helper');
  assert.equal(run.code, 1);
  assert.equal(run.stderr, `subagents run: ${words}\n`);
  assert.equal(workspace.server.requests.length, 0, 'a refused agent reached the model');
  // A model (a language-model tool) may start it: that is what it is for.
  assert.equal(await s.lmTool('sql-helper'), 'started');
});

test('an agent only a person may start (disable-model-invocation): the language-model tool refuses it in the engine’s words', async () => {
  const words = await engineRefusal([DEPLOYER], 'deployer', 'model');
  const s = await surfaces([DEPLOYER]);
  assert.equal(await s.lmTool('deployer'), words);
  assert.equal(s.store.list().length, 0);
});

test('a disabled agent: the palette, the chat, the language-model tool and the CLI say the same', async () => {
  const words = await engineRefusal([LINTER], 'linter', 'user', ['linter']);
  assert.equal(words, await engineRefusal([LINTER], 'linter', 'model', ['linter']));
  const s = await surfaces([LINTER], ['linter']);
  assert.equal(await s.palette('linter'), words);
  assert.equal(await s.chat('linter'), escapeMarkdown(words));
  assert.equal(await s.lmTool('linter'), words);
  const run = await cli('linter', { disabledAgents: ['linter'] });
  assert.equal(run.stderr, `subagents run: ${words}\n`);
  assert.equal(s.store.list().length, 0);
});
