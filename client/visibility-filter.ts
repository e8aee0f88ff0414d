/**
 * A staff filter for bulk actions (`eca bulk --query`), parsed by a grammar of the visibility query
 * language's filter part and written back by the engine, so that no text can reach past the scope the
 * engine adds (this firm's running applications): an unbalanced `)`, a quote or an `OR` in a value
 * stays inside the value or is refused.
 *
 *   filter     := or
 *   or         := and ("OR" and)*
 *   and        := primary ("AND" primary)*
 *   primary    := "(" or ")" | condition
 *   condition  := attribute ("=" | "!=" | ">" | ">=" | "<" | "<=") value
 *               | attribute ["NOT"] "IN" "(" value ("," value)* ")"
 *               | attribute ["NOT"] "BETWEEN" value "AND" value
 *               | attribute "STARTS_WITH" 'text'
 *               | attribute "IS" ["NOT"] "NULL"
 *   value      := 'text' | "text" | number
 *
 * Keywords are case-insensitive. Only the attributes of FILTER_ATTRIBUTES may be named: the scope's own
 * (EcaCsid, WorkflowType, ExecutionStatus) and any other are refused with the list.
 */
import { InvalidInputError } from './errors.js';
import { visibilityString } from '../domain/search-attributes.js';

/** What a filter may name: the application's own attributes and its times. */
export const FILTER_ATTRIBUTES = [
  'EcaLifecycleState',
  'EcaAccountStatus',
  'EcaAccountId',
  'EcaExternalId',
  'WorkflowId',
  'StartTime',
  'ExecutionTime',
] as const;

const COMPARISONS = ['=', '!=', '>', '>=', '<', '<='] as const;
/** Longest filter accepted, and deepest nesting of parentheses. */
const MAX_LENGTH = 4096;
const MAX_DEPTH = 32;

export type FilterValue = string | number;
export type FilterNode =
  | { kind: 'or' | 'and'; parts: FilterNode[] }
  | { kind: 'compare'; attribute: string; op: (typeof COMPARISONS)[number]; value: FilterValue }
  | { kind: 'in'; attribute: string; not: boolean; values: FilterValue[] }
  | { kind: 'between'; attribute: string; not: boolean; low: FilterValue; high: FilterValue }
  | { kind: 'startsWith'; attribute: string; value: string }
  | { kind: 'null'; attribute: string; not: boolean };

type Token =
  | { type: 'word'; text: string; at: number }
  | { type: 'string'; value: string; at: number }
  | { type: 'number'; value: number; at: number }
  | { type: 'symbol'; text: string; at: number };

function refuse(message: string): never {
  throw new InvalidInputError('--query', message);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) i++;
    else if (c === "'" || c === '"') {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== c; j++) {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        value += text[j];
      }
      if (j >= text.length) refuse(`position ${i + 1}: the text value is not closed by ${c}`);
      tokens.push({ type: 'string', value, at: i });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))![0];
      tokens.push({ type: 'word', text: word, at: i });
      i += word.length;
    } else if (/[-\d]/.test(c)) {
      const number = /^-?\d+(\.\d+)?/.exec(text.slice(i))?.[0];
      if (!number) refuse(`position ${i + 1}: unexpected "${c}"`);
      tokens.push({ type: 'number', value: Number(number), at: i });
      i += number.length;
    } else {
      const symbol = ['>=', '<=', '!='].find((candidate) => text.startsWith(candidate, i)) ?? c;
      if (!['(', ')', ',', '=', '>', '<', '>=', '<=', '!='].includes(symbol)) {
        refuse(`position ${i + 1}: unexpected "${c}"`);
      }
      tokens.push({ type: 'symbol', text: symbol, at: i });
      i += symbol.length;
    }
  }
  return tokens;
}

