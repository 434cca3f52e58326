// Public surface of the service client. No `vscode` import anywhere under src/core/api.
export { SiteRevisionClient, OPERATIONS, MAX_RETRY_AFTER_MS, type ClientOptions, type RequestEvent } from './client';
export { MAX_REPLY_BYTES } from './limits';
export { isLoopbackHost, parseServiceUrl, requireServiceUrl, type ServiceUrl } from './url';
export { parseRetryAfter, AUTH_MESSAGE } from './validate';
export * from './errors';
export * from './types';
