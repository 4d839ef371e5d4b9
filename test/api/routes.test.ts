import { describe, expect, it } from 'vitest';
import type { ApiRequest, HttpResponse } from '../../functions/api/http.js';
import {
  createRouteTable,
  dispatch,
  matchRoute,
  type RouteGroups,
} from '../../functions/api/routes.js';

// The route table alone: which handler a method and path reach, with which parameters, and the
// 404/405 rules — every route, without adapters. The same rules through the whole API (error
// bodies, owners) are in bad-input.test.ts.

const id = '01JZZZZZZZZZZZZZZZZZZZZZZZ';
const inquiryId = '01JAAAAAAAAAAAAAAAAAAAAAAA';
/** A gap example's opaque id: 22 base64url characters. */
const exampleId = 'rsH_CTZbDBSrDIpKkxp-jA';

/** Route groups whose handlers answer with the call they received, so a test reads which one ran. */
function recordingGroups(): RouteGroups {
  const answer = (name: string, ...args: unknown[]): Promise<HttpResponse> =>
    Promise.resolve({
      statusCode: 200,
      headers: {},
      body: JSON.stringify([name, ...args.slice(1)]),
    });
  return {
    chat: ((request: ApiRequest) => answer('chat', request)) as RouteGroups['chat'],
    attachments: {
      upload: (request: ApiRequest) => answer('upload', request),
      read: (request: ApiRequest, id: string) => answer('attachment', request, id),
    },
    knowledge: {
      me: (request: ApiRequest) => answer('me', request),
      publish: (request: ApiRequest) => answer('publish', request),
      draft: (request: ApiRequest, conversationId: string, inquiry: string) =>
        answer('draft', request, conversationId, inquiry),
      draftFromGapExample: (request: ApiRequest, exampleId: string) =>
        answer('gap-draft', request, exampleId),
      publishFromGapExample: (request: ApiRequest, exampleId: string) =>
        answer('gap-publish', request, exampleId),
    } as unknown as RouteGroups['knowledge'],
    conversations: {
      list: (request: ApiRequest) => answer('list', request),
      get: (request: ApiRequest, conversationId: string) => answer('get', request, conversationId),
      rename: (request: ApiRequest, conversationId: string) =>
        answer('rename', request, conversationId),
      remove: (request: ApiRequest, conversationId: string) =>
        answer('remove', request, conversationId),
      stop: (request: ApiRequest, conversationId: string) =>
        answer('stop', request, conversationId),
      feedback: (request: ApiRequest, conversationId: string, seq: number) =>
        answer('feedback', request, conversationId, seq),
    } as unknown as RouteGroups['conversations'],
    handoff: ((request: ApiRequest, conversationId: string, inquiry: string) =>
      answer('handoff', request, conversationId, inquiry)) as RouteGroups['handoff'],
    mailDrafts: {
      edit: (request: ApiRequest, conversationId: string, seq: number) =>
        answer('edit', request, conversationId, seq),
      refine: (request: ApiRequest, conversationId: string, seq: number) =>
        answer('refine', request, conversationId, seq),
      action: (request: ApiRequest, conversationId: string, seq: number) =>
        answer('action', request, conversationId, seq),
    } as unknown as RouteGroups['mailDrafts'],
    insights: {
      read: (request: ApiRequest) => answer('insights', request),
    } as unknown as RouteGroups['insights'],
    knownIssues: {
      list: (request: ApiRequest) => answer('known-issues', request),
      publish: (request: ApiRequest) => answer('publish-known-issue', request),
      close: (request: ApiRequest, issueId: string) =>
        answer('close-known-issue', request, issueId),
    } as unknown as RouteGroups['knownIssues'],
  };
}

const table = createRouteTable(recordingGroups());

async function call(method: string, path: string): Promise<unknown> {
  const request = { method, path } as ApiRequest;
  const response = await dispatch(matchRoute(table, method, path), request);
  return JSON.parse(response.body as string);
}

async function refusal(method: string, path: string): Promise<[number, string]> {
  const error = await call(method, path).then(
    () => undefined,
    (thrown: { statusCode: number; code: string }) => thrown,
  );
  return [error?.statusCode ?? 0, error?.code ?? 'no error'];
}

