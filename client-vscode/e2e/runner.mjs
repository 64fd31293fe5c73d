// Drives the VS Code server build (already started by scripts/vscode_e2e.sh) in Debian's
// Chromium with playwright-core: opens the workbench with the extension loaded from its
// development folder and its mocha tests (out/test/index.js) running in the real extension
// host, relays their console output, performs the UI actions they ask for, and writes
// screenshots.
//
// The tests ask for UI work by logging one line `@@E2E {json}`:
//   {"screenshot": "name"}                        save <artifacts>/name.png
//   {"refactor": "apply" | "discard", "screenshot"?: "name"}
//       wait for the Refactor Preview, (apply:) check every edit, click Apply / Discard;
//       with "ifOpen": true, do nothing when no preview is open
//   {"expectStatusBar": "text", "id"?: "agentls.agentls.status"}
//       a runner check: the status bar item shows `text` within 10 s
//   {"input": "text"}   type into the open input box (e.g. agent/askUser) and press Enter
//   {"palette": "Agent: Run…", "type"?: "prompt text"}
//       run a command from the command palette, then type into the input box and press Enter
//   {"click": "css selector"}   click the first visible match (e.g. a CodeLens by its title)
//   {"press": "Control+z"}      press keys in the page (the focused editor gets them)
//   {"expectVisible": "css selector", "what"?: "description"}
//       a runner check: a match becomes visible within 10 s
//   {"expectGone": "css selector", "what"?: "description"}
//       a runner check: no match is visible within 10 s
//   {"panel": [step, ...], "screenshot"?: "name"}
//       inside the agent panel's webview (an iframe in an iframe), in order:
//       {"click": sel} {"fill": sel, "text": t} {"press": sel, "key": k} {"select": sel, "value": v}
//       {"type": sel, "text": t}         type t key by key (each key's own events, unlike fill)
//       {"expectText": sel, "text": t}   a runner check: an element matching sel shows t (10 s)
//       {"expectCount": sel, "count": n} a runner check: exactly n elements match sel
//       {"expectInView": sel}            a runner check: the first match is wholly in sight as
//                                        the panel is (inside every scrolled box around it),
//                                        without scrolling (a click would scroll it first)
//       {"expectOneLine": [sel, ...]}    a runner check: the first matches of the selectors
//                                        are all visible on one line (nothing wrapped)
//       {"screenshot": name}
//   {"dialog": "Allow", "expectText"?: ["text", ...], "screenshot"?: "name", "timeout"?: ms}
//       wait (default 60 s) for a modal dialog (e.g. a modal showWarningMessage), check that
//       its text holds each `expectText` (runner checks), screenshot it, click the button
//       labelled exactly so ("Cancel", "Allow", ...; "Escape" presses Escape); the dialog's
//       text goes into the ack file
//   {"hover": "css selector", "screenshot"?: "name"}   hover the first visible match and
//       wait for its hover (a status bar item's tooltip) before the screenshot
//   {"watch": {"click": sel, "lenses": sel, "status": sel, "ms": n}}
//       click, then sample every animation frame for n ms the text and tooltip (title) of
//       every element matching `lenses` and the text of `status`; the samples (JSON, times
//       in ms since the click) go into the ack file
//   {"ack": "name"} (with any request) when the request is done (even failed), write
//       <workspace>/.e2e-ack-name (holding what the request read, if anything): the tests
//       wait for that file to go on in step with the UI
// Runner checks count in the final `N passed, N failed` line with the mocha results.
//
// Usage: node runner.mjs --port P --workspace DIR --ext DIR --artifacts DIR [--timeout S]
//        [--chromium PATH] [--final NAME] [--log-file FILE] [--workspace-file FILE]; writes
//        `RESULT <passed> <failed>` as its last stdout line. The last screenshot is NAME.png
//        (default final.png).
// --workspace-file: open this `.code-workspace` (a multi-root workspace) instead of the folder
// DIR; DIR is still where the ack files go (the tests read them from their first folder).
// --log-file: the suites are not run as extension tests (VS Code refuses every modal dialog
// while those run) but by e2e/driver/, an ordinary extension the caller installed in the VS
// Code server's extensions folder; they log to FILE (JSON lines, then {"exit": code}). The VS
// Code server must have $AGENTLS_E2E_LOG_FILE = FILE and $AGENTLS_E2E_TESTS = the suites'
// out/test/index.js.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { format } from 'node:util';

