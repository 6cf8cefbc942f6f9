/**
 * The metric names a PromQL expression reads. Enough of PromQL for dashboard queries: label matchers,
 * `by`/`without` groupings, range selectors, strings, numbers and Grafana variables are removed; what is
 * left and is not called like a function or used as a keyword is a metric name.
 */
const keywords = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
]);

export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/(?<![\w:])\d+(?:\.\d+)?(?:e[+-]?\d+)?/gi, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)(\s*\()?/g)) {
    const [, name, call] = match;
    if (!name || call || keywords.has(name)) continue;
    names.add(name);
  }
  return [...names].sort();
}

/**
 * The sample names a Prometheus text exposition declares, from its `# TYPE` lines: a labelled counter that
 * has not been incremented yet has no sample line, but it is exported. Histograms and summaries expand to
 * their `_bucket`, `_sum` and `_count` series.
 */
export function exportedSampleNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const typed = /^# TYPE (\S+) (\S+)/.exec(line);
    if (typed) {
      const [, name = '', type] = typed;
      names.add(name);
      if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
      if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
      continue;
    }
    const sample = /^([A-Za-z_:][A-Za-z0-9_:]*)[{ ]/.exec(line);
    if (sample?.[1]) names.add(sample[1]);
  }
  return names;
}
