import {
  type Insights,
  type InsightsWindow,
  insightsSchema,
} from '../../../functions/contract/insights.js';
import { callApi } from './api-error.js';

/** The insights page's one route (issue #28); loaded with the page, never by the chat. */
export interface InsightsApi {
  /**
   * `GET /api/insights?days=…`: the lead's figures for the window ending today (UTC). Rejects
   * with an `ApiError` — `not_a_service_desk_lead` (403) for anyone who is not a lead.
   */
  read(days: InsightsWindow, options?: { readonly signal?: AbortSignal }): Promise<Insights>;
}

export function createInsightsApi(apiBase: string, apiFetch: typeof fetch): InsightsApi {
  return {
    async read(days, options = {}) {
      const response = await callApi(apiFetch, `${apiBase}/insights?days=${days}`, {
        cache: 'no-store',
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return insightsSchema.parse(await response.json());
    },
  };
}
