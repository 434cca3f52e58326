// Whether a save of a mapped file uploads it (issue 34 §5), decided at activation for every save
// (so this file is small and loads nothing else): the site's `upload_on_save` as the service lists
// it (src/core/transfer/uploadOnSave.ts: '1', 'true', 'yes', 'on' are on), or, for an imported
// site whose value the service did not keep, the value the import kept in this editor (the
// site-import feature's record, globalState `siteRevisions.uploadOnSave`); then this computer's
// answer to the first-time question ('yes' / 'no', per account and site).
import type * as vscode from 'vscode';
import type { Site } from '../../core/api/types';
import { uploadOnSave } from '../../core/transfer/uploadOnSave';
import { UPLOAD_ON_SAVE_ANSWERS, UPLOAD_ON_SAVE_IMPORTED } from './names';

export interface SaveFlag {
  /** The site says to upload on save. */
  on: boolean;
  /** Where that comes from. */
  from: 'site' | 'imported' | 'off';
  /** The site's raw value, and a note when it is not a known one. */
  raw: string;
  note?: string;
  /** This computer's answer to the first-time question, when given. */
  answer?: 'yes' | 'no';
}

export function saveFlag(site: Site, state: vscode.Memento, account: string | undefined): SaveFlag {
  const s = uploadOnSave(site);
  const key = account ? `${account}#${site.id}` : undefined;
  const imported = key ? state.get<Record<string, string>>(UPLOAD_ON_SAVE_IMPORTED)?.[key] : undefined;
  const answer = key ? state.get<Record<string, string>>(UPLOAD_ON_SAVE_ANSWERS)?.[key] : undefined;
  const from = s.on ? 'site' : imported === '1' ? 'imported' : 'off';
  return { on: from !== 'off', from, raw: s.raw, ...(s.note ? { note: s.note } : {}), ...(answer === 'yes' || answer === 'no' ? { answer } : {}) };
}

export async function setAnswer(state: vscode.Memento, account: string, siteId: string, answer: 'yes' | 'no' | undefined): Promise<void> {
  const all = { ...(state.get<Record<string, string>>(UPLOAD_ON_SAVE_ANSWERS) ?? {}) };
  if (answer) all[`${account}#${siteId}`] = answer;
  else delete all[`${account}#${siteId}`];
  await state.update(UPLOAD_ON_SAVE_ANSWERS, all);
}
