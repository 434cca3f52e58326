// Public surface of the request scheduler (plain Node: no `vscode` import anywhere under src/core/scheduler).
export { RequestScheduler, type AcquireOptions, type OriginStats, type Priority, type Release, type SchedulerEvent, type SchedulerOptions, type ShareOptions, type SharedCall } from './scheduler';
