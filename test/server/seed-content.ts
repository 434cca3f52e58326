// Content of the seeded revision history. Each file starts from `base`; every step is one later
// revision, made of exact-text replacements applied to the previous revision (so diffs between
// neighbouring revisions are small and meaningful). seed.ts checks every `find` exists.

/** Raw template: backslashes stay as written (PHP "\n", regexes); \` and \${ give ` and ${. */
function t(strings: TemplateStringsArray, ...values: unknown[]): string {
  return String.raw(strings, ...values).replace(/\\`/g, '`').replace(/\\\$\{/g, '${');
}

export type Replacement = [find: string, replace: string];

export interface SeedFile {
  path: string;
  base: string;
  /** One entry per later revision. */
  steps: Replacement[][];
}

export interface SeedHistory {
  /** Key of the seeded site (see seed.ts). */
  site: string;
  authors: string[];
  files: SeedFile[];
}

// ---------------------------------------------------------------------------------------------
// Acme Corporate (FTP, PHP site)

const acmeIndex: SeedFile = {
  path: 'index.php',
  base: t`<?php
require __DIR__ . '/includes/db.php';

$title = 'Acme Corporation';
$page = $_GET['page'] ?? 'home';

include __DIR__ . '/templates/header.php';
?>
<main>
  <h1><?= htmlspecialchars($title) ?></h1>
  <p>Welcome to Acme Corporation. We make everything.</p>
</main>
<?php include __DIR__ . '/templates/footer.php'; ?>
`,
  steps: [
    [[t`$page = $_GET['page'] ?? 'home';
`, t`$allowed = ['home', 'about', 'contact'];
$page = $_GET['page'] ?? 'home';
if (!in_array($page, $allowed, true)) {
    $page = 'home';
}
`]],
    [[t`  <p>Welcome to Acme Corporation. We make everything.</p>
`, t`  <p>Welcome to Acme Corporation — quality products since 1949.</p>
  <?php include __DIR__ . "/pages/{$page}.php"; ?>
`]],
    [
      [t`$title = 'Acme Corporation';
`, ''],
      [t`['home', 'about', 'contact']`, t`['home', 'about', 'contact', 'news']`],
      [t`    $page = 'home';
}
`, t`    $page = 'home';
}
$title = 'Acme Corporation | ' . ucfirst($page);
`],
    ],
    [[t`<?php
require __DIR__ . '/includes/db.php';
`, t`<?php
declare(strict_types=1);

require __DIR__ . '/includes/db.php';
header('Cache-Control: public, max-age=300');
`]],
  ],
};

const acmeDb: SeedFile = {
  path: 'includes/db.php',
  base: t`<?php
function db(): PDO
{
    static $pdo = null;
    if ($pdo === null) {
        $pdo = new PDO('mysql:host=localhost;dbname=acme', 'acme_web', getenv('ACME_DB_PASS'));
    }
    return $pdo;
}
`,
  steps: [
    [[t`getenv('ACME_DB_PASS'));`, t`getenv('ACME_DB_PASS'), [
            PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION,
        ]);`]],
    [[t`dbname=acme'`, t`dbname=acme;charset=utf8mb4'`]],
    [[t`    return $pdo;
}
`, t`    return $pdo;
}

function fetch_all(string $sql, array $params = []): array
{
    $stmt = db()->prepare($sql);
    $stmt->execute($params);
    return $stmt->fetchAll(PDO::FETCH_ASSOC);
}
`]],
  ],
};

const acmeCss: SeedFile = {
  path: 'css/site.css',
  base: t`body {
  margin: 0;
  font-family: Georgia, serif;
  color: #222;
}

header {
  background: #003366;
  color: #fff;
  padding: 1rem;
}

main {
  max-width: 960px;
  margin: 0 auto;
}
`,
  steps: [
    [[t`font-family: Georgia, serif;`, t`font-family: "Helvetica Neue", Arial, sans-serif;`]],
    [[t`  background: #003366;`, t`  background: #0b3d91;`]],
    [[t`  margin: 0 auto;
}
`, t`  margin: 0 auto;
}

footer {
  font-size: 0.875rem;
  color: #666;
  text-align: center;
}
`]],
    [
      [t`body {
  margin: 0;`, t`:root {
  --brand: #0b3d91;
  --text: #222;
}

body {
  margin: 0;`],
      [t`  color: #222;
}`, t`  color: var(--text);
}`],
      [t`background: #0b3d91;`, t`background: var(--brand);`],
    ],
    [[t`  max-width: 960px;
`, t`  max-width: 1140px;
  padding: 0 1rem;
`]],
    [[t`  text-align: center;
}
`, t`  text-align: center;
}

@media (max-width: 600px) {
  header {
    padding: 0.5rem;
  }
}
`]],
    [[t`  --text: #222;
}
`, t`  --text: #222;
}

@media (prefers-color-scheme: dark) {
  :root {
    --text: #eee;
  }
  body {
    background: #111;
  }
}
`]],
  ],
};

const acmeJs: SeedFile = {
  path: 'js/app.js',
  base: t`document.addEventListener('DOMContentLoaded', function () {
  var menu = document.getElementById('menu');
  var toggle = document.getElementById('menu-toggle');
  toggle.addEventListener('click', function () {
    menu.classList.toggle('open');
  });
});
`,
  steps: [
    [[t`  var menu = `, t`  const menu = `], [t`  var toggle = `, t`  const toggle = `]],
    [[t`  toggle.addEventListener('click', function () {
    menu.classList.toggle('open');
  });
`, t`  toggle.addEventListener('click', () => {
    const open = menu.classList.toggle('open');
    toggle.setAttribute('aria-expanded', String(open));
  });
`]],
    [[t`  const toggle = document.getElementById('menu-toggle');
`, t`  const toggle = document.getElementById('menu-toggle');
  if (!menu || !toggle) {
    return;
  }
`]],
    [[t`  if (!menu || !toggle) {
`, t`  const year = document.querySelector('[data-year]');
  if (year) {
    year.textContent = String(new Date().getFullYear());
  }
  if (!menu || !toggle) {
`]],
  ],
};

const acmeBase: SeedFile = {
  path: 'templates/base.html',
  base: t`<!DOCTYPE html>
<html>
<head>
  <title>{{ title }}</title>
  <link rel="stylesheet" href="/css/site.css">
</head>
<body>
  <header>Acme Corporation</header>
  <main>{{ content }}</main>
</body>
</html>
`,
  steps: [
    [
      [t`<html>`, t`<html lang="en">`],
      [t`<head>
`, t`<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
`],
    ],
    [[t`  <main>{{ content }}</main>
`, t`  <main>{{ content }}</main>
  <footer>&copy; <span data-year></span> Acme Corporation</footer>
  <script src="/js/app.js" defer></script>
`]],
    [[t`  <header>Acme Corporation</header>`, t`  <header>
    <a href="/" class="logo">Acme Corporation</a>
    <button id="menu-toggle" aria-expanded="false">Menu</button>
    <nav id="menu">
      <a href="/?page=about">About</a>
      <a href="/?page=contact">Contact</a>
    </nav>
  </header>`]],
  ],
};

const acmeSettings: SeedFile = {
  path: 'config/settings.json',
  base: t`{
  "site_name": "Acme Corporation",
  "debug": true,
  "cache_ttl": 60
}
`,
  steps: [
    [[t`"debug": true`, t`"debug": false`]],
    [[t`"cache_ttl": 60`, t`"cache_ttl": 300,
  "mail": {
    "from": "noreply@acme-corp.example",
    "smtp_host": "smtp.acme-corp.example"
  }`]],
    [[t`"site_name": "Acme Corporation",`, t`"site_name": "Acme Corporation",
  "locale": "en_US",
  "timezone": "America/Chicago",`]],
  ],
};

const acmeReadme: SeedFile = {
  path: 'README.md',
  base: t`# Acme Corporation website

PHP site served from \`/public_html\`.

## Deploy

Upload changed files over FTP.
`,
  steps: [
    [[t`Upload changed files over FTP.`, t`Upload changed files over FTPS (explicit TLS, passive mode).`]],
    [[t`(explicit TLS, passive mode).
`, t`(explicit TLS, passive mode).

## Layout

- \`index.php\` – front controller
- \`includes/\` – database helpers
- \`templates/\` – page layout
- \`css/\`, \`js/\` – assets
`]],
  ],
};

const acmeHello: SeedFile = {
  path: 'blog/posts/2026/hello.md',
  base: t`---
title: Hello, 2026
date: 2026-01-05
---

We are starting the year with a new website.
`,
  steps: [
    [[t`We are starting the year with a new website.`, t`We are starting the year with a brand-new website, faster and easier to use.`]],
    [[t`faster and easier to use.
`, t`faster and easier to use.

What's new:

- a cleaner layout
- a dark mode
- a news section
`]],
    [[t`title: Hello, 2026
`, t`title: Hello, 2026 👋
author: Marketing team
`]],
  ],
};

const acmeUsers: SeedFile = {
  path: 'admin/pages/users/list.php',
  base: t`<?php
require __DIR__ . '/../../../includes/db.php';

$users = fetch_all('SELECT id, email FROM users ORDER BY id');
foreach ($users as $user) {
    echo $user['id'] . ' ' . $user['email'] . "<br>\n";
}
`,
  steps: [
    [
      [t`foreach ($users as $user) {
    echo $user['id'] . ' ' . $user['email'] . "<br>\n";
}
`, t`echo "<ul>\n";
foreach ($users as $user) {
    printf("<li>%d – %s</li>\n", $user['id'], htmlspecialchars($user['email']));
}
echo "</ul>\n";
`],
    ],
    [
      [t`$users = fetch_all('SELECT id, email FROM users ORDER BY id');`, t`$limit = min(100, max(1, (int) ($_GET['limit'] ?? 25)));
$users = fetch_all('SELECT id, email FROM users ORDER BY id LIMIT ?', [$limit]);`],
    ],
  ],
};

// ---------------------------------------------------------------------------------------------
// Bakery API (SFTP, Python service)

const bakeryApp: SeedFile = {
  path: 'api/app.py',
  base: t`from flask import Flask

from api.handlers import users

app = Flask(__name__)
app.register_blueprint(users.bp, url_prefix="/users")


@app.get("/health")
def health():
    return {"status": "ok"}
`,
  steps: [
    [
      [t`from api.handlers import users`, t`from api.handlers import orders, users`],
      [t`app.register_blueprint(users.bp, url_prefix="/users")`, t`app.register_blueprint(users.bp, url_prefix="/users")
app.register_blueprint(orders.bp, url_prefix="/orders")`],
    ],
    [
      [t`from flask import Flask`, t`import json

from flask import Flask`],
      [t`app = Flask(__name__)`, t`app = Flask(__name__)
app.config.from_file("../config/settings.json", load=json.load)`],
    ],
    [[t`return {"status": "ok"}`, t`return {"status": "ok", "version": app.config.get("VERSION", "dev")}`]],
    [[t`app.config.get("VERSION", "dev")}
`, t`app.config.get("VERSION", "dev")}


@app.errorhandler(404)
def not_found(_error):
    return {"error": "not found"}, 404
`]],
  ],
};

const bakeryUsers: SeedFile = {
  path: 'api/handlers/users.py',
  base: t`from flask import Blueprint, jsonify

bp = Blueprint("users", __name__)

USERS = {1: {"id": 1, "name": "Ada"}, 2: {"id": 2, "name": "Grace"}}


@bp.get("/")
def list_users():
    return jsonify(list(USERS.values()))


@bp.get("/<int:user_id>")
def get_user(user_id):
    return jsonify(USERS[user_id])
`,
  steps: [
    [[t`    return jsonify(USERS[user_id])
`, t`    user = USERS.get(user_id)
    if user is None:
        return jsonify(error="user not found"), 404
    return jsonify(user)
`]],
    [
      [t`from flask import Blueprint, jsonify`, t`from flask import Blueprint, jsonify, request`],
      [t`    return jsonify(user)
`, t`    return jsonify(user)


@bp.post("/")
def create_user():
    data = request.get_json(force=True)
    user_id = max(USERS) + 1
    USERS[user_id] = {"id": user_id, "name": data["name"]}
    return jsonify(USERS[user_id]), 201
`],
    ],
    [
      [t`    data = request.get_json(force=True)
`, t`    data = request.get_json(force=True)
    name = (data or {}).get("name", "").strip()
    if not name:
        return jsonify(error="name is required"), 400
`],
      [t`{"id": user_id, "name": data["name"]}`, t`{"id": user_id, "name": name}`],
    ],
    [[t`def list_users():
    return jsonify(list(USERS.values()))`, t`def list_users():
    limit = request.args.get("limit", default=50, type=int)
    return jsonify(list(USERS.values())[:limit])`]],
    [
      [t`def get_user(user_id):`, t`def get_user(user_id: int):`],
      [t`USERS = {1: {"id": 1, "name": "Ada"}, `, t`USERS = {
    1: {"id": 1, "name": "Ada"},
    `],
      [t`2: {"id": 2, "name": "Grace"}}`, t`2: {"id": 2, "name": "Grace"},
    3: {"id": 3, "name": "Zoë"},
}`],
    ],
  ],
};

const bakeryOrders: SeedFile = {
  path: 'api/handlers/orders.py',
  base: t`from flask import Blueprint, jsonify

bp = Blueprint("orders", __name__)

ORDERS = []


@bp.get("/")
def list_orders():
    return jsonify(ORDERS)
`,
  steps: [
    [
      [t`from flask import Blueprint, jsonify`, t`from flask import Blueprint, jsonify, request`],
      [t`    return jsonify(ORDERS)
`, t`    return jsonify(ORDERS)


@bp.post("/")
def create_order():
    order = request.get_json(force=True)
    ORDERS.append(order)
    return jsonify(order), 201
`],
    ],
    [[t`    ORDERS.append(order)
`, t`    order["id"] = len(ORDERS) + 1
    ORDERS.append(order)
`]],
    [[t`    order["id"] = len(ORDERS) + 1
`, t`    order["id"] = len(ORDERS) + 1
    order["total"] = round(sum(i["price"] * i["qty"] for i in order.get("items", [])), 2)
`]],
  ],
};

const bakeryRequirements: SeedFile = {
  path: 'requirements.txt',
  base: t`flask==3.0.0
gunicorn==21.2.0
`,
  steps: [
    [[t`flask==3.0.0`, t`flask==3.0.3`]],
    [[t`gunicorn==21.2.0
`, t`gunicorn==22.0.0
python-dotenv==1.0.1
`]],
  ],
};

const bakerySettings: SeedFile = {
  path: 'config/settings.json',
  base: t`{
  "VERSION": "1.0.0",
  "JSON_SORT_KEYS": false
}
`,
  steps: [
    [[t`"VERSION": "1.0.0"`, t`"VERSION": "1.1.0"`]],
    [
      [t`"VERSION": "1.1.0"`, t`"VERSION": "1.2.0"`],
      [t`"JSON_SORT_KEYS": false`, t`"JSON_SORT_KEYS": false,
  "MAX_CONTENT_LENGTH": 1048576`],
    ],
  ],
};

const bakeryTests: SeedFile = {
  path: 'tests/unit/test_users.py',
  base: t`from api.app import app


def test_list_users():
    client = app.test_client()
    response = client.get("/users/")
    assert response.status_code == 200
`,
  steps: [
    [[t`    assert response.status_code == 200
`, t`    assert response.status_code == 200


def test_get_missing_user():
    client = app.test_client()
    response = client.get("/users/999")
    assert response.status_code == 404
`]],
    [
      [t`from api.app import app
`, t`import pytest

from api.app import app


@pytest.fixture
def client():
    return app.test_client()
`],
      [t`def test_list_users():
    client = app.test_client()
`, t`def test_list_users(client):
`],
      [t`def test_get_missing_user():
    client = app.test_client()
`, t`def test_get_missing_user(client):
`],
    ],
    [[t`    assert response.status_code == 404
`, t`    assert response.status_code == 404


def test_create_user_requires_name(client):
    response = client.post("/users/", json={"name": "  "})
    assert response.status_code == 400
`]],
  ],
};

// ---------------------------------------------------------------------------------------------
// Product Docs (WebDAV, static documentation)

const docsIndex: SeedFile = {
  path: 'index.html',
  base: t`<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Product Docs</title>
  <link rel="stylesheet" href="assets/css/main.css">
</head>
<body>
  <h1>Product Docs</h1>
  <ul>
    <li><a href="guide/getting-started/install.html">Installation</a></li>
  </ul>
</body>
</html>
`,
  steps: [
    [
      [t`  <h1>Product Docs</h1>
`, t`  <h1>Product Docs</h1>
  <input type="search" id="search" placeholder="Search the docs…">
`],
      [t`</body>`, t`  <script src="assets/js/search.js"></script>
</body>`],
    ],
    [[t`    <li><a href="guide/getting-started/install.html">Installation</a></li>
`, t`    <li><a href="guide/getting-started/install.html">Installation</a></li>
    <li><a href="guide/getting-started/configure.html">Configuration</a></li>
    <li><a href="guide/faq.html">FAQ</a></li>
`]],
    [[t`<title>Product Docs</title>`, t`<title>Product Docs · v2</title>`]],
  ],
};

const docsCss: SeedFile = {
  path: 'assets/css/main.css',
  base: t`body {
  font: 16px/1.6 system-ui, sans-serif;
  margin: 2rem auto;
  max-width: 42rem;
}

code {
  background: #f4f4f4;
}
`,
  steps: [
    [[t`  background: #f4f4f4;
`, t`  background: #f4f4f4;
  padding: 0 0.25em;
  border-radius: 3px;
`]],
    [[t`  border-radius: 3px;
}
`, t`  border-radius: 3px;
}

#search {
  width: 100%;
  padding: 0.5rem;
}
`]],
  ],
};

const docsSearch: SeedFile = {
  path: 'assets/js/search.js',
  base: t`const input = document.getElementById('search');
const links = Array.from(document.querySelectorAll('ul a'));

input.addEventListener('input', () => {
  const q = input.value.toLowerCase();
  for (const link of links) {
    link.parentElement.hidden = !link.textContent.toLowerCase().includes(q);
  }
});
`,
  steps: [
    [[t`const q = input.value.toLowerCase();`, t`const q = input.value.trim().toLowerCase();`]],
    [
      [t`input.addEventListener('input', () => {
`, t`let timer;
input.addEventListener('input', () => {
  clearTimeout(timer);
  timer = setTimeout(filter, 150);
});

function filter() {
`],
      [t`  }
});
`, t`  }
}
`],
    ],
    [[t`.includes(q);
  }
}
`, t`.includes(q);
  }
}

input.addEventListener('keydown', (event) => {
  if (event.key === 'Escape') {
    input.value = '';
    filter();
  }
});
`]],
  ],
};

const docsInstall: SeedFile = {
  path: 'guide/getting-started/install.md',
  base: t`# Installation

Download the installer from the website and run it.

## Requirements

- Windows 10 or later
`,
  steps: [
    [[t`- Windows 10 or later
`, t`- Windows 10 or later
- macOS 12 or later
`]],
    [[t`Download the installer from the website and run it.`, t`Download the installer from the [downloads page](https://docs.example.org/download) and run it.

On Linux, use the package manager:

~~~sh
sudo apt install product
~~~`]],
    [[t`- macOS 12 or later
`, t`- macOS 12 or later
- Ubuntu 22.04 or later
- 4 GB of RAM
`]],
    [[t`- 4 GB of RAM
`, t`- 4 GB of RAM

## Troubleshooting

If the installer stops with \`error 1603\`, restart and try again.
`]],
  ],
};

const docsReadme: SeedFile = {
  path: 'README.md',
  base: t`# Product documentation

Static HTML and Markdown, published over WebDAV.
`,
  steps: [
    [[t`published over WebDAV.
`, t`published over WebDAV.

Edit the Markdown in \`guide/\`, then upload.
`]],
    [[t`published over WebDAV.`, t`published over WebDAV (HTTPS, port 443).`]],
  ],
};

// ---------------------------------------------------------------------------------------------
// Team Intranet (owned by the team account, shared with the demo user)

const teamIndex: SeedFile = {
  path: 'index.html',
  base: t`<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Team Intranet</title>
</head>
<body>
  <h1>Team Intranet</h1>
  <p>Lunch menu and on-call rota.</p>
</body>
</html>
`,
  steps: [
    [[t`<p>Lunch menu and on-call rota.</p>`, t`<p>Lunch menu, on-call rota and the <a href="notes/2026/q1/plan.html">Q1 plan</a>.</p>`]],
    [[t`</body>`, t`  <p>Questions? Write to it-help@team.example.</p>
</body>`]],
  ],
};

const teamPlan: SeedFile = {
  path: 'notes/2026/q1/plan.md',
  base: t`# Q1 plan

1. Migrate the intranet to SFTP.
2. Review backups.
`,
  steps: [
    [[t`2. Review backups.
`, t`2. Review backups.
3. Rotate the shared passwords.
`]],
    [[t`1. Migrate the intranet to SFTP.`, t`1. ~~Migrate the intranet to SFTP.~~ Done in January.`]],
    [[t`3. Rotate the shared passwords.
`, t`3. Rotate the shared passwords.

Owner: Jürgen (IT), deputy: Søren.
`]],
  ],
};

/** Storage order of each site's files is deliberately not sorted. */
export const SEED_HISTORIES: SeedHistory[] = [
  {
    site: 'acme',
    authors: ['demo@example.com', 'maria@acme-corp.example', 'dev@agency.example'],
    files: [acmeIndex, acmeDb, acmeCss, acmeJs, acmeBase, acmeSettings, acmeReadme, acmeHello, acmeUsers],
  },
  {
    site: 'bakery',
    authors: ['demo@example.com', 'sam@bakery.example', 'ci@bakery.example'],
    files: [bakeryApp, bakeryUsers, bakeryOrders, bakeryRequirements, bakerySettings, bakeryTests],
  },
  {
    site: 'docs',
    authors: ['demo@example.com', 'writer@docs.example'],
    files: [docsIndex, docsCss, docsSearch, docsInstall, docsReadme],
  },
  {
    site: 'team',
    authors: ['team@example.com', 'demo@example.com'],
    files: [teamIndex, teamPlan],
  },
];
