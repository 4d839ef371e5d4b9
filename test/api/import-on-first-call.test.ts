import { describe, expect, it } from 'vitest';
import { importOnFirstCall } from '../../functions/api/import-on-first-call.js';

describe('importOnFirstCall', () => {
  it('loads the group once, on the first call to any handler, and forwards to it', async () => {
    let loads = 0;
    const group = importOnFirstCall(async () => {
      loads += 1;
      return {
        prefix: 'seen',
        async read(this: { prefix: string }, id: string) {
          return `${this.prefix} ${id}`;
        },
        async list() {
          return ['a'];
        },
      };
    });
    expect(loads).toBe(0);
    const [read, listed] = await Promise.all([group.read('x'), group.list()]);
    expect(read).toBe('seen x');
    expect(listed).toEqual(['a']);
    expect(loads).toBe(1);
  });

  it('forwards a call when the group is one handler', async () => {
    const handler = importOnFirstCall(async () => async (a: number, b: number) => a + b);
    expect(await handler(2, 3)).toBe(5);
  });

  it('tries the import again after it failed', async () => {
    let attempts = 0;
    const group = importOnFirstCall(async () => {
      attempts += 1;
      if (attempts === 1) throw new Error('chunk missing');
      return { ping: async () => 'pong' };
    });
    await expect(group.ping()).rejects.toThrow('chunk missing');
    expect(await group.ping()).toBe('pong');
    expect(attempts).toBe(2);
  });

  it('is not a thenable, so awaiting the stand-in loads nothing', async () => {
    let loads = 0;
    const group = importOnFirstCall(async () => {
      loads += 1;
      return { ping: async () => 'pong' };
    });
    expect(await group).toBe(group);
    expect(loads).toBe(0);
  });
});
