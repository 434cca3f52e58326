// Pure (no `vscode`): the state of the Sites view, and which failure state (and hint) an error
// puts it in. The workbench draws the welcome content of the state (package.json viewsWelcome:
// one explanation and its buttons per state, one extra sentence per hint), so every state here
// has its own entry there; unit test `viewState.test` checks that they match.
import { isApiError, type ApiError, type HttpStatusError, type InvalidReplyError, type NetworkError, type ServiceError } from '../../core/api/errors';

/**
 * What the Sites view shows. The failure states are the last six. `offline`: the service cannot
 * be reached and the view shows what the disk cache holds (marked; welcome content with Retry
 * only when that is nothing, since the workbench draws it only while the tree has no rows).
 */
export const VIEW_STATES = ['signedOut', 'loading', 'ready', 'empty', 'unreachable', 'offline', 'error', 'redirect', 'notData', 'expired'] as const;
export type ViewState = (typeof VIEW_STATES)[number];


/**
 * The one-sentence hint of a failure, when its cause is known: context key
 * `siteRevisions.viewProblem` selects the sentence drawn under the state's explanation.
 */
export const VIEW_PROBLEMS = ['refused', 'hostNotFound', 'timeout', 'certificate', 'proxy', 'unavailable', 'serviceSaid', 'httpStatus', 'html'] as const;
export type ViewProblem = (typeof VIEW_PROBLEMS)[number];

export interface Failure {
  state: Extract<ViewState, 'unreachable' | 'error' | 'redirect' | 'notData' | 'expired'>;
  problem?: ViewProblem;
}

const HOST_NOT_FOUND = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL']);
const PROXY = new Set(['EPROXYCONFIG', 'EPROXYAUTH', 'EPROXYREFUSED']);

/**
 * Whether an error means the service could not be reached at all (no connection, a connection
 * dropped, no answer in time): then what is cached is shown instead, marked offline. A
 * certificate or proxy problem, or a busy service (HTTP 429/503), is not "offline": it is
 * explained as it is.
 */
export function isOffline(e: unknown): boolean {
  if (!isApiError(e)) return false;
  if (e.kind === 'timeout') return true;
  if (e.kind !== 'network') return false;
  const n = e as NetworkError;
  return !n.isCertificateError && !PROXY.has(n.code ?? '') && !/through the proxy/.test(n.message);
}

/** The failure state a failed load of the sites puts the view in. */
export function failureOf(e: unknown): Failure {
  if (!isApiError(e)) return { state: 'error' };
  const err = e as ApiError;
  switch (err.kind) {
    case 'auth':
      return { state: 'expired' };
    case 'timeout':
      return { state: 'unreachable', problem: 'timeout' };
    case 'network': {
      const n = err as NetworkError;
      const code = n.code ?? '';
      if (n.isCertificateError) return { state: 'unreachable', problem: 'certificate' };
      if (PROXY.has(code) || /through the proxy/.test(n.message)) return { state: 'unreachable', problem: 'proxy' };
      if (code === 'ECONNREFUSED') return { state: 'unreachable', problem: 'refused' };
      if (HOST_NOT_FOUND.has(code)) return { state: 'unreachable', problem: 'hostNotFound' };
      return { state: 'unreachable' };
    }
    case 'http':
      return (err as HttpStatusError).retryable ? { state: 'unreachable', problem: 'unavailable' } : { state: 'error', problem: 'httpStatus' };
    case 'service':
      return { state: 'error', problem: 'serviceSaid' };
    case 'redirect':
      return { state: 'redirect' };
    case 'invalid-reply': {
      const { problem, excerpt } = err as InvalidReplyError;
      return /text\/html/i.test(problem) || /^\s*<(!doctype|html|head|body)\b/i.test(excerpt) ? { state: 'notData', problem: 'html' } : { state: 'notData' };
    }
    default:
      return { state: 'error' };
  }
}

/**
 * What the service itself told about a failure: its text (none: an error page, whose excerpt is
 * not words and stays in the log), and the HTTP status it came with (none: HTTP 200).
 */
export interface ServiceWords {
  text?: string;
  status?: number;
}

/**
 * The service's own words in a failed load — the `error` of a `{success:false, error}` reply, with
 * HTTP 200 or with an error status — shown to the user as they are ("Your subscription has
 * expired"), and the status of an error status that came without words (an HTML error page with
 * status 500: "HTTP 500"); undefined when it told nothing (a dropped connection, a refused
 * sign-in, which the session handles, a busy service, whose hint names the statuses).
 */
export function serviceWordsOf(e: unknown): ServiceWords | undefined {
  if (!isApiError(e)) return undefined;
  if (e.kind === 'service') {
    const text = (e as ServiceError).serviceMessage.trim();
    return text ? { text } : undefined;
  }
  if (e.kind === 'http') {
    const h = e as HttpStatusError;
    const text = h.serviceMessage?.trim();
    if (text) return { text, status: h.status };
    return h.retryable ? undefined : { status: h.status };
  }
  return undefined;
}
