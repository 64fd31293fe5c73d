// The agent panel's work for a fast stream, without the DOM: 200 chunks/s of Markdown for
// 10 s (~2,000 chunks, ~60 kB, with code blocks), applied through the view model and rendered
// to HTML (a) per chunk, whole text each time (a naive view), (b) once per 16 ms animation
// frame, whole text, and (c) once per frame incrementally (IncrementalMarkdown: only the
// open block after the last blank line is rendered again), as the webview does. Prints the
// total and the worst frame of each, and the ratios to (a).
// Usage: npm run compile && node bench/panel_stream.mjs
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const { reduce, emptyConversation } = require('../out/panel/model.js');
const { IncrementalMarkdown, renderMarkdown } = require('../out/panel/markdown.js');

const CHUNKS_PER_SECOND = 200;
const SECONDS = 10;
const FRAME_MS = 1000 / 60;

function chunks() {
  const parts = [];
  let text = '';
  for (let i = 0; text.length < 60_000; i += 1) {
    text += i % 12 === 0 ? `\n\n\`\`\`python\ndef f${i}(x):\n    return x * ${i}\n\`\`\`\n\n` : `Sentence ${i} with **bold** and \`code\` in it. `;
  }
  const size = Math.ceil(text.length / (CHUNKS_PER_SECOND * SECONDS));
  for (let i = 0; i < text.length; i += size) {
    parts.push(text.slice(i, i + size));
  }
  return parts;
}

function run(perFrame, incremental = false) {
  const inc = new IncrementalMarkdown();
  const parts = chunks();
  let c = reduce(emptyConversation(), { type: 'runStarted', runId: 'r', prompt: 'p' });
  const frames = [];
  const perFrameChunks = perFrame ? Math.max(1, Math.round(CHUNKS_PER_SECOND * (FRAME_MS / 1000))) : 1;
  for (let i = 0; i < parts.length; i += perFrameChunks) {
    const start = performance.now();
    for (let j = i; j < Math.min(parts.length, i + perFrameChunks); j += 1) {
      c = reduce(c, { type: 'stream', params: { runId: 'r', seq: j + 1, text: parts[j] } });
    }
    const text = c.items[c.items.length - 1].text;
    if (incremental) {
      inc.update(text);
    } else {
      renderMarkdown(text);
    }
    frames.push(performance.now() - start);
  }
  const total = frames.reduce((a, b) => a + b, 0);
  return { renders: frames.length, total, worst: Math.max(...frames) };
}

run(true, true); // warm-up
const naive = run(false);
const batched = run(true);
const incremental = run(true, true);
const row = (name, r) => `| ${name} | ${r.renders} | ${r.total.toFixed(0)} | ${r.worst.toFixed(2)} |`;
console.log(`${CHUNKS_PER_SECOND} chunks/s for ${SECONDS} s (${chunks().length} chunks)`);
console.log('| strategy | renders | total ms | worst render ms |');
console.log('|---|---|---|---|');
console.log(row('per chunk (baseline)', naive));
console.log(row('per animation frame, whole text', batched));
console.log(row('per animation frame, incremental (panel)', incremental));
console.log(`ratio of total to the baseline: per frame ${(naive.total / batched.total).toFixed(1)}x less, ` +
  `incremental ${(naive.total / incremental.total).toFixed(1)}x less; ` +
  `worst frame of the panel: ${incremental.worst.toFixed(2)} ms of a ${FRAME_MS.toFixed(1)} ms frame`);
