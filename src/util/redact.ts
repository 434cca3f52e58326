// Redaction of secrets from text that may reach a log or a message. No vscode import.

const PATTERNS: [RegExp, string][] = [
  [/(authorization:\s*bearer\s+)[^\s"']+/gi, '$1***'],
  [/\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, 'Bearer ***'],
  [/((?:^|[?&\s"'])(?:password|ftp_pass|db_password|apiKey|api_key)=)[^&\s"']*/gi, '$1***'],
  [/("(?:password|ftp_pass|db_password|apiKey|api_key)"\s*:\s*")(?:[^"\\]|\\.)*"/gi, '$1***"'],
];

export class Redactor {
  private readonly secrets = new Set<string>();

  /** Remembers a secret value so that it is masked wherever it appears. Very short values are ignored. */
  add(secret: string | undefined): void {
    if (secret && secret.length >= 3) this.secrets.add(secret);
  }

  redact(text: string): string {
    let out = text;
    for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
    // Longest first so that a secret containing another is masked whole.
    for (const s of [...this.secrets].sort((a, b) => b.length - a.length)) out = out.split(s).join('***');
    return out;
  }
}
