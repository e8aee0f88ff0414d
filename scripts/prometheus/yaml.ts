/**
 * A YAML writer for the generated Prometheus and Grafana files: block mappings and sequences, every
 * string double-quoted as JSON quotes it (valid YAML), multi-line strings as literal blocks. Only plain
 * data (objects, arrays, strings, numbers, booleans); `undefined` fields are left out.
 */
type Plain = string | number | boolean | undefined | Plain[] | { [key: string]: Plain };

function scalar(value: string | number | boolean, indent: string): string {
  if (typeof value !== 'string') return String(value);
  if (value.includes('\n')) {
    return `|-\n${value
      .split('\n')
      .map((line) => (line ? `${indent}  ${line}` : ''))
      .join('\n')}`;
  }
  return /^[A-Za-z_][\w./-]*$/.test(value) && !/^(true|false|null|yes|no|on|off|~)$/i.test(value)
    ? value
    : JSON.stringify(value);
}

function lines(value: Plain, indent: string): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}[]`];
    return value.flatMap((item) => {
      const [first, ...rest] = isBlock(item)
        ? lines(item, `${indent}  `)
        : [`${indent}  ${scalar(item as string, indent)}`];
      return [`${indent}- ${first!.slice(indent.length + 2)}`, ...rest];
    });
  }
  if (typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => {
      if (item === undefined) return [];
      if (isBlock(item) && !(Array.isArray(item) && item.length === 0)) {
        return [`${indent}${key}:`, ...lines(item, `${indent}  `)];
      }
      return [`${indent}${key}: ${Array.isArray(item) ? '[]' : scalar(item, indent)}`];
    });
  }
  return [`${indent}${scalar(value as string, indent)}`];
}

function isBlock(value: Plain): value is Plain[] | { [key: string]: Plain } {
  return typeof value === 'object';
}

/** The document, with a comment header. */
export function toYaml(value: Plain, header: string): string {
  const comment = header
    .split('\n')
    .map((line) => `#${line ? ` ${line}` : ''}`)
    .join('\n');
  return `${comment}\n${lines(value, '').join('\n')}\n`;
}
