/**
 * The route groups a chat never calls, in one module `createApi` imports on the first request to
 * any of them (`import-on-first-call.ts`, ADR 0034): one chunk boundary rather than one per
 * group, since every boundary splits the code the groups share with the chat into more files
 * that a cold start then loads one by one.
 */
export { createAttachmentRoutes } from '../attachments/attachment-routes.js';
export { createHandoffRoute } from '../handoff/handoff-routes.js';
export { createInsightsRoutes } from '../insights/insights-routes.js';
export { createKnowledgeRoutes } from '../knowledge/knowledge-routes.js';
export { createMailDraftRoutes } from '../mail-draft/mail-draft-routes.js';
export { createKnownIssueRoutes } from '../surges/known-issue-routes.js';
