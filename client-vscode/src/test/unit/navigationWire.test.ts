import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callsToWire, documentSymbolsToWire, hoverToWire, locationsToWire, renameToWire } from '../../navigationWire';

const uri = (value: string) => ({ toString: () => value });
const r = (line: number, start: number, end: number) => ({ start: { line, character: start }, end: { line, character: end } });

describe('VS Code navigation answers in agent/navigate shape', () => {
  it('sends a Location as is and a LocationLink by its target name', () => {
    assert.deepEqual(
      locationsToWire([
        { uri: uri('file:///w/a.ts'), range: r(3, 2, 6) },
        { targetUri: uri('file:///w/b.ts'), targetRange: r(0, 0, 40), targetSelectionRange: r(1, 9, 13) },
      ]),
      [
        { uri: 'file:///w/a.ts', range: r(3, 2, 6) },
        { uri: 'file:///w/b.ts', range: r(1, 9, 13) },
      ],
    );
    assert.deepEqual(locationsToWire(undefined), []);
  });

  it('joins the hovers, marked strings as code blocks', () => {
    const text = hoverToWire([{ contents: [{ language: 'typescript', value: '(method) Store.save(item: string): number' }, '  ', { value: 'Saves it.' }] }]);
    assert.equal(text, '```typescript\n(method) Store.save(item: string): number\n```\n\nSaves it.');
  });

  it('flattens an outline, each symbol with its containers, kinds as LSP numbers them', () => {
    const symbols = documentSymbolsToWire('file:///w/models.ts', [
      { name: 'Store', kind: 4, selectionRange: r(0, 13, 18), children: [{ name: 'save', kind: 5, detail: '(item)', selectionRange: r(1, 2, 6) }] },
    ]);
    assert.deepEqual(symbols, [
      { name: 'Store', kind: 5, uri: 'file:///w/models.ts', range: r(0, 13, 18), container: [] },
      { name: 'save', kind: 6, uri: 'file:///w/models.ts', range: r(1, 2, 6), container: ['Store'], detail: '(item)' },
    ]);
  });

  it('gives each caller the calls in it, each callee the calls of it in the asked function', () => {
    const asked = { name: 'checkout', kind: 11, uri: uri('file:///w/app.ts'), selectionRange: r(6, 16, 24) };
    const caller = { name: 'main', kind: 11, uri: uri('file:///w/main.ts'), selectionRange: r(2, 16, 20) };
    assert.deepEqual(callsToWire([{ from: caller, fromRanges: [r(3, 9, 17)] }], asked), [
      { symbol: { name: 'main', kind: 12, uri: 'file:///w/main.ts', range: r(2, 16, 20), container: [] }, sites: [{ uri: 'file:///w/main.ts', range: r(3, 9, 17) }] },
    ]);
    const callee = { name: 'save', kind: 5, uri: uri('file:///w/models.ts'), selectionRange: r(1, 2, 6) };
    assert.deepEqual(callsToWire([{ to: callee, fromRanges: [r(7, 20, 24)] }], asked)[0]?.sites, [{ uri: 'file:///w/app.ts', range: r(7, 20, 24) }]);
  });

  it('sends a rename as its edits per document', () => {
    assert.deepEqual(
      renameToWire([
        [uri('file:///w/a.ts'), [{ range: r(1, 2, 6), newText: 'persist' }]],
        [uri('file:///w/b.ts'), [{ range: r(7, 20, 24), newText: 'persist' }]],
      ]),
      {
        'file:///w/a.ts': [{ range: r(1, 2, 6), newText: 'persist' }],
        'file:///w/b.ts': [{ range: r(7, 20, 24), newText: 'persist' }],
      },
    );
  });
});
