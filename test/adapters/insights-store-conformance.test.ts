import { createInMemoryInsightsStore } from '../support/in-memory-insights-store.js';
import { describeInsightsStore } from '../support/insights-store-conformance.js';

// One suite, two stores: the fake the in-process tests run on must behave as the real one does.

describeInsightsStore('the in-memory store', async () => createInMemoryInsightsStore());
