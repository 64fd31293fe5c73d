/**
 * The server's own Python environment, so that agentls never has to be installed into the
 * user's project interpreter.
 *
 * The .vsix ships the agentls package (`bundled/`: a wheel for the Python and platform it was
 * built on, the sdist for any other, and manifest.json naming them; see
 * scripts/bundle-server.mjs). On first start, and after every update of the extension, a
 * virtual environment is created under the extension's global storage, keyed by the shipped
 * package (version and content hash), and the package is `pip install`ed into it with its
 * dependencies. Concurrent windows are kept apart by a lock file next to the environment: one
 * builds, the others wait for it. The environment is built in place (a venv cannot be moved:
 * its scripts name its folder) and counts as complete only once its marker file is written,
 * last and atomically; a half-built one (a crash, a killed window) is rebuilt by the next
 * window that takes the lock.
 *
 * No VS Code API here: the unit tests drive it with real files and processes.
 */
import { spawn } from 'child_process';
import * as crypto from 'crypto';
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as readline from 'readline';

export const MIN_PYTHON: readonly [number, number] = [3, 11];
const MARKER = 'agentls-env.json';
const ENVS = 'envs';
/** Environments of older versions unused this long are removed. */
const OLD_ENV_MS = 7 * 24 * 3600_000;
/** A lock older than this is taken over even if its process seems alive (pid reuse). */
const STALE_LOCK_MS = 20 * 60_000;

/** Something the user can act on; the message is shown as is, with a "Show log" button. */
export class EnvironmentError extends Error {}

export interface Manifest {
  version: string;
  sdist: string;
  wheel: string | null;
  sha256: string;
}

export function parseManifest(text: string): Manifest {
  const data = JSON.parse(text) as Partial<Manifest>;
  if (typeof data.version !== 'string' || typeof data.sdist !== 'string' || typeof data.sha256 !== 'string') {
    throw new Error('manifest.json lacks version, sdist or sha256');
  }
  return { version: data.version, sdist: data.sdist, wheel: typeof data.wheel === 'string' ? data.wheel : null, sha256: data.sha256 };
}

/** The environment's folder name: a new shipped package (an update) gets a new environment. */
export function envKey(manifest: Manifest): string {
  return `${manifest.version}-${manifest.sha256.slice(0, 12)}`;
}

export interface PythonInfo {
  executable: string;
  version: [number, number, number];
  implementation: string;
  /** e.g. `cp311` */
  interpreter: string;
  /** e.g. `cp311` (with `t` for a free-threaded build) */
  abi: string;
  /** e.g. `linux_x86_64` */
  platform: string;
}

/** Printed by the base Python (any version: the check for 3.11 comes after). */
export const PROBE_SCRIPT = [
  'import json, sys, sysconfig',
  'v = sys.version_info',
  'tag = "cp%d%d" % (v[0], v[1])',
  'print(json.dumps({"executable": sys.executable, "version": list(v[:3]),',
  ' "implementation": sys.implementation.name, "interpreter": tag,',
  ' "abi": tag + getattr(sys, "abiflags", ""),',
  ' "platform": sysconfig.get_platform().replace("-", "_").replace(".", "_")}))',
].join('\n');

export function parseProbe(stdout: string): PythonInfo {
  const line = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as PythonInfo;
}

export function isRecentEnough(info: PythonInfo): boolean {
  const [major, minor] = info.version;
  return major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1]);
}

/**
 * Whether pip will take the wheel on this Python. Deliberately strict (exact platform tag):
 * a wrong "no" costs a build of the sdist, a wrong "yes" a failed set-up.
 */
export function wheelFits(wheel: string, info: PythonInfo): boolean {
  const parts = wheel.replace(/\.whl$/, '').split('-');
  if (parts.length < 5) {
    return false;
  }
  const [pythons, abis, platforms] = parts.slice(-3).map((tag) => tag.split('.'));
  const cpython = info.implementation === 'cpython';
  const pythonOk = pythons.some((t) => (cpython && t === info.interpreter) || t === 'py3' || t === `py${info.version[0]}${info.version[1]}`);
  const abiOk = abis.some((t) => t === 'none' || (cpython && (t === info.abi || (t === 'abi3' && !info.abi.endsWith('t')))));
  const platformOk = platforms.some((t) => t === 'any' || t === info.platform);
  return pythonOk && abiOk && platformOk;
}

