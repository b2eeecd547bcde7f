// types_test.mts: bindings/node/index.d.ts as a TypeScript user meets it.
// tests/node/run.sh (make test-node) compiles it with tsc --strict --noEmit
// inside the throwaway project where the tarball is installed: every line
// must type-check, and each @ts-expect-error line must be an error (tsc
// reports an expected error that does not happen).
import { load, getLoadablePath, entryPoint, nofsEntryPoint, version, toBlob, fromBlob } from 'sqlite-quant';
import type { LoadableDatabase, LoadOptions, BlobDtype } from 'sqlite-quant';

// better-sqlite3's Database has this method; load() needs no more of it.
const db: LoadableDatabase = { loadExtension: (_path: string, _entry?: string) => undefined };
load(db);
// @ts-expect-error a file name is not a database
load('main.db');
load(db, { allowFiles: false });
const options: LoadOptions = {};
load(db, options);
// @ts-expect-error allowFiles is a boolean
load(db, { allowFiles: 'no' });
const nofsEntry: 'sqlite3_quant_nofs_init' = nofsEntryPoint;

const path: string = getLoadablePath();
const entry: 'sqlite3_quant_init' = entryPoint;
const v: string = version;

const blob: Buffer = toBlob(new Float32Array(4));
toBlob(new Float64Array(4), { allowFloat64: true });
toBlob([0.5, 1], { allowFloat64: true });
// @ts-expect-error a Float64Array is rounded only when asked
toBlob(new Float64Array(4));
// @ts-expect-error so is an array of numbers
toBlob([0.5, 1]);
// @ts-expect-error integer arrays are not tensors
toBlob(new Int8Array(4));

const x: Float32Array = fromBlob(blob);
const x2: Float32Array = fromBlob(blob, 'f32');
const zps: Int32Array = fromBlob(blob, 'int32');
const i16: Int16Array = fromBlob(blob, 'int16');
const u16: Uint16Array = fromBlob(blob, 'uint16');
const i8: Int8Array = fromBlob(blob, 'int8');
const u8: Uint8Array = fromBlob(blob, 'uint8');
const i4: Int8Array = fromBlob(blob, 'int4', 7);
const u4: Uint8Array = fromBlob(blob, 'uint4', 7);
const i2: Int8Array = fromBlob(blob, 'int2', 7);
const u2: Uint8Array = fromBlob(blob, 'uint2', 7);
const f8: Float32Array = fromBlob(blob, 'f8_e4m3fnuz');
const dtype = 'uint4' as BlobDtype;   // a dtype known only at run time
const some: Float32Array | Int32Array | Int16Array | Uint16Array | Int8Array | Uint8Array =
  fromBlob(blob, dtype, 7);
// @ts-expect-error which array it is depends on the dtype
const notKnown: Uint8Array = fromBlob(blob, dtype, 7);
// @ts-expect-error int4 codes are signed
const wrong: Uint8Array = fromBlob(blob, 'int4');
// @ts-expect-error f16 is not read by fromBlob
fromBlob(blob, 'f16');

export const used = [path, entry, nofsEntry, v, x, x2, zps, i16, u16, i8, u8, i4, u4, some, notKnown, wrong];
