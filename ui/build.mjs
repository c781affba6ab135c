// Builds the web UI into ../internal/ui/dist, which bin/sonded embeds:
//   - app.js, an ES module, with chart.js (uPlot) split into a chunk of
//     its own that the first chart loads: a page of heat maps never
//     evaluates it;
//   - boot.js, a classic script the page runs as soon as it arrives: it
//     asks for the first view's data, then starts app.js (src/boot.js);
//   - app.css, and index.html with a modulepreload link for every module
//     (fetched beside boot.js, not after it).
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync, readdirSync, rmSync } from 'node:fs';
import { basename } from 'node:path';

const out = '../internal/ui/dist';
for (const f of readdirSync(out)) if (/\.(js|css|html)$/.test(f)) rmSync(`${out}/${f}`);
const common = { bundle: true, minify: true, target: 'es2020', outdir: out, logLevel: 'warning' };
const app = await esbuild.build({
  ...common, entryPoints: { app: 'src/main.js' }, format: 'esm', splitting: true, chunkNames: '[name]-[hash]', metafile: true,
});
await esbuild.build({ ...common, entryPoints: { boot: 'src/boot.js' }, format: 'iife' });
// app.js first: boot.js starts it (index.html has no script for it).
const modules = Object.keys(app.metafile.outputs).filter((f) => f.endsWith('.js')).map((f) => basename(f))
  .sort((a, b) => (b === 'app.js') - (a === 'app.js') || a.localeCompare(b));
const links = modules.map((f) => `<link rel="modulepreload" href="/ui/assets/${f}">`).join('\n');
const page = readFileSync('index.html', 'utf8');
if (!page.includes('<!-- modulepreload -->')) throw new Error('index.html: no <!-- modulepreload --> line');
writeFileSync(`${out}/index.html`, page.replace('<!-- modulepreload -->', links));
