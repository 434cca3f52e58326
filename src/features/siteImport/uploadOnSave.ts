// `upload_on_save` of imported sites that the service did not keep: the spec's Save Site list
// leaves the field out, so after an import the value sent is compared with what Get Sites then
// says; where they differ, the value the user's file gave is kept here (global state, per account
// and site; no secret), for the upload-on-save behaviour to read (docs/decisions.md,
// "Import: upload_on_save"). Activation does not load it.
import type * as vscode from 'vscode';

const KEY = 'siteRevisions.uploadOnSave';

export class UploadOnSaveRecord {
  constructor(
    private readonly state: vscode.Memento,
    private readonly account: () => string | undefined,
  ) {}

  private all(): Record<string, '0' | '1'> {
    return { ...(this.state.get<Record<string, '0' | '1'>>(KEY) ?? {}) };
  }

  /** The value kept for a site of the signed-in account, when the service did not keep it. */
  get(siteId: string): '0' | '1' | undefined {
    const acc = this.account();
    return acc ? this.all()[`${acc}#${siteId}`] : undefined;
  }

  async set(siteId: string, value: '0' | '1' | undefined): Promise<void> {
    const acc = this.account();
    if (!acc) return;
    const all = this.all();
    if (value === undefined) delete all[`${acc}#${siteId}`];
    else all[`${acc}#${siteId}`] = value;
    await this.state.update(KEY, all);
  }
}
