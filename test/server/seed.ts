// The seeded demo data: accounts, sites of every server type, a shared site and a revision
// history whose dates lie in the months before the seed time.

import { newUser } from './auth';
import { DEMO, DEMO_USER_IDS } from './demo';
import { formatDate, siteDefaults, type StoredData, type StoredFile, type StoredRevision, type StoredSite } from './model';
import { SEED_HISTORIES, type SeedFile, type SeedHistory } from './seed-content';
import { searchDemoRevisions } from './seed-search';

const DAY = 24 * 3600 * 1000;

/** Small deterministic PRNG (mulberry32), so that the seed looks the same every time. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

type SeedSite = { key: string; owner: number; sharedWith?: number[] } & Partial<Omit<StoredSite, 'sharedWith' | 'id' | 'user'>> & { name: string; server_type: string };

const { user: DEMO_ID, team: TEAM_ID, keyUser: KEY_ID } = DEMO_USER_IDS;

const SEED_SITES: SeedSite[] = [
  {
    key: 'acme', owner: DEMO_ID, name: 'Acme Corporate', server_type: 'FTP',
    domain: 'ftp.acme-corp.example', ftp_user: 'acmeweb', ftp_pass: 'Ftp-Pa55-acme', dir: '/public_html', port: '21',
    pasv: '1', encryption: '1', web_url: 'https://www.acme-corp.example/', db_username: 'acme_wp',
    db_password: 'Db-Pa55-acme', db_phpmyadmin: 'https://www.acme-corp.example/phpmyadmin/', check_out: '1',
    ac_wordpress: '1',
  },
  {
    key: 'bakery', owner: DEMO_ID, name: 'Bakery API', server_type: 'SFTP',
    domain: 'sftp.bakery.example', logon_type: 'key', ftp_user: 'deploy', dir: '/srv/bakery-api', port: '2222',
    web_url: 'https://api.bakery.example/', git_url: 'https://git.bakery.example/bakery/api.git', turbo: '1',
  },
  {
    key: 'portfolio', owner: DEMO_ID, name: 'Photo Portfolio', server_type: 'Dropbox',
    dir: '/Apps/Portfolio/site', web_url: 'https://portfolio.example.net/', port: '',
  },
  {
    key: 'marketing', owner: DEMO_ID, name: 'Marketing Drive', server_type: 'GDrive',
    dir: '/Marketing/Website', dir_id: '0AHk3mYq2cXkLUk9PVA', web_url: 'https://marketing.example.com/',
  },
  {
    key: 'landing', owner: DEMO_ID, name: 'Campaign Landing Pages', server_type: 'GDriveLimited',
    dir: '/Campaigns/2026', dir_id: '1q9Xz-landing-2026-Rt7', web_url: 'https://go.example.com/',
  },
  {
    key: 'docs', owner: DEMO_ID, name: 'Product Docs', server_type: 'WebDAV',
    domain: 'https://dav.docs.example.org', ftp_user: 'docs-editor', ftp_pass: 'Dav-Pa55-docs', port: '443',
    dir: '/remote.php/dav/files/docs-editor/site', encryption: '1', web_url: 'https://docs.example.org/',
    upload_on_save: '1',
  },
  {
    key: 'assets', owner: DEMO_ID, name: 'Static Assets (S3)', server_type: 'AmazonS3',
    domain: 's3.eu-west-1.amazonaws.com', ftp_user: 'AKIAEXAMPLEDEMO00001', ftp_pass: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    dir: 'example-assets-bucket/static', s3_public: '1', web_url: 'https://assets.example.com/', encryption: '1',
  },
  {
    key: 'sandbox', owner: DEMO_ID, name: 'Browser Sandbox', server_type: 'AJAX',
    domain: 'sandbox.example.dev', dir: '/', web_url: 'https://sandbox.example.dev/', ac_bootstrap: '1',
    stack: 'php8.3', container_id: 'c-7f3a9e21', status: 'running', status_key: 'c7f3a9e21-ok',
  },
  {
    key: 'scratch', owner: DEMO_ID, name: 'Scratchpad', server_type: 'None',
    dir: '', web_url: '', encoding: 'UTF-8', revisions: '0',
  },
  {
    key: 'team', owner: TEAM_ID, sharedWith: [DEMO_ID], name: 'Team Intranet', server_type: 'SFTP',
    domain: 'intranet.team.example', ftp_user: 'intranet', ftp_pass: 'Team-Sftp-Pa55', dir: '/var/www/intranet', port: '22',
    web_url: 'https://intranet.team.example/',
  },
  {
    key: 'keyshop', owner: KEY_ID, name: 'Key Account Shop', server_type: 'FTP',
    domain: 'ftp.keyshop.example', ftp_user: 'shop', ftp_pass: 'Shop-Ftp-Pa55', dir: '/htdocs', port: '21', pasv: '1',
    web_url: 'https://keyshop.example/', encoding: 'ISO-8859-1',
  },
];

/**
 * A small history for the API-key account's site, so that a suite can browse, open and restore
 * revisions while signed in with distinctive secrets (the hardening secrets suite). Its
 * revisions are numbered after all the others and drawn from their own PRNG, so the ids and
 * dates of the rest of the seed are the same as without it.
 */