function parseArgs(argv) {
  const args = { timeout: 300, chromium: '/usr/bin/chromium', final: 'final' };
  for (let i = 0; i < argv.length; i += 2) {
    args[argv[i].replace(/^--/, '')] = argv[i + 1];
  }
  for (const key of ['port', 'workspace', 'ext', 'artifacts']) {
    if (!args[key]) {
      throw new Error(`missing --${key}`);
    }
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const authority = `127.0.0.1:${args.port}`;
fs.mkdirSync(args.artifacts, { recursive: true });

let mochaPassed = 0;
let mochaFailed = 0;
let sawSummary = false;
let runnerPassed = 0;
let runnerFailed = 0;

function say(line) {
  process.stdout.write(`${line}\n`);
}

const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: args.chromium,
  headless: true,
  viewport: { width: 1400, height: 900 },
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const page = context.pages()[0] ?? (await context.newPage());

let exitCode;
let resolveExit;
const exited = new Promise((resolve) => {
  resolveExit = resolve;
});

let actions = Promise.resolve();

async function screenshot(name) {
  const file = path.join(args.artifacts, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.png`);
  await page.screenshot({ path: file });
  say(`[runner] screenshot ${file}`);
}

function check(ok, what) {
  if (ok) {
    runnerPassed += 1;
    say(`[runner] ✓ ${what}`);
  } else {
    runnerFailed += 1;
    say(`[runner] ✗ ${what}`);
  }
}

/** Poll `probe` (async) until it is true; throws naming `what` after `timeoutMs`. */
async function until(probe, what, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The Refactor Preview's rows as text (level, checked, label): equal twice means settled. */
async function previewRows(panel) {
  return panel.locator('.monaco-list-row').evaluateAll((rows) =>
    rows
      .map((row) => {
        const box = row.querySelector('.edit-checkbox');
        return `${row.getAttribute('aria-level')}:${box ? box.getAttribute('aria-checked') : '-'}:${row.textContent}`;
      })
      .join('\n'),
  );
}

/**
 * Wait until the preview tree stops changing (same rows for 600 ms, at most 10 s). The tree
 * loads a file's edits asynchronously and re-renders after every check, and a click on a row
 * that is being re-rendered is lost or lands on the old row.
 */
async function settledRows(panel) {
  const deadline = Date.now() + 10_000;
  let last = await previewRows(panel);
  let since = Date.now();
  while (Date.now() - since < 600 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await previewRows(panel);
    if (now !== last) {
      last = now;
      since = Date.now();
    }
  }
  return last;
}

async function checkAllEdits(panel) {
  // Edits that need confirmation start unchecked. Check the first unchecked row (files come
  // before their edits, and checking a file checks its edits), let the tree settle, and look
  // again. The click is dispatched to the checkbox itself: a notification toast or a hover
  // over the panel must not swallow it.
  const unchecked = panel.locator('.edit-checkbox[aria-checked="false"]:visible');
  let rows = await settledRows(panel);
  for (let round = 0; round < 30; round += 1) {
    if ((await unchecked.count()) === 0) {
      // Settled with nothing unchecked, twice: a late re-render cannot uncheck a row after this.
      rows = await settledRows(panel);
      if ((await unchecked.count()) === 0) {
        return;
      }
    }
    await unchecked
      .first()
      .dispatchEvent('click')
      .catch((error) => say(`[runner] refactor preview: a click did not land (${error.message.split('\n')[0]})`));
    rows = await settledRows(panel);
  }
  throw new Error(`some edits in the refactor preview stay unchecked; rows:\n${rows}`);
}

async function refactor(decision, shot, ifOpen) {
  const panel = page.locator('.bulk-edit-panel');
  try {
    await panel.locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: ifOpen ? 3000 : 20_000 });
  } catch (error) {
    if (ifOpen) {
      say('[runner] no refactor preview open');
      return;
    }
    throw error;
  }
  await settledRows(panel);
  if (shot) {
    await screenshot(shot);
  }
  if (decision === 'apply') {
    await checkAllEdits(panel);
  }
  const label = decision === 'apply' ? 'Apply' : 'Discard';
  await panel.locator(`.buttons .monaco-button:has-text("${label}")`).first().click();
  say(`[runner] refactor preview: ${label}`);
}

/** Answer a modal dialog with the button `label`; returns the dialog's text. */
async function dialog(label, expected, shot, timeout) {
  const box = page.locator('.monaco-dialog-box').first();
  await box.waitFor({ state: 'visible', timeout: timeout ?? 60_000 });
  const text = await box.innerText();
  say(`[runner] dialog: ${JSON.stringify(text)}`);
  for (const part of expected ?? []) {
    check(text.includes(part), `the dialog shows ${JSON.stringify(part)}`);
  }
  if (shot) {
    // Away from whatever the last click left a hover on.
    await page.mouse.move(1, 1);
    await screenshot(shot);
  }
  if (label === 'Escape') {
    await page.keyboard.press('Escape');
  } else {
    await box.locator('.monaco-button').filter({ hasText: new RegExp(`^\\s*${label}\\s*$`) }).first().click();
  }
  // Off the button, so that no hover opens on what lies under it once the dialog is gone.
  await page.mouse.move(1, 1);
  await box.waitFor({ state: 'hidden', timeout: 10_000 });
  say(`[runner] dialog: ${label}`);
  return text;
}

/** Click, then record what the lenses and a status bar item show, frame by frame. */
async function watch({ click, lenses, status, ms = 1500 }) {
  await page.locator(click).first().click({ timeout: 10_000 });
  const samples = await page.evaluate(
    async ({ lenses, status, ms }) => {
      const out = [];
      const start = performance.now();
      while (performance.now() - start < ms) {
        out.push({
          t: Math.round(performance.now() - start),
          lenses: [...document.querySelectorAll(lenses)].map((el) => ({ text: el.textContent ?? '', tooltip: el.getAttribute('title') ?? '' })),
          status: document.querySelector(status)?.textContent ?? '',
        });
        await new Promise((resolve) => requestAnimationFrame(resolve));
      }
      return out;
    },
    { lenses, status, ms },
  );
  say(`[runner] watched ${samples.length} frames after clicking ${click}`);
  return samples;
}

async function expectStatusBar(text, id) {
  const item = page.locator(`[id="${id ?? 'agentls.agentls.status'}"]`);
  try {
    await item.filter({ hasText: text }).first().waitFor({ state: 'visible', timeout: 10_000 });
    check(true, `status bar shows "${text}"`);
  } catch {
    const seen = (await item.allInnerTexts().catch(() => [])).join(' | ');
    check(false, `status bar shows "${text}" (saw "${seen}")`);
  }
}

async function palette(title, typed) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout: 10_000 });
  await input.fill(`>${title}`);
  // The row of exactly this command, clicked: Enter takes the first row, which can be a
  // recently used command that also matches the words typed ("Agent: Undo run…" for
  // "Agent: Run…"), so what ran would depend on the suites that ran before.
  const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\S)`);
  const row = page.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name').filter({ hasText: exact }) });
  await row.first().waitFor({ timeout: 10_000 });
  await row.first().click();
  if (typed !== undefined) {
    // Wait for the command's own input box: the palette's ">title" is gone from the field.
    await until(
      async () => (await input.isVisible()) && !(await input.inputValue()).startsWith('>'),
      `the input box of "${title}"`,
    );
    await input.fill(typed);
    await page.keyboard.press('Enter');
  }
  say(`[runner] palette: ${title}${typed !== undefined ? ` + "${typed}"` : ''}`);
}

// The agent panel: VS Code puts a webview in an outer iframe (class "webview") holding the
// page in an inner iframe (#active-frame). Ours is the only webview the tests open.
function panelFrame() {
  return page.frameLocator('iframe.webview.ready').first().frameLocator('#active-frame');
}

async function panelStep(frame, step) {
  const timeout = 20_000;
  if (step.click) {
    await frame.locator(step.click).first().click({ timeout });
  } else if (step.fill) {
    await frame.locator(step.fill).first().fill(step.text, { timeout });
  } else if (step.type) {
    await frame.locator(step.type).first().pressSequentially(step.text, { timeout, delay: 20 });
  } else if (step.press) {
    await frame.locator(step.press).first().press(step.key, { timeout });
  } else if (step.select) {
    await frame.locator(step.select).first().selectOption(step.value, { timeout });
  } else if (step.paste) {
    // A file pasted from the clipboard (a screenshot): the page gets the paste event a real
    // paste gives, with the file in its clipboardData.
    await frame.locator(step.paste).first().evaluate((el, file) => {
      const bytes = Uint8Array.from(atob(file.data), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], file.name, { type: file.type }));
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, step.file, { timeout });
  } else if (step.expectText) {
    const what = `panel ${step.expectText} shows ${JSON.stringify(step.text)}`;
    try {
      await frame.locator(step.expectText).filter({ hasText: step.text }).first().waitFor({ state: 'visible', timeout: 10_000 });
      check(true, what);
    } catch {
      const seen = (await frame.locator(step.expectText).allInnerTexts().catch(() => [])).join(' | ');
      check(false, `${what} (saw ${JSON.stringify(seen.slice(0, 300))})`);
    }
  } else if (step.expectCount) {
    const count = await frame.locator(step.expectCount).count();
    check(count === step.count, `panel has ${step.count} × ${step.expectCount} (found ${count})`);
  } else if (step.expectInView) {
    const hidden = await frame.locator(step.expectInView).first().evaluate((el) => {
      const r = el.getBoundingClientRect();
      if (r.height === 0 || r.width === 0) {
        return 'it has no size';
      }
      for (let box = el.parentElement; box; box = box.parentElement) {
        const style = getComputedStyle(box);
        if (!/(auto|scroll|hidden)/.test(style.overflowY + style.overflowX)) {
          continue;
        }
        const b = box.getBoundingClientRect();
        if (r.top < b.top || r.bottom > b.bottom || r.left < b.left || r.right > b.right) {
          return `it is cut off by ${box.tagName.toLowerCase()}.${box.className} (${Math.round(r.top)}–${Math.round(r.bottom)} against ${Math.round(b.top)}–${Math.round(b.bottom)})`;
        }
      }
      if (r.bottom > window.innerHeight || r.top < 0) {
        return `it is outside the panel (${Math.round(r.top)}–${Math.round(r.bottom)} of ${window.innerHeight})`;
      }
      return '';
    }, undefined, { timeout: 10_000 }).catch((e) => `not found: ${e.message.split('\n')[0]}`);
    check(hidden === '', `panel ${step.expectInView} is in sight${hidden ? ` (${hidden})` : ''}`);
  } else if (step.expectOneLine) {
    const boxes = [];
    for (const sel of step.expectOneLine) {
      boxes.push(await frame.locator(sel).first().boundingBox({ timeout: 10_000 }).catch(() => null));
    }
    const missing = step.expectOneLine.filter((_, i) => !boxes[i]);
    const middles = boxes.filter(Boolean).map((b) => b.y + b.height / 2);
    const spread = middles.length ? Math.max(...middles) - Math.min(...middles) : 0;
    const what = `panel ${step.expectOneLine.join(', ')} on one line`;
    check(missing.length === 0 && spread < 6, `${what}${missing.length ? ` (not shown: ${missing.join(', ')})` : ` (their middles ${middles.map(Math.round).join(', ')})`}`);
  } else if (step.screenshot) {
    await screenshot(step.screenshot);
  }
  say(`[runner] panel: ${JSON.stringify(step)}`);
}

function perform(request) {
  actions = actions.then(async () => {
    let read = '';
    try {
      if (request.panel) {
        const frame = panelFrame();
        for (const step of request.panel) {
          await panelStep(frame, step);
        }
      }
      if (request.watch) {
        read = JSON.stringify(await watch(request.watch));
      } else if (request.dialog) {
        read = await dialog(request.dialog, request.expectText, request.screenshot, request.timeout);
      } else if (request.hover) {
        await page.locator(request.hover).first().hover({ timeout: 10_000 });
        await page.locator('.monaco-hover:visible, .workbench-hover:visible').first().waitFor({ timeout: 10_000 });
        if (request.screenshot) {
          await screenshot(request.screenshot);
        }
        say(`[runner] hovered ${request.hover}`);
      } else if (request.refactor) {
        await refactor(request.refactor, request.screenshot, request.ifOpen);
      } else if (request.screenshot) {
        await screenshot(request.screenshot);
      }
      if (request.expectStatusBar !== undefined) {
        await expectStatusBar(request.expectStatusBar, request.id);
      }
      if (request.input !== undefined) {
        const input = page.locator('.quick-input-widget input');
        await input.waitFor({ state: 'visible', timeout: 20_000 });
        await input.fill(request.input);
        await page.keyboard.press('Enter');
        say(`[runner] input box: "${request.input}"`);
      }
      if (request.palette) {
        await palette(request.palette, request.type);
      }
      if (request.expectVisible) {
        const what = request.what ?? request.expectVisible;
        try {
          await page.locator(request.expectVisible).first().waitFor({ state: 'visible', timeout: 10_000 });
          check(true, `visible: ${what}`);
        } catch {
          check(false, `visible: ${what}`);
        }
      }
      if (request.expectGone) {
        const what = request.what ?? request.expectGone;
        try {
          await until(async () => (await page.locator(request.expectGone).filter({ visible: true }).count()) === 0, what);
          check(true, `gone: ${what}`);
        } catch {
          check(false, `gone: ${what}`);
        }
      }
      if (request.click) {
        await page.locator(request.click).first().click({ timeout: 10_000 });
        say(`[runner] clicked ${request.click}`);
      }
      if (request.press) {
        await page.keyboard.press(request.press);
        say(`[runner] pressed ${request.press}`);
      }
    } catch (error) {
      check(false, `UI action ${JSON.stringify(request)}: ${error.message}`);
      await screenshot(`failed-action-${runnerFailed}`).catch(() => undefined);
    }
    if (request.ack) {
      fs.writeFileSync(path.join(args.workspace, `.e2e-ack-${request.ack.replace(/[^A-Za-z0-9_-]/g, '_')}`), read);
    }
  });
}

/** A log line of the tests; `act`: follow its requests and summary (false: only show it). */
function onLog(type, logArgs, act = true) {
  const parts = Array.isArray(logArgs) ? logArgs : [logArgs];
  const text = format(...parts.map((p) => (typeof p === 'string' || typeof p === 'number' ? p : JSON.stringify(p))));
  for (const line of text.split('\n')) {
    if (!act) {
      say(`[workbench] ${line}`);
      continue;
    }
    const marker = line.indexOf('@@E2E ');
    if (marker >= 0) {
      try {
        perform(JSON.parse(line.slice(marker + 6)));
      } catch (error) {
        say(`[runner] bad @@E2E line: ${line} (${error.message})`);
      }
      continue;
    }
    const summary = /E2E_SUMMARY (\d+) passing, (\d+) failing/.exec(line);
    if (summary) {
      mochaPassed = Number(summary[1]);
      mochaFailed = Number(summary[2]);
      sawSummary = true;
      continue;
    }
    say(`${type === 'error' ? '[exthost:err] ' : ''}${line}`);
  }
}

/** The driver's log (see --log-file): read what was appended, every 50 ms, whole lines only. */
function followLogFile(file) {
  let offset = 0;
  let rest = '';
  const timer = setInterval(() => {
    let size;
    try {
      size = fs.statSync(file).size;
    } catch {
      return; // not written yet
    }
    if (size <= offset) {
      return;
    }
    const fd = fs.openSync(file, 'r');
    const chunk = Buffer.alloc(size - offset);
    fs.readSync(fd, chunk, 0, chunk.length, offset);
    fs.closeSync(fd);
    offset = size;
    const lines = (rest + chunk.toString('utf8')).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      if (!line) {
        continue;
      }
      const record = JSON.parse(line);
      if (record.exit !== undefined) {
        clearInterval(timer);
        exitCode = record.exit;
        resolveExit();
      } else {
        onLog(record.kind, [record.text]);
      }
    }
  }, 50);
}

