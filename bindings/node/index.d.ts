// Types of sqlite-quant's Node package (index.js, tensors.js).

/** The subset of a better-sqlite3 Database that load() uses. */
export interface LoadableDatabase {
  loadExtension(path: string, entryPoint?: string): unknown;
}

/** The extension's entry point, 'sqlite3_quant_init'. */
export const entryPoint: 'sqlite3_quant_init';

/** The entry point without the functions and tables that open files by path. */
export const nofsEntryPoint: 'sqlite3_quant_nofs_init';

/** The package's version, which is also the extension's q_version(). */
export const version: string;

/** Absolute path of the extension this package carries; throws when there is none. */
export function getLoadablePath(): string;

export interface LoadOptions {
  /**
   * false loads nofsEntryPoint: no function or table that opens a file by
   * path (for connections whose SQL comes from people who must not reach
   * the host's files). Default true.
   */
  allowFiles?: boolean;
}

/** Loads the extension into a better-sqlite3 Database. */
export function load(db: LoadableDatabase, options?: LoadOptions): void;

export interface ToBlobOptions {
  /** Accept a Float64Array or an array of numbers, rounded to float32 (to nearest, ties to even). */
  allowFloat64?: boolean;
}

/** A tensor as a little-endian float32 BLOB (a new Buffer). */
export function toBlob(values: Float32Array, options?: ToBlobOptions): Buffer;
export function toBlob(values: Float64Array | readonly number[], options: ToBlobOptions & { allowFloat64: true }): Buffer;

export type Float8Dtype = 'f8_e4m3fn' | 'f8_e5m2' | 'f8_e4m3fnuz' | 'f8_e5m2fnuz';
export type BlobDtype = 'f32' | 'int32' | 'int16' | 'uint16' | 'int8' | 'uint8' | 'int4' | 'uint4' |
  'int2' | 'uint2' | Float8Dtype;

/**
 * A BLOB as a typed array of its dtype (a copy; aligned whatever the Buffer's
 * offset). 4-bit and 2-bit codes are unpacked one per element; count is needed
 * only for a number of them that does not fill the last byte. Float8 codes
 * read as their exact float32 values.
 */
export function fromBlob(blob: Uint8Array, dtype?: 'f32' | Float8Dtype, count?: number): Float32Array;
export function fromBlob(blob: Uint8Array, dtype: 'int32', count?: number): Int32Array;
export function fromBlob(blob: Uint8Array, dtype: 'int16', count?: number): Int16Array;
export function fromBlob(blob: Uint8Array, dtype: 'uint16', count?: number): Uint16Array;
export function fromBlob(blob: Uint8Array, dtype: 'int8' | 'int4' | 'int2', count?: number): Int8Array;
export function fromBlob(blob: Uint8Array, dtype: 'uint8' | 'uint4' | 'uint2', count?: number): Uint8Array;
export function fromBlob(blob: Uint8Array, dtype: BlobDtype, count?: number):
  Float32Array | Int32Array | Int16Array | Uint16Array | Int8Array | Uint8Array;
