import * as assert from 'assert';
import * as vscode from 'vscode';
import type { AgentlsApi } from '../../extension';
import { modelRequests, script, setUpSuite, uiDone, waitFor } from './helpers';

/** A 1×1 PNG, as a screenshot pasted from the clipboard would come. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('attachments in the panel: @ picker, chips, pasted images', () => {
  let api: AgentlsApi;

  before(async function () {
    api = await setUpSuite(this);
    await vscode.commands.executeCommand('agentls.panel.focus');
    await waitFor(() => api.panel.webviewReady, 'the panel to load', 60_000);
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({ panel: [{ select: '#confirm', value: 'yolo' }, { fill: '#prompt', text: '' }] });
    await waitFor(() => api.panel.current.items.length === 0, 'an empty conversation', 20_000);
  });

  it('picks a file and a symbol with @, adds #problems, removes a chip, and sends the rest with the run', async () => {
    await script([{ text: 'Seen: the file, the definition and the problems.' }]);
    await uiDone({
      panel: [
        { click: '#prompt' },
        { type: '#prompt', text: 'explain ' },
        { type: '#prompt', text: '@' },
        // Opened on @: the keywords at once, then what the server found.
        { expectText: '#attach-picker .attach-option', text: '#problems' },
        { expectText: '#attach-picker .attach-option', text: '#changes' },
        { type: '#prompt', text: 'shap' },
        { expectText: '#attach-picker .attach-option[data-attach="file:shapes.py"]', text: 'shapes.py' },
        { screenshot: 'attach-picker-file' },
        { press: '#prompt', key: 'Enter' },
        { expectCount: '#attach-picker:not([hidden])', count: 0 },
        { expectText: '#attachments .chip-file', text: 'shapes.py' },
        { type: '#prompt', text: '@gree' },
        // The symbol comes from the repo map (the symbol process): it may take a moment.
        { expectText: '#attach-picker .attach-option[data-attach^="symbol:greet.py:1:greet"]', text: 'greet' },
        { expectText: '#attach-picker .attach-option[data-attach^="symbol:greet.py:1:greet"] .command-source', text: 'function · greet.py:1' },
        { screenshot: 'attach-picker-symbol' },
      ],
    });
    await uiDone({
      panel: [
        // The symbol row is below the files: chosen with the mouse.
        { click: '#attach-picker .attach-option[data-attach^="symbol:greet.py:1:greet"]' },
        { expectText: '#attachments .chip-symbol', text: '@greet' },
        { type: '#prompt', text: '@prob' },
        { expectText: '#attach-picker .attach-option.active', text: '#problems' },
        { press: '#prompt', key: 'Tab' },
        { expectText: '#attachments .chip-problems', text: '#problems' },
        { type: '#prompt', text: '@#ch' },
        { expectCount: '#attach-picker .attach-option', count: 1 },
        { press: '#prompt', key: 'Enter' },
        { expectText: '#attachments .chip-changes', text: '#changes' },
        { expectCount: '#attachments .chip', count: 4 },
        { screenshot: 'attach-chips' },
        { click: '#attachments .chip-changes .chip-remove' },
        { expectCount: '#attachments .chip', count: 3 },
        { expectCount: '#attachments .chip-changes', count: 0 },
      ],
    });
    assert.strictEqual(api.panel.current.items.length, 0, 'choosing attachments sends nothing');
    await uiDone({ panel: [{ press: '#prompt', key: 'Enter' }, { expectCount: '#attachments .chip', count: 0 }] });

    await waitFor(() => api.panel.current.items.some((it) => it.kind === 'end') && api.panel.current.runId === undefined, 'the run to end', 60_000);
    const end = api.panel.current.items.find((it) => it.kind === 'end');
    assert.strictEqual(end?.kind === 'end' && end.status, 'success', JSON.stringify(end));
    const user = api.panel.current.items.find((it) => it.kind === 'user');
    assert.match(user?.kind === 'user' ? user.text : '', /\(with shapes\.py, @greet, #problems\)$/, 'the transcript names what was attached');

    const sent = JSON.stringify((await modelRequests()).at(-1)?.body.messages ?? []);
    assert.match(sent, /explain/, 'the typed prompt, without the @ words');
    assert.doesNotMatch(sent, /@shap|@gree|@prob/, 'the @ queries were taken out of the prompt');
    assert.match(sent, /## Attached: shapes\.py/, 'the file');
    assert.match(sent, /def area\(w, h\)/, "the file's text");
    assert.match(sent, /## Attached: the definition of greet/, 'the symbol');
    assert.match(sent, /## The current problems/, 'the problems, from the editor');
    assert.doesNotMatch(sent, /uncommitted changes/, 'the removed chip was not sent');
    await uiDone({ panel: [{ expectText: '.msg.user', text: '(with shapes.py, @greet, #problems)' }, { screenshot: 'attach-run' }] });
  });

  it('attaches a pasted image as a chip, and says why another file cannot be one', async () => {
    await vscode.commands.executeCommand('agentls.panel.newSession');
    await uiDone({
      panel: [
        { fill: '#prompt', text: '' },
        { click: '#prompt' },
        { paste: '#prompt', file: { name: 'shot.png', type: 'image/png', data: PNG } },
        { expectText: '#attachments .chip-image', text: 'shot.png' },
        { paste: '#prompt', file: { name: 'scan.bmp', type: 'image/bmp', data: 'Qk0=' } },
        { expectText: '.attach-error', text: 'scan.bmp: images of type image/bmp cannot be attached' },
        { expectCount: '#attachments .chip', count: 1 },
        { screenshot: 'attach-image' },
        { click: '#attachments .chip-image .chip-remove' },
        { expectCount: '#attachments .chip', count: 0 },
      ],
    });
  });
});
