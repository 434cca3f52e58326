// The client's size limits, in a module of their own so that code which only needs the figure (the
// status of a mapped folder) does not load the client.

/**
 * The largest reply the client reads (its default `maxResponseBytes`): a Get Revision reply
 * carries the content as a JSON string, so no revision whose content is larger can be read, and
 * no working file larger than it can equal a revision that can (src/core/status/working.ts).
 */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;
