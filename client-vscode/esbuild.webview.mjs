// Bundles the agent panel's webview (webview/main.ts and everything it imports, markdown-it
// included) into out/webview/panel.js, and its stylesheet into out/webview/panel.css: the
// webview loads nothing else, so it works offline and under a strict CSP.
import * as esbuild from 'esbuild';

await esbuild.build({
  entryPoints: { panel: 'webview/main.ts' },
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  outdir: 'out/webview',
  logLevel: 'warning',
});
await esbuild.build({
  entryPoints: { panel: 'webview/panel.css' },
  bundle: true,
  minify: true,
  outdir: 'out/webview',
  logLevel: 'warning',
});
