/**
 * Which page the address bar names: the chat (`/`, with `?c=<id>` for the open conversation) or
 * the leads' insights (`/insights`). Both are the same `index.html`: `npm start` serves it for
 * every extension-less path and CloudFront's viewer-request function rewrites those to it
 * (lib/constructs/web-hosting.ts), so `/insights` survives a reload and a bookmark. Moving
 * between the two is a plain link (a full load): the insights code is fetched only on its page.
 */
export type AppPage = 'chat' | 'insights';

/** The insights page's path. */
export const INSIGHTS_PATH = '/insights';
/** The chat's path. */
export const CHAT_PATH = '/';

/** The page of a location's path; a trailing slash names the same page. */
export function appPageOf(pathname: string): AppPage {
  return pathname.replace(/\/+$/, '') === INSIGHTS_PATH ? 'insights' : 'chat';
}
