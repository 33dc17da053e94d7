/** The registry entry: `createRegistry`, `passThrough`, `Stage` and the public types. */
export { createRegistry } from "./create-registry.js";
export { passThrough } from "./loop/index.js";
export { Stage } from "./stage.js";
export type {
	AgentRole,
	Conversion,
	ConversionOptions,
	ConvertContext,
	Converter,
	ConverterInfo,
	ConverterResult,
	CustomRegisterOptions,
	DropReason,
	ExcludeOptions,
	Explanation,
	HookContext,
	MessageExplanation,
	MessageOfRole,
	MessageSource,
	Plugin,
	Prefix,
	RegisterOptions,
	RegisterOptionsFor,
	Registry,
	RegistryHooks,
	RegistryOptions,
	SanitizeMessage,
	Sanitizer,
	TapExplanation,
} from "./types.js";
