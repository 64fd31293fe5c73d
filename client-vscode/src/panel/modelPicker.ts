/**
 * The panel's model picker without the DOM: which models it lists (the server's
 * `agent/models`), how each is described, which one is chosen, and what the next run is sent.
 * Pure, unit-tested; webview/modelPicker.ts draws it and src/panel/provider.ts feeds it.
 *
 * The user's choice is remembered per workspace (the panel's options). It applies while the
 * server lists it with tool calling; otherwise the picker falls back to the server's
 * `current` model and says why in a quiet line, and the remembered choice is kept for the
 * day the model is back.
 */
import type { AvailableModel, ModelCatalog } from '../protocol';

/** One row of the picker. */
export interface ModelOption {
  id: string;
  label: string;
  /** What is known of it, short: `tools · images · 128k context · $0.15 / $0.60 per 1M tokens`. */
  detail: string;
  /** It can run the agent: not a model known to lack tool calling. */
  usable: boolean;
  /** The model runs use when nothing is chosen (the server's `current`). */
  current: boolean;
}

/** What the webview draws, and what the next run is sent. */
export interface ModelPickerState {
  options: ModelOption[];
  /** The option shown as chosen ('' when nothing is known yet). */
  selected: string;
  /** Quiet lines under the picker row: the server's problems, a remembered model not usable now. */
  notes: string[];
  /**
   * The `model` of the next `agent/run`: the user's choice when the server listed it; else
   * nothing (the server's own choice applies, and a server without `agent/models` is never
   * sent a field it does not know).
   */
  runModel?: string;
  /** The list is still being asked for. */
  loading: boolean;
}

/** The picker before the server has answered. */
export function loadingPicker(): ModelPickerState {
  return { options: [], selected: '', notes: [], loading: true };
}

/** Dollars per million tokens, short: 0.15, 2.5, 0.025, 0 → "0". */
function perMillion(perToken: number): string {
  const dollars = perToken * 1_000_000;
  if (dollars === 0) {
    return '0';
  }
  return dollars >= 1 ? String(Number(dollars.toFixed(2))) : String(Number(dollars.toPrecision(2)));
}

/** The context window, short: 128000 → "128k", 1048576 → "1M". */
function tokensShort(tokens: number): string {
  if (tokens >= 1_000_000) {
    return `${Number((tokens / 1_000_000).toFixed(1))}M`;
  }
  return tokens >= 1000 ? `${Math.round(tokens / 1000)}k` : String(tokens);
}

/** What is known of a model, in one short line (the picker's tooltip and secondary line). */
export function modelDetail(model: AvailableModel): string {
  const parts: string[] = [];
  if (model.tools === true) {
    parts.push('tools');
  } else if (model.tools === false) {
    parts.push('no tool calling');
  }
  if (model.images === true) {
    parts.push('images');
  } else if (model.images === false) {
    parts.push('no images');
  }
  if (typeof model.contextWindow === 'number' && model.contextWindow > 0) {
    parts.push(`${tokensShort(model.contextWindow)} context`);
  }
  const input = model.inputCostPerToken;
  const output = model.outputCostPerToken;
  if (typeof input === 'number' && typeof output === 'number') {
    parts.push(input === 0 && output === 0 ? 'free' : `$${perMillion(input)} / $${perMillion(output)} per 1M tokens in / out`);
  }
  if (model.note && !(model.tools === false && /no tool calling/i.test(model.note))) {
    parts.push(model.note);
  }
  return parts.join(' · ');
}

/** A model only named (the server's current model missing from its own list, the configured model). */
function bare(id: string): AvailableModel {
  return { id, label: id, source: 'configured', tools: null, images: null, contextWindow: null, inputCostPerToken: null, outputCostPerToken: null, note: '' };
}

/**
 * The picker for `catalog` and the remembered choice (undefined: none). `listed`: the
 * catalog is the server's answer to `agent/models` (false: made up here, from the settings,
 * because the server could not be asked).
 */
export function modelPicker(catalog: ModelCatalog, remembered: string | undefined, listed = true): ModelPickerState {
  const models = [...catalog.models];
  if (catalog.current && !models.some((m) => m.id === catalog.current)) {
    models.unshift(bare(catalog.current));
  }
  const options: ModelOption[] = models.map((m) => ({
    id: m.id,
    label: m.label || m.id,
    detail: modelDetail(m),
    usable: m.tools !== false,
    current: m.id === catalog.current,
  }));
  const notes = [...catalog.problems];
  const chosen = remembered ? options.find((o) => o.id === remembered) : undefined;
  let selected: string;
  if (chosen?.usable) {
    selected = chosen.id;
  } else {
    selected = catalog.current || (options.find((o) => o.usable)?.id ?? '');
    if (remembered && listed) {
      const why = chosen ? 'has no tool calling' : 'is not available now';
      notes.push(`${chosen?.label ?? remembered} ${why}: using ${options.find((o) => o.id === selected)?.label ?? (selected || 'the default model')}.`);
    }
  }
  const runModel = listed && chosen?.usable ? chosen.id : undefined;
  return { options, selected, notes, loading: false, ...(runModel ? { runModel } : {}) };
}

/**
 * The catalog when the server could not list its models (an older server, a failed
 * request): the configured model (`agentls.model`; '' for the server's default) is the one
 * entry, and the problem says why the list is short.
 */
export function unlistedCatalog(configured: string, problem: string): ModelCatalog {
  return { current: configured, models: [], problems: [problem] };
}
