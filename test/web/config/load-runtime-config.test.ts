import { describe, expect, it } from 'vitest';
import { loadRuntimeConfig } from '../../../web/src/config/load-runtime-config.js';

const serving = (body: unknown, status = 200) =>
  (async () => new Response(JSON.stringify(body), { status })) as unknown as typeof fetch;

describe('loadRuntimeConfig', () => {
  it('reads the local settings and trims a trailing slash from apiBase', async () => {
    await expect(
      loadRuntimeConfig(serving({ apiBase: '/api/', authMode: 'local' })),
    ).resolves.toEqual({
      apiBase: '/api',
      authMode: 'local',
    });
  });

  it('refuses cognito mode without its settings', async () => {
    await expect(loadRuntimeConfig(serving({ authMode: 'cognito' }))).rejects.toThrow(/cognito/);
  });

  it('fails clearly when the file is missing', async () => {
    await expect(loadRuntimeConfig(serving({}, 404))).rejects.toThrow(/HTTP 404/);
  });
});
