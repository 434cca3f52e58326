// Translation of the site form's texts. The texts of ./formFields.ts are English source
// messages. The site editor (src/features/sites/siteEditor.ts) passes every one a person reads
// through `vscode.l10n.t` before they reach the webview, with the functions below; formTexts()
// lists the same texts for l10n/bundle.l10n.json (scripts/l10n-bundle.mjs reads it from the
// compiled out/src/features/sites/formTexts.js). Placeholders are sample values (host names,
// paths) and stay as they are. No `vscode` import: the texts are handed a translator.

import { SERVER_TYPES } from '../../core/api/types';
import { FIELD_GROUPS, GROUP_LABELS, SERVER_TYPE_INFO, fieldSpecs, type FieldSpec, type ServerTypeInfo } from './formFields';

/** Translates one text of the form (an English source message; no placeholders). */
export type TextTranslator = (text: string) => string;

/** A field spec with its label, help, option labels and rule messages translated. */
export function localizeSpec(spec: FieldSpec, tr: TextTranslator): FieldSpec {
  const out: FieldSpec = {
    ...spec,
    label: tr(spec.label),
    help: spec.help && tr(spec.help),
    rules: spec.rules.map((r) => ({ ...r, message: tr(r.message) })),
  };
  if (spec.options) out.options = spec.options.map((o) => ({ ...o, label: tr(o.label) }));
  return out;
}

/** A server type's label, connection title and note, translated. */
export function localizeTypeInfo(info: ServerTypeInfo, tr: TextTranslator): ServerTypeInfo {
  return { label: tr(info.label), connectionTitle: tr(info.connectionTitle), note: info.note && tr(info.note) };
}

/** Every text localizeSpec and localizeTypeInfo translate, for every server type, and the group labels. */
export function formTexts(): string[] {
  const texts = new Set<string>();
  const collect: TextTranslator = (text) => {
    if (text) texts.add(text);
    return text;
  };
  for (const type of [...SERVER_TYPES, '']) for (const s of fieldSpecs(type)) localizeSpec(s, collect);
  for (const type of SERVER_TYPES) localizeTypeInfo(SERVER_TYPE_INFO[type], collect);
  for (const g of FIELD_GROUPS) collect(GROUP_LABELS[g]);
  return [...texts];
}
