/**
 * The extension's own server environment, for real: the package is built as `npm run package`
 * builds it, two ManagedEnvironments (two windows) set the environment up at once from it with
 * the real Python and pip, and the extension's launch line then serves LSP from a workspace
 * whose own server.py, agent/, indexer.py and agentls.py must not be imported.
 *
 * pip installs agentls's dependencies from the configured package index (its cache makes a
 * second run faster). About 1-2 minutes. Run: npm run compile && npm run test:integration
 * (base Python: $AGENTLS_BASE_PYTHON, else python3).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PYTHON_SERVER_ARGS } from '../../launch';
import { ManagedEnvironment, venvPython } from '../../managedEnv';

const EXT_DIR = path.resolve(__dirname, '..', '..', '..');
const BASE = process.env.AGENTLS_BASE_PYTHON ?? 'python3';

/** Send `initialize`, then `shutdown` and `exit`, over stdio; returns the initialize result. */
async function initializeOverStdio(command: string, args: string[], cwd: string): Promise<{ serverInfo?: { name: string } }> {
  const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const responses = new Map<number, (result: unknown) => void>();
  let buffer = Buffer.alloc(0);
  child.stdout.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd < 0) {
        return;
      }
      const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())?.[1]);
      if (buffer.length < headerEnd + 4 + length) {
        return;
      }
      const message = JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString()) as { id?: number; result?: unknown };
      buffer = buffer.subarray(headerEnd + 4 + length);
      if (message.id !== undefined && responses.has(message.id)) {
        responses.get(message.id)!(message.result);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const send = (message: object): void => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }));
    child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  };
  const request = (id: number, method: string, params: unknown): Promise<unknown> =>
    Promise.race([
      new Promise((resolve) => {
        responses.set(id, resolve);
        send({ id, method, params });
      }),
      exited.then((code) => {
        throw new Error(`the server exited (${code}) before answering ${method}: ${stderr}`);
      }),
    ]);
  const uri = `file://${cwd}`;
  const result = (await request(1, 'initialize', {
    processId: process.pid,
    rootUri: uri,
    workspaceFolders: [{ uri, name: 'ws' }],
    capabilities: {},
  })) as { serverInfo?: { name: string } };
  send({ method: 'initialized', params: {} });
  await request(2, 'shutdown', null);
  send({ method: 'exit', params: null });
  assert.equal(await exited, 0, stderr);
  return result;
}

describe('the managed server environment, for real', () => {
  let tmp: string;
  let bundleDir: string;

  before(async () => {
    // Byte-compiling litellm's thousands of modules is a good part of pip's time, and not what
    // is tested here (the environment's pip reads this from the environment it inherits).
    process.env.PIP_NO_COMPILE = '1';
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'agentls-managed-'));
    bundleDir = path.join(tmp, 'bundled');
    const built = spawnSync(process.execPath, [path.join(EXT_DIR, 'scripts', 'bundle-server.mjs'), '--out', bundleDir], { encoding: 'utf8' });
    assert.equal(built.status, 0, `${built.stdout}\n${built.stderr}`);
  });

  after(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('two windows set it up once from the shipped package; its launch line serves LSP in a shadowing workspace', async () => {
    const storageDir = path.join(tmp, 'storage');
    const logs: string[][] = [[], []];
    const windows = logs.map((log) => new ManagedEnvironment({ bundleDir, storageDir, log: (line) => log.push(line) }));
    const reports: string[] = [];
    const started = Date.now();
    const [a, b] = await Promise.all(windows.map((env) => env.ensure([BASE], (message) => reports.push(message))));
    const installed = [...logs[0], ...logs[1]].find((line) => line.startsWith('Installing '));
    console.log(`set-up took ${((Date.now() - started) / 1000).toFixed(1)} s; ${installed}`);
    assert.equal(a, b);
    const all = [...logs[0], ...logs[1]];
    assert.equal(all.filter((line) => line.startsWith('Creating the server environment')).length, 1, all.join('\n'));
    assert.ok(all.some((line) => /is setting up .*; waiting for it/.test(line)), 'the second window waited on the lock');
    assert.ok(reports.some((r) => r.startsWith('installing agentls')), reports.join(' | '));
    assert.equal(await windows[0].readyPython(), a);
    assert.equal(a, venvPython(await windows[0].envDir()));
    assert.deepEqual(
      (await fs.readdir(path.join(storageDir, 'envs'))).filter((name) => !name.endsWith('.lock')),
      [path.basename(await windows[0].envDir())],
      'only the finished environment is left',
    );

    // The extension's launch line, in a workspace with its own server.py, agent/, indexer.py.
    const workspace = path.join(tmp, 'ws');
    await fs.cp(path.join(EXT_DIR, 'e2e', 'workspace'), workspace, { recursive: true });
    const result = await initializeOverStdio(a, [...PYTHON_SERVER_ARGS], workspace);
    assert.equal(result.serverInfo?.name, 'agentls');
    assert.deepEqual((await fs.readdir(workspace)).filter((name) => name.startsWith('imported-')), []);

    // Installed, agentls adds no top-level server/agent/indexer module.
    const probe = spawnSync(a, ['-c', 'import server'], { cwd: tmp, encoding: 'utf8' });
    assert.notEqual(probe.status, 0);
    assert.match(probe.stderr, /ModuleNotFoundError: No module named 'server'/);

    // A third window (or the next start) finds it ready and runs nothing.
    const again = new ManagedEnvironment({
      bundleDir,
      storageDir,
      log: () => undefined,
      run: async () => assert.fail('a ready environment must not run anything'),
    });
    assert.equal(await again.ensure([BASE], () => undefined), a);
  });
});
