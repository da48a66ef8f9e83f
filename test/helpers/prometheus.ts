/**
 * A strict parser of the Prometheus text exposition format (0.0.4), as a scraper reads it: `# HELP` and `# TYPE`
 * before a family's samples, metric and label names as the format allows them, label values with their escapes
 * (`\\`, `\"`, `\n`), values as Go's ParseFloat reads them (`+Inf`, `-Inf`, `NaN`, any case), an optional timestamp, no
 * sample outside a declared family, no family declared twice, no series twice, and histograms whose buckets are
 * cumulative and end at `+Inf` equal to `_count`. Anything else throws naming the line.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(raw: string, where: string): number {
  // Prometheus reads values with Go's strconv.ParseFloat: inf, infinity and nan in any case, signed or not.
  const special = /^([-+]?)(inf|infinity|nan)$/i.exec(raw);
  if (special) return special[2]!.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw new Error(`${where}: "${raw}" is not a sample value`);
  return Number(raw);
}

/** `{a="x",b="y"}` from `at` (the `{`); answers the labels and where the text after `}` starts. */
function parseLabels(line: string, at: number, where: string): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = at + 1;
  for (;;) {
    if (line[i] === '}') return { labels, end: i + 1 };
    const nameMatch = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(i));
    if (!nameMatch) throw new Error(`${where}: bad label name at column ${i}`);
    const name = nameMatch[0];
    i += name.length;
    if (line.slice(i, i + 2) !== '="') throw new Error(`${where}: label ${name} has no ="value"`);
    i += 2;
    let value = '';
    for (;;) {
      const ch = line[i];
      if (ch === undefined) throw new Error(`${where}: unterminated value of label ${name}`);
      if (ch === '"') break;
      if (ch === '\\') {
        const next = line[i + 1];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else throw new Error(`${where}: bad escape \\${next} in label ${name}`);
        i += 2;
        continue;
      }
      value += ch;
      i += 1;
    }
    i += 1;
    if (name in labels) throw new Error(`${where}: label ${name} given twice`);
    labels[name] = value;
    if (line[i] === ',') i += 1;
    else if (line[i] !== '}') throw new Error(`${where}: expected , or } after label ${name}`);
  }
}

/** The family a sample name belongs to: itself, or a histogram's/summary's base for its suffixed samples. */
function familyOf(sampleName: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  const own = families.get(sampleName);
  if (own) return own;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue;
    const base = families.get(sampleName.slice(0, -suffix.length));
    if (base && (base.type === 'histogram' || (base.type === 'summary' && suffix !== '_bucket'))) return base;
  }
  return undefined;
}

function checkHistogram(family: MetricFamily): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      entry.buckets.push([parseValue(le, family.name), sample.value]);
    } else if (sample.name.endsWith('_count')) entry.count = sample.value;
  }
  for (const [key, { buckets, count }] of series) {
    const last = buckets[buckets.length - 1];
    if (!last || last[0] !== Infinity) throw new Error(`${family.name} ${key}: no +Inf bucket`);
    if (last[1] !== count) throw new Error(`${family.name} ${key}: +Inf bucket ${last[1]} is not _count ${count}`);
    for (let i = 1; i < buckets.length; i += 1) {
      if (buckets[i]![0] <= buckets[i - 1]![0] || buckets[i]![1] < buckets[i - 1]![1]) {
        throw new Error(`${family.name} ${key}: buckets not increasing and cumulative`);
      }
    }
  }
}

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const seen = new Set<string>();
  let current: MetricFamily | null = null;
  const lines = text.split('\n');
  if (lines[lines.length - 1] !== '') throw new Error('the exposition must end with a newline');
  lines.pop();
  for (const [index, line] of lines.entries()) {
    const where = `line ${index + 1}`;
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!meta) continue; // a plain comment
      const [, kind, name, rest] = meta as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`${where}: bad metric name ${name}`);
      let family = families.get(name);
      if (!family) {
        family = { name, help: '', type: 'untyped', samples: [] };
        families.set(name, family);
      } else if (family.samples.length > 0 || family !== current) throw new Error(`${where}: ${kind} of ${name} again, after its block`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`${where}: unknown type ${rest}`);
        family.type = rest as MetricFamily['type'];
      } else family.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      current = family;
      continue;
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line);
    if (!nameMatch) throw new Error(`${where}: not a sample: ${line}`);
    const name = nameMatch[0];
    let labels: Record<string, string> = {};
    let rest = line.slice(name.length);
    if (rest.startsWith('{')) {
      const parsed = parseLabels(line, name.length, where);
      labels = parsed.labels;
      rest = line.slice(parsed.end);
    }
    for (const label of Object.keys(labels)) if (!LABEL_NAME.test(label)) throw new Error(`${where}: bad label name ${label}`);
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) {
      throw new Error(`${where}: expected "value [timestamp]" after ${name}`);
    }
    const value = parseValue(parts[0]!, where);
    if (parts[1] !== undefined && !/^-?\d+$/.test(parts[1])) throw new Error(`${where}: bad timestamp ${parts[1]}`);
    const family = familyOf(name, families);
    if (!family || family !== current) throw new Error(`${where}: sample ${name} outside its family's block`);
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(series)) throw new Error(`${where}: series ${series} given twice`);
    seen.add(series);
    family.samples.push({ name, labels, value });
  }
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

/** A scrape's answer read as Prometheus reads it: 200, the text format's content type, then the text parsed strictly. */
export async function familiesOf(response: Response): Promise<Map<string, MetricFamily>> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`the scrape answered ${response.status}: ${text.slice(0, 500)}`);
  const type = response.headers.get('content-type') ?? '';
  if (!/^text\/plain; version=0\.0\.4/.test(type)) throw new Error(`the scrape answered content-type "${type}", not the text format 0.0.4`);
  return parsePrometheusText(text);
}

/** The value of the one sample named `name` whose labels include `labels` (0 when there is none yet). */
export function sampleValue(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number {
  const family = familyOf(name, families);
  const matches = family?.samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  ) ?? [];
  if (matches.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${matches.length} series`);
  return matches[0]?.value ?? 0;
}
