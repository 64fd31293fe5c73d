import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { describeLaunch, planLaunch, PYTHON_SERVER_ARGS } from '../../launch';
import {
  acquireLock,
  chooseArtifact,
  EnvironmentError,
  envKey,
  isRecentEnough,
  isStale,
  ManagedEnvironment,
  parseManifest,
  pipFailureHint,
  venvPython,
  wheelFits,
  type Manifest,
  type PythonInfo,
  type Runner,
} from '../../managedEnv';

const PY311: PythonInfo = {
  executable: '/usr/bin/python3.11',
  version: [3, 11, 7],
  implementation: 'cpython',
  interpreter: 'cp311',
  abi: 'cp311',
  platform: 'linux_x86_64',
};
const MANIFEST: Manifest = {
  version: '0.1.0',
  sdist: 'agentls-0.1.0.tar.gz',
  wheel: 'agentls-0.1.0-cp311-cp311-linux_x86_64.whl',
  sha256: 'ab12cd34ef56ab12cd34ef56',
};

const tmpRoots: string[] = [];
async function tmpdir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agentls-env-test-'));
  tmpRoots.push(dir);
  return dir;
}
after(async () => {
  for (const dir of tmpRoots) {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

describe('planLaunch: which command starts the server', () => {
  it('neither setting: the extension sets up its own environment', () => {
    assert.deepEqual(planLaunch({ serverPath: '', python: '' }, '/w', '/h'), { kind: 'managed' });
  });

  it('agentls.python: that interpreter, as is, with -P -m agentls --stdio', () => {
    const plan = planLaunch({ serverPath: '', python: '.venv/bin/python' }, '/w', '/h');
    assert.deepEqual(plan, {
      kind: 'ready',
      launch: { command: '/w/.venv/bin/python', args: ['-P', '-m', 'agentls', '--stdio'], source: 'python' },
    });
  });

  it('agentls.serverPath: that executable with --stdio, and it wins over agentls.python', () => {
    for (const python of ['', '/venv/bin/python']) {
      const plan = planLaunch({ serverPath: '~/bin/agentls', python }, '/w', '/h');
      assert.deepEqual(plan, { kind: 'ready', launch: { command: '/h/bin/agentls', args: ['--stdio'], source: 'serverPath' } });
    }
  });

  it('every Python launch line keeps the cwd off sys.path', () => {
    assert.deepEqual(PYTHON_SERVER_ARGS, ['-P', '-m', 'agentls', '--stdio']);
    const plan = planLaunch({ serverPath: '', python: '/p/python' }, '/w', '/h');
    assert.ok(plan.kind === 'ready');
    assert.equal(describeLaunch(plan.launch), '/p/python -P -m agentls --stdio');
  });
});

describe('the shipped package', () => {
  it('keys the environment by version and content, so an update gets a new one', () => {
    assert.equal(envKey(MANIFEST), '0.1.0-ab12cd34ef56');
    assert.notEqual(envKey({ ...MANIFEST, sha256: 'ffff' + MANIFEST.sha256 }), envKey(MANIFEST));
    assert.notEqual(envKey({ ...MANIFEST, version: '0.2.0' }), envKey(MANIFEST));
  });

  it('reads manifest.json and refuses an incomplete one', () => {
    assert.deepEqual(parseManifest(JSON.stringify(MANIFEST)), MANIFEST);
    assert.equal(parseManifest(JSON.stringify({ ...MANIFEST, wheel: null })).wheel, null);
    assert.throws(() => parseManifest('{"version": "1"}'), /lacks/);
  });

  it('installs the wheel only on the Python and platform it was built for, else the sdist', () => {
    assert.deepEqual(chooseArtifact(MANIFEST, PY311), { file: MANIFEST.wheel, kind: 'wheel' });
    const py312 = { ...PY311, version: [3, 12, 1] as [number, number, number], interpreter: 'cp312', abi: 'cp312' };
    assert.deepEqual(chooseArtifact(MANIFEST, py312), { file: MANIFEST.sdist, kind: 'sdist' });
    assert.deepEqual(chooseArtifact(MANIFEST, { ...PY311, platform: 'linux_aarch64' }), { file: MANIFEST.sdist, kind: 'sdist' });
    assert.deepEqual(chooseArtifact(MANIFEST, { ...PY311, implementation: 'pypy' }), { file: MANIFEST.sdist, kind: 'sdist' });
    assert.deepEqual(chooseArtifact({ ...MANIFEST, wheel: null }, PY311), { file: MANIFEST.sdist, kind: 'sdist' });
    assert.ok(wheelFits('agentls-0.1.0-py3-none-any.whl', py312));
    assert.ok(!wheelFits('agentls-0.1.0-cp311-abi3-linux_x86_64.whl', { ...PY311, abi: 'cp311t' }));
  });

  it('needs Python 3.11 or newer', () => {
    assert.ok(isRecentEnough(PY311));
    assert.ok(isRecentEnough({ ...PY311, version: [3, 13, 0] }));
    assert.ok(!isRecentEnough({ ...PY311, version: [3, 10, 12] }));
  });

  it('explains pip failures it recognises', () => {
    assert.match(pipFailureHint(['WARNING: Retrying ... NewConnectionError(...)']), /could not reach the package index/);
    assert.match(pipFailureHint(['ERROR: No matching distribution found for litellm>=1.60']), /not found on the package index/);
    assert.equal(pipFailureHint(['ERROR: something else']), '');
  });
});

describe('the lock', () => {
  it('lets one process in; a second waits until it is released', async () => {
    const lock = path.join(await tmpdir(), 'env.lock');
    const never = async (): Promise<boolean> => false;
    const release = await acquireLock(lock, { until: never, pollMs: 10 });
    assert.ok(release);
    let waited = false;
    const second = acquireLock(lock, { until: never, pollMs: 10, onWait: () => (waited = true) });
    const state = await Promise.race([second.then(() => 'acquired'), new Promise((r) => setImmediate(() => r('waiting')))]);
    assert.equal(state, 'waiting');
    await release();
    const releaseSecond = await second;
    assert.ok(releaseSecond);
    assert.ok(waited);
    await releaseSecond();
  });

  it('stops waiting when the environment became ready meanwhile', async () => {
    const lock = path.join(await tmpdir(), 'env.lock');
    const release = await acquireLock(lock, { until: async () => false, pollMs: 10 });
    let ready = false;
    const waiting = acquireLock(lock, { until: async () => ready, pollMs: 10 });
    ready = true;
    assert.equal(await waiting, undefined);
    await release?.();
  });

  it('takes over a lock whose process died, or that is too old', async () => {
    const lock = path.join(await tmpdir(), 'env.lock');
    await fs.writeFile(lock, JSON.stringify({ pid: 999_999_999, host: os.hostname(), time: Date.now() }));
    const release = await acquireLock(lock, { until: async () => false, pollMs: 10, isAlive: () => false });
    assert.ok(release);
    assert.equal(JSON.parse(await fs.readFile(lock, 'utf8')).pid, process.pid);
    await release();
    const now = Date.now();
    assert.ok(isStale({ pid: 1, host: 'elsewhere', time: now - 60_000 }, now, 30_000, () => true));
    assert.ok(!isStale({ pid: 1, host: 'elsewhere', time: now }, now, 30_000, () => false), 'another machine: only age counts');
    assert.ok(!isStale({ pid: process.pid, host: os.hostname(), time: now }, now, 30_000, () => true));
  });
});

/**
 * A runner standing in for Python: the probe answers `info`, `-m venv DIR` makes DIR/bin/python
 * (a real executable file), `-m pip install` succeeds or fails as told. Records every command.
 */
function fakePython(info: PythonInfo | undefined, pipOk = true): { run: Runner; calls: string[][] } {
  const calls: string[][] = [];
  const run: Runner = async (command, args) => {
    calls.push([command, ...args]);
    if (args.includes('-c')) {
      return info ? { code: 0, output: [JSON.stringify(info)] } : { code: null, error: Object.assign(new Error('spawn ENOENT'), { code: 'ENOENT' }), output: [] };
    }
    if (args.includes('venv')) {
      const dir = args[args.length - 1];
      await fs.mkdir(path.dirname(venvPython(dir)), { recursive: true });
      await fs.writeFile(venvPython(dir), '#!/bin/sh\n', { mode: 0o755 });
      return { code: 0, output: [] };
    }
    return pipOk ? { code: 0, output: ['Successfully installed agentls'] } : { code: 1, output: ['ERROR: No matching distribution found for litellm'] };
  };
  return { run, calls };
}

async function bundle(manifest: Manifest = MANIFEST): Promise<string> {
  const dir = await tmpdir();
  await fs.writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
  return dir;
}

describe('ManagedEnvironment', () => {
  it('creates the environment once, installs the fitting artifact, then reuses it', async () => {
    const storageDir = await tmpdir();
    const bundleDir = await bundle();
    const { run, calls } = fakePython(PY311);
    const env = new ManagedEnvironment({ bundleDir, storageDir, log: () => undefined, run });
    assert.equal(await env.readyPython(), undefined);
    const reports: string[] = [];
    const python = await env.ensure(['python3'], (m) => reports.push(m));
    const dir = path.join(storageDir, 'envs', envKey(MANIFEST));
    assert.equal(python, venvPython(dir));
    assert.equal(await env.readyPython(), python);
    const pip = calls.find((c) => c.includes('pip'));
    assert.equal(pip?.[0], python, 'pip runs in the new venv');
    assert.equal(pip?.[pip.length - 1], path.join(bundleDir, MANIFEST.wheel!));
    assert.ok(reports.some((r) => /installing agentls 0\.1\.0/.test(r)), reports.join('|'));
    // The lock is gone; nothing else is left.
    assert.deepEqual((await fs.readdir(path.join(storageDir, 'envs'))).sort(), [envKey(MANIFEST)]);

    const before = calls.length;
    assert.equal(await env.ensure(['python3'], () => undefined), python);
    assert.equal(calls.length, before, 'a ready environment runs nothing');
  });

  it('rebuilds a half-built environment (no marker) left by a crash', async () => {
    const storageDir = await tmpdir();
    const bundleDir = await bundle();
    const dir = path.join(storageDir, 'envs', envKey(MANIFEST));
    await fs.mkdir(path.join(dir, 'lib'), { recursive: true });
    await fs.writeFile(path.join(dir, 'lib', 'leftover'), '');
    const { run, calls } = fakePython(PY311);
    const env = new ManagedEnvironment({ bundleDir, storageDir, log: () => undefined, run });
    assert.equal(await env.readyPython(), undefined);
    assert.equal(await env.ensure(['python3'], () => undefined), venvPython(dir));
    assert.equal(calls.filter((c) => c.includes('venv')).length, 1);
    await assert.rejects(fs.access(path.join(dir, 'lib', 'leftover')), 'the leftover was cleared first');
  });

  it('an update (new shipped package) gets a new environment', async () => {
    const storageDir = await tmpdir();
    const first = await bundle();
    const { run } = fakePython(PY311);
    const old = await new ManagedEnvironment({ bundleDir: first, storageDir, log: () => undefined, run }).ensure(['python3'], () => undefined);
    const updated = { ...MANIFEST, version: '0.2.0', sha256: '99' + MANIFEST.sha256 };
    const env = new ManagedEnvironment({ bundleDir: await bundle(updated), storageDir, log: () => undefined, run });
    assert.equal(await env.readyPython(), undefined);
    const python = await env.ensure(['python3'], () => undefined);
    assert.notEqual(python, old);
    assert.ok(python.includes(envKey(updated)));
  });

  it('removes environments of other versions unused for a week, keeps recent ones', async () => {
    const storageDir = await tmpdir();
    const envs = path.join(storageDir, 'envs');
    for (const name of ['0.0.1-old', '0.0.2-recent']) {
      await fs.mkdir(path.join(envs, name), { recursive: true });
      await fs.writeFile(path.join(envs, name, 'agentls-env.json'), '{}');
    }
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600_000);
    await fs.utimes(path.join(envs, '0.0.1-old', 'agentls-env.json'), eightDaysAgo, eightDaysAgo);
    const { run } = fakePython(PY311);
    await new ManagedEnvironment({ bundleDir: await bundle(), storageDir, log: () => undefined, run }).ensure(['python3'], () => undefined);
    assert.deepEqual((await fs.readdir(envs)).sort(), ['0.0.2-recent', envKey(MANIFEST)]);
  });

  it('two windows at once: one builds, the other waits and uses it', async () => {
    const storageDir = await tmpdir();
    const bundleDir = await bundle();
    const { run, calls } = fakePython(PY311);
    const a = new ManagedEnvironment({ bundleDir, storageDir, log: () => undefined, run, lockPollMs: 10 });
    const b = new ManagedEnvironment({ bundleDir, storageDir, log: () => undefined, run, lockPollMs: 10 });
    const [pa, pb] = await Promise.all([a.ensure(['python3'], () => undefined), b.ensure(['python3'], () => undefined)]);
    assert.equal(pa, pb);
    assert.equal(calls.filter((c) => c.includes('venv')).length, 1, JSON.stringify(calls));
    assert.equal(calls.filter((c) => c.includes('pip')).length, 1);
  });

  it('uses the sdist on a Python the wheel does not fit', async () => {
    const { run, calls } = fakePython({ ...PY311, version: [3, 12, 3], interpreter: 'cp312', abi: 'cp312' });
    const bundleDir = await bundle();
    await new ManagedEnvironment({ bundleDir, storageDir: await tmpdir(), log: () => undefined, run }).ensure(['python3'], () => undefined);
    const pip = calls.find((c) => c.includes('pip'))!;
    assert.equal(pip[pip.length - 1], path.join(bundleDir, MANIFEST.sdist));
  });

  it('skips a base Python that is missing or too old, and says so when none fits', async () => {
    const calls: string[] = [];
    const run: Runner = async (command) => {
      calls.push(command);
      if (command === 'python3') {
        return { code: 0, output: [JSON.stringify({ ...PY311, executable: '/usr/bin/python3.9', version: [3, 9, 2] })] };
      }
      return { code: null, error: Object.assign(new Error('spawn ENOENT'), { code: 'ENOENT' }), output: [] };
    };
    const env = new ManagedEnvironment({ bundleDir: await bundle(), storageDir: await tmpdir(), log: () => undefined, run });
    await assert.rejects(
      env.ensure(['/ext/python', 'python3', 'python3.12'], () => undefined),
      (error: Error) =>
        error instanceof EnvironmentError &&
        /needs Python 3\.11 or newer/.test(error.message) &&
        /python3: Python 3\.9\.2/.test(error.message) &&
        /python3\.12: not found/.test(error.message),
    );
    assert.deepEqual(calls, ['/ext/python', 'python3', 'python3.12']);
  });

  it('prefers a base Python the shipped wheel fits, else the first recent one', async () => {
    const infos: Record<string, PythonInfo> = {
      '/ext/python3.12': { ...PY311, executable: '/ext/python3.12', version: [3, 12, 1], interpreter: 'cp312', abi: 'cp312' },
      python3: PY311,
      'python3.13': { ...PY311, executable: '/usr/bin/python3.13', version: [3, 13, 0], interpreter: 'cp313', abi: 'cp313' },
    };
    const probed: string[] = [];
    const run: Runner = async (command) => {
      probed.push(command);
      return { code: 0, output: [JSON.stringify(infos[command])] };
    };
    const env = new ManagedEnvironment({ bundleDir: await bundle(), storageDir: await tmpdir(), log: () => undefined, run });
    assert.equal((await env.findBase(['/ext/python3.12', 'python3', 'python3.13'], MANIFEST)).executable, PY311.executable);
    assert.deepEqual(probed, ['/ext/python3.12', 'python3'], 'stops at the first the wheel fits');
    assert.equal((await env.findBase(['/ext/python3.12', 'python3.13'], MANIFEST)).executable, '/ext/python3.12');
  });

  it('a failed pip gives one clear error, and leaves no half-built environment', async () => {
    const storageDir = await tmpdir();
    const { run } = fakePython(PY311, false);
    const env = new ManagedEnvironment({ bundleDir: await bundle(), storageDir, log: () => undefined, run });
    await assert.rejects(env.ensure(['python3'], () => undefined), (error: Error) =>
      error instanceof EnvironmentError && /pip exited with code 1 \(a dependency was not found on the package index/.test(error.message),
    );
    assert.deepEqual(await fs.readdir(path.join(storageDir, 'envs')), []);
    assert.equal(await env.readyPython(), undefined);
  });

  it('without a shipped package, says what to set instead', async () => {
    const env = new ManagedEnvironment({ bundleDir: await tmpdir(), storageDir: await tmpdir(), log: () => undefined });
    await assert.rejects(env.ensure(['python3'], () => undefined), /no agentls package to install.*agentls\.python/);
  });
});
