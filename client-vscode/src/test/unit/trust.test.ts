import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { DEFAULT_SETTINGS, initializationOptions, RESTRICTED_KEYS, settingsAction, type AgentSettings } from '../../settings';

describe('restricted settings', () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')) as {
    capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
    contributes: { configuration: { properties: Record<string, unknown> } };
  };

  it('package.json restricts exactly RESTRICTED_KEYS, and they exist', () => {
    const untrusted = manifest.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.deepEqual(untrusted.restrictedConfigurations, RESTRICTED_KEYS.map((key) => `agentls.${key}`));
    for (const key of untrusted.restrictedConfigurations) {
      assert.ok(key in manifest.contributes.configuration.properties, key);
    }
  });
});

describe('settingsAction', () => {
  const base: AgentSettings = { ...DEFAULT_SETTINGS, python: '/venv/bin/python', model: 'openai/a' };

  it('restarts for a launch key, sends a server key, ignores the rest', () => {
    assert.equal(settingsAction(base, { ...base }), 'none');
    assert.equal(settingsAction(undefined, base), 'none');
    assert.equal(settingsAction(base, { ...base, python: '/other/python' }), 'restart');
    assert.equal(settingsAction(base, { ...base, serverPath: '/bin/agentls' }), 'restart');
    assert.equal(settingsAction(base, { ...base, apiKeyEnv: 'OTHER_KEY', model: 'openai/b' }), 'restart');
    assert.equal(settingsAction(base, { ...base, model: 'openai/b' }), 'send');
    assert.equal(settingsAction(base, { ...base, apiBase: 'http://127.0.0.1:9/v1' }), 'send');
    assert.equal(settingsAction(base, { ...base, logLevel: 'debug' }), 'send');
    // Per-run settings go with each run.
    assert.equal(settingsAction(base, { ...base, maxSteps: 3, confirmMode: 'yolo', agent: 'plan' }), 'none');
  });
});

describe('initializationOptions', () => {
  it('carries the trust verdict beside the config', () => {
    assert.deepEqual(initializationOptions({ ...DEFAULT_SETTINGS, apiBase: 'http://h/v1' }, false), {
      llm: { api_key_env: 'LITELLM_API_KEY', api_base: 'http://h/v1' },
      logging: { level: 'info' },
      workspaceTrusted: false,
    });
    assert.equal(initializationOptions(DEFAULT_SETTINGS, true).workspaceTrusted, true);
  });
});
