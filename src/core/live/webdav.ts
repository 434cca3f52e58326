import type { CreateDriver } from './driver';
import { LiveError } from './types';

export const createDriver: CreateDriver = () => {
  throw new LiveError('unsupported', 'config', 'Not built yet.', { next: 'Wait for the next commit.' });
};
