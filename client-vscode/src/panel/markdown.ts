/**
 * The model's Markdown to HTML for the panel. The text is untrusted, so:
 * - markdown-it with `html: false`: every `<tag>` in the text is escaped, never parsed;
 * - links keep an `href` only for http(s), mailto and workspace-relative paths (markdown-it
 *   already refuses javascript:, vbscript:, file: and data:); the webview opens them
 *   through the extension, it never navigates;
 * - images are shown as their alt text: the webview loads nothing from outside.
 * Pure (no DOM): unit-tested, and bundled into the webview.
 */
import MarkdownIt from 'markdown-it';

const SAFE_LINK = /^(https?:|mailto:)/i;
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export function isSafeLink(href: string): boolean {
  const trimmed = href.trim();
  if (trimmed === '' || trimmed.startsWith('//')) {
    return false;
  }
  return SAFE_LINK.test(trimmed) || !HAS_SCHEME.test(trimmed);
}

const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false });

md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx];
  const href = token.attrGet('href') ?? '';
  if (!isSafeLink(href)) {
    token.attrs = [];
    token.attrSet('class', 'link-blocked');
    token.attrSet('title', 'Link blocked');
    token.tag = 'span';
    return self.renderToken(tokens, idx, options);
  }
  token.attrSet('class', 'link');
  token.attrSet('data-href', href);
  token.attrSet('title', href);
  return self.renderToken(tokens, idx, options);
};

md.renderer.rules.link_close = (tokens, idx, options, _env, self) => {
  // Close what link_open opened (an <a>, or a <span> for a blocked link).
  let depth = 0;
  for (let i = idx - 1; i >= 0; i -= 1) {
    const t = tokens[i];
    if (t.type === 'link_close') {
      depth += 1;
    } else if (t.type === 'link_open') {
      if (depth === 0) {
        tokens[idx].tag = t.tag;
        break;
      }
      depth -= 1;
    }
  }
  return self.renderToken(tokens, idx, options);
};

md.renderer.rules.image = (tokens, idx) => {
  const alt = md.utils.escapeHtml(tokens[idx].content || 'image');
  return `<span class="image-alt">[${alt}]</span>`;
};

md.renderer.rules.fence = (tokens, idx) => {
  const token = tokens[idx];
  const lang = md.utils.escapeHtml(token.info.trim().split(/\s+/)[0] ?? '');
  const label = lang ? `<div class="code-lang">${lang}</div>` : '';
  return `<div class="code">${label}<pre tabindex="0"><code>${md.utils.escapeHtml(token.content)}</code></pre></div>\n`;
};

export function renderMarkdown(text: string): string {
  return md.render(text);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Markdown of a text that only grows (a streaming answer), rendered in O(new text) per
 * update instead of O(whole text): the text is cut at blank lines outside code fences; the
 * blocks before the last cut are rendered once and kept, only the open block after it is
 * rendered again. (A construct spanning a blank line, e.g. a loose list, may render as two
 * while streaming; the finished text is rendered whole.)
 */
export class IncrementalMarkdown {
  private text = '';
  /** End of the text rendered for good, and the HTML of that part. */
  private stableEnd = 0;
  private stableHtml = '';
  /** Where the next unscanned line starts, and the code fence open there, if any. */
  private scanned = 0;
  private fence: string | undefined;
  private lastCut = 0;

  /** The whole HTML so far. */
  get html(): string {
    return this.stableHtml + this.tailHtml;
  }

  private tailHtml = '';

  /**
   * Take the text so far; returns the HTML that became stable since the last call (to be
   * appended) and the HTML of the open tail (to replace the previous tail).
   */
  update(text: string): { appended: string; tail: string; reset: boolean } {
    let reset = false;
    if (!text.startsWith(this.text)) {
      this.text = '';
      this.stableEnd = 0;
      this.stableHtml = '';
      this.scanned = 0;
      this.fence = undefined;
      this.lastCut = 0;
      reset = true;
    }
    this.text = text;
    for (;;) {
      const newline = text.indexOf('\n', this.scanned);
      if (newline < 0) {
        break;
      }
      const line = text.slice(this.scanned, newline);
      this.scanned = newline + 1;
      const fence = FENCE.exec(line);
      if (this.fence) {
        if (fence && fence[1][0] === this.fence[0] && fence[1].length >= this.fence.length && line.trim() === fence[1]) {
          this.fence = undefined;
        }
      } else if (fence) {
        this.fence = fence[1];
      } else if (line.trim() === '') {
        this.lastCut = this.scanned;
      }
    }
    let appended = '';
    if (this.lastCut > this.stableEnd) {
      appended = md.render(text.slice(this.stableEnd, this.lastCut));
      this.stableHtml += appended;
      this.stableEnd = this.lastCut;
    }
    this.tailHtml = md.render(text.slice(this.stableEnd));
    return { appended: reset ? this.stableHtml : appended, tail: this.tailHtml, reset };
  }
}