// With --log-file the tests' requests come from the file only: anything the workbench logs
// is shown, never acted on twice.
await page.exposeFunction('codeAutomationLog', (type, logArgs) => onLog(type, logArgs, !args['log-file']));
await page.exposeFunction('codeAutomationExit', (code) => {
  exitCode = code;
  resolveExit();
});
page.on('pageerror', (error) => say(`[page error] ${error.message}`));
// No test opens a dialog: one would mean that the model's text ran script in the panel.
page.on('dialog', async (dialog) => {
  check(false, `no dialog opens (saw ${dialog.type()}: ${dialog.message()})`);
  await dialog.dismiss().catch(() => undefined);
});

const payload = [['extensionDevelopmentPath', `vscode-remote://${authority}${args.ext}`]];
if (args['log-file']) {
  followLogFile(args['log-file']);
} else {
  payload.push(['extensionTestsPath', `vscode-remote://${authority}${args.ext}/out/test/index.js`]);
}
const opened = args['workspace-file'] ? `workspace=${encodeURIComponent(args['workspace-file'])}` : `folder=${encodeURIComponent(args.workspace)}`;
const url = `http://${authority}/?${opened}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
say(`[runner] opening ${url}`);
await page.goto(url);

const timeoutMs = Number(args.timeout) * 1000;
const timedOut = await Promise.race([
  exited.then(() => false),
  new Promise((resolve) => setTimeout(() => resolve(true), timeoutMs)),
]);
await actions.catch(() => undefined);
await screenshot(args.final).catch((error) => say(`[runner] final screenshot failed: ${error.message}`));
await context.close().catch(() => undefined);
fs.rmSync(profile, { recursive: true, force: true });

if (timedOut) {
  say(`[runner] the tests did not finish within ${args.timeout} s`);
  mochaFailed += 1;
} else if (!sawSummary) {
  say(`[runner] the tests exited with code ${exitCode} without a summary`);
  if (exitCode !== 0) {
    mochaFailed += 1;
  }
} else if (exitCode !== 0 && mochaFailed === 0) {
  mochaFailed += 1;
}
say(`RESULT ${mochaPassed + runnerPassed} ${mochaFailed + runnerFailed}`);
process.exit(0);
