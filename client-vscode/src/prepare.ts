/**
 * `agent/prepare`: the user is about to run the agent (the panel became visible, a first
 * keystroke in its prompt box, the "Agent: Run…" prompt opened), so the server starts its
 * model worker now instead of making the run wait for litellm's import (~3 s). The worker
 * ends on the server once idle (`llm.worker_idle_seconds`); each prepare restarts that
 * clock. Said at most once per `PREPARE_INTERVAL_MS` to the same server, and only to a
 * server that runs or is starting: a sign of intent never starts the server itself.
 * Pure (no `vscode`): unit-tested.
 */
import { Methods, type PrepareParams } from './protocol';

/** Signs closer together than this (keystrokes, the panel shown and hidden) say nothing new. */
export const PREPARE_INTERVAL_MS = 10_000;

export interface PrepareTarget {
  sendNotification(method: typeof Methods.prepare, params: PrepareParams): Promise<void>;
}

export class Preparer {
  private told: PrepareTarget | undefined;
  private last = Number.NEGATIVE_INFINITY;

  /**
   * `target` is the running server's client (waiting for a start under way), if any;
   * `failed` hears of a notification that could not be sent.
   */
  constructor(
    private readonly target: () => Promise<PrepareTarget | undefined>,
    private readonly failed: (error: unknown) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Tell the server, unless this same server was told within the interval (a restarted
   * server has heard nothing); resolves to whether it was told.
   */
  async prepare(): Promise<boolean> {
    const client = await this.target();
    const now = this.now();
    if (!client || (client === this.told && now - this.last < PREPARE_INTERVAL_MS)) {
      return false;
    }
    this.told = client;
    this.last = now;
    try {
      await client.sendNotification(Methods.prepare, {});
      return true;
    } catch (error) {
      this.failed(error);
      return false;
    }
  }
}
