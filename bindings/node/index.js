'use strict';
// sqlite-quant for Node: the extension this package carries, loaded into a
// better-sqlite3 connection, and the typed-array helpers of tensors.js.

const fs = require('node:fs');
const path = require('node:path');
const { toBlob, fromBlob } = require('./tensors.js');

// SQLite derives an entry point from the file name (quant.so ->
// sqlite3_quant_init); naming it keeps a renamed or relocated file loadable.
const entryPoint = 'sqlite3_quant_init';
// The same library's entry point without the functions and tables that open
// files by path (q_tensors_file, q_tensor_metadata_file, the file writers),
// for connections whose SQL comes from people who must not reach the host's
// files.
const nofsEntryPoint = 'sqlite3_quant_nofs_init';
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

// The name of a value's type, for errors.
function typeName(v) {
  return v === null ? 'null'
    : typeof v !== 'object' ? typeof v
    : (v.constructor && v.constructor.name) || 'Object';
}

// Loads the extension into a better-sqlite3 Database (12.x: extension
// loading is enabled on every connection it opens).  { allowFiles: false }
// loads nofsEntryPoint instead: the functions that open paths are then
// SQLite's own "no such function" / "no such table".
function load(db, options = {}) {
  if (db === null || typeof db !== 'object' || typeof db.loadExtension !== 'function') {
    throw new TypeError(`load: db must be a better-sqlite3 Database, got ${typeName(db)}`);
  }
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`load: options must be an object, got ${typeName(options)}`);
  }
  const { allowFiles = true } = options;
  if (typeof allowFiles !== 'boolean') {
    throw new TypeError(`load: options.allowFiles must be true or false, got ${typeName(allowFiles)}`);
  }
  db.loadExtension(getLoadablePath(), allowFiles ? entryPoint : nofsEntryPoint);
}

module.exports = { load, getLoadablePath, entryPoint, nofsEntryPoint, version, toBlob, fromBlob };
