// The ES module face of index.js (one implementation, two ways to import it).
import quant from './index.js';

export const { load, getLoadablePath, entryPoint, nofsEntryPoint, version, toBlob, fromBlob } = quant;
