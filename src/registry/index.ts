export { createRegistry } from "./create-registry.js";
export type {
	AgentRole,
	ConvertContext,
	Converter,
	ConverterResult,
	ConverterTapOptions,
	CustomRegisterOptions,
	DropReason,
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
export { Stage } from "./types.js";
