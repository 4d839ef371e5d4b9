type Container = Record<string, unknown> | unknown[];

/**
 * Sets an own enumerable property the way `JSON.parse` does. Plain assignment of `__proto__`
 * would replace the prototype instead (prototype pollution from model output).
 */
export function setOwnProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/**
 * Builds the JSON value from tokenizer events. A child is attached to its parent only when it
 * is complete, so at any moment the open containers hold exactly their completed members — which
 * is what a truncated input may report.
 */
export class JsonValueBuilder {
  /** The top-level value, once it is complete. */
  root: unknown = undefined;
  private readonly containers: Container[] = [];
  /** The pending key of each open container (unused for arrays). */
  private readonly keys: string[] = [];
  private text = '';

  /** Number of open containers; 1 means "directly inside the top-level value". */
  get depth(): number {
    return this.containers.length;
  }

  /** The open container at `depth` (0 is the top level), if any. */
  containerAt(depth: number): Container | undefined {
    return this.containers[depth];
  }

  /** The key whose value is being read in the innermost open object. */
  get currentKey(): string {
    return this.keys[this.keys.length - 1] ?? '';
  }

  startObject(): void {
    this.containers.push({});
    this.keys.push('');
  }

  startArray(): void {
    this.containers.push([]);
    this.keys.push('');
  }

  key(name: string): void {
    this.keys[this.keys.length - 1] = name;
  }

  endContainer(): void {
    const container = this.containers.pop();
    this.keys.pop();
    this.attach(container);
  }

  startString(): void {
    this.text = '';
  }

  stringChunk(chunk: string): void {
    // V8 concatenates into a rope and flattens once, so this stays linear.
    this.text += chunk;
  }

  endString(): void {
    const text = this.text;
    this.text = '';
    this.attach(text);
  }

  /** Adds a completed value to the innermost open container (or makes it the root). */
  attach(value: unknown): void {
    const depth = this.containers.length;
    if (depth === 0) {
      this.root = value;
      return;
    }
    const parent = this.containers[depth - 1] as Container;
    if (Array.isArray(parent)) parent.push(value);
    else setOwnProperty(parent, this.keys[depth - 1] as string, value);
  }
}
