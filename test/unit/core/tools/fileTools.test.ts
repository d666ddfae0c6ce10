import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyEdits } from '../../../../src/core/tools/fileTools';

test('MultiEdit applies all edits or none', () => {
  assert.equal(applyEdits('a b c', [{ old_string: 'a', new_string: 'A' }, { old_string: 'c', new_string: 'C' }], 'f'), 'A b C');
  assert.throws(() => applyEdits('a b c', [{ old_string: 'a', new_string: 'A' }, { old_string: 'zz', new_string: '' }], 'f'), /edit 2: old_string not found/);
  assert.throws(() => applyEdits('x x', [{ old_string: 'x', new_string: 'y' }], 'f'), /appears 2 times/);
  assert.equal(applyEdits('x x', [{ old_string: 'x', new_string: 'y', replace_all: true }], 'f'), 'y y');
});
