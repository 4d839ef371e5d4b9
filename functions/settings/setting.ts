import * as z from 'zod';

/**
 * One function setting: the environment variable it is read from, how its text is parsed (with
 * its default), and how a value is written back as that text — the one definition the function
 * reads (`readFunctionConfig`) and the stack writes (`functionEnvironment`) from.
 */
export interface Setting<Value> {
  /** The environment variable; platform teams and the local stack set it by this name. */
  readonly variable: string;
  /** Parses the variable's text (`undefined`: unset) into the value, its default included. */
  readonly schema: z.ZodType<Value, string | undefined>;
  /** The value as the variable's text; `undefined` leaves the variable unset. */
  format(value: Value): string | undefined;
  /** The function's default, when it has one: the value of an unset variable. */
  readonly default?: Value;
  /**
   * Where the stack deploys another default than the function's own (the CDK context setting's
   * default), and why. Absent: the stack's default is the function's.
   */
  readonly deployed?: { readonly default: Value; readonly reason: string };
}

/** A setting with a default: an unset variable reads as it. */
export type SettingWithDefault<Value> = Setting<Value> & { readonly default: Value };

interface SettingOptions<Value> {
  readonly format?: (value: Value) => string | undefined;
  readonly default?: Value;
  readonly deployed?: { readonly default: Value; readonly reason: string };
}

/** A setting whose text is parsed by `schema`, written back by `format` (the text itself by default). */
export function setting<Value>(
  variable: string,
  schema: z.ZodType<Value, string | undefined>,
  options: SettingOptions<Value> & { readonly default: Value },
): SettingWithDefault<Value>;
export function setting<Value>(
  variable: string,
  schema: z.ZodType<Value, string | undefined>,
  options?: SettingOptions<Value>,
): Setting<Value>;
export function setting<Value>(
  variable: string,
  schema: z.ZodType<Value, string | undefined>,
  options: SettingOptions<Value> = {},
): Setting<Value> {
  return {
    variable,
    schema,
    format: options.format ?? ((value) => (value === undefined ? undefined : String(value))),
    ...(options.default !== undefined && { default: options.default }),
    ...(options.deployed && { deployed: options.deployed }),
  };
}

/** A required text (a table name, the model id). */
export function text(variable: string, schema: z.ZodType<string, string> = z.string().min(1)) {
  return setting<string>(variable, schema as z.ZodType<string, string | undefined>);
}

/** A text that may be unset (a Cognito id, a local endpoint). */
export function optionalText(
  variable: string,
  schema: z.ZodType<string, string> = z.string().min(1),
) {
  return setting<string | undefined>(variable, schema.optional());
}

/** A text with a default. */
export function textWithDefault(
  variable: string,
  defaultValue: string,
  schema: z.ZodType<string, string> = z.string().min(1),
) {
  return setting<string>(variable, schema.default(defaultValue), { default: defaultValue });
}

/** An integer within `min`…`max` (both included), `default` when unset. */
export function integer(
  variable: string,
  bounds: { readonly min: number; readonly max?: number; readonly default: number },
) {
  const bounded = z.coerce.number().int().min(bounds.min);
  return setting<number>(
    variable,
    (bounds.max === undefined ? bounded : bounded.max(bounds.max)).default(
      bounds.default,
    ) as z.ZodType<number, string | undefined>,
    { default: bounds.default },
  );
}

/** A number within `min`…`max`, `default` when unset. */
export function decimal(
  variable: string,
  bounds: { readonly min: number; readonly max: number; readonly default: number },
) {
  return setting<number>(
    variable,
    z.coerce.number().min(bounds.min).max(bounds.max).default(bounds.default) as z.ZodType<
      number,
      string | undefined
    >,
    { default: bounds.default },
  );
}

/** `true` or `false`; `deployed` when the stack deploys the other value, with the reason. */
export function flag(
  variable: string,
  defaultValue: boolean,
  deployed?: { readonly default: boolean; readonly reason: string },
) {
  return setting<boolean>(
    variable,
    z
      .enum(['true', 'false'])
      .transform((value) => value === 'true')
      .default(defaultValue),
    { default: defaultValue, ...(deployed && { deployed }) },
  );
}

/** One of `values`, `default` when unset. */
export function choice<const Values extends readonly [string, ...string[]]>(
  variable: string,
  values: Values,
  defaultValue: Values[number],
) {
  return setting<Values[number]>(
    variable,
    z.enum(values).default(defaultValue) as unknown as z.ZodType<
      Values[number],
      string | undefined
    >,
    { default: defaultValue },
  );
}

/** A JSON object (default `{}`): a message naming the variable when it is not JSON, then `schema`. */
export function json<Value extends object>(variable: string, schema: z.ZodType<Value>) {
  return setting<Value>(
    variable,
    z
      .string()
      .default('{}')
      .transform((text, context) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          context.addIssue({ code: 'custom', message: `${variable} must be JSON` });
          return z.NEVER;
        }
      })
      .pipe(schema),
    { default: {} as Value, format: (value) => JSON.stringify(value) },
  );
}

/** Names (comma-separated in the variable); unset or empty: none. */
export function nameList(variable: string) {
  return setting<string[]>(
    variable,
    z
      .string()
      .default('')
      .transform((list) =>
        list
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean),
      ),
    { default: [], format: (names) => names.join(',') },
  );
}

export type SettingValue<S> = S extends Setting<infer Value> ? Value : never;

/**
 * The default of the deploy setting (CDK context) that sets `setting`: the one the stack deploys
 * on purpose when the setting says so (`deployed`, with its reason), else the function's own.
 *
 * @example
 * integerSetting.min(0).default(stackDefaultOf(functionSettings.model.dailyTokenBudget));
 */
export function stackDefaultOf<Value>(setting: Setting<Value>): Value {
  if (setting.deployed) return setting.deployed.default;
  if (setting.default === undefined) throw new Error(`${setting.variable} has no default`);
  return setting.default;
}