describe('the route table', () => {
  it.each([
    ['POST', '/api/chat', ['chat']],
    ['POST', '/api/attachments', ['upload']],
    ['GET', `/api/attachments/${id}`, ['attachment', id]],
    ['GET', '/api/conversations', ['list']],
    ['GET', '/api/me', ['me']],
    ['GET', '/api/insights', ['insights']],
    ['POST', '/api/knowledge', ['publish']],
    ['GET', '/api/known-issues', ['known-issues']],
    ['POST', '/api/known-issues', ['publish-known-issue']],
    ['POST', `/api/known-issues/${id}/close`, ['close-known-issue', id]],
    ['POST', `/api/insights/gap-examples/${exampleId}/knowledge-draft`, ['gap-draft', exampleId]],
    ['POST', `/api/insights/gap-examples/${exampleId}/knowledge`, ['gap-publish', exampleId]],
    [
      'POST',
      `/api/conversations/${id}/inquiries/${inquiryId}/knowledge-draft`,
      ['draft', id, inquiryId],
    ],
    ['POST', `/api/conversations/${id}/inquiries/${inquiryId}/handoff`, ['handoff', id, inquiryId]],
    ['POST', `/api/conversations/${id}/turns/7/feedback`, ['feedback', id, 7]],
    ['POST', `/api/conversations/${id}/turns/123456789/feedback`, ['feedback', id, 123456789]],
    ['POST', `/api/conversations/${id}/stop`, ['stop', id]],
    ['PUT', `/api/conversations/${id}/turns/2/mail-draft`, ['edit', id, 2]],
    ['POST', `/api/conversations/${id}/turns/2/mail-draft/refine`, ['refine', id, 2]],
    ['POST', `/api/conversations/${id}/turns/2/mail-draft/actions`, ['action', id, 2]],
    ['GET', `/api/conversations/${id}`, ['get', id]],
    ['PATCH', `/api/conversations/${id}`, ['rename', id]],
    ['DELETE', `/api/conversations/${id}`, ['remove', id]],
  ])('sends %s %s to its handler with the path parameters', async (method, path, expected) => {
    expect(await call(method, path)).toEqual(expected);
  });

  it.each([
    ['GET', '/api/chat'],
    ['GET', '/api/attachments'],
    ['DELETE', `/api/attachments/${id}`],
    ['PUT', '/api/conversations'],
    ['POST', '/api/me'],
    ['POST', '/api/insights'],
    ['GET', '/api/knowledge'],
    ['DELETE', '/api/known-issues'],
    ['GET', `/api/known-issues/${id}/close`],
    ['GET', `/api/insights/gap-examples/${exampleId}/knowledge-draft`],
    ['PUT', `/api/insights/gap-examples/${exampleId}/knowledge`],
    ['GET', `/api/conversations/${id}/inquiries/${inquiryId}/knowledge-draft`],
    ['GET', `/api/conversations/${id}/inquiries/${inquiryId}/handoff`],
    ['GET', `/api/conversations/${id}/turns/1/feedback`],
    ['GET', `/api/conversations/${id}/stop`],
    ['POST', `/api/conversations/${id}/turns/2/mail-draft`],
    ['GET', `/api/conversations/${id}/turns/2/mail-draft/refine`],
    ['POST', `/api/conversations/${id}`],
    ['HEAD', `/api/conversations/${id}`],
  ])('answers 405 to %s %s, a known path with another method', async (method, path) => {
    expect(await refusal(method, path)).toEqual([405, 'method_not_allowed']);
  });

  it.each([
    ['an unknown path', '/api/nope'],
    ['a path outside /api', '/chat'],
    ['a trailing slash', '/api/chat/'],
    ['a conversation id that is not a ULID', '/api/conversations/not-a-ulid'],
    ['a lower-case ULID', `/api/conversations/${id.toLowerCase()}`],
    ['a ULID with a letter Crockford leaves out', `/api/conversations/${id.slice(0, 25)}U`],
    ['an id one character short', `/api/conversations/${id.slice(1)}`],
    ['turn 0', `/api/conversations/${id}/turns/0/feedback`],
    ['a turn with a leading zero', `/api/conversations/${id}/turns/01/feedback`],
    ['a turn of ten digits', `/api/conversations/${id}/turns/1234567890/feedback`],
    ['an inquiry id that is not a ULID', `/api/conversations/${id}/inquiries/x/knowledge-draft`],
    [
      'a hand-off of an inquiry id that is not a ULID',
      `/api/conversations/${id}/inquiries/x/handoff`,
    ],
    ['an unknown conversation sub-path', `/api/conversations/${id}/bogus`],
    [
      'a gap example named with the store key’s #',
      `/api/insights/gap-examples/${id}%232/knowledge-draft`,
    ],
    [
      'a gap example named by its conversation and answer',
      `/api/insights/gap-examples/${id}-2/knowledge-draft`,
    ],
    [
      'a gap example id one character short',
      `/api/insights/gap-examples/${exampleId.slice(1)}/knowledge`,
    ],
    [
      'a gap example id with a character outside base64url',
      `/api/insights/gap-examples/${exampleId.slice(1)}=/knowledge`,
    ],
    ['a gap example of no such form', `/api/insights/gap-examples/x-2/knowledge`],
  ])('answers 404 to %s, whatever the method', async (_name, path) => {
    for (const method of ['GET', 'POST']) {
      expect(await refusal(method, path), `${method} ${path}`).toEqual([404, 'not_found']);
    }
  });

  it('names a request by its route template, ids left out, so log lines group by route', () => {
    expect(matchRoute(table, 'GET', `/api/conversations/${id}`).name).toBe(
      '/api/conversations/{id}',
    );
    expect(matchRoute(table, 'POST', `/api/conversations/${id}/turns/3/feedback`)).toMatchObject({
      name: '/api/conversations/{id}/turns/{seq}/feedback',
      parameters: { id, seq: '3' },
    });
    expect(matchRoute(table, 'PUT', `/api/conversations/${id}/stop`)).toMatchObject({
      kind: 'method_not_allowed',
      name: '/api/conversations/{id}/stop',
      parameters: { id },
    });
    expect(matchRoute(table, 'GET', `/api/conversations/${id}/random-${Math.random()}`)).toEqual({
      kind: 'not_found',
      name: 'unmatched',
      parameters: {},
    });
  });

  it('has one row per method and path template', () => {
    const rows = table.map((route) => `${route.method} ${route.name}`);
    expect(new Set(rows).size).toBe(rows.length);
    expect(rows).toHaveLength(22);
  });
});