export interface Artifact {
  file: string;
  kind: 'wheel' | 'sdist';
}

export function chooseArtifact(manifest: Manifest, info: PythonInfo): Artifact {
  if (manifest.wheel && wheelFits(manifest.wheel, info)) {
    return { file: manifest.wheel, kind: 'wheel' };
  }
  return { file: manifest.sdist, kind: 'sdist' };
}

export function venvPython(dir: string, platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? path.join(dir, 'Scripts', 'python.exe') : path.join(dir, 'bin', 'python');
}

/** Why pip failed, in words, when its output says so. */
export function pipFailureHint(output: string[]): string {
  const text = output.join('\n');
  if (/NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|Network is unreachable|ConnectTimeout|ProxyError/.test(text)) {
    return ' (it could not reach the package index: offline, or behind a proxy?)';
  }
  if (/No matching distribution found|Could not find a version that satisfies/.test(text)) {
    return ' (a dependency was not found on the package index: offline, or an index without it?)';
  }
  if (/No space left on device/.test(text)) {
    return ' (no space left on the disk)';
  }
  return '';
}

// -- processes ---------------------------------------------------------------------------------

export interface RunResult {
  code: number | null;
  /** set when the process could not be started (e.g. ENOENT) */
  error?: NodeJS.ErrnoException;
  output: string[];
}

/** Runs a command, passing each output line to `log`; never rejects. */
export type Runner = (command: string, args: string[], options: { cwd: string; log: (line: string) => void }) => Promise<RunResult>;

/** Set-up processes ignore the user's PYTHONPATH / PYTHONHOME (they would break a venv). */
function setupEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.PYTHONPATH;
  delete env.PYTHONHOME;
  return env;
}

export const runProcess: Runner = (command, args, { cwd, log }) =>
  new Promise((resolve) => {
    const output: string[] = [];
    const child = spawn(command, args, { cwd, env: setupEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const collect = (line: string): void => {
      output.push(line);
      log(line);
    };
    readline.createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', collect);
    readline.createInterface({ input: child.stderr, crlfDelay: Infinity }).on('line', collect);
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ code: null, error, output }));
    child.once('close', (code) => resolve({ code, output }));
  });

// -- the lock ----------------------------------------------------------------------------------

export interface LockOptions {
  /** Stop waiting (and take no lock) when this becomes true, e.g. the environment is ready. */
  until: () => Promise<boolean>;
  pollMs?: number;
  staleMs?: number;
  /** Whether a process of this machine is alive (injectable for tests). */
  isAlive?: (pid: number) => boolean;
  onWait?: (holder: LockHolder) => void;
}

