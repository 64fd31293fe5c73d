import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PREPARE_INTERVAL_MS, Preparer, type PrepareTarget } from '../../prepare';

class Server implements PrepareTarget {
  readonly sent: [string, unknown][] = [];
  failing = false;

  sendNotification(method: string, params: unknown): Promise<void> {
    if (this.failing) {
      return Promise.reject(new Error('connection closed'));
    }
    this.sent.push([method, params]);
    return Promise.resolve();
  }
}

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

describe('Preparer', () => {
  it('sends agent/prepare {} to the running server', async () => {
    const server = new Server();
    assert.equal(await new Preparer(async () => server).prepare(), true);
    assert.deepEqual(server.sent, [['agent/prepare', {}]]);
  });

  it('says it once per interval, however many signs come', async () => {
    const server = new Server();
    const time = clock();
    const preparer = new Preparer(async () => server, undefined, time.now);
    assert.equal(await preparer.prepare(), true);
    time.advance(PREPARE_INTERVAL_MS - 1);
    assert.equal(await preparer.prepare(), false);
    time.advance(1);
    assert.equal(await preparer.prepare(), true);
    assert.equal(server.sent.length, 2);
  });

  it('tells nobody without a server, and tries again at the next sign', async () => {
    const server = new Server();
    let running = false;
    const time = clock();
    const preparer = new Preparer(async () => (running ? server : undefined), undefined, time.now);
    assert.equal(await preparer.prepare(), false);
    running = true;
    assert.equal(await preparer.prepare(), true);
    assert.equal(server.sent.length, 1);
  });

  it('tells a restarted server at once', async () => {
    const [first, second] = [new Server(), new Server()];
    let current = first;
    const time = clock();
    const preparer = new Preparer(async () => current, undefined, time.now);
    assert.equal(await preparer.prepare(), true);
    current = second;
    assert.equal(await preparer.prepare(), true);
    assert.equal(await preparer.prepare(), false);
    assert.deepEqual([first.sent.length, second.sent.length], [1, 1]);
  });

  it('reports a notification that could not be sent', async () => {
    const server = new Server();
    server.failing = true;
    const failures: unknown[] = [];
    assert.equal(await new Preparer(async () => server, (error) => failures.push(error)).prepare(), false);
    assert.equal(failures.length, 1);
  });
});