class Parser {
  private next = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly attributes: readonly string[],
  ) {}

  parse(): FilterNode {
    const node = this.or();
    const left = this.tokens[this.next];
    if (left) refuse(`position ${left.at + 1}: unexpected ${describe(left)} after a complete filter`);
    return node;
  }

  private peek(): Token | undefined {
    return this.tokens[this.next];
  }

  private keyword(word: string): boolean {
    const token = this.peek();
    if (token?.type === 'word' && token.text.toUpperCase() === word) {
      this.next++;
      return true;
    }
    return false;
  }

  private symbol(text: string): boolean {
    const token = this.peek();
    if (token?.type === 'symbol' && token.text === text) {
      this.next++;
      return true;
    }
    return false;
  }

  private expect(what: string, found: boolean): void {
    if (!found) refuse(`${this.where()}: expected ${what}`);
  }

  private where(): string {
    const token = this.peek();
    return token ? `position ${token.at + 1} (${describe(token)})` : 'at the end';
  }

  private or(): FilterNode {
    const parts = [this.and()];
    while (this.keyword('OR')) parts.push(this.and());
    return parts.length === 1 ? parts[0]! : { kind: 'or', parts };
  }

  private and(): FilterNode {
    const parts = [this.primary()];
    while (this.keyword('AND')) parts.push(this.primary());
    return parts.length === 1 ? parts[0]! : { kind: 'and', parts };
  }

  private primary(): FilterNode {
    if (this.symbol('(')) {
      if (++this.depth > MAX_DEPTH) refuse(`more than ${MAX_DEPTH} nested parentheses`);
      const node = this.or();
      this.expect('")"', this.symbol(')'));
      this.depth--;
      return node;
    }
    return this.condition();
  }

  private condition(): FilterNode {
    const token = this.peek();
    if (token?.type !== 'word') refuse(`${this.where()}: expected an attribute (${this.attributes.join(', ')})`);
    const attribute = this.attributes.find((name) => name === token.text);
    if (!attribute) {
      refuse(`"${token.text}" cannot be filtered on here; the attributes are ${this.attributes.join(', ')}`);
    }
    this.next++;
    const comparison = COMPARISONS.find((op) => this.symbol(op));
    if (comparison) return { kind: 'compare', attribute, op: comparison, value: this.value() };
    if (this.keyword('STARTS_WITH')) {
      const value = this.value();
      if (typeof value !== 'string') refuse(`STARTS_WITH takes a text value, not ${value}`);
      return { kind: 'startsWith', attribute, value };
    }
    if (this.keyword('IS')) {
      const not = this.keyword('NOT');
      this.expect('NULL', this.keyword('NULL'));
      return { kind: 'null', attribute, not };
    }
    const not = this.keyword('NOT');
    if (this.keyword('IN')) {
      this.expect('"("', this.symbol('('));
      const values = [this.value()];
      while (this.symbol(',')) values.push(this.value());
      this.expect('")"', this.symbol(')'));
      return { kind: 'in', attribute, not, values };
    }
    if (this.keyword('BETWEEN')) {
      const low = this.value();
      this.expect('AND', this.keyword('AND'));
      return { kind: 'between', attribute, not, low, high: this.value() };
    }
    return refuse(`${this.where()}: expected a comparison (= != > >= < <=), IN, BETWEEN, STARTS_WITH or IS NULL`);
  }

  private value(): FilterValue {
    const token = this.peek();
    if (token?.type !== 'string' && token?.type !== 'number')
      refuse(`${this.where()}: expected a value ('text' or a number)`);
    this.next++;
    return token.value;
  }
}

function describe(token: Token): string {
  if (token.type === 'string') return 'a text value';
  if (token.type === 'number') return String(token.value);
  return `"${token.text}"`;
}

/** Parses a staff filter naming only `attributes`; refuses anything else with an InvalidInputError on `--query`. */
export function parseFilter(text: string, attributes: readonly string[] = FILTER_ATTRIBUTES): FilterNode {
  if (text.length > MAX_LENGTH) refuse(`longer than ${MAX_LENGTH} characters`);
  const tokens = tokenize(text);
  if (tokens.length === 0) refuse('is empty (give a visibility query)');
  return new Parser(tokens, attributes).parse();
}

function valueText(value: FilterValue): string {
  return typeof value === 'number' ? String(value) : visibilityString(value);
}

/** The filter as the engine writes it: every value quoted and escaped, every group in parentheses. */
export function filterText(node: FilterNode): string {
  switch (node.kind) {
    case 'or':
    case 'and':
      return node.parts.map((part) => `(${filterText(part)})`).join(node.kind === 'or' ? ' OR ' : ' AND ');
    case 'compare':
      return `${node.attribute} ${node.op} ${valueText(node.value)}`;
    case 'in':
      return `${node.attribute} ${node.not ? 'NOT IN' : 'IN'} (${node.values.map(valueText).join(', ')})`;
    case 'between':
      return `${node.attribute} ${node.not ? 'NOT BETWEEN' : 'BETWEEN'} ${valueText(node.low)} AND ${valueText(node.high)}`;
    case 'startsWith':
      return `${node.attribute} STARTS_WITH ${valueText(node.value)}`;
    case 'null':
      return `${node.attribute} IS ${node.not ? 'NOT NULL' : 'NULL'}`;
  }
}
