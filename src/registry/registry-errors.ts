/**
 * Every error the registry builds, with its wording: what happened, where, and what to do next.
 * One module, so that the same problem is said the same way by `convert`, `explain` and the CLI.
 */
import {
	AsyncHookInSyncConvertError,
	AsyncHookTimeoutError,
	ConversionError,
	ConvertToLlmError,
	DuplicateConverterError,
	InvalidMessageError,
	InvalidPluginError,
	PrefixBreakNotice,
	UnknownRoleError,
} from "../errors.js";
import { describeValue, errorText, isInstance, quote } from "../values.js";
import type { Prefix } from "./explain-types.js";

/** `role "x"`, or `role "custom", customType "y"`: how errors name a message. Never throws. */
export function describeRole(role: unknown, customType: unknown): string {
	if (role !== "custom") return `role ${quote(role)}`;
	return `role "custom", customType ${quote(customType)}`;
}

/** What was caught, as our error: ours pass unchanged (never wrapped twice), anything else is wrapped. */
export function asOurs(caught: unknown, wrap: (caught: unknown) => ConvertToLlmError): ConvertToLlmError {
	return isInstance(caught, ConvertToLlmError) ? caught : wrap(caught);
}

export const notAnArray = (method: string, value: unknown): InvalidMessageError =>
	new InvalidMessageError(
		`${method} expects an array of AgentMessages, got ${describeValue(value)}. Pass the agent's message history (an array); nothing was converted.`,
	);

export const invalidEntry = (message: unknown, index: number): InvalidMessageError =>
	new InvalidMessageError(
		`Message ${index} is ${describeValue(message)}, not an AgentMessage with a string role. It was dropped; remove it from the history or fix what wrote it.`,
		{ index },
	);

export const holes = (from: number, to: number): InvalidMessageError =>
	new InvalidMessageError(
		from === to
			? `Message ${from} is a hole in a sparse array, not an AgentMessage. It was dropped; pass a dense array.`
			: `Messages ${from} to ${to} are holes in a sparse array, not AgentMessages. They were dropped; pass a dense array.`,
		{ index: from },
	);

export function unhandled(role: string, customType: string | undefined, index: number, names: readonly string[]) {
	const quoted = names.map((name) => JSON.stringify(name));
	const text =
		quoted.length === 0
			? `No converter for ${describeRole(role, customType)} (message ${index}). It was dropped; register one with registry.register(${JSON.stringify(role)}, converter, { name }) or use the plugin that declares this role.`
			: `No converter accepted message ${index} (${describeRole(role, customType)}): ${quoted.join(", ")} returned undefined. It was dropped; return null from a converter to drop a message on purpose.`;
	return new UnknownRoleError(text, { role, customType, index });
}

export const converterFailed = (
	plugin: string,
	role: string,
	customType: string | undefined,
	index: number,
	text: string,
	cause?: unknown,
): ConversionError =>
	new ConversionError(
		`Converter "${plugin}" failed on message ${index} (${describeRole(role, customType)}): ${text}. ` +
			"The next converter for the role was used, or the message was dropped if there was none; fix or remove the plugin.",
		{ role, customType, index, plugin, cause },
	);

export const messageFailed = (index: number, role: unknown, cause: unknown): ConversionError =>
	new ConversionError(
		`Converting message ${index} failed: ${errorText(cause)}. It was dropped; check the message and the converters of its role.`,
		{ index, role: typeof role === "string" ? role : undefined, cause },
	);

export const copyFailed = (index: number, role: string, plugin: string, what: string, cause?: unknown) =>
	new ConversionError(
		`Message ${index} could not be copied for isolation: ${what}. ${cause === undefined ? "The parts that are not plain data were left out of the copy" : "It was dropped rather than shared with the history"}; keep messages to plain JSON data.`,
		{ index, role, plugin, cause },
	);

export const adoptFailed = (position: number, what: string, cause?: unknown) =>
	new ConversionError(
		`Output entry ${position}, put there by a post-conversion tap, could not be copied for isolation: ${what}. ${cause === undefined ? "The parts that are not plain data were left out of the copy" : "It was dropped rather than shared with the history"}; keep messages to plain JSON data.`,
		{ cause },
	);

export const unexpected = (what: string, cause: unknown): ConversionError =>
	new ConversionError(
		`${what} failed unexpectedly: ${errorText(cause)}. Nothing was converted; check the plugins in use and the history given.`,
		{ cause },
	);

export const tapThrew = (hook: string, plugin: string, cause: unknown): ConversionError =>
	new ConversionError(
		`${hook} tap "${plugin}" threw: ${errorText(cause)}. Its change was skipped; fix the plugin or remove it.`,
		{ plugin, cause },
	);

export const tapFaulty = (hook: string, plugin: string, problem: string): ConversionError =>
	new ConversionError(
		`${hook} tap "${plugin}" is faulty: ${problem}. Its change was skipped; return an array of messages or undefined.`,
		{ plugin },
	);

export const tapTimedOut = (plugin: string, ms: number): AsyncHookTimeoutError =>
	new AsyncHookTimeoutError(
		`afterConvertAsync tap "${plugin}" did not settle within ${ms} ms (asyncTimeoutMs). Nothing was converted, since the tap may be the one that redacts; later taps did not run. Fix the tap or raise asyncTimeoutMs.`,
		{ plugin },
	);

export const outputRejected = (position: number, item: unknown): ConversionError =>
	new ConversionError(
		`Output entry ${position} is ${describeValue(item)}, not a pi-ai Message (system, user, assistant or toolResult): a post-conversion tap changed the array in place or a role changed after conversion. It was dropped; return a new array from the tap instead.`,
	);

