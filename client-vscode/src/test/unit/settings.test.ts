import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_SETTINGS,
  didChangeConfigurationParams,
  readSettings,
  runOptions,
  serverConfig,
} from '../../settings';

function getter(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

describe('readSettings', () => {
  it('gives the defaults when nothing is set', () => {
    const { settings, problems } = readSettings(getter({}));
    assert.deepEqual(settings, DEFAULT_SETTINGS);
    assert.deepEqual(problems, []);
    assert.equal(settings.apiKeyEnv, 'LITELLM_API_KEY');
    assert.equal(settings.agent, 'build');
    assert.equal(settings.saveAfterEdit, true);
  });

  it('reads valid values and trims strings', () => {
    const valid = {
      serverPath: '~/bin/agentls',
      python: '/venv/bin/python',
      model: 'openai/gpt-4o-mini',
      apiBase: 'http://127.0.0.1:4000/v1',
      apiKeyEnv: 'MY_KEY',
      confirmMode: 'yolo',
      maxSteps: 7,
      selfEval: 'full',
      agent: 'plan',
      logLevel: 'debug',
      saveAfterEdit: false,
      diagnostics: false,
      diagnosticsWaitMs: 5000,
    };
    const { settings, problems } = readSettings(
      getter({ ...valid, serverPath: ' ~/bin/agentls ', python: ' /venv/bin/python ' }),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, valid);
  });

  it('replaces bad values by defaults and names the key', () => {
    const { settings, problems } = readSettings(
      getter({ confirmMode: 'sometimes', maxSteps: 0, apiKeyEnv: 'not a name', selfEval: 3, saveAfterEdit: 'yes', agent: '' }),
    );
    assert.equal(settings.confirmMode, 'confirm-sensitive');
    assert.equal(settings.maxSteps, 20);
    assert.equal(settings.apiKeyEnv, 'LITELLM_API_KEY');
    assert.equal(settings.selfEval, 'off');
    assert.equal(settings.saveAfterEdit, true);
    assert.equal(settings.agent, 'build');
    assert.deepEqual(
      problems.map((p) => p.key).sort(),
      ['agentls.apiKeyEnv', 'agentls.confirmMode', 'agentls.maxSteps', 'agentls.saveAfterEdit', 'agentls.selfEval'],
    );
    assert.match(problems.find((p) => p.key === 'agentls.confirmMode')!.message, /"sometimes" is not one of yolo/);
  });
});

describe('serverConfig', () => {
  it('maps to the .agentls.yaml shape', () => {
    const settings = { ...DEFAULT_SETTINGS, model: 'openai/m', apiBase: 'http://x/v1', apiKeyEnv: 'K', logLevel: 'warn' as const };
    assert.deepEqual(serverConfig(settings), {
      llm: { model: 'openai/m', api_base: 'http://x/v1', api_key_env: 'K' },
      logging: { level: 'warn' },
    });
  });

  it('leaves out empty model and api base so they do not override the server', () => {
    assert.deepEqual(serverConfig(DEFAULT_SETTINGS), {
      llm: { api_key_env: 'LITELLM_API_KEY' },
      logging: { level: 'info' },
    });
  });

  it('sends the problems-after-edits settings only when they are set', () => {
    const settings = { ...DEFAULT_SETTINGS, diagnostics: true, diagnosticsWaitMs: 800 };
    assert.deepEqual(serverConfig(settings).diagnostics, { enabled: true, wait_ms: 800 });
    assert.deepEqual(serverConfig({ ...DEFAULT_SETTINGS, diagnosticsWaitMs: 0 }).diagnostics, { wait_ms: 0 });
    assert.deepEqual(readSettings(getter({ diagnosticsWaitMs: -1 })).problems.map((p) => p.key), ['agentls.diagnosticsWaitMs']);
  });

  it('wraps the same shape for didChangeConfiguration', () => {
    const settings = { ...DEFAULT_SETTINGS, model: 'openai/m' };
    assert.deepEqual(didChangeConfigurationParams(settings), { settings: { agentls: serverConfig(settings) } });
  });

  it('never carries an API key', () => {
    const text = JSON.stringify(serverConfig({ ...DEFAULT_SETTINGS, model: 'm' }));
    assert.doesNotMatch(text, /api_key"/);
  });
});

describe('runOptions', () => {
  it('takes the per-run settings, with an agent override', () => {
    const settings = { ...DEFAULT_SETTINGS, confirmMode: 'confirm-all' as const, maxSteps: 5, selfEval: 'basic' as const };
    assert.deepEqual(runOptions(settings), { agent: 'build', confirmMode: 'confirm-all', maxSteps: 5, selfEval: 'basic' });
    assert.equal(runOptions(settings, 'plan').agent, 'plan');
  });
});
