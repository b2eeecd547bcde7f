'use strict';
// sqlite-quant for Node: the extension this package carries, loaded into a
// better-sqlite3 connection, and the typed-array helpers of tensors.js.

const fs = require('node:fs');
const path = require('node:path');
const { toBlob, fromBlob } = require('./tensors.js');

// SQLite derives an entry point from the file name (quant.so ->
// sqlite3_quant_init); naming it keeps a renamed or relocated file loadable.
const entryPoint = 'sqlite3_quant_init';
const SUFFIX = { darwin: 'dylib', win32: 'dll' }[process.platform] || 'so';

// The version of the extension inside (q_version() returns the same).
const { version } = require('./package.json');

// The absolute path of the bundled extension, for db.loadExtension, the
// sqlite3 shell's .load, or any other SQLite host.
function getLoadablePath() {
  const file = path.join(__dirname, `quant.${SUFFIX}`);
  if (!fs.existsSync(file)) {
    throw new Error(`getLoadablePath: this package carries no extension for ` +
      `${process.platform}-${process.arch} (no file ${file})`);
  }
  return file;
}

// Loads the extension into a better-sqlite3 Database (12.x: extension
// loading is enabled on every connection it opens).
function load(db) {
  if (db === null || typeof db !== 'object' || typeof db.loadExtension !== 'function') {
    const got = db === null ? 'null'
      : typeof db !== 'object' ? typeof db
      : (db.constructor && db.constructor.name) || 'Object';
    throw new TypeError(`load: db must be a better-sqlite3 Database, got ${got}`);
  }
  db.loadExtension(getLoadablePath(), entryPoint);
}

module.exports = { load, getLoadablePath, entryPoint, version, toBlob, fromBlob };