export function asyncTaps(names: readonly string[], method: string, asyncMethod: string) {
	const quoted = names.map((name) => `"${name}"`).join(", ");
	return new AsyncHookInSyncConvertError(
		`registry.${method}() cannot run the afterConvertAsync taps ${quoted}, and skipping them could leak what they remove. ` +
			`Use registry.${asyncMethod} instead${method === "convert" ? " (e.g. new Agent({ convertToLlm: registry.convertAsync }))" : ""}.`,
		{ plugin: names[0] },
	);
}

export const notAPlugin = (value: unknown): InvalidPluginError =>
	new InvalidPluginError(
		`registry.use() was given ${describeValue(value)}. A plugin is { name: "my-plugin", apply(registry) { … } }.`,
	);

export const namelessPlugin = (): InvalidPluginError =>
	new InvalidPluginError(
		'registry.use() was given a plugin without a name. Give it one, e.g. { name: "my-plugin", apply(registry) { … } }: the name is used in every error and trace.',
	);

export const noApply = (name: string): InvalidPluginError =>
	new InvalidPluginError(
		`Plugin "${name}" has no apply(registry) function. Give it one that registers its converters or taps.`,
		{ plugin: name },
	);

export const nameTaken = (name: string): InvalidPluginError =>
	new InvalidPluginError(
		`registry.use() was given a second plugin named "${name}" (another object than the one already used), so it would run twice: every finding reported twice, every filter applied twice. Use one plugin object per registry, or give the second one its own name.`,
		{ plugin: name },
	);

export const applyThrew = (name: string, cause: unknown): InvalidPluginError =>
	new InvalidPluginError(
		`Plugin "${name}" threw from apply(): ${errorText(cause)}. It may be partly applied; fix the plugin and use it on a new registry.`,
		{ plugin: name, cause },
	);

export const badTimeout = (value: unknown): InvalidPluginError =>
	new InvalidPluginError(
		`createRegistry() was given asyncTimeoutMs ${describeValue(value)}; it takes a number of milliseconds >= 0 (Infinity, or any value above ${MAX_TIMEOUT_MS}, for no bound), or nothing.`,
	);

/** The longest delay Node's (and a browser's) `setTimeout` keeps: a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export const badSanitizer = (value: unknown): InvalidPluginError =>
	new InvalidPluginError(
		`registry.sanitize() was given ${describeValue(value)}. A sanitizer is { name: "my-sanitizer", prepare(ctx) { return (message) => message; } }: the name is used in every error and trace.`,
	);

export const badSanitizerRoles = (name: string, roles: unknown, at?: number, entry?: unknown): InvalidPluginError =>
	new InvalidPluginError(
		`registry.sanitize() was given roles ${at === undefined ? `that are not an array (${typeName(roles)})` : `whose entry ${at}, ${typeof entry === "string" ? quote(entry) : typeName(entry)}, is not a model role`} for sanitizer ${quote(name)}. roles lists the model roles whose messages it may change ("user", "assistant", "toolResult", "system"), e.g. roles: ["user", "toolResult"]; leave it out to see every message.`,
		{ plugin: name },
	);

/** What kind of value `value` is, in a few words, for a message about an option. */
function typeName(value: unknown): string {
	if (value === null) return "null";
	if (typeof value !== "object") return typeof value;
	let tag: string;
	try {
		tag = Object.prototype.toString.call(value).slice(8, -1);
	} catch {
		tag = "object";
	}
	return `a${/^[AEIOU]/.test(tag) ? "n" : ""} ${tag}`;
}

export const namelessConverter = (method: string, role: unknown): InvalidPluginError =>
	new InvalidPluginError(
		`registry.${method}(${quote(role)}, …) needs options.name, the plugin name used in every error and trace, e.g. { name: "my-extension" }.`,
		{ role: typeof role === "string" ? role : undefined },
	);

export const badRegister = (name: string, role: unknown, converter: unknown): InvalidPluginError =>
	new InvalidPluginError(
		`Plugin "${name}" called registry.register() with ${describeValue(role)} and a ${typeof converter}; it takes a role name and a converter function.`,
		{ plugin: name },
	);

export const badExclude = (name: string, role: unknown): InvalidPluginError =>
	new InvalidPluginError(
		`Plugin "${name}" called registry.exclude() with ${describeValue(role)}; it takes a role name.`,
		{ plugin: name },
	);

export const badCustomType = (name: string, customType: unknown, role: string): InvalidPluginError =>
	new InvalidPluginError(
		`Plugin "${name}" gave customType ${describeValue(customType)} for role ${JSON.stringify(role)}; customType is a string and applies to role "custom" only.`,
		{ plugin: name, role },
	);

export const duplicateConverter = (name: string, slot: string, existing: string, role: string, customType?: string) =>
	new DuplicateConverterError(
		`Plugin "${name}" registers a converter for ${slot}, which plugin "${existing}" already converts. ` +
			"Pass { override: true } to run it first with the existing one as its fallback, or register it for another role.",
		{ plugin: name, role, customType },
	);

export const prefixBroke = (prefix: Prefix, previousLength: number): PrefixBreakNotice => {
	const by = prefix.cause === "history" ? "the history changed there" : `plugin "${prefix.cause}" changed it`;
	return new PrefixBreakNotice(
		`The prompt prefix breaks at message ${prefix.breakAt} of ${previousLength} sent before (${by}): the provider bills the request from there on as new input again, not as a cached prefix. If a filter moves a window every turn, give it a step (trimToTokens and pruneMessages take \`step\`).`,
		prefix,
		{
			index: prefix.breakAt ?? undefined,
			plugin: prefix.cause === "history" ? undefined : (prefix.cause ?? undefined),
		},
	);
};
