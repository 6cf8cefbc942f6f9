import type { Listed } from './settings.js';

/**
 * A service's configuration page (docs/configuration.md) carries the table of its settings between two
 * markers, rendered from the declarations and never edited by hand:
 *
 *     <!-- settings -->
 *     (rendered)
 *     <!-- /settings -->
 *
 * `node packages/service-kit/dist/config-page-cli.js` rewrites it; each service's config test fails while the
 * committed page differs from its declarations.
 */
const BEGIN = '<!-- settings -->';
const END = '<!-- /settings -->';

function typeOf(setting: Listed): string {
  const type = setting.type;
  switch (type.kind) {
    case 'int':
    case 'decimal': {
      const kind = type.kind === 'int' ? 'integer' : 'number';
      return type.max === undefined ? `${kind} ≥ ${type.min}` : `${kind} ${type.min}–${type.max}`;
    }
    case 'port':
      return 'port 0–65535';
    case 'url':
      return 'http(s) URL';
    case 'enum':
      return type.values.map((value) => `\`${value}\``).join(', ');
    case 'list':
      return 'comma-separated list';
    case 'bool':
      return 'boolean';
    case 'string':
      return type.allowEmpty ? 'text, may be empty' : 'text';
    case 'text':
      return `text: ${type.message.replace(/^must be /, '')}`;
  }
}

function defaultOf(setting: Listed): string {
  const value = setting.default;
  if (value === undefined) return '(unset)';
  const text = Array.isArray(value) ? value.join(',') : String(value);
  return text === '' ? '(empty)' : `\`${text}\``;
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The table: variable (and the older names it still reads), type, default, meaning, the original's key. */
export function renderSettings(list: readonly Listed[]): string {
  const rows = list.map((setting) => {
    const names = [`\`${setting.env}\``, ...(setting.aliases ?? []).map((alias) => `alias \`${alias}\``)];
    const original = setting.original === undefined ? '' : `\`${setting.original}\``;
    return `| ${names.join('<br>')} | ${cell(typeOf(setting))} | ${cell(defaultOf(setting))} | ${cell(setting.doc)} | ${original} |`;
  });
  return ['| variable | type | default | meaning | original key |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** `page` with its settings region rendered from `list`; throws when the page has no region. */
export function withSettings(page: string, list: readonly Listed[]): string {
  const begin = page.indexOf(BEGIN);
  const end = page.indexOf(END, begin);
  if (begin < 0 || end < 0) throw new Error(`the page has no ${BEGIN} … ${END} region`);
  return `${page.slice(0, begin + BEGIN.length)}\n${renderSettings(list)}\n${page.slice(end)}`;
}
