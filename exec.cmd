@rem npm runs package.json scripts with cmd.exe on Windows, which has no `exec`. cmd.exe looks for a
@rem command in the current folder (npm's is this one) before PATH, so `exec node scripts/task.mjs ...`
@rem (npm start, npm run service) runs here: it runs the rest of its line, as exec would in sh.
@%*
