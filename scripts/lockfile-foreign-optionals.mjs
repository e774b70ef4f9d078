#!/usr/bin/env node
// Run after `npm install` changes package-lock.json.
//
// The npm registry mirror this project builds against serves only some platforms'
// binary packages (e.g. @biomejs/cli-darwin-arm64 answers 404), so `npm install`
// leaves those optional dependencies out of the lockfile, and `npm ci` then refuses
// the lockfile as out of sync. This adds each missing platform-specific optional
// dependency as an entry with its os/cpu/libc (read from its name), which `npm ci`
// accepts and skips on every platform it does not match, without fetching it.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const OS = [
  'darwin',
  'win32',
  'android',
  'freebsd',
  'openbsd',
  'netbsd',
  'sunos',
  'aix',
  'openharmony',
  'linux',
];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = OS.find((o) => parts.includes(o));
  let cpu = CPU.find((c) => parts.includes(c));
  if (!cpu && parts.some((p) => p.startsWith('arm'))) cpu = 'arm';
  if (!os || !cpu) return undefined;
  const libc =
    os === 'linux' ? (parts.some((p) => p.startsWith('musl')) ? 'musl' : 'glibc') : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) };
}

let added = 0;
for (const [, entry] of Object.entries(packages)) {
  for (const [dep, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (packages[key]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(spec)) continue;
    packages[key] = { version: spec, optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform-specific optional entries`);
