import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadingPicker, modelDetail, modelPicker, unlistedCatalog } from '../../panel/modelPicker';
import type { AvailableModel, ModelCatalog } from '../../protocol';

function model(id: string, extra: Partial<AvailableModel> = {}): AvailableModel {
  return {
    id,
    label: `${id.split('/').pop()} (test)`,
    source: 'server',
    tools: true,
    images: null,
    contextWindow: null,
    inputCostPerToken: null,
    outputCostPerToken: null,
    note: '',
    ...extra,
  };
}

const CATALOG: ModelCatalog = {
  current: 'openai/gpt-4o-mini',
  models: [
    model('openai/gpt-4o-mini', { images: true, contextWindow: 128_000, inputCostPerToken: 0.15e-6, outputCostPerToken: 0.6e-6 }),
    model('ollama/llama3.1', { source: 'server', tools: true, inputCostPerToken: 0, outputCostPerToken: 0 }),
    model('ollama/gemma2', { tools: false, note: 'no tool calling' }),
  ],
  problems: ['the local server at http://127.0.0.1:1234 did not answer'],
};

describe('the model picker', () => {
  it('starts on the server’s current model, sends nothing, and shows the server’s problems', () => {
    const picker = modelPicker(CATALOG, undefined);
    assert.equal(picker.selected, 'openai/gpt-4o-mini');
    assert.equal(picker.runModel, undefined, 'the server’s own choice applies');
    assert.deepEqual(picker.notes, CATALOG.problems);
    assert.deepEqual(
      picker.options.map((o) => [o.id, o.usable, o.current]),
      [
        ['openai/gpt-4o-mini', true, true],
        ['ollama/llama3.1', true, false],
        ['ollama/gemma2', false, false],
      ],
    );
    assert.equal(picker.loading, false);
  });

  it('keeps the remembered choice and sends it with the run', () => {
    const picker = modelPicker(CATALOG, 'ollama/llama3.1');
    assert.equal(picker.selected, 'ollama/llama3.1');
    assert.equal(picker.runModel, 'ollama/llama3.1');
    assert.deepEqual(picker.notes, CATALOG.problems, 'no note about the choice');
  });

  it('falls back to the current model when the remembered one is gone, and says so', () => {
    const picker = modelPicker(CATALOG, 'anthropic/claude-gone');
    assert.equal(picker.selected, 'openai/gpt-4o-mini');
    assert.equal(picker.runModel, undefined, 'a model the server does not list is never sent');
    assert.equal(picker.notes.length, 2);
    assert.match(picker.notes[1], /anthropic\/claude-gone is not available now: using gpt-4o-mini \(test\)/);
  });

  it('never chooses a model without tool calling, even remembered, and marks it', () => {
    const picker = modelPicker(CATALOG, 'ollama/gemma2');
    assert.equal(picker.selected, 'openai/gpt-4o-mini');
    assert.equal(picker.runModel, undefined);
    assert.match(picker.notes.at(-1) ?? '', /gemma2 \(test\) has no tool calling: using gpt-4o-mini/);
    const gemma = picker.options.find((o) => o.id === 'ollama/gemma2');
    assert.equal(gemma?.usable, false);
    assert.equal(gemma?.detail, 'no tool calling', 'the note is not said twice');
  });

  it('lists the current model even when the server’s list lacks it', () => {
    const picker = modelPicker({ current: 'openai/e2e', models: [model('ollama/llama3.1')], problems: [] }, undefined);
    assert.deepEqual(picker.options.map((o) => o.id), ['openai/e2e', 'ollama/llama3.1']);
    assert.equal(picker.selected, 'openai/e2e');
    assert.equal(picker.options[0].current, true);
  });

  it('with no current model, starts on the first model with tool calling', () => {
    const picker = modelPicker({ current: '', models: [model('a/none', { tools: false }), model('b/tools')], problems: [] }, undefined);
    assert.equal(picker.selected, 'b/tools');
  });

  it('without the server’s list: the configured model alone, the problem said, nothing sent', () => {
    const picker = modelPicker(unlistedCatalog('openai/e2e', 'The server did not list its models (Unhandled method agent/models).'), 'openai/e2e', false);
    assert.deepEqual(picker.options.map((o) => o.id), ['openai/e2e']);
    assert.equal(picker.selected, 'openai/e2e');
    assert.equal(picker.runModel, undefined, 'a server without agent/models would refuse the field');
    assert.deepEqual(picker.notes, ['The server did not list its models (Unhandled method agent/models).']);
    // A remembered model the server could not be asked about is not called gone.
    assert.equal(modelPicker(unlistedCatalog('openai/e2e', 'x'), 'ollama/llama3.1', false).notes.length, 1);
  });

  it('is empty and loading before the server answers', () => {
    assert.deepEqual(loadingPicker(), { options: [], selected: '', notes: [], loading: true });
  });

  it('describes a model in one short line: tools, images, context, price per million tokens', () => {
    assert.equal(modelDetail(CATALOG.models[0]), 'tools · images · 128k context · $0.15 / $0.6 per 1M tokens in / out');
    assert.equal(modelDetail(CATALOG.models[1]), 'tools · free');
    assert.equal(modelDetail(model('x/unknown', { tools: null, note: 'set OPENAI_API_KEY to use it' })), 'set OPENAI_API_KEY to use it');
    assert.equal(modelDetail(model('x/big', { contextWindow: 1_048_576, images: false, inputCostPerToken: 2.5e-8, outputCostPerToken: 1e-5 })), 'tools · no images · 1M context · $0.025 / $10 per 1M tokens in / out');
  });
});
