export { createRegistry } from "./create-registry.js";
export { passThrough } from "./dispatch.js";
export { Stage } from "./stage.js";
export type {
	AgentRole,
	Conversion,
	ConvertContext,
	Converter,
	ConverterInfo,
	ConverterResult,
	ConverterTapOptions,
	CustomRegisterOptions,
	DropReason,
	ExcludeOptions,
	Explanation,
	HookContext,
	MessageExplanation,
	MessageOfRole,
	MessageSource,
	Plugin,
	RegisterOptions,
	RegisterOptionsFor,
	Registry,
	RegistryHooks,
	RegistryOptions,
	TapExplanation,
} from "./types.js";