const KEY_ACCOUNT_HISTORY: SeedHistory = {
  site: 'keyshop',
  authors: ['key@example.com', 'shop-admin@keyshop.example'],
  files: [
    {
      path: 'index.php',
      base: "<?php\n$shop = 'Key Account Shop';\necho \"<h1>$shop</h1>\";\n",
      steps: [
        [["echo \"<h1>$shop</h1>\";\n", "echo \"<h1>$shop</h1>\";\necho '<p>Open Monday to Friday.</p>';\n"]],
        [['Monday to Friday', 'Monday to Saturday']],
      ],
    },
    {
      path: 'catalog/products.json',
      base: '{\n  "products": [\n    { "sku": "K-1", "name": "Keyring" }\n  ]\n}\n',
      steps: [[['{ "sku": "K-1", "name": "Keyring" }', '{ "sku": "K-1", "name": "Keyring" },\n    { "sku": "K-2", "name": "Key cabinet" }']]],
    },
  ],
};

/** Applies the steps of a seed file; throws when a `find` text is missing (a seed bug). */
export function revisionTexts(file: SeedFile): string[] {
  const texts = [file.base];
  let text = file.base;
  file.steps.forEach((step, i) => {
    for (const [find, replace] of step) {
      const at = text.indexOf(find);
      if (at < 0) throw new Error(`seed: ${file.path} step ${i + 1}: text not found: ${JSON.stringify(find.slice(0, 60))}`);
      text = text.slice(0, at) + replace + text.slice(at + find.length);
    }
    texts.push(text);
  });
  return texts;
}

export function buildSeed(now = Date.now()): StoredData {
  const rand = prng(20260101);
  const users = [
    newUser(DEMO_ID, DEMO.user.email, DEMO.user.password),
    newUser(TEAM_ID, DEMO.team.email, DEMO.team.password),
    newUser(KEY_ID, DEMO.keyUser.email, DEMO.keyUser.password, DEMO.keyUser.apiKey),
  ];

  const sites: StoredSite[] = [];
  const idOf = new Map<string, number>();
  SEED_SITES.forEach((s, i) => {
    const id = i + 1;
    const { key, owner, sharedWith, ...fields } = s;
    const site = siteDefaults(id, owner, s.server_type);
    Object.assign(site, fields);
    site.sharedWith = sharedWith ?? [];
    sites.push(site);
    idOf.set(key, id);
  });

  // Revisions: dates spread over the ~6 months before `now`; ids follow the dates (those of the
  // key account come after all the others).
  type Pending = { siteId: number; file: StoredFile; rev: StoredRevision; at: number };
  const files: Record<string, StoredFile[]> = {};
  const addHistories = (histories: SeedHistory[], rand: () => number): Pending[] => {
    const pending: Pending[] = [];
    for (const history of histories) {
      const siteId = idOf.get(history.site);
      if (siteId === undefined) throw new Error(`seed: unknown site ${history.site}`);
      const list: StoredFile[] = (files[String(siteId)] = []);
      for (const seedFile of history.files) {
        const texts = revisionTexts(seedFile);
        const file: StoredFile = { path: seedFile.path, revisions: [] };
        list.push(file);
        const span = (100 + rand() * 80) * DAY;
        let at = now - span;
        const gap = span / (texts.length + 1);
        for (const content of texts) {
          at = Math.round(at + gap * (0.4 + rand() * 0.6));
          const author = history.authors[Math.floor(rand() * history.authors.length)];
          const rev: StoredRevision = { id: '', date: formatDate(at), author, content };
          file.revisions.push(rev);
          pending.push({ siteId, file, rev, at });
        }
      }
    }
    return pending.sort((a, b) => a.at - b.at);
  };
  let nextRevisionId = 1001;
  for (const p of addHistories(SEED_HISTORIES, rand)) p.rev.id = String(nextRevisionId++);
  for (const p of addHistories([KEY_ACCOUNT_HISTORY], prng(20260303))) p.rev.id = String(nextRevisionId++);
  // The History Search / Site Changes demo (seed-search.ts): exact dates relative to `now`, ids
  // after all the others so the ids above stay as they were.
  for (const r of searchDemoRevisions(now).sort((a, b) => a.at - b.at)) {
    const id = idOf.get(r.site);
    if (id === undefined) throw new Error(`seed: unknown site ${r.site}`);
    const siteId = String(id);
    const list = (files[siteId] ??= []);
    let file = list.find((f) => f.path === r.path);
    if (!file) list.push((file = { path: r.path, revisions: [] }));
    file.revisions.push({ id: String(nextRevisionId++), date: formatDate(r.at), author: r.author, content: r.content });
  }

  return {
    format: 'site-revisions-local-service',
    version: 1,
    seededAt: new Date(now).toISOString(),
    nextSiteId: sites.length + 1,
    nextRevisionId,
    users,
    sites,
    files,
  };
}
