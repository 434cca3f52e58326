// The throwaway workspace folder the runners open: a tiny static site.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const WORKSPACE_FILES: Record<string, string> = {
  'README.md': '# Throwaway workspace\n\nCreated by the integration runner; deleted after the run.\n',
  'index.html': '<!doctype html>\n<html>\n<head><link rel="stylesheet" href="css/site.css"></head>\n<body><h1>Hello</h1><script src="js/app.js"></script></body>\n</html>\n',
  'css/site.css': 'body { font-family: sans-serif; }\nh1 { color: #333; }\n',
  'js/app.js': "document.querySelector('h1').textContent = 'Hello, world';\n",
};

export function writeWorkspace(dir: string, files: Record<string, string> = WORKSPACE_FILES): void {
  for (const [name, text] of Object.entries(files)) {
    const p = path.join(dir, name);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
}
