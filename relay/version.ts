// The product version, from package.json (bundled into dist by esbuild).
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
