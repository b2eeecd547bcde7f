'use strict';
// stage.js VERSION EXTENSION OUTDIR: lays out the npm package in OUTDIR for
// `npm pack` (make npm-pack).  Not shipped.
//
// The source package.json carries no version: VERSION is stamped here from
// SQLITE_QUANT_VERSION (include/sqlite_quant.h, read by the Makefile), the
// version's one source.  The package carries one build of the extension, for
// this host, so os, cpu and (on Linux) libc are stamped too: npm refuses to
// install it anywhere else instead of failing at load time.

const fs = require('node:fs');
const path = require('node:path');

const [version, extension, outdir] = process.argv.slice(2);
if (!outdir) {
  console.error('usage: node stage.js VERSION EXTENSION OUTDIR');
  process.exit(2);
}
if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
  console.error(`stage.js: VERSION must be a semantic version, got '${version}'`);
  process.exit(2);
}

const here = __dirname;
const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
if ('version' in pkg) {
  console.error('stage.js: bindings/node/package.json must carry no version (it is stamped ' +
    `from include/sqlite_quant.h), got '${pkg.version}'`);
  process.exit(2);
}
const suffix = { darwin: 'dylib', win32: 'dll' }[process.platform] || 'so';
const bundled = `quant.${suffix}`;

// Key order as npm writes it: name, version, then the rest.
const staged = { name: pkg.name, version, ...pkg };
staged.files = pkg.files.map((f) => (/^quant\.(so|dylib|dll)$/.test(f) ? bundled : f));
staged.os = [process.platform];
staged.cpu = [process.arch];
if (process.platform === 'linux') {
  const glibc = process.report.getReport().header.glibcVersionRuntime;
  staged.libc = [glibc ? 'glibc' : 'musl'];
}

fs.rmSync(outdir, { recursive: true, force: true });
fs.mkdirSync(outdir, { recursive: true });
for (const f of staged.files) {
  const from = f === bundled ? extension : path.join(here, f);
  fs.copyFileSync(from, path.join(outdir, f));
}
fs.copyFileSync(path.join(here, 'README.md'), path.join(outdir, 'README.md'));
fs.copyFileSync(path.join(here, '..', '..', 'LICENSE'), path.join(outdir, 'LICENSE'));
fs.writeFileSync(path.join(outdir, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);
