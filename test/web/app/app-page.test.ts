import { describe, expect, it } from 'vitest';
import { appPageOf } from '../../../web/src/app/app-page.js';

describe('appPageOf', () => {
  it.each([
    ['/insights', 'insights'],
    ['/insights/', 'insights'],
    ['/', 'chat'],
    ['', 'chat'],
    ['/insights-old', 'chat'],
    ['/conversations/01J0ABC', 'chat'],
    ['/Insights', 'chat'],
  ] as const)('reads %s as the %s page', (pathname, page) => {
    expect(appPageOf(pathname)).toBe(page);
  });
});
