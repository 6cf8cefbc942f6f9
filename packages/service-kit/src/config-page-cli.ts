#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { withSettings } from './config-page.js';
import type { Listed } from './settings.js';

/**
 * `config-page-cli <built config module> <page.md>`: renders the module's `settings` list into the page's
 * settings region (config-page.ts). Run by `pnpm config:page` for every service.
 */
const [modulePath, pagePath] = process.argv.slice(2);
if (modulePath === undefined || pagePath === undefined) {
  process.stderr.write('usage: config-page-cli <built config module> <page.md>\n');
  process.exit(2);
}
const { settings } = (await import(pathToFileURL(resolve(modulePath)).href)) as { settings?: readonly Listed[] };
if (!Array.isArray(settings)) {
  process.stderr.write(`config-page-cli: ${modulePath} exports no settings list\n`);
  process.exit(1);
}
const page = readFileSync(pagePath, 'utf8');
const rendered = withSettings(page, settings);
if (rendered !== page) writeFileSync(pagePath, rendered);
process.stdout.write(`${pagePath}: ${rendered === page ? 'unchanged' : 'rendered'} (${settings.length} settings)\n`);
