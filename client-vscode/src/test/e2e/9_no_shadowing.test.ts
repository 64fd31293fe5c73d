import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { getApi, workspaceRoot } from './helpers';

// Runs last (files run in name order): by now every suite has started, restarted and stopped
// servers, with agentls.python, agentls.serverPath and interpreters that lack agentls.
describe('a workspace with its own server.py, agent/, indexer.py and agentls.py', () => {
  it('none of them was ever imported by a server the extension started', async () => {
    const api = await getApi();
    const root = workspaceRoot();
    for (const own of ['server.py', 'agent/__init__.py', 'indexer.py', 'agentls.py']) {
      assert.ok(fs.existsSync(path.join(root, own)), `the e2e workspace has ${own}`);
    }
    assert.ok(api.logText().includes(`cwd ${root};`), 'servers ran with the workspace as their cwd');
    const imported = fs.readdirSync(root).filter((name) => name.startsWith('imported-'));
    assert.deepStrictEqual(imported, [], `the workspace's own modules were imported: ${imported.join(', ')}`);
  });
});
