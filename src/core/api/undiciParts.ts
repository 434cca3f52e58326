// The parts of undici the client uses, and only those: an Agent (keep-alive pools), a ProxyAgent
// and the dispatcher's API methods (request; connect, which a ProxyAgent's CONNECT tunnel uses).
// undici's index loads all of undici (fetch, WebSocket, EventSource, the caches, the mocks, the
// interceptors: about 100 modules) and sets the host-wide global dispatcher that every other
// extension's fetch() then uses; these files do neither, and the first request loads in about
// half the time (docs/benchmarks.md, "Activation").
//
// The paths are undici's own files (the package has no "exports" map, so they are reachable); a
// unit test (test/unit/client.raw.test.ts, "loading") checks that they are what undici's index
// exports, so an update that moves them fails there and not in a user's window.
import Agent from 'undici/lib/dispatcher/agent.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';

// What undici's index does (every Agent and ProxyAgent is a Dispatcher), with the same functions:
// loading the index as well (a test does) changes nothing.
Object.assign(Dispatcher.prototype, api);

export { Agent, ProxyAgent };
