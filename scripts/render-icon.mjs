// The Marketplace icon: extension/media/icon.png is rendered from extension/media/icon.svg (the
// source kept in the repository) with resvg, from npm, so no system tool is needed.
//   npm run icon            writes icon.png after icon.svg changed
//   npm run icon -- --check fails when icon.png is not what icon.svg renders to

import { Resvg } from '@resvg/resvg-js';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const media = join(dirname(fileURLToPath(import.meta.url)), '..', 'extension', 'media');
const svgPath = join(media, 'icon.svg');
const pngPath = join(media, 'icon.png');
// The Marketplace shows 128 px; 256 stays sharp on high-density screens.
const SIZE = 256;

const png = new Resvg(readFileSync(svgPath), { fitTo: { mode: 'width', value: SIZE }, font: { loadSystemFonts: false } })
  .render()
  .asPng();

if (process.argv.includes('--check')) {
  if (!Buffer.from(png).equals(readFileSync(pngPath))) {
    console.error(`${pngPath} is not what ${svgPath} renders to: run npm run icon`);
    process.exit(1);
  }
  console.log('icon.png matches icon.svg');
} else {
  writeFileSync(pngPath, png);
  console.log(`wrote ${pngPath} (${SIZE}x${SIZE}, ${png.length} bytes) from ${svgPath}`);
}
