import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { parseAgentText } from '../../../src/core/agents/parsing/parse';
import { startScriptedServer } from '../../support/scriptedServer';
import { subagents, workspaceFolder } from '../api';

// The agent-file commands and the API key, driven through their optional
// arguments (the same path as the palette, minus the input boxes).

describe('New Agent / Refresh Agents', () => {
  const created: string[] = [];

  after(async () => {
    for (const file of created) rmSync(file, { force: true });
    await vscode.commands.executeCommand('subagents.refreshAgents');
  });

  it('writes a well-formed agent file that the catalog picks up at once', async () => {
    const api = await subagents();
    const description = 'Checks migrations: locks, "quotes" and #hashes survive';
    const file = await vscode.commands.executeCommand<string | undefined>('subagents.newAgent', {
      name: 'migration-checker',
      description,
      location: 'project',
      open: false,
    });
    assert.ok(file, 'New Agent returned no file');
    created.push(file);
    assert.equal(file, path.join(workspaceFolder(), '.claude', 'agents', 'migration-checker.md'));
    const parsed = parseAgentText(readFileSync(file, 'utf8'), { filePath: file, source: 'project', family: '.claude' });
    assert.deepEqual(parsed.warnings, []);
    assert.equal(parsed.definition?.name, 'migration-checker');
    assert.equal(parsed.definition?.description, description);
    const listed = api.agents().find((a) => a.name === 'migration-checker');
    assert.deepEqual(listed && { source: listed.source, filePath: listed.filePath }, { source: 'project', filePath: file });
  });

  it('refuses to overwrite an existing agent file', async () => {
    const file = path.join(workspaceFolder(), '.claude', 'agents', 'migration-checker.md');
    writeFileSync(file, '---\nname: migration-checker\ndescription: mine\n---\nDo not touch.\n');
    const result = await vscode.commands.executeCommand('subagents.newAgent', { name: 'migration-checker', description: 'other', location: 'project', open: false });
    assert.equal(result, undefined);
    assert.match(readFileSync(file, 'utf8'), /Do not touch/);
  });

  it('rejects a name that cannot be a file or agent name', async () => {
    for (const name of ['../escape', 'has space', '']) {
      const result = await vscode.commands.executeCommand('subagents.newAgent', { name, description: 'x', location: 'project', open: false });
      assert.equal(result, undefined, `accepted ${JSON.stringify(name)}`);
    }
    assert.equal(existsSync(path.join(workspaceFolder(), '.claude', 'escape.md')), false);
  });

  it('Refresh Agents picks up a file written behind its back', async () => {
    const api = await subagents();
    const file = path.join(workspaceFolder(), '.claude', 'agents', 'late-arrival.md');
    created.push(file);
    writeFileSync(file, '---\nname: late-arrival\ndescription: Written directly to disk.\n---\nHello.\n');
    const count = await vscode.commands.executeCommand<number>('subagents.refreshAgents');
    assert.ok(api.agents().some((a) => a.name === 'late-arrival'), 'the new agent is not listed after Refresh Agents');
    assert.ok(count >= api.agents().filter((a) => !a.shadowed).length);
  });
});

describe('Set API Key', () => {
  const secret = 'sk-ant-exthost-0123456789-not-a-real-key';

  it('stores the key in secret storage and never in settings', async () => {
    const api = await subagents();
    assert.equal(await vscode.commands.executeCommand('subagents.setApiKey', secret), true);
    assert.equal(api.apiKeyOrigin(), 'secret storage');
    const config = vscode.workspace.getConfiguration('subagents');
    const everything = JSON.stringify(Object.keys(config).map((key) => config.inspect(key)));
    assert.equal(everything.includes(secret), false, 'the key shows up in the subagents settings');
    const workspaceSettings = path.join(workspaceFolder(), '.vscode', 'settings.json');
    if (existsSync(workspaceSettings)) assert.equal(readFileSync(workspaceSettings, 'utf8').includes(secret), false);
    assert.equal(api.viewState().notices.some((n) => n.id === 'no-key'), false, 'the view still says there is no key');
  });

  it('refuses an empty key and keeps the stored one', async () => {
    const api = await subagents();
    assert.equal(await vscode.commands.executeCommand('subagents.setApiKey', '   '), false);
    assert.equal(api.apiKeyOrigin(), 'secret storage');
    // The key requests carry is still the stored one.
    const server = await startScriptedServer(() => ({ text: 'ok' }));
    const config = vscode.workspace.getConfiguration('subagents');
    await config.update('apiBaseUrl', server.url, vscode.ConfigurationTarget.Workspace);
    try {
      const [model] = await vscode.lm.selectChatModels({ vendor: 'subagents' });
      assert.ok(model, 'no Subagents chat model');
      const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('ping')], {}, new vscode.CancellationTokenSource().token);
      for await (const _ of response.text) void _;
      const sent = server.requests.at(-1)?.headers;
      assert.ok(sent && [sent['x-api-key'], sent.authorization].some((v) => String(v).endsWith(secret)), 'requests no longer carry the stored key');
    } finally {
      await config.update('apiBaseUrl', undefined, vscode.ConfigurationTarget.Workspace);
      await server.close();
    }
  });
});

describe('API base URL', () => {
  it("ANTHROPIC_BASE_URL wins over the (trusted) workspace's subagents.apiBaseUrl; without it the setting applies", async () => {
    const fromSetting = await startScriptedServer(() => ({ text: 'from the setting' }));
    const fromEnv = await startScriptedServer(() => ({ text: 'from the environment' }));
    const config = vscode.workspace.getConfiguration('subagents');
    const before = process.env.ANTHROPIC_BASE_URL;
    const ask = async () => {
      const [model] = await vscode.lm.selectChatModels({ vendor: 'subagents' });
      assert.ok(model, 'no Subagents chat model');
      const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('where are you?')], {}, new vscode.CancellationTokenSource().token);
      let text = '';
      for await (const part of response.text) text += part;
      return text;
    };
    await config.update('apiBaseUrl', fromSetting.url, vscode.ConfigurationTarget.Workspace);
    try {
      // The extension host's own environment, as VS Code started it.
      process.env.ANTHROPIC_BASE_URL = fromEnv.url;
      assert.equal(await ask(), 'from the environment');
      delete process.env.ANTHROPIC_BASE_URL;
      assert.equal(await ask(), 'from the setting');
    } finally {
      if (before === undefined) delete process.env.ANTHROPIC_BASE_URL;
      else process.env.ANTHROPIC_BASE_URL = before;
      await config.update('apiBaseUrl', undefined, vscode.ConfigurationTarget.Workspace);
      await fromSetting.close();
      await fromEnv.close();
    }
  });
});

describe('workspace trust', () => {
  it('in a trusted workspace loads project agents and allows runs', async () => {
    const api = await subagents();
    assert.equal(vscode.workspace.isTrusted, true);
    const state = api.viewState();
    assert.equal(state.canRun, true);
    assert.equal(state.notices.some((n) => n.id === 'untrusted'), false);
    const sources = new Set(api.agents().map((a) => a.source));
    assert.ok(sources.has('project') && sources.has('bundled'), `sources: ${[...sources].join(', ')}`);
  });
});
