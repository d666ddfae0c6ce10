// The Runs view's page in a simulated DOM: a row's layout at the default
// sidebar width (300 px) and at 250 px, its hover, a rendered result, and the
// keyboard, without code-server.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { agentView, mountView, runsMessage, type MountedView } from './support/runsViewDom';

const TASK = 'Run the whole test suite and report every failure with its file and line';

function waitingRun() {
  const lead = agentView({ id: 'a-lead', name: 'tech-lead', description: 'Check the release', children: ['a-runner'], tokens: 2500, costUsd: 0.0123 });
  const runner = agentView({
    id: 'a-runner',
    parentId: 'a-lead',
    name: 'test-runner',
    description: TASK,
    status: 'waiting',
    model: 'demo-sonnet',
    tokens: 1900,
    costUsd: 0.004,
    approval: { approvalId: 'ap1', toolName: 'Bash', kind: 'bash', summary: 'node --test test/', protectedReason: null, detail: 'node --test test/' },
  });
  return runsMessage([{ runId: 'r1', agents: [lead, runner], header: { folder: 'tally' } }]);
}

describe('the Runs view in a simulated DOM', () => {
  let view: MountedView | undefined;
  afterEach(async () => {
    await view?.close();
    view = undefined;
  });

  for (const width of [300, 250]) {
    it(`at ${width} px: a waiting agent's row keeps its name, its state and the start of its task; its actions stay on the row`, async () => {
      view = await mountView(width);
      await view.send(waitingRun());
      const item = view.byTestId('run-agent-a-runner')!;
      const line = item.querySelector(':scope > .row > .line')!;
      // First line: the name and the task, which share the room; nothing on it insists on a width.
      assert.equal(line.querySelector('.name')!.textContent, 'test-runner');
      assert.equal(line.querySelector('.description')!.textContent, TASK);
      assert.equal(line.querySelector('.state, .badge'), null, 'no badge competes with the task on the first line');
      const name = view.style(line.querySelector('.name')!);
      assert.equal(name.flexShrink, '1', 'the name gives way when the line is short');
      assert.equal(parseFloat(name.minWidth), 0);
      const task = view.style(line.querySelector('.description')!);
      assert.ok(parseFloat(task.minWidth) > 0, 'the task keeps its first letters beside the name');
      // Second line: the state in words comes first and never shrinks.
      const details = item.querySelector(':scope > .row > .details')!;
      const state = details.firstElementChild as HTMLElement;
      assert.equal(state.dataset.testid, 'state-a-runner');
      assert.equal(state.textContent, 'needs approval');
      assert.equal(view.style(state).flexShrink, '0');
      // The actions lie over the line's right end: no content can push them past the edge.
      const actions = line.querySelector('.actions')!;
      assert.equal(view.style(actions).display, 'none', 'hidden until hovered or focused');
      (item as HTMLElement).focus();
      assert.equal(view.style(actions).display, 'flex', 'shown on the focused row');
      assert.equal(view.style(actions).position, 'absolute');
      assert.equal(view.style(actions).right, '0px');
      assert.equal(view.style(line).position, 'relative');
      assert.ok(view.byTestId('action-stop-a-runner'), 'a waiting agent has its Stop button');
      assert.ok(view.byTestId('action-message-a-runner'));
      assert.ok(view.byTestId('action-more-a-runner'));
      // The run's total and folder: on the second line at 300 px, in the hover only at 250 px.
      const lead = view.byTestId('run-agent-a-lead')!.querySelector(':scope > .row > .details')!;
      for (const part of ['.run-total', '.folder']) {
        const hidden: boolean = view!.style(lead.querySelector(part)!).display === 'none';
        assert.equal(hidden, width <= 260, `${part} ${width <= 260 ? 'is in the hover only' : 'is on the line'} at ${width} px`);
      }
    });
  }

  it("a row's hover has the whole task, the model, tokens, cost and state", async () => {
    view = await mountView(300);
    await view.send(waitingRun());
    const line = view.byTestId('run-agent-a-runner')!.querySelector<HTMLElement>(':scope > .row > .line')!;
    for (const part of [`Task: ${TASK}`, 'Model: demo-sonnet', '1,900 tokens', '$0.0040', 'test-runner — needs approval']) assert.ok(line.title.includes(part), `the hover says ${part}: ${line.title}`);
    const lead = view.byTestId('run-agent-a-lead')!.querySelector<HTMLElement>(':scope > .row > .line')!;
    assert.match(lead.title, /Whole run: 2 agents, 4,400 tokens/);
    assert.match(lead.title, /Folder: tally/);
    // Tokens arrive on every chunk: the hover follows them without a rebuild.
    const more = runsMessage([{ runId: 'r1', agents: [agentView({ id: 'a-lead', name: 'tech-lead', children: ['a-runner'], tokens: 9999 })] }], { reset: false });
    await view.send(more);
    assert.match(view.byTestId('run-agent-a-lead')!.querySelector<HTMLElement>(':scope > .row > .line')!.title, /9,999 tokens/);
  });

  it('every status reads the same words as on the other surfaces (the status table)', async () => {
    view = await mountView(300);
    const statuses = ['failed', 'cancelled', 'interrupted', 'budget_exceeded', 'completed'] as const;
    await view.send(runsMessage(statuses.map((status, i) => ({ runId: `r${i}`, agents: [agentView({ id: `a${i}`, name: `agent-${i}`, status, endedAt: 5_000 })] }))));
    const words = statuses.map((_, i) => view!.byTestId(`state-a${i}`)?.textContent ?? null);
    assert.deepEqual(words, ['failed', 'stopped', 'interrupted', 'budget reached', null]);
    assert.equal(view.byTestId('run-agent-a0')!.querySelector('.status')!.getAttribute('aria-label'), 'failed');
  });

  it('a result is rendered from its Markdown, grows in place (no scroll box of its own) and opens in the transcript', async () => {
    view = await mountView(300);
    const markdown = '## Summary\n\nAll **3** tests pass; see `test/count.test.js`.';
    const html = '<h2>Summary</h2>\n<p>All <strong>3</strong> tests pass; see <code>test/count.test.js</code>.</p>\n';
    await view.send(runsMessage([{ runId: 'r1', agents: [agentView({ id: 'a1', name: 'test-runner', status: 'completed', endedAt: 5_000, result: markdown, resultHtml: html })] }]));
    const toggle = view.byTestId('result-toggle-a1')!;
    assert.equal(toggle.querySelector('.result-preview')!.textContent, 'Summary', 'the preview is words, not marks');
    toggle.click();
    const body = view.byTestId('result-a1')!;
    assert.equal(body.querySelector('h2')!.textContent, 'Summary');
    assert.equal(body.querySelector('strong')!.textContent, '3');
    assert.doesNotMatch(body.textContent!, /##|\*\*/);
    for (const el of [body, ...body.querySelectorAll('*')]) {
      const s = view.style(el);
      assert.ok(!['auto', 'scroll'].includes(s.overflowY) && !['auto', 'scroll'].includes(s.overflow), `${el.tagName} does not scroll on its own`);
      assert.ok(!s.maxHeight || s.maxHeight === 'none', `${el.tagName} has no height cap`);
    }
    view.byTestId('result-transcript-a1')!.click();
    assert.deepEqual(view.posted.at(-1), { type: 'agentAction', action: 'transcript', agentId: 'a1' });
  });

  it('a result without rendered HTML is set as text, never parsed as markup', async () => {
    view = await mountView(300);
    await view.send(runsMessage([{ runId: 'r1', agents: [agentView({ id: 'a1', name: 'x', status: 'completed', endedAt: 5_000, result: '<img src=x onerror=alert(1)>' })] }]));
    view.byTestId('result-toggle-a1')!.click();
    assert.equal(view.byTestId('result-a1')!.querySelector('img'), null);
    assert.equal(view.byTestId('result-a1')!.textContent, '<img src=x onerror=alert(1)>');
  });

  it('keyboard: Tab enters at the newest run, focusing the view focuses a row, arrows move at once, Delete stops a waiting agent', async () => {
    view = await mountView(300);
    const old = (n: number) => ({ runId: `old${n}`, agents: [agentView({ id: `o${n}`, name: `old-${n}`, status: 'completed' as const, endedAt: 2_000 })] });
    await view.send(runsMessage([old(1), old(2)]));
    assert.equal(view.document.querySelector('li[tabindex="0"]')!.getAttribute('data-testid'), 'run-agent-o1');
    // A new run arrives on top: the tab stop moves to it, not left mid-list.
    const fresh = waitingRun() as Extract<ReturnType<typeof waitingRun>, { type: 'runs' }>;
    const old1 = runsMessage([old(1), old(2)]) as typeof fresh;
    await view.send({ ...fresh, reset: false, updates: [...fresh.updates, ...old1.updates], order: ['r1', 'old1', 'old2'] });
    const stops = [...view.document.querySelectorAll('li[tabindex="0"]')].map((li) => li.getAttribute('data-testid'));
    assert.deepEqual(stops, ['run-agent-a-lead']);
    // "Focus on Runs View": the page gets focus, the first row takes it.
    view.window.dispatchEvent(new view.window.Event('focus'));
    assert.equal(view.document.activeElement?.getAttribute('data-testid'), 'run-agent-a-lead');
    view.press('ArrowDown');
    assert.equal(view.document.activeElement?.getAttribute('data-testid'), 'run-agent-a-runner');
    view.press('Enter');
    assert.deepEqual(view.posted.at(-1), { type: 'agentAction', action: 'transcript', agentId: 'a-runner' });
    view.press('Delete');
    assert.deepEqual(view.posted.at(-1), { type: 'agentAction', action: 'stop', agentId: 'a-runner' });
    // Focus leaves and comes back: it returns to the row the user was on.
    (view.document.activeElement as unknown as HTMLElement).blur();
    view.window.dispatchEvent(new view.window.Event('focus'));
    assert.equal(view.document.activeElement?.getAttribute('data-testid'), 'run-agent-a-runner');
    // A click into the view (on a button, say) is the click's business: no row takes the focus, nothing scrolls under the pointer.
    (view.document.activeElement as unknown as HTMLElement).blur();
    view.document.dispatchEvent(new view.window.PointerEvent('pointerdown', { bubbles: true }));
    view.window.dispatchEvent(new view.window.Event('focus'));
    assert.equal(view.document.activeElement, view.document.body);
    view.document.dispatchEvent(new view.window.PointerEvent('pointerup', { bubbles: true }));
    await new Promise((resolve) => setTimeout(resolve, 0));
    view.window.dispatchEvent(new view.window.Event('focus'));
    // With the row focused, its buttons join the tab order.
    assert.equal(view.byTestId('action-stop-a-runner')!.tabIndex, 0);
    view.press('ArrowLeft');
    assert.equal(view.document.activeElement?.getAttribute('data-testid'), 'run-agent-a-lead');
    view.press('ArrowLeft');
    assert.equal(view.byTestId('run-agent-a-lead')!.getAttribute('aria-expanded'), 'false');
    view.press('ArrowDown');
    assert.equal(view.document.activeElement?.getAttribute('data-testid'), 'run-agent-o1', 'a folded run hides its agents from the arrows');
  });

  for (const width of [300, 250]) {
    it(`at ${width} px: the changes line keeps its count whole beside Review and Apply, and wraps its actions rather than cutting it`, async () => {
      view = await mountView(width);
      const lead = agentView({ id: 'a-lead', name: 'tech-lead', status: 'completed', endedAt: 5_000, children: ['a-docs'] });
      const worktree = { branch: 'subagents/docs-writer-1a2b', state: 'finished' as const, filesChanged: 2, insertions: 12, deletions: 3, applied: 0 };
      const docs = agentView({ id: 'a-docs', parentId: 'a-lead', name: 'docs-writer', status: 'completed', endedAt: 5_000, worktree });
      await view.send(runsMessage([{ runId: 'r1', agents: [lead, docs] }]));
      const line = view.byTestId('worktree-a-docs')!;
      const summary = line.querySelector<HTMLElement>('.summary')!;
      // Never shrunk into an ellipsis: the count keeps its width, and the actions go to a line of their own when it must.
      assert.equal(view.style(summary).flexShrink, '0');
      assert.equal(view.style(summary).whiteSpace, 'nowrap');
      assert.equal(view.style(line).flexWrap, 'wrap');
      const verb = summary.querySelector('.summary-verb')!;
      const shown = view.style(verb).display !== 'none';
      assert.equal(shown, width > 260, `"changed" is ${width > 260 ? 'said' : 'left to the icon and the tooltip'} at ${width} px`);
      assert.equal(summary.textContent, '2 files changed');
      assert.equal(line.getAttribute('aria-label'), '2 files changed (+12 −3) on branch subagents/docs-writer-1a2b');
      for (const action of ['action-reviewWorktree-a-docs', 'action-applyWorktree-a-docs', 'worktree-more-a-docs']) {
        assert.equal(view.style(view.byTestId(action)!).flexShrink, '0', `${action} never gives way`);
      }
    });
  }

  it('a notice may take two lines rather than end in an ellipsis', async () => {
    view = await mountView(250);
    const notice = { id: 'kept-worktrees', level: 'info' as const, text: '1 worktree with changes kept', tooltip: 'details', actions: [{ label: 'Review…', command: 'cleanUpWorktrees' }], dismissible: false };
    await view.send({ type: 'status', state: { notices: [notice], canRun: true, demo: false } });
    const text = view.byTestId('notice-kept-worktrees')!.querySelector('.notice-text')!;
    assert.equal(view.style(text).whiteSpace, 'normal');
    assert.equal(view.style(text).textOverflow === 'ellipsis' && view.style(text).whiteSpace === 'nowrap', false, 'not cut to one line');
  });

  it('drops a message that does not match the protocol', async () => {
    view = await mountView(300);
    await view.send({ type: 'runs', reset: true, updates: [{ run: { runId: 'r' } }], order: ['r'], cleared: 0, now: 0 });
    assert.equal(view.document.querySelectorAll('li[role="treeitem"]').length, 0);
    assert.deepEqual(view.posted, [{ type: 'ready' }]);
  });
});