export interface LockHolder {
  pid: number;
  host: string;
  time: number;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(lockPath: string): Promise<LockHolder | undefined> {
  try {
    return JSON.parse(await fs.readFile(lockPath, 'utf8')) as LockHolder;
  } catch {
    return undefined; // gone, or being written: try again
  }
}

export function isStale(holder: LockHolder, now: number, staleMs: number, isAlive: (pid: number) => boolean): boolean {
  if (now - holder.time > staleMs) {
    return true;
  }
  return holder.host === os.hostname() && !isAlive(holder.pid);
}

/**
 * Take the lock file (created with O_EXCL, so one process wins), waiting while another live
 * process holds it. Returns its release, or undefined when `until` became true first.
 */
export async function acquireLock(lockPath: string, options: LockOptions): Promise<(() => Promise<void>) | undefined> {
  const pollMs = options.pollMs ?? 500;
  const staleMs = options.staleMs ?? STALE_LOCK_MS;
  const isAlive = options.isAlive ?? processAlive;
  let told = false;
  for (;;) {
    if (await options.until()) {
      return undefined;
    }
    const mine: LockHolder = { pid: process.pid, host: os.hostname(), time: Date.now() };
    try {
      const handle = await fs.open(lockPath, 'wx');
      await handle.writeFile(JSON.stringify(mine));
      await handle.close();
      return () => fs.rm(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw error;
      }
    }
    const holder = await readHolder(lockPath);
    if (holder && isStale(holder, Date.now(), staleMs, isAlive)) {
      // Rename first: of two processes that both saw it stale, only one removes it.
      const aside = `${lockPath}.stale-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
      await fs.rename(lockPath, aside).then(() => fs.rm(aside, { force: true }), () => undefined);
      continue;
    }
    if (holder && !told) {
      told = true;
      options.onWait?.(holder);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

// -- the environment ---------------------------------------------------------------------------

export interface EnvMarker {
  key: string;
  basePython: string;
  artifact: string;
  created: string;
}

export interface ManagedEnvironmentOptions {
  /** Where the .vsix keeps manifest.json and the package files. */
  bundleDir: string;
  /** The extension's global storage folder. */
  storageDir: string;
  log: (line: string) => void;
  run?: Runner;
  lockPollMs?: number;
}

export class ManagedEnvironment {
  private readonly run: Runner;

  constructor(private readonly options: ManagedEnvironmentOptions) {
    this.run = options.run ?? runProcess;
  }

  get envsDir(): string {
    return path.join(this.options.storageDir, ENVS);
  }

  async manifest(): Promise<Manifest> {
    const file = path.join(this.options.bundleDir, 'manifest.json');
    try {
      return parseManifest(await fs.readFile(file, 'utf8'));
    } catch (error) {
      throw new EnvironmentError(
        `This build of the extension has no agentls package to install (${file}: ${(error as Error).message}; ` +
          'it is added by "npm run package"). Set "agentls.python" to a Python that has agentls installed, or "agentls.serverPath".',
      );
    }
  }

  /** The environment's folder for the shipped package. */
  async envDir(): Promise<string> {
    return path.join(this.envsDir, envKey(await this.manifest()));
  }

  /**
   * The environment's Python when it is complete for the shipped package (marked as used
   * now), else undefined.
   */
  async readyPython(): Promise<string | undefined> {
    const manifest = await this.manifest();
    const dir = path.join(this.envsDir, envKey(manifest));
    if (!(await this.isReady(dir, envKey(manifest)))) {
      return undefined;
    }
    await this.touch(dir);
    return venvPython(dir);
  }

  private async isReady(dir: string, key: string): Promise<boolean> {
    try {
      const marker = JSON.parse(await fs.readFile(path.join(dir, MARKER), 'utf8')) as EnvMarker;
      // X_OK follows the venv's symlink: a removed base Python makes it not ready.
      await fs.access(venvPython(dir), fs.constants.X_OK);
      return marker.key === key;
    } catch {
      return false;
    }
  }

  /**
   * The Python of a complete environment for the shipped package, creating it when needed.
   * `bases` are the candidate base interpreters, best first; `report` gets progress messages.
   */
  async ensure(bases: string[], report: (message: string) => void): Promise<string> {
    const manifest = await this.manifest();
    const key = envKey(manifest);
    const dir = path.join(this.envsDir, key);
    if (await this.isReady(dir, key)) {
      await this.touch(dir);
      return venvPython(dir);
    }
    await fs.mkdir(this.envsDir, { recursive: true });
    const base = await this.findBase(bases, manifest);
    const release = await acquireLock(`${dir}.lock`, {
      until: () => this.isReady(dir, key),
      pollMs: this.options.lockPollMs,
      onWait: (holder) => {
        report('waiting for another window that is setting it up');
        this.options.log(`Another process (pid ${holder.pid}) is setting up ${dir}; waiting for it`);
      },
    });
    if (release) {
      try {
        if (!(await this.isReady(dir, key))) {
          await this.build(manifest, key, dir, base, report);
        }
      } finally {
        await release();
      }
    }
    await this.removeOld(key);
    return venvPython(dir);
  }

  /**
   * The first candidate that runs and is recent enough, preferring one the shipped wheel fits
   * (the others build the sdist). Probing a Python takes a few milliseconds; set-up, a minute.
   */
  async findBase(candidates: string[], manifest: Manifest): Promise<PythonInfo> {
    const rejected: string[] = [];
    const usable: { candidate: string; info: PythonInfo }[] = [];
    for (const candidate of [...new Set(candidates)]) {
      const done = await this.run(candidate, ['-I', '-c', PROBE_SCRIPT], { cwd: this.envsDir, log: () => undefined });
      if (done.code !== 0) {
        rejected.push(`${candidate}: ${done.error?.code === 'ENOENT' ? 'not found' : `does not run (${done.error?.message ?? `exit code ${done.code}`})`}`);
        continue;
      }
      let info: PythonInfo;
      try {
        info = parseProbe(done.output.join('\n'));
      } catch {
        rejected.push(`${candidate}: unreadable answer`);
        continue;
      }
      if (!isRecentEnough(info)) {
        rejected.push(`${candidate}: Python ${info.version.join('.')} (${info.executable})`);
        continue;
      }
      usable.push({ candidate, info });
      if (chooseArtifact(manifest, info).kind === 'wheel') {
        break;
      }
    }
    const chosen = usable.find(({ info }) => chooseArtifact(manifest, info).kind === 'wheel') ?? usable[0];
    if (chosen) {
      const { candidate, info } = chosen;
      this.options.log(`Base Python for the server environment: ${info.executable} (${info.version.join('.')}, from ${candidate})`);
      return info;
    }
    this.options.log(`No Python ${MIN_PYTHON.join('.')}+ found: ${rejected.join('; ')}`);
    throw new EnvironmentError(
      `agentls needs Python ${MIN_PYTHON.join('.')} or newer to set up its server environment, and found none (${rejected.join('; ')}). ` +
        'Install one and select it in the Python extension, or set "agentls.python" to a Python that has agentls installed.',
    );
  }

  /** Called with the lock held and `dir` not ready: whatever is there is incomplete. */
  private async build(manifest: Manifest, key: string, dir: string, base: PythonInfo, report: (message: string) => void): Promise<void> {
    const { log, bundleDir } = this.options;
    await fs.rm(dir, { recursive: true, force: true });
    try {
      report(`creating a virtual environment with Python ${base.version.join('.')}`);
      log(`Creating the server environment in ${dir}`);
      const venv = await this.run(base.executable, ['-I', '-m', 'venv', dir], { cwd: this.envsDir, log });
      if (venv.code !== 0) {
        const ensurepip = venv.output.some((line) => /ensurepip/.test(line));
        throw new EnvironmentError(
          `Could not create the server environment with ${base.executable} (exit code ${venv.code ?? venv.error?.message})` +
            `${ensurepip ? ': its venv module has no pip (on Debian and Ubuntu: apt install python3-venv)' : ''}.`,
        );
      }
      const artifact = chooseArtifact(manifest, base);
      report(`installing agentls ${manifest.version} and its dependencies${artifact.kind === 'sdist' ? ' (building it for this Python)' : ''}`);
      log(`Installing ${artifact.file} (${artifact.kind === 'wheel' ? 'the wheel fits this Python' : `no wheel for ${base.interpreter} ${base.platform}: building the sdist`})`);
      const pip = await this.run(
        venvPython(dir),
        ['-I', '-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--progress-bar', 'off', path.join(bundleDir, artifact.file)],
        { cwd: this.envsDir, log },
      );
      if (pip.code !== 0) {
        throw new EnvironmentError(
          `Could not install the agentls server into its environment: pip exited with code ${pip.code ?? pip.error?.message}${pipFailureHint(pip.output)}. ` +
            'The log has pip\'s output. "Agent: Restart server" tries again; "agentls.python" or "agentls.serverPath" skip this set-up.',
        );
      }
      const marker: EnvMarker = { key, basePython: base.executable, artifact: artifact.file, created: new Date().toISOString() };
      // Written aside and renamed: a reader never sees half a marker.
      await fs.writeFile(path.join(dir, `${MARKER}.part`), `${JSON.stringify(marker, null, 2)}\n`);
      await fs.rename(path.join(dir, `${MARKER}.part`), path.join(dir, MARKER));
      log(`Server environment ready: ${dir}`);
    } catch (error) {
      await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    }
  }

  /** Mark the environment as used now (old ones unused for a week are removed). */
  private async touch(dir: string): Promise<void> {
    const now = new Date();
    await fs.utimes(path.join(dir, MARKER), now, now).catch(() => undefined);
  }

  /** Best effort: environments of other versions unused for a week. */
  private async removeOld(key: string): Promise<void> {
    let names: string[];
    try {
      names = await fs.readdir(this.envsDir);
    } catch {
      return;
    }
    const now = Date.now();
    for (const name of names) {
      if (name === key || name.endsWith('.lock')) {
        continue;
      }
      const dir = path.join(this.envsDir, name);
      const stat = await fs.stat(path.join(dir, MARKER)).catch(() => undefined);
      if (stat && now - stat.mtimeMs > OLD_ENV_MS) {
        this.options.log(`Removing the unused server environment ${dir}`);
        await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
      }
    }
  }
}
