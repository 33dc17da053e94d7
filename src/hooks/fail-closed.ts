/**
 * `registerFailClosed`: registers a hardening converter in front of a role's converters with a dropping
 * fallback behind it, so a failure never falls back to the unsafe built-in; shared by escapeSummaries and safeFences.
 */
import { ConversionError, ConvertToLlmError } from "../errors.js";
import type {
	AgentRole,
	ConvertContext,
	Converter,
	ConverterResult,
	MessageOfRole,
	RegisterOptionsFor,
	Registry,
} from "../registry/types.js";
import { errorText, isInstance } from "../values.js";

/** The name of the converter that ends a hardening plugin's fallback chain for a role. */
export const failClosedName = (plugin: string): string => `${plugin}:fail-closed`;

/** Drops the message: reached only when the hardening converter in front of it failed. */
const dropUnconverted = (): null => null;

/**
 * Registers `convert` for `role` in front of the existing converter(s), so that a failure never falls
 * back to them: the built-in converter a hardening plugin replaces is the unsafe path it exists to avoid.
 *
 * Contract: two overrides are registered, `convert` (named `plugin`) and behind it a converter named
 * {@link failClosedName} that drops every message it is asked about. `convert` must return a result
 * for every message (never `undefined`); when it throws, the registry reports one `ConversionError`
 * naming `plugin` and the input index (thrown in strict mode) and the message is dropped. Overrides
 * registered later still run first, as every override does.
 *
 * @example
 * registerFailClosed(registry, "bashExecution", SAFE_FENCES_PLUGIN, convert);
 */
export function registerFailClosed<R extends AgentRole>(
	registry: Registry,
	role: R,
	plugin: string,
	convert: (message: MessageOfRole<R>, ctx: ConvertContext) => ConverterResult,
): void {
	const failClosed: Converter<R> = (message, ctx) => {
		try {
			return convert(message, ctx);
		} catch (cause) {
			if (isInstance(cause, ConvertToLlmError)) throw cause;
			throw new ConversionError(
				`${plugin} could not convert message ${ctx.index} (role ${JSON.stringify(role)}): ${errorText(cause)}. ` +
					"It was dropped, not left to the built-in converter this plugin replaces; fix what wrote the message.",
				{ role, index: ctx.index, plugin, cause },
			);
		}
	};
	// Equal stages: the later override runs first, so the dropper registered first ends up behind `convert`.
	registry.register(role, dropUnconverted, { name: failClosedName(plugin), override: true } as RegisterOptionsFor<R>);
	registry.register(role, failClosed, { name: plugin, override: true } as RegisterOptionsFor<R>);
}
