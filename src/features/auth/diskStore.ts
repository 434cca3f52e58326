// The disk store's code (src/core/store), loaded when the first store opens (./accountCache.ts).
import { DiskStore } from '../../core/store';
// Loaded on first use: importing the entry keeps what activation loads in one file (esbuild.mjs).
import '../../extension';

export { DiskStore };
