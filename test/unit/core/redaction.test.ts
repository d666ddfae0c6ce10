import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REDACTED, Redactor } from '../../../src/core/redaction';

const KEY = 'sk-ant-0123456789abcdef';

test('redaction: exact secrets in text and in nested values; short strings are never secrets', () => {
  const r = new Redactor(() => [KEY, undefined, 'short']);
  assert.equal(r.text(`a ${KEY} b ${KEY}`), `a ${REDACTED} b ${REDACTED}`);
  assert.equal(r.text('a short word'), 'a short word');
  const value = { type: 'x', list: [`k=${KEY}`, 3, null], nested: { deep: KEY }, untouched: { a: 'b' } };
  const out = r.value(value);
  assert.deepEqual(out, { type: 'x', list: [`k=${REDACTED}`, 3, null], nested: { deep: REDACTED }, untouched: { a: 'b' } });
  assert.equal(out.untouched, value.untouched, 'unchanged parts are shared, not copied');
  const clean = { a: ['b'] };
  assert.equal(r.value(clean), clean);
  assert.equal(new Redactor(() => { throw new Error('no key'); }).text(KEY), KEY, 'no secrets known, nothing to do');
});

test('redaction of streamed text: a secret split across chunks never shows, and everything else comes through in order', () => {
  const r = new Redactor(() => [KEY, 'another-secret-value']);
  const text = `start ${KEY} middle sk-ant-01 not a key ${KEY}${KEY} another-secret-value end sk-ant-0123`;
  const expected = r.text(text);
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let round = 0; round < 300; round++) {
    const stream = r.stream();
    const shown: string[] = [];
    for (let i = 0; i < text.length; ) {
      const n = 1 + Math.floor(random() * 12);
      shown.push(stream.push(text.slice(i, i + n)));
      i += n;
    }
    shown.push(stream.flush());
    assert.equal(shown.join(''), expected);
    let sofar = '';
    for (const piece of shown) {
      sofar += piece;
      assert.ok(expected.startsWith(sofar), 'what was shown is final: it is never taken back');
    }
    for (const piece of shown) assert.equal(piece.includes('sk-ant-0123456789'), false);
  }
});

test('a secret cut by a truncation is still redacted, at either end or in the middle; object keys are redacted too', () => {
  const key = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefghijklmnop';
  const r = new Redactor(() => [key]);
  assert.equal(r.text(`cmd ${key.slice(0, 40)}…`), `cmd ${REDACTED}…`, 'the start of a key, cut by a summary');
  assert.equal(r.text(`${key.slice(30)} and more`), `${REDACTED} and more`, 'the end of a key, as a window onto the last characters leaves it');
  assert.equal(r.text(`x${key.slice(10, 30)}y`), `x${REDACTED}y`, 'a middle piece');
  assert.equal(r.text(`prefix only: ${key.slice(0, 15)}`), `prefix only: ${key.slice(0, 15)}`, 'too short a piece (the public prefix and two more) is left');
  assert.equal(r.text('sk-ant-api03- is what keys start with'), 'sk-ant-api03- is what keys start with');
  assert.deepEqual(r.value({ [key]: 1, nested: { [`k ${key.slice(0, 30)}`]: key } }), { [REDACTED]: 1, nested: { [`k ${REDACTED}`]: REDACTED } });
  const stream = r.stream();
  assert.equal(stream.push(`a ${key.slice(0, 20)}`) + stream.flush(), `a ${REDACTED}`, 'a stream that ends inside a key');
});

test('the fragment limit exactly: every 16-character piece of a key is redacted wherever it stands, no 15-character piece is', () => {
  const key = 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefghijklmnopq';
  const r = new Redactor(() => [key]);
  for (let at = 0; at + 16 <= key.length; at++) {
    assert.equal(r.text(`<${key.slice(at, at + 16)}>`), `<${REDACTED}>`, `16 characters from ${at}`);
    const stream = r.stream();
    assert.equal(stream.push(`<${key.slice(at, at + 16)}`) + stream.flush(), `<${REDACTED}`, `16 characters from ${at}, ending a stream`);
  }
  for (let at = 0; at + 15 <= key.length; at++) assert.equal(r.text(`<${key.slice(at, at + 15)}>`), `<${key.slice(at, at + 15)}>`, `15 characters from ${at}`);
});

test('the secret length limit exactly: a secret of 8 characters is redacted whole, one of 7 is not a secret; one of 15 or 16 only whole or by 16', () => {
  assert.equal(new Redactor(() => ['abcdefgh']).text('x abcdefgh y'), `x ${REDACTED} y`);
  assert.equal(new Redactor(() => ['abcdefg']).text('x abcdefg y'), 'x abcdefg y');
  const fifteen = 'abcdefghijklmno';
  assert.equal(new Redactor(() => [fifteen]).text(`${fifteen}|${fifteen.slice(0, 14)}`), `${REDACTED}|${fifteen.slice(0, 14)}`);
  const sixteen = 'abcdefghijklmnop';
  assert.equal(new Redactor(() => [sixteen]).text(`${sixteen}|${sixteen.slice(0, 15)}|${sixteen.slice(1)}`), `${REDACTED}|${sixteen.slice(0, 15)}|${sixteen.slice(1)}`);
});
