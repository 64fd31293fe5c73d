// Builds the agentls Python package that the .vsix ships (run by `npm run package`): a wheel
// (`pip wheel --no-deps`) and always the sdist, plus bundled/manifest.json naming them. The
// wheel holds the compiled search helper, so it only fits the Python version and platform it
// was built on; on any other Python the extension installs the sdist instead (pip builds it
// there; the C helper is optional, so no compiler is needed).
//
// Usage: node scripts/bundle-server.mjs [--out DIR]   (default: client-vscode/bundled)
// The Python that builds: $AGENTLS_PYTHON, else the repository's .venv, else python3. It needs
// `build` (in the project's dev extras) for the sdist.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const extDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(extDir, '..');
const outIndex = process.argv.indexOf('--out');
const out = path.resolve(outIndex > 0 ? process.argv[outIndex + 1] : path.join(extDir, 'bundled'));

function pickPython() {
  if (process.env.AGENTLS_PYTHON) {
    return process.env.AGENTLS_PYTHON;
  }
  const venv = path.join(repoRoot, '.venv', process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
  return fs.existsSync(venv) ? venv : 'python3';
}

function run(python, args) {
  console.log(`bundle-server: ${python} ${args.join(' ')}`);
  const done = spawnSync(python, args, { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] });
  if (done.error) {
    throw done.error;
  }
  return done.status === 0;
}

const python = pickPython();
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

if (!run(python, ['-m', 'build', '--sdist', '--outdir', out, repoRoot])) {
  console.error('bundle-server: the sdist could not be built (is `build` installed? pip install build)');
  process.exit(1);
}
// A missing wheel is not fatal: every Python then builds the sdist at set-up.
const wheelBuilt = run(python, ['-m', 'pip', 'wheel', '--no-deps', '--wheel-dir', out, repoRoot]);
if (!wheelBuilt) {
  console.warn('bundle-server: no wheel; the extension will build the sdist at set-up');
}

const files = fs.readdirSync(out).sort();
const sdist = files.find((f) => /^agentls-.*\.tar\.gz$/.test(f));
const wheel = files.find((f) => /^agentls-.*\.whl$/.test(f));
if (!sdist) {
  console.error(`bundle-server: no sdist in ${out}`);
  process.exit(1);
}
const version = /^agentls-(.+)\.tar\.gz$/.exec(sdist)[1];
const hash = crypto.createHash('sha256');
for (const file of [sdist, wheel].filter(Boolean)) {
  hash.update(file).update(fs.readFileSync(path.join(out, file)));
}
const manifest = { version, sdist, wheel: wheel ?? null, sha256: hash.digest('hex') };
fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`bundle-server: ${JSON.stringify(manifest)}`);
