// Public surface of the service client. No `vscode` import anywhere under src/api.
export { SiteRevisionClient, OPERATIONS, MAX_RETRY_AFTER_MS, type ClientOptions, type RequestEvent } from './client';
export { normalizeBaseUrl, isLoopbackHost } from './http';
export { parseRetryAfter, AUTH_MESSAGE } from './validate';
export * from './errors';
export * from './types';
