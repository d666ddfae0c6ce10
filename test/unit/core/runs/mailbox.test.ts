import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mailTime, newMailId, type MailEntry } from '../../../../src/core/engine/messaging/mail';
import { Mailbox } from '../../../../src/core/runs/mailbox';
import { until } from '../../../support/until';

const entry = (agentId: string, text: string, sentAt: number): MailEntry => ({ id: newMailId(), agentId, runId: 'r1', kind: 'message', text, from: null, via: 'cli', sentAt });

test('entries are kept per agent, oldest first, until acknowledged; a run leaving the history takes its agents’ entries along', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-mailbox-'));
  try {
    const box = new Mailbox(dir);
    const late = entry('a1', 'second', 2000);
    const early = entry('a1', 'first', 1000);
    await box.post(late);
    await box.post(early);
    await box.post(entry('b2', 'other agent', 1500));
    assert.deepEqual((await box.pending('a1')).map((e) => e.text), ['first', 'second']);
    assert.equal(await box.holds(early), true);
    await box.ack(early);
    await box.ack(early);
    assert.equal(await box.holds(early), false);
    assert.deepEqual((await box.pending('a1')).map((e) => e.text), ['second']);
    await box.removeAgent('a1');
    assert.deepEqual(await box.pending('a1'), []);
    assert.equal((await box.pending('b2')).length, 1);
    await assert.rejects(box.post(entry('../escape', 'x', 1)), /not an agent id/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an unreadable entry is moved aside with a warning, once; the others are read', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-mailbox-'));
  try {
    const warnings: string[] = [];
    const box = new Mailbox(dir, (_level, message) => warnings.push(message));
    await box.post(entry('a1', 'fine', 1000));
    await writeFile(path.join(dir, 'a1.0000000002000-m0bad.json'), '{"version":1,"entry":{"id":');
    assert.deepEqual((await box.pending('a1')).map((e) => e.text), ['fine']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /Mailbox entry a1\.0000000002000-m0bad\.json is unreadable .*moved it to a1\.0000000002000-m0bad\.json\.corrupt-\d+/);
    assert.ok((await readdir(dir)).some((n) => n.includes('.corrupt-')));
    await box.pending('a1');
    assert.equal(warnings.length, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the watcher offers each new entry at once, oldest first, and offers one nobody took again at its next scan', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-mailbox-'));
  const owner = new Mailbox(dir);
  const offered: string[] = [];
  let accept = false;
  let taken = 0;
  const stop = owner.watch((e) => {
    offered.push(e.text);
    const take = e.text !== 'declined' || accept;
    if (take && e.text === 'declined') taken++;
    return take;
  });
  try {
    const sender = new Mailbox(dir);
    await sender.post(entry('a1', 'hello', 1000));
    await until('the first entry', () => offered.includes('hello'));
    await sender.post(entry('a1', 'declined', 2000));
    await until('the second entry', () => offered.includes('declined'));
    // The declined one is offered again at a later scan (within a second) until it is taken; a taken one never again.
    accept = true;
    await until('the declined entry offered again and taken', () => taken === 1);
    const offers = offered.length;
    // A scan offers every entry not taken yet, oldest first: once a later entry is offered, any taken one would have come before it.
    await sender.post(entry('a1', 'marker', 3000));
    await until('the marker', () => offered.includes('marker'));
    assert.deepEqual(offered.slice(offers), ['marker'], 'nothing taken was offered again');
    assert.equal(offered.filter((t) => t === 'hello').length, 1);
  } finally {
    stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('entries several senders left before a scan are offered oldest first, whatever order their files were written in', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'subagents-mailbox-'));
  try {
    const sent = [entry('a1', 'one', 1000), entry('a1', 'two', 1001), entry('a1', 'three', 1002), entry('b2', 'other', 1001)];
    for (const e of [...sent].reverse()) await new Mailbox(dir).post(e);
    const offered: string[] = [];
    const stop = new Mailbox(dir).watch((e) => (offered.push(e.text), true));
    try {
      await until('all four', () => offered.length === 4);
      assert.deepEqual(offered, ['one', 'two', 'other', 'three']);
    } finally {
      stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('entries sent within one millisecond by one process keep their order', () => {
  const times = Array.from({ length: 50 }, () => mailTime());
  for (let i = 1; i < times.length; i++) assert.ok(times[i]! > times[i - 1]!, `${times[i]} after ${times[i - 1]}`);
});
