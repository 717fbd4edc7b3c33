#!/usr/bin/env node
/**
 * Adds lockfile entries for platform-specific optional binaries that npm left out.
 *
 * Why: npm records only the optional platform packages it could resolve. Where the registry does
 * not serve the other platforms' binaries (as on this project's build machines), they are missing
 * from package-lock.json and `npm ci` then refuses the lockfile as out of sync. The entries added
 * here carry os/cpu, so npm skips them on every other platform without fetching anything.
 * Run after `npm install` changes the lockfile: node scripts/lockfile-platforms.mjs
 */
import { readFileSync, writeFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const OS = ['android', 'darwin', 'freebsd', 'linux', 'win32', 'openharmony', 'netbsd', 'openbsd', 'sunos', 'aix'];
const CPU = { arm64: 'arm64', x64: 'x64', arm: 'arm', ia32: 'ia32', ppc64: 'ppc64', s390x: 's390x', riscv64: 'riscv64', loong64: 'loong64', wasm32: 'wasm32' };

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => p in CPU);
  const libc = parts.some((p) => p === 'musl') ? 'musl' : parts.some((p) => p === 'gnu' || p === 'gnueabihf') ? 'glibc' : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (lock.packages[key] || lock.packages[`${path}/node_modules/${dep}`]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os && cpu !== 'wasm32') continue; // not a platform binary: leave it to npm
    lock.packages[key] = {
      version: version.replace(/^[\^~=]/, ''),
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc: [libc] } : {}),
      optional: true,
      ...(os ? { os: [os] } : {}),
      ...(cpu === 'wasm32' ? { cpu: ['wasm32'] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync('package-lock.json', `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform entries`);
